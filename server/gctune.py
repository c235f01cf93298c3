"""Keep CPython's cycle collector from pausing a busy worker for a second at a time.

A worker holding 2,500 tables holds about 1.2 million objects that live for minutes (the
sockets' greenlets, frames and timers, the tables' states). With the default thresholds every
full collection walks all of them: measured at 2,500 tables, a pause of about 1 s every 20 s,
which was the whole p99 (1,117 ms). Nearly everything dies by reference counting (collections
during a run found 0 cycles), so this:

- collects the young generations more often (`gen1` every 2 young collections instead of 10),
  so each pause walks a few thousand objects, not tens of thousands;
- never starts a full collection on its own; instead one runs every `full_every_s` seconds
  (the cyclic garbage of closed sockets would otherwise stay), whose pause is logged.

Applied to the gunicorn worker only (`server/gunicorn_conf.py`), not to tests.
"""

from __future__ import annotations

import gc
import logging
import threading
import time

log = logging.getLogger(__name__)

YOUNG = 700  # CPython's default
MIDDLE = 2  # CPython's default is 10
NEVER = 1_000_000_000


def tune(full_every_s: float) -> threading.Event | None:
    """Set the thresholds; start the periodic full collection (none if `full_every_s` <= 0).
    Returns the event that stops it."""
    gc.collect()
    # Everything loaded so far (modules, the app) lives as long as the process.
    gc.freeze()
    gc.set_threshold(YOUNG, MIDDLE, NEVER)
    if full_every_s <= 0:
        return None
    stop = threading.Event()
    thread = threading.Thread(target=_collect_every, args=(full_every_s, stop), daemon=True)
    thread.start()
    return stop


def _collect_every(seconds: float, stop: threading.Event) -> None:
    while not stop.wait(seconds):
        started = time.perf_counter()
        found = gc.collect()
        log.info(
            "full collection: %d unreachable objects, %.0f ms",
            found,
            (time.perf_counter() - started) * 1000,
        )
