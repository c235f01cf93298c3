"""Give the heap's free pages back to the system after a burst of closed sockets.

glibc's `free` gives memory back only from the top of the heap (and blocks it `mmap`ed itself);
what hundreds of sockets held (their green threads' saved stacks, parser buffers, queues) is
freed in the middle of the heap and stays in the process's RSS (200 spectators that never read
and 300 sockets without hello left the worker 12-15% bigger once all were closed).
`malloc_trim(0)` hands every free page of every arena back (`madvise`). Measured, it gives back
part of that growth (docs/decisions.md: 87.8 → 84.3 MB after the first burst), not all of it.
It stops the worker's loop while it runs (measured 37 ms to give back 98 MB, so a few ms for
the ~10 MB of a burst of sockets), hence at most one trim every `MIN_GAP` seconds.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import threading
import time
from collections.abc import Callable

BURST = 50  # sockets closed since the last trim that call for one
MIN_GAP = 5.0  # seconds, at least, between two trims
DELAY = 1.0  # seconds after the burst: what its last sockets held is freed by then

_trim: Callable[[int], int] | None = None
try:
    _libc = ctypes.CDLL(ctypes.util.find_library("c") or None)
    _trim = _libc.malloc_trim
    _trim.argtypes = [ctypes.c_size_t]
    _trim.restype = ctypes.c_int
except (OSError, AttributeError):  # not glibc (musl, macOS): nothing to trim with
    _trim = None


def malloc_trim() -> bool:
    """Hand the heap's free pages back to the system (glibc's `malloc_trim(0)`); whether any
    memory was released (False where there is no `malloc_trim`)."""
    return bool(_trim(0)) if _trim is not None else False


class Trimmer:
    """Counts closed sockets; after `burst` of them, trims the heap on a thread of its own,
    `delay` seconds later (what the last of them held is freed by then) and at least `gap`
    seconds after the last trim (a longer burst is trimmed again once it is over)."""

    def __init__(
        self,
        burst: int = BURST,
        gap: float = MIN_GAP,
        delay: float = DELAY,
        trim: Callable[[], bool] = malloc_trim,
    ) -> None:
        self.burst, self.gap, self.delay, self.trim = burst, gap, delay, trim
        self._closed = 0
        self._last = -gap
        self._pending = False
        self._lock = threading.Lock()
        self.trims = 0

    def closed(self) -> bool:
        """One socket closed; True when that scheduled a trim."""
        with self._lock:
            self._closed += 1
            if self._closed < self.burst or self._pending:
                return False
            self._pending = True
            wait = max(self.delay, self._last + self.gap - time.monotonic())
        timer = threading.Timer(wait, self._run)
        timer.daemon = True
        timer.start()
        return True

    def _run(self) -> None:
        with self._lock:
            self._closed, self._last, self._pending = 0, time.monotonic(), False
        self.trims += 1
        self.trim()


TRIMMER = Trimmer()
