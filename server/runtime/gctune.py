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
- collects the youngest generation every `GC_YOUNG_MS` too, whatever its count says. The count
  that starts a young collection is allocations less deallocations, and a deallocation counts
  whatever the generation of what is freed: in a hall of idle sockets every wait makes new
  objects (gevent's waiters, callbacks, bound methods) while the last wait's, already promoted,
  are freed, so the count stays near zero while the young generation fills. Measured in an idle
  hall of 5,000 sockets (`python -m bench --long-seconds 180 --tables 2500 --interval 1000000000`):
  a young collection every 5-8 s, each walking about 51,000 live objects for 22-25 ms, a stall
  of every phone's loop each time. Collected every 100 ms instead, each walks what the last
  100 ms made;
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
from collections.abc import Callable, Mapping
from typing import Any

log = logging.getLogger(__name__)

YOUNG = 700  # CPython's default
NEVER = 1_000_000_000
THAW_EVERY = 8  # with GC_FULL_SECONDS=900: the whole heap walked every 2 hours, not 4 times an hour
MIDDLE = NEVER  # CPython's default is 10
DEFAULT_FULL_SECONDS = 900.0  # GC_FULL_SECONDS unset
DEFAULT_YOUNG_MS = 100.0  # GC_YOUNG_MS unset
# What `tune` was last asked for in this process (None: not tuned), for the stall report.
full_every_s: float | None = None
young_every_s: float | None = None


def full_seconds_from_env(environ: Mapping[str, str] | None = None) -> float:
    """GC_FULL_SECONDS, or its default."""
    env = os.environ if environ is None else environ
    return float(env.get("GC_FULL_SECONDS", DEFAULT_FULL_SECONDS))


def young_seconds_from_env(environ: Mapping[str, str] | None = None) -> float:
    """GC_YOUNG_MS in seconds, or its default (0: only when the count says so)."""
    env = os.environ if environ is None else environ
    return float(env.get("GC_YOUNG_MS", DEFAULT_YOUNG_MS)) / 1000


def tune(
    full_every: float, thaw_every: int = THAW_EVERY, young_every: float = 0.0
) -> threading.Event | None:
    """Set the thresholds; start the periodic full collection (none if `full_every` <= 0) and
    the periodic young one (none if `young_every` <= 0). Returns the event that stops them
    (None if neither runs)."""
    global full_every_s, young_every_s
    full_every_s, young_every_s = float(full_every), float(young_every)
    gc.collect()
    # Everything loaded so far (modules, the app) lives as long as the process.
    gc.freeze()
    gc.set_threshold(YOUNG, MIDDLE, NEVER)
    stop = threading.Event()
    threads: list[tuple[Callable[..., None], tuple[Any, ...]]] = []
    if full_every > 0:
        threads.append((_collect_every, (full_every, stop, thaw_every)))
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
