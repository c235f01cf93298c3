"""Long work that walks a whole hall gives the event loop its turn (`server/runtime/loop.py`)."""

from __future__ import annotations

import json
import subprocess
import sys

SCRIPT = """
from gevent import monkey; monkey.patch_all()
import json, time, gevent
from server.runtime.loop import let_loop_run

def slices(pause):
    wakes = []
    def timer():
        while True:
            time.sleep(0.005)
            wakes.append(1)
    g = gevent.spawn(timer)
    gevent.sleep(0.02)
    wakes.clear()
    for _ in range(40):  # 40 slices of 3 ms of work, the loop offered a turn after each
        start = time.perf_counter()
        while time.perf_counter() - start < 0.003:
            pass
        pause()
    g.kill()
    return len(wakes)

print(json.dumps({"let_loop_run": slices(let_loop_run), "sleep0": slices(lambda: time.sleep(0))}))
"""


def test_a_long_walk_lets_the_loops_timers_run_between_its_slices():
    """Under gevent a timer (a socket's ping, the stall monitor, the clock) runs between the
    slices of a long piece of work; `time.sleep(0)` alone would not let it."""
    out = subprocess.run(
        [sys.executable, "-c", SCRIPT], capture_output=True, text=True, timeout=60, check=True
    )
    wakes = json.loads(out.stdout)
    assert wakes["let_loop_run"] >= 20  # about one a slice (40), however busy the machine
    # What the loops did before: the timer mostly waited for the end of the work.
    assert wakes["sleep0"] * 4 < wakes["let_loop_run"]
