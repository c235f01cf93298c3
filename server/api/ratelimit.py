"""Token buckets: one per websocket, and a bounded map of them per client address; and the
HTTP routes' charge on the app's per-address limiter."""

from __future__ import annotations

import threading
import time
from collections import OrderedDict
from collections.abc import Callable

from flask import g, request

from server.api.context import services
from server.core.errors import AppError


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


def _take(cost: int, key: str | None = None) -> None:
    if not services().http_limiter.take(key or request.remote_addr or "?", max(1, cost)):
        raise AppError("rate_limited", "Too many requests; try again shortly.", status=429)


def charge(cost: int = 1, key: str | None = None) -> None:
    """Spend `cost` of the HTTP tokens of `key` (a seat's or a login's budget, see
    `access.budget_key`), else of the client address (429 when it has not as many); the
    route's own `rate_limit` then charges nothing more for this request."""
    _take(cost, key)
    g.rate_charged = True


def rate_limit(cost: int = 1) -> None:
    """Refuse a client address that asks too fast (codes are not guessable): the HTTP limiter
    shared by the table routes, when the app has one; a look-up of several tables costs one
    token per table. Free when the access check has charged the request already."""
    if g.get("rate_charged"):
        return  # charged by the access check (`charge`)
    _take(cost)
