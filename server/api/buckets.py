"""Token buckets: one per websocket, and a bounded map of them per client address. Nothing
here reads the app: the app's services (`server/api/context.py`) hold a limiter, and the routes'
charge on it is `ratelimit.py`'s."""

from __future__ import annotations

import threading
import time
from collections import OrderedDict, deque
from collections.abc import Callable

PACE_SECONDS = 0.01  # how often the waiting opens are let in, a few at a time


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
        if self.peek(cost):
            self.tokens -= cost
            return True
        return False

    def peek(self, cost: float = 1) -> bool:
        """Whether `cost` tokens are there (nothing spent)."""
        now = self.clock()
        self.tokens = min(self.burst, self.tokens + (now - self.stamp) * self.rate)
        self.stamp = now
        return self.tokens >= cost


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

    def give(self, key: str, cost: float = 1) -> None:
        """Give back `cost` of `key`'s tokens (an open refused further on spends nothing)."""
        with self._lock:
            bucket = self._buckets.get(key)
            if bucket is not None:
                bucket.tokens = min(bucket.burst, bucket.tokens + cost)


class OpenBudget:
    """How many websockets may open, checked before the upgrade: per client address (so one
    address cannot spend the whole budget) or per seat (a seated phone's pass), and in all: at
    most `rate` a second, and none while the worker's loop is more than `max_lag` seconds behind
    (`lag`, the loop's lateness: `server/runtime/lag.py`).

    The address's and the seat's budgets are limits: past them an open is refused at once. The
    total is a pace: an open past it waits its turn, first come first served, up to `max_wait`
    seconds before its upgrade, while a pacer lets the waiting in a few at a time whenever the
    loop has caught up (then refused, as busy). A hall reconnecting after a Wi-Fi blip is let in
    as fast as the loop runs it and no faster: the tables already served keep their round trips,
    and a phone that waits costs nothing, where a refused one comes back and is refused again,
    each time further behind its backoff (docs/performance.md, "The storm let in at the loop's
    pace")."""

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
        max_wait: float = 0.0,
        pace_every: float = PACE_SECONDS,
    ) -> None:
        self._all = TokenBucket(rate, burst, clock)
        self._lock = threading.Lock()
        self._addresses = KeyedLimiter(per_address_rate, per_address_burst, clock=clock)
        # A seated phone's opens (its pass: `server/api/opens.py`): a phone reconnects a few
        # times a minute at most, so a few a second is plenty, and a pass copied off one
        # phone opens no more than that.
        self._seats = KeyedLimiter(per_seat_rate, per_seat_burst, clock=clock)
        self._lag = lag if max_lag > 0 else None
        self.max_lag, self.max_wait, self.pace_every = max_lag, max_wait, pace_every
        # Let in a tick of the pacer, at most: the rate's share of it (a burst saved up while
        # the loop was behind is not let in at once, the moment it has caught up).
        self.per_tick = max(1, int(rate * pace_every))
        self._waiting: deque[threading.Event] = deque()
        self._given_up: set[threading.Event] = set()  # waited `max_wait`, still in the queue
        self._pacer: threading.Thread | None = None
        self.waited = 0  # opens that waited their turn, since the start
        self.behind = 0  # opens refused for the total (none left or the loop behind, in time)

    def admit(self, address: str, seat: str | None = None) -> bool:
        """Spend one open of `address`, or of `seat` (a seated phone's own budget, never its
        address's), and one of the total, waiting up to `max_wait` seconds for the latter;
        False, with nothing spent, when either has none left."""
        own, key = (self._seats, seat) if seat is not None else (self._addresses, address)
        with self._lock:
            if not own.take(key):
                return False
            if not self._waiting and self._free():
                self._all.take()
                return True
            if self.max_wait <= 0:
                own.give(key)
                self.behind += 1
                return False
            turn = threading.Event()
            self._waiting.append(turn)
            self.waited += 1
            if self._pacer is None:
                self._pacer = threading.Thread(target=self._pace, name="open-pacer", daemon=True)
                self._pacer.start()
        if turn.wait(self.max_wait):
            return True
        with self._lock:
            if turn.is_set():  # let in as the wait ended
                return True
            self._given_up.add(turn)  # the pacer drops it (a hall's worth: no search here)
            own.give(key)
            self.behind += 1
        return False

    def _free(self) -> bool:
        """Whether the total lets one in now (the lock held): the loop not behind, and a token."""
        return (self._lag is None or self._lag() <= self.max_lag) and self._all.peek()

    def _pace(self) -> None:
        """Every `pace_every` seconds, let the first waiting in, a tick's share at most, while
        the total lets them; end once none waits."""
        while True:
            time.sleep(self.pace_every)
            with self._lock:
                let_in = 0
                while let_in < self.per_tick and self._waiting and self._free():
                    turn = self._waiting.popleft()
                    if turn in self._given_up:
                        self._given_up.discard(turn)
                        continue
                    self._all.take()
                    turn.set()
                    let_in += 1
                if not self._waiting:
                    self._pacer = None
                    return
