"""Giving the event loop its turn in the middle of a long piece of work.

Under gevent, `time.sleep(0)` switches to the green threads already woken but neither polls the
sockets nor runs the timers: measured, a 1 s loop of 6 ms slices with `sleep(0)` between them let
a 5 ms timer wake 3 times (306 ms late at worst). A sleep of one microsecond is a pass of the
loop (its timer is due at once): the same loop let it wake 165 times, at most 5 ms late. The work
that walks a whole hall (the time called at every table, a floor feed's flush) calls
`let_loop_run` between its slices. Without gevent it is a plain short sleep.
"""

from __future__ import annotations

import time

PASS_SECONDS = 0.000001


def let_loop_run() -> None:
    """Let the loop poll its sockets and run its timers and woken green threads, then go on."""
    time.sleep(PASS_SECONDS)
