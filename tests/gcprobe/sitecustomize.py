"""Loaded by a test server's processes when this folder leads PYTHONPATH and `GC_PROBE_DIR` is
set (tests/test_socket_garbage.py): in the worker, the cycle collector keeps what it finds
(`gc.DEBUG_SAVEALL`) and a thread answers questions left in `GC_PROBE_DIR`.

`ask-<n>` (n from 0, in order) is answered by `answer-<n>.json`: after a full collection, the
types of the cyclic garbage found since the last `reset` ask, and the types of the objects
still alive, each counted by its module and name (`{"garbage": {...}, "alive": {...}}`). An
ask whose text is `reset` forgets the garbage found so far first."""

from __future__ import annotations

import os

PROBE = os.environ.get("GC_PROBE_DIR", "")


def _name(o: object) -> str:
    kind = type(o)
    return f"{kind.__module__}.{kind.__qualname__}"


def _answer_asks() -> None:
    import gc
    import json
    import time
    from collections import Counter

    gc.set_debug(gc.DEBUG_SAVEALL)
    n = 0
    while True:
        ask = os.path.join(PROBE, f"ask-{n}")
        if not os.path.exists(ask):
            time.sleep(0.05)
            continue
        with open(ask) as f:
            if f.read().strip() == "reset":
                gc.collect()
                gc.garbage.clear()
        gc.collect()
        found = {id(o) for o in gc.garbage}
        answer = {
            "garbage": Counter(_name(o) for o in gc.garbage),
            "alive": Counter(_name(o) for o in gc.get_objects() if id(o) not in found),
        }
        path = os.path.join(PROBE, f"answer-{n}.json")
        with open(path + ".tmp", "w") as f:
            json.dump(answer, f)
        os.replace(path + ".tmp", path)
        n += 1


def _in_the_worker() -> None:
    # Gunicorn forks the worker from the master before gevent patches anything: this is a
    # real thread, which holds the GIL while it collects.
    import threading

    threading.Thread(target=_answer_asks, daemon=True, name="gc-probe").start()


if PROBE:
    os.register_at_fork(after_in_child=_in_the_worker)
