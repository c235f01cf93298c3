"""Time the rules core of two commits in one process: the replay of the scripted 3-duel match of
`tests/twokey_script.py` (`apply` for every event) and the whole script's commands (`decide`
then `apply`, refusals included), the views of every viewer after every event, and the hot
path alone: LP entries proposed and confirmed, per entry.

    PYTHONPATH=. .venv/bin/python -m tests.twokey_timing [BASE_COMMIT]

BASE_COMMIT's `server/rules/` is copied into a temporary package, so both run side by side,
interleaved, under the same conditions; the best of several repeats of the process's CPU time
is reported, and a second copy of the base (the control) shows the noise of the measure."""

from __future__ import annotations

import importlib
import random
import subprocess
import sys
import tempfile
import time
import timeit
from pathlib import Path
from types import ModuleType
from typing import Any

from tests.twokey_script import SCRIPTS, T0, VIEWERS, play

ROOT = Path(__file__).resolve().parent.parent
CPU = time.process_time  # the process's own CPU time: less disturbed by a busy machine


def rules_at(commit: str, where: Path, name: str = "before") -> ModuleType:
    """`server/rules` as it was at ``commit``, imported as the package ``rules_<name>``."""
    name = f"rules_{name}"
    pkg = where / name
    pkg.mkdir(parents=True)
    files = subprocess.run(
        ["git", "ls-tree", "--name-only", f"{commit}:server/rules"],
        cwd=ROOT,
        check=True,
        capture_output=True,
        text=True,
    ).stdout.split()
    for f in files:
        if f.endswith(".py"):
            text = subprocess.run(
                ["git", "show", f"{commit}:server/rules/{f}"],
                cwd=ROOT,
                check=True,
                capture_output=True,
                text=True,
            ).stdout
            (pkg / f).write_text(text)
    sys.path.insert(0, str(where))
    return importlib.import_module(name)


def _states(rules: ModuleType, events: list[Any]) -> list[Any]:
    """The state after each event of the log."""
    out, state = [], rules.EMPTY
    for e in events:
        state = rules.apply(state, e)
        out.append(state)
    return out


LP_ENTRIES = 20


def _lp_entries(rules: ModuleType, state: Any) -> Any:
    """The hot path: LP entries proposed by A and confirmed by B (`decide`, then `apply`)."""
    a, b = rules.Actor("seat", "A", "a"), rules.Actor("seat", "B", "b")
    change = {"changes": [{"seat": "B", "kind": "damage", "amount": 1}]}
    for _ in range(LP_ENTRIES):
        for e in rules.decide(state, "lp.propose", change, a, T0, random.randrange):
            state = rules.apply(state, e)
        entry = {"entry": state.pending[0].entry}
        for e in rules.decide(state, "lp.confirm", entry, b, T0, random.randrange):
            state = rules.apply(state, e)
    return state


def _views(rules: ModuleType, states: list[Any]) -> None:
    """What every kind of viewer receives, after every event."""
    for state in states:
        for seat, privileged in VIEWERS:
            rules.view(state, seat, privileged)


def main() -> None:
    base = sys.argv[1] if len(sys.argv) > 1 else "main"
    import server.rules as current

    with tempfile.TemporaryDirectory() as tmp:
        before = rules_at(base, Path(tmp) / "a")
        # A second copy of the same code: the ratio it gets is the noise of the measure.
        control = rules_at(base, Path(tmp) / "b", "control")
        for script in SCRIPTS:
            _, log = play(current, script)
            dicts = [e.to_dict() for e in log]
            logs = {
                "before": (before, [before.Event.from_dict(d) for d in dicts]),
                "control": (control, [control.Event.from_dict(d) for d in dicts]),
                "after": (current, [current.Event.from_dict(d) for d in dicts]),
            }
            assert before.view(before.replay(logs["before"][1])) == current.view(
                current.replay(logs["after"][1])
            )
            states = {k: _states(r, events) for k, (r, events) in logs.items()}
            # The state just before the first LP entry, for the hot path: propose and confirm.
            first = next(i for i, d in enumerate(dicts) if d["type"] == "lp.proposed")
            lp_at = {k: states[k][first - 1] for k in logs}
            best: dict[str, dict[str, float]] = {k: {} for k in logs}
            order = list(logs.items())
            for _ in range(40):  # interleaved, so all see the same machine
                random.shuffle(order)
                for label, (rules, events) in order:
                    n = 50
                    t = (
                        timeit.timeit(lambda r=rules, ev=events: r.replay(ev), number=n, timer=CPU)
                        / n
                    )
                    best[label]["replay"] = min(best[label].get("replay", t), t)
                    n = 5
                    t = (
                        timeit.timeit(
                            lambda r=rules, sc=script: play(r, sc, views=False), number=n, timer=CPU
                        )
                        / n
                    )
                    best[label]["commands"] = min(best[label].get("commands", t), t)
                    n = 5
                    sts = states[label]
                    t = (
                        timeit.timeit(lambda r=rules, st=sts: _views(r, st), number=n, timer=CPU)
                        / n
                    )
                    best[label]["views"] = min(best[label].get("views", t), t)
                    n = 5
                    start = lp_at[label]
                    t = timeit.timeit(
                        lambda r=rules, st=start: _lp_entries(r, st), number=n, timer=CPU
                    ) / (n * LP_ENTRIES)
                    best[label]["lp entry"] = min(best[label].get("lp entry", t), t)
            steps = len(play(current, script)[0])
            print(f"{script}: {len(dicts)} events, {steps} commands")
            for what in ("replay", "commands", "views", "lp entry"):
                b, c, a = (best[k][what] for k in ("before", "control", "after"))
                print(
                    f"  {what:8}  before {b * 1e6:8.1f} us  after {a * 1e6:8.1f} us"
                    f"  after/before {a / b:.3f}  (control/before {c / b:.3f})"
                )


if __name__ == "__main__":
    main()
