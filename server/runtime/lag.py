"""How far behind the event loop is: the lateness of a green thread that asks to wake every few
milliseconds.

Under gevent every socket of the process waits in one loop. When more work is ready than the
loop can run at once, each green thread waits for the ones woken before it: the probe's sleep of
`every` seconds, and the turn it then asks for (a sleep of 0: the queue a socket's writer waits
in once handed a message), end `behind()` seconds late. That lateness is what a pong of a table
already served waits in that moment, whatever the work in front of it is, so a websocket open
waits its turn while it is over a bound (`server/api/buckets.py: OpenBudget`): a hall
reconnecting at once is let in as fast as the loop runs it, not faster (docs/performance.md,
"The storm let in at the loop's pace")."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

PROBE_SECONDS = 0.01


class LoopLag:
    """The loop's lateness, measured by a daemon thread (a green thread under gevent) started by
    the first `behind()` in the process that serves (never before a fork)."""

    def __init__(
        self,
        every: float = PROBE_SECONDS,
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self.every = every
        self.clock = clock
        self.sleep = sleep
        self.late = 0.0  # how late the last wake was, seconds
        self.due: float | None = None  # when the probe's current sleep should end
        self._thread: threading.Thread | None = None
        self._lock = threading.Lock()

    def behind(self) -> float:
        """Seconds the loop is behind now: the last wake's lateness, or the probe's own while it
        is overdue (a loop busy for a while has not let it wake yet)."""
        if self._thread is None:
            self.start()
        due = self.due
        overdue = 0.0 if due is None else self.clock() - due
        return max(self.late, overdue)

    def start(self) -> None:
        with self._lock:
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, name="loop-lag", daemon=True)
                self._thread.start()

    def probe(self) -> float:
        """One sleep of `every`; its lateness, also kept as `late`."""
        start = self.clock()
        self.due = start + self.every
        self.sleep(self.every)
        # A timer's wake runs within a few ms however busy the loop is (gevent polls and runs
        # its timers every switch interval); a green thread woken by another (a socket's writer
        # handed a message, a welcome to build) waits in the loop's queue of callbacks behind
        # every one woken before it. A sleep of 0 is such a wake: its wait is that queue's.
        self.sleep(0)
        woke = self.clock()
        self.late = max(0.0, woke - start - self.every)
        self.due = None
        return self.late

    def _run(self) -> None:
        while True:
            self.probe()


LOOP_LAG = LoopLag()  # the process's one probe, started by the first open it is asked about
