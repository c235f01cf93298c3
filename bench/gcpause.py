"""The full collection's pause over ~2,500 tables' worth of long-lived state, in process:
with the heap walked, as the worker's collection in a quiet minute does (`server/runtime/gctune.py`,
`Quiet`), and with it frozen after warm-up, as the worker's heap is at start-up (the 15-minute
collections that froze what survived them each time are gone: docs/performance.md).

    python -m bench.gcpause [--tables 2500]
"""

from __future__ import annotations

import argparse
import copy
import gc
import json
import statistics
import sys
import tempfile
import time
from typing import Any

from server.rules import view
from server.store import EventStore, bind, db, open_database

from .updates import play


def pause_ms(runs: int = 3) -> float:
    times = []
    for _ in range(runs):
        started = time.perf_counter()
        gc.collect()
        times.append((time.perf_counter() - started) * 1000)
    return statistics.median(times)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tables", type=int, default=2500)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        bind(open_database("", tmp))
        store = EventStore(db)
        code = play(store, 10, [])
        state = store.snapshot(code).state
        db.close()
    # Per table: its state, a viewer's decoded view (what the caches and sockets hold), and a
    # few hundred small containers standing in for its sockets' greenlets, frames and timers.
    heap: list[Any] = []

    def build(tables: int) -> None:
        for _ in range(tables):
            heap.append(copy.deepcopy(state))
            heap.append(json.loads(json.dumps(view(state, "A"))))
            heap.append([{"n": i, "pending": [i]} for i in range(150)])

    build(args.tables)
    gc.collect()
    objects = len(gc.get_objects())
    walked = pause_ms()
    gc.freeze()
    frozen = pause_ms()
    build(args.tables // 10)  # what a tenth of the tables made since the freeze
    fresh = pause_ms()
    print(f"{args.tables} tables, {objects:,} objects tracked by the collector")
    print(f"  full collection, heap walked:              {walked:8.1f} ms (median of 3)")
    print(f"  full collection, heap frozen after warm-up: {frozen:8.1f} ms (median of 3)")
    print(f"  the same, a tenth of the tables made since:  {fresh:8.1f} ms (median of 3)")
    gc.unfreeze()
    return 0


if __name__ == "__main__":
    sys.exit(main())
