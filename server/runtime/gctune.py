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
- never starts a middle or full collection on its own; instead a full one runs every
  `GC_FULL_SECONDS` (the cyclic garbage of closed sockets would otherwise stay), whose pause is
  logged;
- freezes what survives each periodic full collection (`gc.freeze()`), so the next one walks
  only what was made since, not the long-lived heap again: measured in process over 2,500
  tables' worth of state (1.4 million objects, `python -m bench.gcpause`), 366 ms walked, 25 ms
  with the heap frozen and a tenth of it made since. A frozen object is never collected, so
  cycles that die after being frozen would stay: every `thaw_every`-th round unfreezes first
  and walks everything (the old pause, but once every `thaw_every` rounds, not every round).

Applied to the gunicorn worker (`server/gunicorn_conf.py`) and the bench's clients, not to tests.
"""

from __future__ import annotations

import gc
import logging
import os
import threading
import time
from collections.abc import Mapping

log = logging.getLogger(__name__)

YOUNG = 700  # CPython's default
NEVER = 1_000_000_000
THAW_EVERY = 8  # with GC_FULL_SECONDS=900: the whole heap walked every 2 hours, not 4 times an hour
MIDDLE = NEVER  # CPython's default is 10
DEFAULT_FULL_SECONDS = 900.0  # GC_FULL_SECONDS unset
# What `tune` was last asked for in this process (None: not tuned), for the stall report.
full_every_s: float | None = None


def full_seconds_from_env(environ: Mapping[str, str] | None = None) -> float:
    """GC_FULL_SECONDS, or its default."""
    env = os.environ if environ is None else environ
    return float(env.get("GC_FULL_SECONDS", DEFAULT_FULL_SECONDS))


def tune(full_every: float, thaw_every: int = THAW_EVERY) -> threading.Event | None:
    """Set the thresholds; start the periodic full collection (none if `full_every` <= 0).
    Returns the event that stops it."""
    global full_every_s
    full_every_s = float(full_every)
    gc.collect()
    # Everything loaded so far (modules, the app) lives as long as the process.
    gc.freeze()
    gc.set_threshold(YOUNG, MIDDLE, NEVER)
    if full_every <= 0:
        return None
    stop = threading.Event()
    thread = threading.Thread(
        target=_collect_every, args=(full_every, stop, thaw_every), daemon=True
    )
    thread.start()
    return stop


def _collect_every(seconds: float, stop: threading.Event, thaw_every: int) -> None:
    rounds = 0
    while not stop.wait(seconds):
        rounds += 1
        thaw = thaw_every > 0 and rounds % thaw_every == 0
        started = time.perf_counter()
        if thaw:
            gc.unfreeze()
        found = gc.collect()
        gc.freeze()  # what survived lives on: the next round walks only what is new
        log.info(
            "full collection%s: %d unreachable objects, %.0f ms, %d frozen",
            " (all, thawed)" if thaw else "",
            found,
            (time.perf_counter() - started) * 1000,
            gc.get_freeze_count(),
        )
