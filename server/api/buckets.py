"""Token buckets: one per websocket, and a bounded map of them per client address. Nothing
here reads the app: the app's services (`server/api/context.py`) hold a limiter, and the routes'
charge on it is `ratelimit.py`'s."""

from __future__ import annotations

import threading
import time
from collections import OrderedDict
from collections.abc import Callable


class TokenBucket:
    """`rate` tokens a second, at most `burst` saved up; each message spends one."""

    def __init__(
        self, rate: float, burst: float, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self.rate = rate
        self.burst = burst
        self.tokens = burst
        self.clock = clock
        self.stamp = clock()

    def take(self, cost: float = 1) -> bool:
        """Spend `cost` tokens if there are as many (none otherwise)."""
        now = self.clock()
        self.tokens = min(self.burst, self.tokens + (now - self.stamp) * self.rate)
        self.stamp = now
        if self.tokens >= cost:
            self.tokens -= cost
            return True
        return False


class KeyedLimiter:
    """A token bucket per key (a client address), the least recently seen dropped first."""

    def __init__(
        self,
        rate: float,
        burst: float,
        max_keys: int = 100_000,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.rate, self.burst, self.max_keys, self.clock = rate, burst, max_keys, clock
        self._buckets: OrderedDict[str, TokenBucket] = OrderedDict()
        self._lock = threading.Lock()

    def take(self, key: str, cost: float = 1) -> bool:
        """Spend `cost` of `key`'s tokens if it has as many."""
        with self._lock:
            bucket = self._buckets.get(key)
            if bucket is None:
                bucket = self._buckets[key] = TokenBucket(self.rate, self.burst, self.clock)
                if len(self._buckets) > self.max_keys:
                    self._buckets.popitem(last=False)
            else:
                self._buckets.move_to_end(key)
            return bucket.take(cost)


class OpenBudget:
    """How many websockets may open a second, checked before the upgrade: in all (what the
    worker's loop can take on while it keeps serving the sockets it has) and per client address
    (so one address cannot spend the whole budget). A hall's phones share the venue's address,
    so the per-address budget is most of the total: a whole hall reconnecting after a Wi-Fi
    blip comes back at the budget's rate, each refused phone retrying after its backoff
    (docs/performance.md, "A whole hall reconnecting").

    And none while the worker's loop is more than `max_lag` seconds behind (`lag`, the loop's
    lateness: `server/runtime/lag.py`): an open admitted then is a hello and a whole state to
    send, run before the pings of the tables already served. The hall comes back as fast as
    the loop runs it, not faster (docs/performance.md, "The storm let in at the loop's pace")."""

    def __init__(
        self,
        rate: float,
        burst: float,
        per_address_rate: float,
        per_address_burst: float,
        clock: Callable[[], float] = time.monotonic,
        per_seat_rate: float = 1.0,
        per_seat_burst: float = 5.0,
        lag: Callable[[], float] | None = None,
        max_lag: float = 0.0,
    ) -> None:
        self._all = TokenBucket(rate, burst, clock)
        self._lag = lag if max_lag > 0 else None
        self.max_lag = max_lag
        self.behind = 0  # opens refused because the loop was behind, since the start
        self._lock = threading.Lock()
        self._addresses = KeyedLimiter(per_address_rate, per_address_burst, clock=clock)
        # A seated phone's opens (its pass: `server/api/opens.py`): a phone reconnects a few
        # times a minute at most, so a few a second is plenty, and a pass copied off one
        # phone opens no more than that.
        self._seats = KeyedLimiter(per_seat_rate, per_seat_burst, clock=clock)

    def admit(self, address: str, seat: str | None = None) -> bool:
        """Spend one open of the total and of `address`, or of `seat` (a seated phone's own
        budget, never its address's); False, with nothing spent, when either has none left
        or the loop is behind."""
        if self._lag is not None and self._lag() > self.max_lag:
            self.behind += 1
            return False
        with self._lock:
            if not self._all.take():
                return False
            if seat is not None and self._seats.take(seat):
                return True
            if seat is None and self._addresses.take(address):
                return True
            self._all.tokens += 1  # the address had none: the total's token is not spent
            return False
