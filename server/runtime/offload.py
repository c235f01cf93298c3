"""Run CPU-heavy calls (password hashing) off the event loop.

Under gunicorn's gevent worker every request shares one OS thread: a 100 ms password hash
there stops every table for 100 ms. An `Offload` runs the call on a small pool of OS threads
instead (hashlib's scrypt and PBKDF2 release the GIL), and simply calls it when gevent is not
patched in (tests, scripts). Each app has its own (`Services.offload`), closed with it.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable
from typing import Any, TypeVar

T = TypeVar("T")
# Hashes at once: each takes a core for ~100 ms; more would leave the loop's own thread waiting
# for a core (measured: 8 at once on 2 cores delayed another table's pong by 0.3 s).
THREADS = 1
NICE = 10  # the hashing thread yields the core to the loop's thread when both want one


class Offload:
    """A pool of `threads` OS threads for CPU-heavy calls, made on first use under gevent."""

    def __init__(self, threads: int = THREADS) -> None:
        self.threads = threads
        self._pool: Any = None
        self._lock = threading.Lock()

    def run(self, fn: Callable[..., T], *args: object) -> T:
        """`fn(*args)`, on this pool when this process runs on gevent."""
        try:
            from gevent import get_hub, monkey
        except ImportError:  # pragma: no cover - gevent is a dependency
            return fn(*args)
        if not monkey.is_module_patched("threading"):
            return fn(*args)
        with self._lock:
            if self._pool is None:
                from gevent.threadpool import ThreadPool

                get_hub()
                self._pool = ThreadPool(self.threads)
            pool = self._pool
        result: T = pool.apply(_niced, (fn, *args))
        return result

    def close(self) -> None:
        """Stop the pool's threads (a later call makes a new pool)."""
        with self._lock:
            pool, self._pool = self._pool, None
        if pool is not None:
            pool.kill()


def _niced(fn: Callable[..., T], *args: object) -> T:
    """`fn(*args)` at a lower priority than the loop's thread (Linux: per thread)."""
    try:
        tid = threading.get_native_id()
        if os.getpriority(os.PRIO_PROCESS, tid) < NICE:
            os.setpriority(os.PRIO_PROCESS, tid, NICE)
    except (AttributeError, OSError):
        pass
    return fn(*args)
