"""Keep CPython's cycle collector from pausing a busy worker for a second at a time.

A worker holding 2,500 tables holds about 1.2 million objects that live for minutes (the
sockets' greenlets, frames and timers, the tables' states). With the default thresholds every
full collection walks all of them: measured at 2,500 tables, a pause of about 1 s every 20 s,
which was the whole p99 (1,117 ms). Nearly everything dies by reference counting (collections
during a run found 0 cycles), so this:

- collects only the youngest generation on its own: that is where the cycles that opening
  sockets leaves are found (about 170,000 objects while 2,500 tables connected; none in the
  minute of commands after). The middle generation found 9 objects in the same run, yet each
  of its collections (1.7 a second, every second young one) walked every survivor since the
  last: 6 ms p50, 10 ms max, the worker's longest regular pauses (with it off, the loop's
  stalls over 5 ms went from about 27 to 14 per 10 s);
- never starts a middle or full collection on its own. A full collection stops every socket of
  the worker while it walks the whole heap (at 2,500 tables: 3,090 ms and 1,822 ms in the
  30-minute run, `python -m bench --long`, when one ran every 15 minutes, finding 0 objects the
  second time). Closed sockets left cycles (a thousand tables' phones dropped and back:
  191,075 objects, 98 a socket), now broken where they were made (tests/test_socket_garbage.py);
  for whatever cycles are left, one is due every `GC_FULL_SECONDS` and waits for a quiet
  minute: one whose table turns are at most a tenth of the busiest minute's since the last
  (the break between rounds), or for 4 times that interval if the hall never rests. Its pause is
  logged. Collecting and freezing every 10 s instead (a collection of only what is new) was
  measured and is worse: each walked the objects the last seconds made that still lived, 115-717
  ms every 10 s at 2,500 tables;
- collects the youngest generation every `GC_YOUNG_MS` too, whatever its count says. The count
  that starts a young collection is allocations less deallocations, and a deallocation counts
  whatever the generation of what is freed: in a hall of idle sockets every wait makes new
  objects (gevent's waiters, callbacks, bound methods) while the last wait's, already promoted,
  are freed, so the count stays near zero while the young generation fills. Measured in an idle
  hall of 5,000 sockets (`python -m bench --long-seconds 180 --tables 2500 --interval 1000000000`):
  a young collection every 5-8 s, each walking about 51,000 live objects for 22-25 ms, a stall
  of every phone's loop each time. Collected every 100 ms instead, each walks what the last
  100 ms made.

Applied to the gunicorn worker (`server/gunicorn_conf.py`) and the bench's clients, not to tests.
"""

from __future__ import annotations

import gc
import logging
import os
import threading
import time
from collections import deque
from collections.abc import Callable, Mapping
from typing import Any

log = logging.getLogger(__name__)

YOUNG = 700  # CPython's default
NEVER = 1_000_000_000
MIDDLE = NEVER  # CPython's default is 10
DEFAULT_FULL_SECONDS = 3600.0  # GC_FULL_SECONDS unset
DEFAULT_YOUNG_MS = 100.0  # GC_YOUNG_MS unset
QUIET_WINDOW_S = 60.0  # activity is measured over this long
QUIET_SHARE = 0.1  # quiet: at most this share of the busiest window's activity since the last
OVERDUE = 4  # a full collection runs anyway this many intervals after the last
SAMPLE_S = 5.0  # how often the activity is read
# What `tune` was last asked for in this process (None: not tuned), for the stall report.
full_every_s: float | None = None
young_every_s: float | None = None
# Table turns taken in this process (`EventStore.turn` calls `turn_taken`): how busy the hall is.
_turns = 0


def turn_taken() -> None:
    global _turns
    _turns += 1


def turns_taken() -> int:
    return _turns


def full_seconds_from_env(environ: Mapping[str, str] | None = None) -> float:
    """GC_FULL_SECONDS, or its default."""
    env = os.environ if environ is None else environ
    return float(env.get("GC_FULL_SECONDS", DEFAULT_FULL_SECONDS))


