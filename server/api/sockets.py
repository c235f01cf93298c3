"""Who holds which sockets in this process (`Sessions`): per client address, spectators per
table, live sockets per seat (the oldest is closed) and a seat's message budget shared by its
sockets. One per app, built by `create_app` (`Services.sessions`)."""

from __future__ import annotations

import threading
from collections import OrderedDict, deque
from typing import Any, Protocol

from server.runtime.lag import LOOP_LAG

from .buckets import OpenBudget, TokenBucket
from .keepalive import CLOSE_POLICY


class Held(Protocol):
    """A socket a seat holds (`server/api/session.py: Session`)."""

    def cut_off(self, code: int, reason: str) -> None: ...


class Sessions:
    """Who holds which sockets in this process: per client address, spectators per table,
    live sockets per seat (a phone and its reconnect), and each seat's message budget.

    A hall's phones share one address (the venue's Wi-Fi behind one NAT), so the address
    ceilings count only the anonymous: a socket before its hello, and a spectator (at most
    `WS_MAX_SPECTATORS_PER_ADDRESS` of them, below `WS_MAX_PER_ADDRESS`, so spectators never
    fill it). A socket whose hello proves a seat or a staff login leaves the address's count:
    it is bounded by its seat (`WS_MAX_PER_SEAT`) or its login instead."""

    def __init__(self, config: dict[str, Any]) -> None:
        self.per_address = config["WS_MAX_PER_ADDRESS"]
        self.spectators_per_address = config["WS_MAX_SPECTATORS_PER_ADDRESS"]
        self._watchers: dict[str, int] = {}
        self.spectators_per_table = config["WS_MAX_SPECTATORS_PER_TABLE"]
        self.per_seat = config["WS_MAX_PER_SEAT"]
        self.rate, self.burst = config["WS_RATE_PER_SECOND"], config["WS_RATE_BURST"]
        self._lock = threading.Lock()
        self._addresses: dict[str, int] = {}
        self._spectators: dict[str, int] = {}
        self._seats: dict[tuple[str, str], deque[Held]] = {}
        self._buckets: OrderedDict[tuple[str, str], tuple[TokenBucket, TokenBucket]] = OrderedDict()
        self.opens = OpenBudget(
            config["WS_OPENS_PER_SECOND"],
            config["WS_OPENS_BURST"],
            config["WS_OPENS_PER_ADDRESS_PER_SECOND"],
            config["WS_OPENS_PER_ADDRESS_BURST"],
            lag=LOOP_LAG.behind,
            max_lag=config["WS_OPENS_MAX_LAG_MS"] / 1000,
            max_wait=config["WS_OPENS_MAX_WAIT_SECONDS"],
        )

    def _take(self, counts: dict[str, int], key: str, limit: int) -> bool:
        """Count one more for `key` in `counts`; False (not counted) when it has `limit`."""
        with self._lock:
            n = counts.get(key, 0)
            if n >= limit:
                return False
            counts[key] = n + 1
            return True

    def _give(self, counts: dict[str, int], key: str) -> None:
        """Count one less for `key` in `counts`."""
        with self._lock:
            n = counts.get(key, 0) - 1
            if n > 0:
                counts[key] = n
            else:
                counts.pop(key, None)

    def open(self, address: str) -> bool:
        """Count a socket from `address`; False (not counted) when it has its share."""
        return self._take(self._addresses, address, self.per_address)

    def close(self, address: str) -> None:
        self._give(self._addresses, address)

    def spectate(self, address: str) -> bool:
        """Count a spectator from `address`; False when the address has its share."""
        return self._take(self._watchers, address, self.spectators_per_address)

    def unspectate(self, address: str) -> None:
        self._give(self._watchers, address)

    def watch(self, code: str) -> bool:
        """Count a spectator of table `code`; False when the table has its share."""
        return self._take(self._spectators, code, self.spectators_per_table)

    def unwatch(self, code: str) -> None:
        self._give(self._spectators, code)

    def sit(self, code: str, seat: str, conn: Held) -> None:
        """Add a seat's socket; the oldest of its sockets past the limit is closed."""
        with self._lock:
            held = self._seats.setdefault((code, seat), deque())
            held.append(conn)
            older = [held.popleft() for _ in range(max(0, len(held) - self.per_seat))]
        for old in older:
            old.cut_off(CLOSE_POLICY, "replaced by a newer connection")

    def stand(self, code: str, seat: str, conn: Held) -> None:
        with self._lock:
            held = self._seats.get((code, seat))
            if held is None:
                return
            if conn in held:
                held.remove(conn)
            if not held:
                del self._seats[(code, seat)]

    def seated(self, code: str, seat: str) -> bool:
        """Whether a socket of the seat is open in this process."""
        with self._lock:
            return bool(self._seats.get((code, seat)))

    def seat_buckets(self, code: str, seat: str) -> tuple[TokenBucket, TokenBucket]:
        """The seat's message budget, shared by all of its sockets: (answered, refusals)."""
        key = (code, seat)
        with self._lock:
            found = self._buckets.get(key)
            if found is None:
                found = self._buckets[key] = (
                    TokenBucket(self.rate, self.burst),
                    TokenBucket(self.rate, self.burst),
                )
                if len(self._buckets) > 50_000:
                    self._buckets.popitem(last=False)
            else:
                self._buckets.move_to_end(key)
            return found
