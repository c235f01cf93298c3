"""Run CPU-heavy calls (password hashing) off the event loop.

Under gunicorn's gevent worker every request shares one OS thread: a 100 ms password hash
there stops every table for 100 ms. `off_loop` runs the call on a small pool of OS threads instead
(hashlib's scrypt and PBKDF2 release the GIL), and simply calls it when gevent is not patched
in (tests, scripts).
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
_pool: Any = None
NICE = 10  # the hashing thread yields the core to the loop's thread when both want one


def off_loop(fn: Callable[..., T], *args: object) -> T:
    """`fn(*args)`, on gevent's thread pool when this process runs on gevent."""
    try:
        from gevent import get_hub, monkey
    except ImportError:  # pragma: no cover - gevent is a dependency
        return fn(*args)
    if not monkey.is_module_patched("threading"):
        return fn(*args)
    global _pool
    if _pool is None:
        from gevent.threadpool import ThreadPool

        get_hub()
        _pool = ThreadPool(THREADS)
    return _pool.apply(_niced, (fn, *args))


def _niced(fn: Callable[..., T], *args: object) -> T:
    """`fn(*args)` at a lower priority than the loop's thread (Linux: per thread)."""
    try:
        tid = threading.get_native_id()
        if os.getpriority(os.PRIO_PROCESS, tid) < NICE:
            os.setpriority(os.PRIO_PROCESS, tid, NICE)
    except (AttributeError, OSError):
        pass
    return fn(*args)
