"""`python -m reliability`: crash recovery on SQLite and PostgreSQL, fuzzing, access checks.

Prints kills survived, commands acknowledged, lost and duplicated, fuzz messages sent and
unhandled errors; exits non-zero when any guarantee fails.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from dataclasses import asdict
from pathlib import Path

from . import access, adversary, crash, cut_and_claims, fuzz, holes, openapi_fuzz, public_cost
from .proc import postgres_answers


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m reliability", description=__doc__)
    parser.add_argument("--tables", type=int, default=50)
    parser.add_argument("--kills", type=int, default=20)
    parser.add_argument(
        "--acks-between",
        type=int,
        default=150,
        help="kill after a random 1..N acknowledgements since the last restart",
    )
    parser.add_argument("--rounds", type=int, default=2, help="turns each table plays at least")
    parser.add_argument("--backend", choices=["sqlite", "postgres", "both"], default="both")
    parser.add_argument("--fuzz", type=int, default=3000, help="websocket fuzz messages")
    parser.add_argument("--http-fuzz", type=int, default=30, help="examples per HTTP operation")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument(
        "--skip",
        action="append",
        default=[],
        choices=["crash", "fuzz", "http", "access", "adversary", "holes", "public", "cut"],
    )
    parser.add_argument(
        "--public-players", type=int, default=2000, help="the public pages' event (its players)"
    )
    parser.add_argument(
        "--hole",
        action="append",
        default=[],
        choices=list(holes.ATTACKS),
        help="run only these of the holes' attacks (repeatable)",
    )
    parser.add_argument("--hole-seconds", type=float, default=30)
    parser.add_argument(
        "--adversary-tables", type=int, default=500, help="ordinary tables playing meanwhile"
    )
    parser.add_argument("--attack-seconds", type=float, default=12)
    parser.add_argument(
        "--adversary-clients",
        type=int,
        default=0,
        help="processes driving the ordinary tables (default: 2-4, by tables)",
    )
    parser.add_argument("--quiet-seconds", type=float, default=10)
    parser.add_argument(
        "--attack",
        action="append",
        default=[],
        choices=list(adversary.ATTACKS),
        help="run only these attacks (repeatable)",
    )
    parser.add_argument("--workdir", type=Path, default=None)
    parser.add_argument("--json", type=Path, default=None, help="also write the figures here")
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    workdir = args.workdir or Path(tempfile.mkdtemp(prefix="reliability-"))
    workdir.mkdir(parents=True, exist_ok=True)
    failures: list[str] = []
    figures: dict[str, object] = {"workdir": str(workdir)}

    if "crash" not in args.skip:
        backends = ["sqlite", "postgres"] if args.backend == "both" else [args.backend]
        for name in backends:
            if name == "postgres" and not postgres_answers():
                failures.append("postgres: PostgreSQL does not answer on 127.0.0.1:5432")
                continue
            report = crash.run(
                name, workdir, args.tables, args.kills, args.acks_between, args.rounds, args.seed
            )
            figures[f"crash_{name}"] = asdict(report)
            print(
                f"[crash/{name}] tables {report.tables}, kills survived {report.kills}, "
                f"commands acknowledged {report.acknowledged}, lost {report.lost}, "
                f"duplicated {report.duplicated}, replays checked {report.replays_checked} "
                f"(mismatched {report.mismatched}), chains broken {report.chains_broken}, "
                f"resent {report.resent} (after no answer on an open socket: "
                f"{report.stale_resends}), silent sockets dropped {report.silent_drops}, "
                f"stalled tables {report.stalled}, "
                f"tracebacks {report.tracebacks}, {report.seconds} s"
            )
            for problem in report.problems[:10]:
                print(f"  ! {problem}")
            if not report.ok or report.kills < args.kills:
                failures.append(f"crash/{name}")

    if "fuzz" not in args.skip:
        report = fuzz.run(workdir, args.fuzz)
        figures["fuzz_ws"] = {**asdict(report), "unhandled": report.unhandled}
        print(
            f"[fuzz/ws] messages sent {report.sent}, answered {report.answered} "
            f"(coded errors {report.coded_errors}, results {report.results}), "
            f"closed by the server {report.closed}, unhandled errors {report.unhandled} "
            f"(internal {report.internal}, tracebacks {report.tracebacks}, "
            f"unanswered {report.unanswered}), invariant failures {report.invariant_failures}"
        )
        for example in report.examples[:5]:
            print(f"  ! {example[:600]}")
        if not report.ok:
            failures.append("fuzz/ws")

    if "http" not in args.skip:
        report = openapi_fuzz.run(workdir, args.http_fuzz)
        figures["fuzz_http"] = asdict(report)
        print(
            f"[fuzz/http] operations {report.operations}, requests {report.requests}, "
            f"5xx {report.server_errors}, tracebacks {report.tracebacks}"
        )
        for example in report.examples[:5]:
            print(f"  ! {example[:600]}")
        if not report.ok:
            failures.append("fuzz/http")

    if "access" not in args.skip:
        report = access.run(workdir)
        figures["access"] = {
            "checks": report.checks,
            "notes": report.notes,
            "counts": report.counts,
            "tracebacks": report.tracebacks,
        }
        passed = sum(report.checks.values())
        print(
            f"[access] checks passed {passed}/{len(report.checks)}, tracebacks {report.tracebacks}"
        )
        for name, count in report.counts.items():
            print(f"  {name}: {count}")
        flood = report.notes.get("flood")
        if isinstance(flood, dict):
            print(f"  flood: {flood}")
        for name in report.failed:
            print(f"  ! {name}: {report.notes.get(name)}")
        if not report.ok:
            failures.append("access")

    if "adversary" not in args.skip:
        report = adversary.run(
            workdir,
            tables=args.adversary_tables,
            quiet_seconds=args.quiet_seconds,
            attack_seconds=args.attack_seconds,
            only=args.attack,
            clients=args.adversary_clients,
        )
        figures["adversary"] = asdict(report)
        print(
            f"[adversary] ordinary tables {report.tables} (set-up errors "
            f"{report.setup_errors or 0}), quiet p99 {adversary._ms(report.quiet_p99_ms)} "
            f"({report.quiet_samples} commands; worker CPU "
            f"{adversary._pct(report.quiet_server_cpu_pct)} of a core, client loops' lag p99 "
            f"{adversary._ms(report.client_lag_p99_ms)}), worker restarts {report.worker_restarts}"
        )
        missed = adversary.problems(report)
        for problem in missed:
            print(f"  ! {problem}")
        if missed:
            failures.append("adversary")

    if "holes" not in args.skip:
        found = holes.run(workdir, args.hole, args.hole_seconds)
        figures["holes"] = {**asdict(found), "ok": found.ok}
        print(f"[holes] {found.pinned}; quiet ping max {adversary._ms(found.quiet_ping_max_ms)}")
        if not found.ok:
            failures.append("holes")

    if "cut" not in args.skip:
        # A log cut back must not verify; one address's spent budget must not shut out a
        # card's new phone or a seated phone reconnecting.
        held = cut_and_claims.run(workdir)
        figures["cut_and_claims"] = asdict(held)
        print(cut_and_claims.summary(held))
        for problem in held.problems:
            print(f"  ! {problem}")
        if held.problems:
            failures.append("cut_and_claims")

    if "public" not in args.skip:
        # The public pages read while every table of a 2,000-player event writes (pinned).
        options = public_cost.build_parser().parse_args(["--players", str(args.public_players)])
        costs = public_cost.run(workdir, options)
        figures["public"] = asdict(costs)
        print(public_cost.summary(costs))
        for problem in costs.problems:
            print(f"  ! {problem}")
        if costs.problems:
            failures.append("public")

    if args.json:
        args.json.write_text(json.dumps(figures, indent=2, default=str))
    if failures:
        print("FAILED: " + ", ".join(failures))
        return 1
    print("all reliability guarantees held")
    return 0


if __name__ == "__main__":
    sys.exit(main())
