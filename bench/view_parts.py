"""A table's update built from the parts sent before it, against one built from nothing.

    PYTHONPATH=. .venv/bin/python -m bench.view_parts

Two moments of a table whose seats registered their deck lists, its duel under way: time
called (the timer's tick: every table of a round in the same second) and an ordinary command
(`lp.propose`). For each, the shared parts and both seats' parts of the state after it, built
as the app builds them (`ViewTexts.parts`): from what the seats' sockets were last sent (a part
whose fields are unchanged is taken as it was), and from nothing (every part built and
encoded). Prints the best of 7 x 2,000 of each, per table, and their ratio
(docs/decisions.md, "The view in parts").
"""

from __future__ import annotations

import sys
import timeit
from pathlib import Path
from typing import Any


def moments() -> list[tuple[str, Any, Any]]:
    """(name, the state before, the state after) for each moment measured."""
    root = Path(__file__).resolve().parent.parent
    sys.path.insert(0, str(root))
    from tests.test_rules_registration import registered

    t = registered().start_clock()
    t.start_duel("A")
    before = t.state
    t.propose("A", ("B", "damage", 100))
    proposed = t.state
    deadline = before.clock.deadline_ms
    assert deadline is not None
    t.advance(deadline - t.now + 1000).tick()
    return [("time called", proposed, t.state), ("lp.propose", before, proposed)]


def per_table(before: Any, after: Any, from_last: bool) -> float:
    """Seconds to build the shared and both seats' parts of `after`, best of 7 x 2,000."""
    from server.api.encoding import ViewTexts
    from tests.test_view_parts import Snap  # a snapshot as the edge holds it

    sent = ViewTexts()
    last = {seat: sent.parts(Snap(before, 1), seat, False, {}) for seat in ("A", "B")}

    def build() -> None:
        views, snap = ViewTexts(), Snap(after, 2)
        for seat in ("A", "B"):
            views.parts(snap, seat, False, last[seat] if from_last else {})

    return min(timeit.repeat(build, number=2000, repeat=7)) / 2000


def main() -> None:
    for name, before, after in moments():
        fresh = per_table(before, after, from_last=False)
        taken = per_table(before, after, from_last=True)
        print(
            f"{name}: from nothing {fresh * 1e6:.1f} us a table, from the last parts "
            f"{taken * 1e6:.1f} us ({taken / fresh:.2f}x)"
        )


if __name__ == "__main__":
    main()