def young_seconds_from_env(environ: Mapping[str, str] | None = None) -> float:
    """GC_YOUNG_MS in seconds, or its default (0: only when the count says so)."""
    env = os.environ if environ is None else environ
    return float(env.get("GC_YOUNG_MS", DEFAULT_YOUNG_MS)) / 1000


def tune(
    full_every: float,
    young_every: float = 0.0,
    activity: Callable[[], int] = turns_taken,
    sample_s: float = SAMPLE_S,
    window_s: float = QUIET_WINDOW_S,
) -> threading.Event | None:
    """Set the thresholds; start the full collection that waits for a quiet window (none if
    `full_every` <= 0) and the periodic young one (none if `young_every` <= 0). `activity`:
    a count that grows with the work done (by default the tables' turns).
    Returns the event that stops them (None if neither runs)."""
    global full_every_s, young_every_s
    full_every_s, young_every_s = float(full_every), float(young_every)
    gc.collect()
    # Everything loaded so far (modules, the app) lives as long as the process.
    gc.freeze()
    gc.set_threshold(YOUNG, MIDDLE, NEVER)
    stop = threading.Event()
    threads: list[tuple[Callable[..., None], tuple[Any, ...]]] = []
    if full_every > 0:
        quiet = Quiet(full_every, window_s, activity)
        threads.append((_collect_when_quiet, (quiet, sample_s, stop)))
    if young_every > 0:
        threads.append((_collect_young_every, (young_every, stop)))
    for target, args in threads:
        threading.Thread(target=target, args=args, daemon=True).start()
    return stop if threads else None


def young_every_ms() -> float | None:
    """What `tune` was last asked for as GC_YOUNG_MS (None: not tuned), for the stall report."""
    return None if young_every_s is None else round(young_every_s * 1000, 3)


def _collect_young_every(seconds: float, stop: threading.Event) -> None:
    while not stop.wait(seconds):
        gc.collect(0)


class Quiet:
    """When a full collection is due and the worker is quiet enough for its pause.

    `sample(now)` reads the activity; `due(now)` says whether to collect now: `every` seconds
    after the last collection once the last `window` seconds' activity is at most
    `QUIET_SHARE` of the busiest window's since the last collection, and `OVERDUE` times
    `every` after it whatever the activity."""

    def __init__(self, every: float, window: float, activity: Callable[[], int]) -> None:
        self.every, self.window, self.activity = every, window, activity
        self.samples: deque[tuple[float, int]] = deque()
        self.last = time.monotonic()
        self.busiest = 0

    def sample(self, now: float) -> None:
        self.samples.append((now, self.activity()))
        while now - self.samples[0][0] > self.window:
            self.samples.popleft()
        self.busiest = max(self.busiest, self.recent())

    def recent(self) -> int:
        """The activity within the last window."""
        return self.samples[-1][1] - self.samples[0][1] if self.samples else 0

    def due(self, now: float) -> bool:
        since = now - self.last
        if since < self.every:
            return False
        return since >= OVERDUE * self.every or self.recent() <= QUIET_SHARE * self.busiest

    def collected(self, now: float) -> None:
        self.last = now
        self.busiest = self.recent()


def _collect_when_quiet(quiet: Quiet, sample_s: float, stop: threading.Event) -> None:
    while not stop.wait(sample_s):
        now = time.monotonic()
        quiet.sample(now)
        if not quiet.due(now):
            continue
        started = time.perf_counter()
        found = gc.collect()
        quiet.collected(time.monotonic())
        log.info(
            "full collection: %d unreachable objects, %.0f ms, %d turns in the last %.0f s "
            "(busiest %d)",
            found,
            (time.perf_counter() - started) * 1000,
            quiet.recent(),
            quiet.window,
            quiet.busiest,
        )
