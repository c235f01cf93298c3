"""Login throttling: exponential back-off per client address and per account and address.

Each failed login counts against the address it came from and against the pair of the
account's name and that address. Past a few free failures each key is locked for
`LOGIN_BACKOFF_SECONDS` doubled at every further failure (capped at
`LOGIN_MAX_BACKOFF_SECONDS`); a login to a locked key is refused before any password is
hashed: `429 login_throttled` with `Retry-After`. A good login clears its keys. Failures are
forgotten after a quiet `LOGIN_MAX_BACKOFF_SECONDS`.

No key is the account's alone: a guesser who locked their own address out cannot lock the
organiser out from another one. A guesser spread over many addresses is bounded by each
address's back-off: per address, `LOGIN_FREE_FAILURES_PER_ACCOUNT` guesses at one account and
`LOGIN_FREE_FAILURES_PER_ADDRESS` in all before the doubling starts, then a handful more an
hour (docs/security.md has the figures). The addresses are the ones `PROXY_COUNT` trusts.

Kept in the process (one dict): with several workers (`WEB_CONCURRENCY`) an attacker gets that
many times the allowance, which the doubling still makes hopeless (docs/decisions.md).
"""

from __future__ import annotations

import math
import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

MAX_KEYS = 100_000


@dataclass
class _Record:
    failures: int = 0
    locked_until: float = 0.0
    last: float = 0.0


def login_keys(username: str, address: str) -> list[str]:
    """The keys a login counts against: its address, and its account from that address."""
    return [f"pair:{username.lower()}|{address}", f"address:{address}"]


class LoginThrottle:
    """Failures and lock-outs per key ("pair:<name>|<ip>", "address:<ip>"; "account:<name>"
    takes the pair's allowance)."""

    def __init__(self, config: dict[str, Any], clock: Callable[[], float] = time.monotonic):
        per_account = config["LOGIN_FREE_FAILURES_PER_ACCOUNT"]
        self.free = {
            "pair": per_account,
            "account": per_account,
            "address": config["LOGIN_FREE_FAILURES_PER_ADDRESS"],
        }
        self.base = config["LOGIN_BACKOFF_SECONDS"]
        self.cap = config["LOGIN_MAX_BACKOFF_SECONDS"]
        self.clock = clock
        self._lock = threading.Lock()
        self._records: OrderedDict[str, _Record] = OrderedDict()

    def _get(self, key: str, now: float) -> _Record | None:
        record = self._records.get(key)
        if record is not None and now - record.last > self.cap and now >= record.locked_until:
            del self._records[key]
            return None
        return record

    def wait(self, keys: list[str]) -> float:
        """Seconds until a login may be tried for all of `keys` (0: now)."""
        now = self.clock()
        with self._lock:
            found = [r for r in (self._get(k, now) for k in keys) if r is not None]
            return max([r.locked_until - now for r in found] + [0.0])

    def attempt(self, keys: list[str]) -> float:
        """Count a login about to be checked as a failure up front; seconds to wait (0: go on).

        Counting before the password is hashed, not after, means guesses sent together cannot
        all pass the check while the first ones are still being hashed: the attempt that goes
        past the free allowance is checked and locks the keys for the ones behind it. A good
        login then clears the keys (`succeeded`); a bad one needs nothing more.
        """
        wait = self.wait(keys)
        if wait > 0:
            return wait
        self.failed(keys)
        return 0.0

    def failed(self, keys: list[str]) -> float:
        """Count a failure against each key; the longest lock it set, in seconds."""
        now = self.clock()
        longest = 0.0
        with self._lock:
            for key in keys:
                record = self._get(key, now)
                if record is None:
                    record = self._records[key] = _Record()
                    if len(self._records) > MAX_KEYS:
                        self._records.popitem(last=False)
                record.failures += 1
                record.last = now
                over = record.failures - self.free[key.split(":", 1)[0]]
                if over > 0:
                    lock = min(self.cap, self.base * 2 ** min(over - 1, 30))
                    record.locked_until = now + lock
                    longest = max(longest, lock)
        return longest

    def succeeded(self, keys: list[str]) -> None:
        with self._lock:
            for key in keys:
                self._records.pop(key, None)


def retry_after(seconds: float) -> str:
    """The `Retry-After` header's value: whole seconds, at least 1."""
    return str(max(1, math.ceil(seconds)))
