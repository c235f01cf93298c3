"""Time the rules core of two commits in one process: the replay of the scripted 3-duel match of
`tests/twokey_script.py` (`apply` for every event) and the whole script's commands (`decide`
then `apply`, refusals included).

    PYTHONPATH=. .venv/bin/python tests/twokey_timing.py [BASE_COMMIT]

BASE_COMMIT's `server/rules/` is copied into a temporary package, so both run side by side,
interleaved, under the same conditions; the best of several repeats is reported."""

from __future__ import annotations

import importlib
import subprocess
import sys
import tempfile
import timeit
from pathlib import Path
from types import ModuleType

from tests.twokey_script import SCRIPTS, play

ROOT = Path(__file__).resolve().parent.parent


def rules_at(commit: str, where: Path) -> ModuleType:
    """`server/rules` as it was at ``commit``, imported as the package ``rules_<commit>``."""
    name = f"rules_{commit.replace('-', '_').replace('~', '_').replace('^', '_')}"
    pkg = where / name
    pkg.mkdir()
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


def main() -> None:
    base = sys.argv[1] if len(sys.argv) > 1 else "main"
    import server.rules as current

    with tempfile.TemporaryDirectory() as tmp:
        before = rules_at(base, Path(tmp))
        for script in SCRIPTS:
            _, log = play(current, script)
            dicts = [e.to_dict() for e in log]
            logs = {
                "before": (before, [before.Event.from_dict(d) for d in dicts]),
                "after": (current, [current.Event.from_dict(d) for d in dicts]),
            }
            assert before.view(before.replay(logs["before"][1])) == current.view(
                current.replay(logs["after"][1])
            )
            best: dict[str, dict[str, float]] = {"before": {}, "after": {}}
            for _ in range(25):  # interleaved, so both see the same machine
                for label, (rules, events) in logs.items():
                    n = 50
                    t = timeit.timeit(lambda r=rules, ev=events: r.replay(ev), number=n) / n
                    best[label]["replay"] = min(best[label].get("replay", t), t)
                    n = 5
                    t = (
                        timeit.timeit(lambda r=rules, sc=script: play(r, sc, views=False), number=n)
                        / n
                    )
                    best[label]["commands"] = min(best[label].get("commands", t), t)
            steps = len(play(current, script)[0])
            print(f"{script}: {len(dicts)} events, {steps} commands")
            for what in ("replay", "commands"):
                b, a = best["before"][what], best["after"][what]
                print(
                    f"  {what:8}  before {b * 1e6:8.1f} us  after {a * 1e6:8.1f} us"
                    f"  after/before {a / b:.3f}"
                )


if __name__ == "__main__":
    main()
