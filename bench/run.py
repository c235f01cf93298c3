"""The bench's driver: start the servers, spread the tables over client processes, measure the
server's CPU and memory over the measured window, stop everything, print the figures.

`--long`: 30 minutes at 2,500 tables and 20 floor views with the production settings, and every
stall of the worker's loop with its cause. `--baseline-ref REF`: the same load against the code
of REF (a temporary git worktree) and the current code, alternately, and their ratios."""

from __future__ import annotations

import argparse
import contextlib
import itertools
import json
import math
import multiprocessing as mp
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from server.core.config import DEFAULTS as SERVER_DEFAULTS
from server.runtime import gctune

from . import procstat, report
from .floor import FloorUnavailable, prepare_floor, start_rounds
from .load import Plan, raise_nofile, worker_main
from .phone import APP
from .servers import (
    GUNICORN_CONF,
    REDIS_URL,
    ROOT,
    PostgresDatabase,
    Server,
    check_code,
    cpu_split,
    start_gunicorn,
    wait_ready,
)

MIB = 1024 * 1024
LONG_SECONDS = 1800.0
LONG_TABLES = "2500"
LONG_FLOOR_VIEWS = 20
# A hall's staff during every run: a judges' floor of 20 views and the hall page on 2 screens.
FLOOR_VIEWS = 20
HALL_SCREENS = 2
# The settings the long run keeps at production values: the bench sets none of them, and drops
# them from the environment it passes on.
PRODUCTION = {
    "GC_FULL_SECONDS": f"{gctune.DEFAULT_FULL_SECONDS:g}",
    "GC_YOUNG_MS": f"{gctune.DEFAULT_YOUNG_MS:g}",
    "SQLITE_CHECKPOINT_MS": str(SERVER_DEFAULTS["SQLITE_CHECKPOINT_MS"]),
    "TIMER_ENABLED": str(SERVER_DEFAULTS["TIMER_ENABLED"]).lower(),
    "TIMER_INTERVAL_MS": str(SERVER_DEFAULTS["TIMER_INTERVAL_MS"]),
}
TARGETS = {
    "p99_ms": 20.0,  # 2,500 tables
    "rss_mib": 600.0,
    "cpu_pct": 60.0,
    "p50_ratio": 2.0,
    "p99_ratio": report.P99_RELAY_RATIO,
    "p99_ms_5000": 100.0,
}

STORM_TARGETS = {"welcomed_s": 20.0, "control_ping_p99_ms": 250.0}
STORM_SLICE, STORM_SLICES = 5.0, 4  # the control pings' p99 in each 5 s of their 20 s

# Numbers each server run of this bench, so that no two share a data directory.
RUN_NUMBERS = itertools.count(1)


@dataclass
class Case:
    mode: str  # "server" or "relay"
    tables: int
    db: str = "sqlite"
    processes: int = 1
    redis: bool = False
    placement: str = "cross"
    seconds: float = 30.0
    code: str = ""  # "" the current code, else the git ref of a baseline
    root: Path = ROOT  # the checkout the server runs
    stalls: bool = False  # the worker writes a stall report (STALL_REPORT)

    @property
    def label(self) -> str:
        if self.mode == "relay":
            return "bare relay"
        extra = " +redis" if self.redis else ""
        if self.processes > 1 and self.placement == "table":
            extra += " by table"
        code = f"{self.code} " if self.code else ""
        return f"{code}{self.db} {self.processes}p{extra}"


@dataclass
class Result:
    case: Case
    tables_ready: int = 0
    seconds: float = 0.0
    latencies: list[float] = field(default_factory=list)
    replies: list[float] = field(default_factory=list)
    errors: Counter = field(default_factory=Counter)
    setup_errors: Counter = field(default_factory=Counter)
    sent: int = 0
    cpu_pct: float = 0.0  # gunicorn worker(s), % of one core
    db_cpu_pct: float | None = None  # postgres / redis processes, % of one core
    client_cpu_pct: float = 0.0  # all client processes together
    rss_mib: float = 0.0  # server processes, the largest sum seen during the window
    lag: list[float] = field(default_factory=list)
    clock_spread: list[float] = field(default_factory=list)
    clock_second_differs: int = 0
    clock_rtt: list[float] = field(default_factory=list)
    pings: list[float] = field(default_factory=list)  # the phones' heartbeat round trips, ms
    # The busiest minutes: the tap's (round_start) or the deadline's (time_call) wall ms, the
    # wall ms each phone and each floor view first showed it, and what flowed meanwhile.
    busy_mark: float = math.nan
    busy_seen: list[float] = field(default_factory=list)
    busy_phones: int = 0
    floor_busy_seen: list[float] = field(default_factory=list)
    latency_wall: list[float] = field(default_factory=list)
    ping_wall: list[float] = field(default_factory=list)
    extra: dict[str, Any] = field(default_factory=dict)
    setup_seconds: float = 0.0
    cpu_seconds: float = 0.0  # gunicorn worker(s), over the window
    wall_start: float = 0.0  # the measured window, unix time
    wall_end: float = 0.0
    stalls: report.StallReport | None = None  # the worker's stall report, within the window
    code_path: str = ""  # where the server's `server` package was imported from
    machine_busy_pct: float = 0.0  # all processes on the machine, % of one core
    starved_pct: float = 0.0  # server worker(s) runnable but waiting for a CPU, % of the window
    loadavg: str = ""
    note: str = ""
    storm: dict[str, Any] | None = None  # the storm's figures, every client's together

    def add_storm(self, part: dict[str, Any] | None) -> None:
        if part is None:
            return
        if self.storm is None:
            self.storm = {
                k: (Counter() if k == "failed_opens" else type(v)()) for k, v in part.items()
            }
        for key, value in part.items():
            if key == "failed_opens":
                self.storm[key].update(value)
            else:
                self.storm[key] += value

    def storm_summary(self) -> dict[str, Any] | None:
        s = self.storm
        if s is None:
            return None
        welcomed = s["welcomed_s"]
        return {
            "phones": s["phones"],
            "welcomed": len(welcomed),
            "welcomed_p50_s": percentile(welcomed, 50),
            "welcomed_p99_s": percentile(welcomed, 99),
            "welcomed_max_s": max(welcomed, default=math.nan),
            "refused_opens": s["refused_opens"],
            "failed_opens": dict(s["failed_opens"]),
            "refused_for_good": s["refused_for_good"],
            "lost_acknowledged": s["lost_acknowledged"],
            "control_pings": len(s["control_ping_ms"]),
            "control_ping_p99_ms": percentile(s["control_ping_ms"], 99),
            "control_ping_max_ms": max(s["control_ping_ms"], default=math.nan),
            # p99 of the pings sent in each STORM_SLICE seconds after the drop
            "control_ping_p99_by_slice_ms": [
                percentile(
                    [
                        ms
                        for at, ms in s.get("control_ping_at", ())
                        if k <= at / STORM_SLICE < k + 1
                    ],
                    99,
                )
                for k in range(STORM_SLICES)
            ],
            "in_flight": self.extra.get("storm_in_flight", 0),
        }

    def busy_summary(self) -> dict[str, Any] | None:
        """The busiest minute: from the tap (the deadline) to each phone and each floor view
        showing the clock running (time called), and the commands and pings sent within
        BUSY_SECONDS of it."""
        kind = self.extra.get("busy")
        if not kind or math.isnan(self.busy_mark):
            return None
        mark = self.busy_mark
        shown = [t - mark for t in self.busy_seen]
        floor = [t - mark for t in self.floor_busy_seen]
        within = busy_window(mark)
        during = [ms for ms, t in zip(self.latencies, self.latency_wall, strict=False) if within(t)]
        pings = [ms for ms, t in zip(self.pings, self.ping_wall, strict=False) if within(t)]
        return {
            "kind": kind,
            "phones": self.busy_phones,
            "shown": len(shown),
            "shown_p50_ms": percentile(shown, 50),
            "shown_p99_ms": percentile(shown, 99),
            "shown_max_ms": max(shown, default=math.nan),
            "floor_shown": len(floor),
            "floor_p99_ms": percentile(floor, 99),
            "floor_max_ms": max(floor, default=math.nan),
            "commands": len(during),
            "commands_p50_ms": percentile(during, 50),
            "commands_p99_ms": percentile(during, 99),
            "pings": len(pings),
            "pings_p99_ms": percentile(pings, 99),
            "refused": self.extra.get("round_start_refused", 0),
        }

    def pct(self, q: float, values: list[float] | None = None) -> float:
        return percentile(self.latencies if values is None else values, q)

    def summary(self) -> dict[str, Any]:
        stalls = self.stalls
        return {
            "run": self.case.label,
            "mode": self.case.mode,
            "code": self.case.code,
            "code_path": self.code_path,
            "tables": self.case.tables,
            "tables_ready": self.tables_ready,
            "db": self.case.db,
            "processes": self.case.processes,
            "redis": self.case.redis,
            "placement": self.case.placement,
            "seconds": self.seconds,
            "commands_per_s": len(self.latencies) / self.seconds if self.seconds else 0.0,
            "p50_ms": self.pct(50),
            "p95_ms": self.pct(95),
            "p99_ms": self.pct(99),
            "p999_ms": self.pct(99.9),
            "max_ms": max(self.latencies, default=math.nan),
            "commands": len(self.latencies),
            "cpu_s": self.cpu_seconds,
            # Server CPU over the window / the commands (relay: messages) it delivered.
            "cpu_per_command_ms": report.per_unit_ms(self.cpu_seconds, len(self.latencies)),
            "rss_per_table_kib": report.per_table_kib(self.rss_mib, self.tables_ready),
            "reply_p50_ms": self.pct(50, self.replies),
            "reply_p99_ms": self.pct(99, self.replies),
            "errors": sum(self.errors.values()),
            "error_kinds": dict(self.errors),
            "setup_errors": dict(self.setup_errors),
            "setup_seconds": self.setup_seconds,
            "cpu_pct": self.cpu_pct,
            "db_cpu_pct": self.db_cpu_pct,
            "client_cpu_pct": self.client_cpu_pct,
            "rss_mib": self.rss_mib,
            "loop_lag_p99_ms": self.pct(99, self.lag),
            "loop_lag_max_ms": max(self.lag, default=math.nan),
            "clock_samples": len(self.clock_spread),
            "clock_spread_max_ms": max(self.clock_spread, default=math.nan),
            "clock_spread_p99_ms": self.pct(99, self.clock_spread),
            "clock_second_differs": self.clock_second_differs,
            "clock_best_rtt_p50_ms": self.pct(50, self.clock_rtt),
            "pings": len(self.pings),
            "ping_p50_ms": self.pct(50, self.pings),
            "ping_p99_ms": self.pct(99, self.pings),
            "ping_max_ms": max(self.pings, default=math.nan),
            "resent": self.extra.get("resent", 0),
            "hall": hall_summary(self.extra.get("hall")),
            "busy": self.busy_summary(),
            "floor": {
                k: v
                for k, v in (self.extra.get("floor") or {}).items()
                if k not in ("staleness", "busy_seen")
            },
            "floor_staleness_p99_ms": self.pct(
                99, (self.extra.get("floor") or {}).get("staleness", [])
            ),
            "floor_skipped": self.extra.get("floor_skipped"),
            "clock_start_refused": self.extra.get("clock_start_refused"),
            "setup_busy_opens": self.extra.get("setup_busy_opens", 0),
            "machine_busy_pct": self.machine_busy_pct,
            "starved_pct": self.starved_pct,
            "others_cpu_pct": self.machine_busy_pct
            - self.cpu_pct
            - (self.db_cpu_pct or 0.0)
            - self.client_cpu_pct,
            "loadavg": self.loadavg,
            "note": self.note,
            "storm": self.storm_summary(),
            "window": [self.wall_start, self.wall_end],
            "stall_header": stalls.header if stalls else None,
            "stalls": stalls.stalls if stalls else None,
            "stall_wakes": stalls.wakes() if stalls else None,
        }


def hall_summary(hall: dict[str, Any] | None) -> dict[str, Any] | None:
    """The hall screens' polls: how many, failed, and their answers' p50, p99 and max."""
    if not hall:
        return None
    times = hall["times"]
    return {
        "screens": hall["screens"],
        "polls": hall["polls"],
        "failed": hall["failed"],
        "p50_ms": percentile(times, 50),
        "p99_ms": percentile(times, 99),
        "max_ms": max(times, default=math.nan),
    }


def percentile(values: list[float], q: float) -> float:
    if not values:
        return math.nan
    ordered = sorted(values)
    rank = max(0, min(len(ordered) - 1, math.ceil(q / 100 * len(ordered)) - 1))
    return ordered[rank]


class RssSampler(threading.Thread):
    """The largest sum of the servers' RSS, sampled every second."""

    def __init__(self, servers: list[Server]) -> None:
        super().__init__(daemon=True)
        self.servers = servers
        self.peak = 0
        self.stop = threading.Event()

    def sample(self) -> None:
        total = sum(procstat.total_rss(s.all_pids()) for s in self.servers)
        self.peak = max(self.peak, total)

    def run(self) -> None:
        while not self.stop.wait(1.0):
            self.sample()


def start_servers(
    case: Case, args: argparse.Namespace, run_dir: Path, pg: PostgresDatabase | None
) -> list[Server]:
    if case.mode == "relay":
        server = start_gunicorn(
            "relay",
            "bench.relay:create_app()",
            run_dir,
            conf=args.gunicorn_conf,
            cpus=args.server_cpus,
        )
        wait_ready(server, "/health")
        return [server]
    env: dict[str, str] = {}
    if pg is not None:
        env["DATABASE_URL"] = pg.url
    if case.redis:
        env["REDIS_URL"] = REDIS_URL
    servers = []
    # Two processes share one DATA_DIR (the same SQLite file) or the same PostgreSQL database;
    # every run (each of `--repeat`, each code of `--baseline-ref`) starts on a fresh one.
    tag = f"{case.db}-{case.tables}-{case_tag(case)}{next(RUN_NUMBERS)}-{os.getpid()}"
    shared = (args.data_dir or run_dir) / f"data-{tag}"
    env["DATA_DIR"] = str(shared)
    shared.mkdir(parents=True, exist_ok=True)
    for i in range(case.processes):
        name = f"server{i}-{case_tag(case)}{case.db}-{case.tables}"
        if case.stalls:
            env["STALL_REPORT"] = str(stall_path(run_dir, name))
        server = start_gunicorn(
            name,
            "server:create_app()",
            run_dir,
            dict(env),
            conf=args.gunicorn_conf,
            root=case.root,
            drop=tuple(PRODUCTION) if args.long else (),
            cpus=args.server_cpus,
        )
        servers.append(server)
        overridden = {k: server.env[k] for k in PRODUCTION if k in server.env}
        if args.long and overridden:
            raise RuntimeError(f"the long run's production settings overridden: {overridden}")
        # One at a time: the first creates the schema.
        wait_ready(server, "/api/time")
        server.code_file = check_code(server)
    return servers


def case_tag(case: Case) -> str:
    """A file-name-safe mark of the code a case runs ('' for the current code)."""
    if not case.code:
        return ""
    return "".join(c if c.isalnum() else "_" for c in case.code) + "-"


def stall_path(run_dir: Path, name: str) -> Path:
    """Where a server's worker writes its stall report; a run's earlier file is removed."""
    path = run_dir / f"stalls-{name}.jsonl"
    path.unlink(missing_ok=True)
    return path


def read_stalls(servers: list[Server], start: float, end: float) -> report.StallReport | None:
    """The first server's stall report, cut to the measured window (None if it wrote none)."""
    path = servers[0].env.get("STALL_REPORT") if servers else None
    if not path or not Path(path).exists():
        return None
    with open(path, encoding="utf-8") as lines:
        return report.parse_stall_report(lines).window(start, end)


def run_case(case: Case, args: argparse.Namespace, run_dir: Path) -> Result:
    result = Result(case, seconds=case.seconds)
    if case.mode == "server" and busy_kind(args):
        result.extra["busy"] = busy_kind(args)
    pg = (
        PostgresDatabase(args.postgres_url)
        if case.db == "postgres" and case.mode == "server"
        else None
    )
    if pg is not None:
        pg.create()
    servers: list[Server] = []
    procs: list[mp.Process] = []
    try:
        servers = start_servers(case, args, run_dir, pg)
        result.code_path = servers[0].code_file
        if case.code:
            print(f"  {case.label}: server code {result.code_path} (checked)", flush=True)
        floor = None
        busy = busy_kind(args) if case.mode == "server" else ""
        # The event's tables, by global number (the others are casual tables): all of them, or
        # with a busy minute all but one in CONTROL_EVERY, whose commands flow through it.
        in_event = [n for n in range(case.tables) if not busy or n % CONTROL_EVERY]
        code_of: dict[int, str] = {}
        claims_of: dict[int, dict[str, str]] = {}
        if case.mode == "server" and (args.floor_views or busy):
            try:
                minutes = args.round_minutes if busy == "time_call" else None
                floor = prepare_floor(servers[0], len(in_event), minutes)
            except (FloorUnavailable, OSError, subprocess.SubprocessError) as exc:
                if busy:
                    raise SetupFailed(f"the busy minute needs an event: {exc}") from None
                result.extra["floor_skipped"] = str(exc)
                print(f"  floor views skipped: {exc}", flush=True)
            else:
                code_of = dict(zip(in_event, floor.codes, strict=True))
                claims_of = dict(zip(in_event, floor.claims, strict=True))
        clients = args.clients or min(4, max(2, math.ceil(case.tables / 1250)))
        clients = max(1, min(clients, case.tables))
        ctx = mp.get_context("spawn")
        report = ctx.Queue()
        go = ctx.Event()
        started = ctx.Event()  # the organiser's tap on "Start round" (event tables)
        go_time = ctx.Value("d", 0.0)
        setup_timeout = args.setup_timeout or max(90.0, case.tables * 0.25 + 30)
        base = time.monotonic() + 1.0
        for wid in range(clients):
            plan = Plan(
                mode=case.mode,
                urls=[s.url for s in servers],
                tables=list(range(wid, case.tables, clients)),
                seconds=case.seconds,
                interval=args.interval,
                ramp=args.ramp,
                ramp_base=base,
                setup_slots=max(1, args.setup_slots // clients),
                setup_timeout=setup_timeout,
                clock_tables=args.clock_tables,
                floor_views=args.floor_views if floor else 0,
                seed=args.seed,
                codes=[code_of.get(n) for n in range(wid, case.tables, clients)]  # type: ignore[misc]
                if floor
                else None,
                claims=[claims_of.get(n, {}) for n in range(wid, case.tables, clients)]
                if floor
                else None,
                busy=busy,
                floor={"events": floor.events, "cookie": floor.cookie, "slugs": floor.slugs}
                if floor and wid == 0
                else None,
                hall_screens=args.hall_screens,
                placement=case.placement,
                storm_at=args.storm or 0.0,
                storm_spread=args.storm_spread,
                break_at=args.break_at,
                break_seconds=args.break_seconds,
                event_round=floor is not None,
            )
            proc = ctx.Process(
                target=worker_main, args=(plan, wid, report, go, go_time, started), daemon=True
            )
            proc.start()
            if args.client_cpus and proc.pid is not None:
                os.sched_setaffinity(proc.pid, args.client_cpus)
            procs.append(proc)
        counts, setup_errors = wait_clients(report, procs, "ready", setup_timeout + 60)
        set_up = len(counts) == clients and not any(setup_errors.values())
        if floor is not None and busy != "round_start" and set_up:
            # Every table's decks registered: the organiser taps "Start round" on each event,
            # and the phones play to their duels.
            answers = start_rounds(floor)
            for answer in answers:
                if answer.get("refused"):
                    setup_errors[-1] = {"round.start:refused": len(answer["refused"])}
            if busy == "time_call":  # every clock's deadline: the start + the round's time
                result.busy_mark = max(a["now_ms"] for a in answers) + args.round_minutes * 60_000
            started.set()
            counts, played = wait_clients(report, procs, "started", setup_timeout + 60)
            setup_errors.update(played)
        ready = sum(counts.values())
        for errors in setup_errors.values():
            result.setup_errors.update(errors)
        result.tables_ready = ready
        result.setup_seconds = time.monotonic() - base
        print(
            f"  {case.label}: {ready}/{case.tables} tables ready in {result.setup_seconds:.1f} s",
            flush=True,
        )
        failed = setup_failure(case, len(counts) == clients, ready, result.setup_errors)
        start = time.monotonic() + 1.0
        if busy == "time_call" and not failed:
            failed = deadline_outside(result.busy_mark, time.time() + 1.0, case.seconds)
        go_time.value = -1.0 if failed else start
        go.set()
        if failed:
            raise SetupFailed(f"{case.label} at {case.tables} tables: {failed}")
        sampler = RssSampler(servers)
        workers = [pid for s in servers for pid in s.worker_pids()]
        db_names = (["postgres"] if case.db == "postgres" else []) + (
            ["redis-server"] if case.redis else []
        )
        db_pids = procstat.named(*db_names) if case.mode == "server" and db_names else []
        client_pids = [p.pid for p in procs if p.pid is not None]
        time.sleep(max(0.0, start - time.monotonic()))
        t0 = time.monotonic()
        result.wall_start = time.time()
        db_start = {pid: procstat.cpu_seconds(pid) for pid in db_pids}
        cpu0, cl0 = procstat.total_cpu(workers), procstat.total_cpu(client_pids)
        busy0 = procstat.machine_busy_seconds()
        wait0 = sum(procstat.runqueue_wait_seconds(pid) for pid in workers)
        sampler.sample()
        sampler.start()
        profilers = start_profilers(case, workers, args, run_dir)
        tap = None
        if busy == "round_start" and floor is not None:
            tap = threading.Thread(
                target=tap_start, args=(floor, start + args.round_start, result), daemon=True
            )
            tap.start()
        time.sleep(max(0.0, start + case.seconds - time.monotonic()))
        if tap is not None:
            tap.join(timeout=60)
        t1 = time.monotonic()
        result.wall_end = time.time()
        cpu1, cl1 = procstat.total_cpu(workers), procstat.total_cpu(client_pids)
        # Database processes that ended during the window are left out (their time is lost).
        db_used = sum(max(0.0, procstat.cpu_seconds(pid) - t) for pid, t in db_start.items())
        busy1 = procstat.machine_busy_seconds()
        wait1 = sum(procstat.runqueue_wait_seconds(pid) for pid in workers)
        result.loadavg = procstat.loadavg()
        sampler.sample()
        sampler.stop.set()
        elapsed = t1 - t0
        result.cpu_seconds = cpu1 - cpu0
        result.cpu_pct = (cpu1 - cpu0) / elapsed * 100
        result.db_cpu_pct = db_used / elapsed * 100 if db_pids else None
        result.client_cpu_pct = (cl1 - cl0) / elapsed * 100
        result.rss_mib = sampler.peak / MIB
        result.machine_busy_pct = (busy1 - busy0) / elapsed * 100
        result.starved_pct = (wait1 - wait0) / elapsed * 100 / max(1, len(workers))
        got = 0
        deadline = time.monotonic() + 60
        while got < clients and time.monotonic() < deadline:
            try:
                kind, wid, data = report.get(timeout=1.0)
            except Exception:
                continue
            if kind != "result":
                continue
            got += 1
            result.latencies += data["latencies"]
            result.replies += data["replies"]
            result.errors.update(data["errors"])
            result.sent += data["sent"]
            result.lag += data["lag"]
            result.clock_spread += data["clock_spread"]
            result.clock_second_differs += data["clock_second_differs"]
            result.clock_rtt += data["clock_rtt"]
            result.pings += data["pings"]
            result.latency_wall += data["latency_wall"]
            result.ping_wall += data["ping_wall"]
            result.busy_seen += data["busy_seen"]
            result.busy_phones += data["busy_phones"]
            result.floor_busy_seen += (data["extra"].get("floor") or {}).get("busy_seen", [])
            in_flight = result.extra.get("storm_in_flight", 0)
            result.extra.update(data["extra"])
            busy_opens = result.extra.get("setup_busy_opens", 0) + data.get("setup_busy_opens", 0)
            result.extra["setup_busy_opens"] = busy_opens
            if "storm_in_flight" in data["extra"]:
                result.extra["storm_in_flight"] = in_flight + data["extra"]["storm_in_flight"]
            result.add_storm(data.get("storm"))
        if got < clients:
            result.errors["client_process_lost"] += clients - got
        for proc, svg in profilers:
            try:
                proc.wait(timeout=30)
                print(f"  {case.label}: flame graph of the worker in {svg}", flush=True)
            except subprocess.TimeoutExpired:
                proc.kill()
        if case.stalls:
            result.stalls = read_stalls(servers, result.wall_start, result.wall_end)
        lost = case.tables - ready
        if lost:
            result.note = f"{lost} tables failed set-up"
        return result
    finally:
        for proc in procs:
            proc.join(timeout=20)
            if proc.is_alive():
                proc.kill()
        for server in servers:
            server.stop()
        if pg is not None:
            try:
                pg.drop()
            except Exception as exc:
                print(f"  (could not drop {pg.name}: {exc})", file=sys.stderr)


BUSY_SECONDS = 10.0  # the busiest seconds: from the tap (the deadline) on
CONTROL_EVERY = 10  # with a busy minute, one table in 10 is a casual table, outside the event
BUSY_TARGETS = {  # 2,000 tables (p99, ms)
    "round_start": {"shown_p99_ms": 1000.0, "commands_p99_ms": 100.0},
    "time_call": {"shown_p99_ms": 500.0, "shown_max_ms": 1000.0, "commands_p99_ms": 100.0},
}


def busy_kind(args: argparse.Namespace) -> str:
    """Which busiest minute the run measures: "round_start", "time_call" or "" (none)."""
    if getattr(args, "round_start", None) is not None:
        return "round_start"
    return "time_call" if getattr(args, "time_call", False) else ""


def busy_window(mark: float) -> Any:
    """Whether a wall ms falls within the BUSY_SECONDS from `mark` on."""
    return lambda t: mark <= t < mark + BUSY_SECONDS * 1000


def deadline_outside(deadline_ms: float, start_s: float, seconds: float) -> str | None:
    """Why the round's deadline cannot be measured in the window from `start_s` (unix s) for
    `seconds`: it came during set-up, or leaves too little of the window after it."""
    start_ms, end_ms = start_s * 1000, (start_s + seconds) * 1000
    if deadline_ms < start_ms + 1000:
        return "the round's deadline came during set-up: give it more --round-minutes"
    if deadline_ms > end_ms - BUSY_SECONDS * 1000:
        late = (deadline_ms - start_ms) / 1000 + BUSY_SECONDS
        return f"the window ends too soon after the round's deadline: --seconds {late:.0f} or more"
    return None


def tap_start(floor: Any, at: float, result: Result) -> None:
    """The organiser's one tap on "Start round", `at` (monotonic) into the window."""
    time.sleep(max(0.0, at - time.monotonic()))
    result.busy_mark = time.time() * 1000
    try:
        answers = start_rounds(floor)
    except FloorUnavailable as exc:
        result.errors[f"round_start:{exc}"] += 1
        return
    result.extra["round_start_refused"] = sum(len(a.get("refused") or ()) for a in answers)


class SetupFailed(Exception):
    """A run's set-up failed: nothing it would measure means anything, so the bench stops."""


def setup_failure(
    case: Case, every_client: bool, ready: int, setup_errors: Counter | dict[str, int]
) -> str | None:
    """Why a run's set-up failed (a client process lost, a table not ready, an error on the
    way), or None when every table is ready to measure."""
    if not every_client:
        return "client processes failed during set-up"
    errors = {k: v for k, v in setup_errors.items() if v}
    if ready < case.tables or errors:
        return f"{ready}/{case.tables} tables ready; set-up errors {errors or 'none'}"
    return None


def wait_clients(
    report: Any, procs: list[mp.Process], kind: str, timeout: float
) -> tuple[dict[int, int], dict[int, dict[str, int]]]:
    """Every client process's `kind` report (tables ready, set-up errors so far), by worker;
    fewer if one died or `timeout` passed."""
    counts: dict[int, int] = {}
    errors: dict[int, dict[str, int]] = {}
    deadline = time.monotonic() + timeout
    while len(counts) < len(procs) and time.monotonic() < deadline:
        try:
            got, wid, count, setup_errors = report.get(timeout=1.0)
        except Exception:
            if not all(p.is_alive() for p in procs):
                break
            continue
        if got == kind:
            counts[wid] = count
            errors[wid] = setup_errors
    return counts, errors


def start_profilers(
    case: Case, workers: list[int], args: argparse.Namespace, run_dir: Path
) -> list[tuple[subprocess.Popen, Path]]:
    """With --profile: py-spy (the project's test extra) sampling each worker of a server run
    for the measured window, without stopping it, into an SVG flame graph."""
    if not args.profile or case.mode != "server":
        return []
    spy = Path(sys.executable).with_name("py-spy")
    out = args.profile if args.profile != "run" else run_dir
    Path(out).mkdir(parents=True, exist_ok=True)
    found = []
    for pid in workers:
        raw = getattr(args, "profile_format", "flamegraph") == "raw"
        name = f"{case_tag(case) or 'current-'}{case.db}-{case.tables}-{pid}"
        svg = Path(out) / f"{name}.{'txt' if raw else 'svg'}"
        rate = str(getattr(args, "profile_rate", 100))
        command = [str(spy), "record", "--nonblocking", "--rate", rate, "-p", str(pid)]
        command += ["--format", "raw" if raw else "flamegraph"]
        command += ["-d", str(max(1, int(case.seconds) - 1)), "-o", str(svg)]
        found.append((subprocess.Popen(command, stdout=subprocess.DEVNULL), svg))
    return found


def fmt(value: float | None, digits: int = 1) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "-"
    return f"{value:.{digits}f}"


LABEL_WIDTH = 20


def header() -> str:
    return (
        f"{'run':<{LABEL_WIDTH}} {'tables':>6} {'cmd/s':>7} {'p50':>7} {'p95':>7} {'p99':>7} "
        f"{'max':>8} {'errors':>6} {'cpu%':>6} {'rss MiB':>8} {'db cpu%':>7} {'cli cpu%':>8} "
        f"{'lag p99':>7}"
    )


def row(s: dict[str, Any]) -> str:
    tables = (
        s["tables"] if s["tables_ready"] == s["tables"] else f"{s['tables_ready']}/{s['tables']}"
    )
    return (
        f"{s['run']:<{LABEL_WIDTH}} {tables!s:>6} {fmt(s['commands_per_s']):>7} "
        f"{fmt(s['p50_ms'], 2):>7} "
        f"{fmt(s['p95_ms'], 2):>7} {fmt(s['p99_ms'], 2):>7} {fmt(s['max_ms'], 1):>8} "
        f"{s['errors'] + sum(s['setup_errors'].values()):>6} {fmt(s['cpu_pct']):>6} "
        f"{fmt(s['rss_mib'], 0):>8} {fmt(s['db_cpu_pct']):>7} {fmt(s['client_cpu_pct']):>8} "
        f"{fmt(s['loop_lag_p99_ms'], 1):>7}"
    )


def seconds_text(summaries: list[dict[str, Any]]) -> str:
    """How long the runs measured: `60 s`, or `relay 60 s, server 1800 s`."""
    by_mode: dict[str, set[float]] = {}
    for s in summaries:
        by_mode.setdefault(s["mode"], set()).add(s["seconds"])
    every = {v for values in by_mode.values() for v in values}
    if len(every) <= 1:
        return f"{next(iter(every), 0):.0f} s"
    return ", ".join(
        f"{'relay' if mode == 'relay' else 'server'} "
        + "/".join(f"{v:.0f}" for v in sorted(values))
        + " s"
        for mode, values in by_mode.items()
    )


def cost_line(s: dict[str, Any], relay: dict[str, Any] | None) -> str:
    """CPU per command beside the relay's CPU per message, and RSS per table, with targets."""
    cpu, cpu_limit = s["cpu_per_command_ms"], report.CPU_PER_COMMAND_MS
    rss = s["rss_per_table_kib"]
    relay_cpu = (
        f", relay {report.num(relay['cpu_per_command_ms'], 3)} ms per message "
        f"({report.num(report.ratio(cpu, relay['cpu_per_command_ms']), 1)}x)"
        if relay
        else ""
    )
    return (
        f"  CPU per command {report.num(cpu, 3)} ms ({s['cpu_s']:.1f} s / {s['commands']:,}; "
        f"target <= {cpu_limit:g}: {report.verdict(cpu, cpu_limit)})"
        f"{relay_cpu}; RSS per table {report.num(rss, 0)} KiB (target <= "
        f"{report.RSS_PER_TABLE_KIB:g}: {report.verdict(rss, report.RSS_PER_TABLE_KIB)})"
    )


def print_long(s: dict[str, Any], args: argparse.Namespace) -> None:
    """The long run's tail and every stall of the worker's loop in the window, with its cause."""
    print(
        f"  command to opponent, ms: p50 {fmt(s['p50_ms'], 2)}, p99 {fmt(s['p99_ms'], 2)}, "
        f"p99.9 {fmt(s['p999_ms'], 2)} (target <= {report.LONG_TARGETS['p999_ms']:g}: "
        f"{report.verdict(s['p999_ms'], report.LONG_TARGETS['p999_ms'])}), "
        f"max {fmt(s['max_ms'], 1)} (target <= {report.LONG_TARGETS['max_ms']:g}: "
        f"{report.verdict(s['max_ms'], report.LONG_TARGETS['max_ms'])}); "
        f"{s['commands']:,} commands in {s['seconds']:.0f} s"
    )
    for line in report.settings_lines(s["stall_header"]):
        print(line)
    print(
        "  (the CPU figures include the stall monitor's own cost, a wake every 5 ms and a "
        "watchdog every 10 ms: 0.3 s of CPU per 10 s in an idle worker on the 2-core test "
        "machine; runs without --long or --stalls do not carry it)"
    )
    if s["stalls"] is None:
        print("  no stall report from this server (its code has no stall monitor)")
        return
    stalls = s["stalls"]
    print(
        f"  stalls of the worker's loop over {report.STALL_BUCKETS_MS[0]} ms in the window: "
        + report.stall_summary(stalls, s["stall_wakes"])
    )
    if stalls:
        for line in report.stall_table(stalls, s["window"][0]):
            print(line)


def print_baseline(summaries: list[dict[str, Any]], ref: str) -> None:
    """Current against baseline, per table count, from the runs of this invocation."""
    print()
    print(f"Same-run comparison with {ref} (runs alternated, baseline first):")
    for tables in sorted({s["tables"] for s in summaries}):
        runs = [s for s in summaries if s["tables"] == tables and s["mode"] == "server"]
        baseline = [s for s in runs if s["code"]]
        current = [s for s in runs if not s["code"]]
        if not baseline or not current:
            continue
        print(f" {tables} tables ({baseline[0]['code_path']} against {current[0]['code_path']}):")
        for line in report.baseline_lines(baseline, current, ref):
            print(line)


def print_report(summaries: list[dict[str, Any]], args: argparse.Namespace) -> None:
    global LABEL_WIDTH
    LABEL_WIDTH = max([20, *(len(s["run"]) for s in summaries)])
    print()
    print(
        f"Latency in ms: command sent -> the opponent's phone has the update "
        f"(relay: message sent -> the other phone has it). {seconds_text(summaries)} measured, "
        f"a command every {args.interval:g} s per table on average."
    )
    print(affinity_text(args))
    print(header())
    for s in summaries:
        print(row(s))
    for s in summaries:
        print(
            f"{s['run']} @ {s['tables']}: the machine was busy {fmt(s['machine_busy_pct'])}% of a "
            f"core, {fmt(s['others_cpu_pct'])}% outside the bench; load average {s['loadavg']}; "
            f"the server waited for a CPU {fmt(s['starved_pct'])}% of the time"
        )
    relays = {s["tables"]: s for s in summaries if s["mode"] == "relay"}
    for s in relays.values():
        if s["pings"]:
            print(f"bare relay @ {s['tables']}:")
            print(heartbeat_line(s))
    for s in summaries:
        if s["mode"] != "server":
            continue
        line = f"{s['run']} @ {s['tables']}:"
        relay = relays.get(s["tables"])
        if relay and relay["p50_ms"] and relay["p99_ms"]:
            r50, r99 = s["p50_ms"] / relay["p50_ms"], s["p99_ms"] / relay["p99_ms"]
            line += (
                f" p50/relay p50 = {r50:.2f} (target <= {TARGETS['p50_ratio']:g}),"
                f" p99/relay p99 = {r99:.2f} (target <= {TARGETS['p99_ratio']:g});"
            )
        line += f" own reply p50 {fmt(s['reply_p50_ms'], 2)} ms, p99 {fmt(s['reply_p99_ms'], 2)} ms"
        print(line)
        print(cost_line(s, relay))
        if s["stalls"] is not None or args.long:
            print_long(s, args)
        kinds = {**s["error_kinds"], **{f"setup:{k}": v for k, v in s["setup_errors"].items()}}
        if kinds:
            print(f"  errors: {kinds}")
        if s["clock_samples"]:
            print(
                f"  clock (issue 4): {s['clock_samples']} samples; displayed time left differs by "
                f"max {fmt(s['clock_spread_max_ms'], 2)} ms, "
                f"p99 {fmt(s['clock_spread_p99_ms'], 2)} ms "
                f"between the two phones; shown second differs in {s['clock_second_differs']} "
                f"samples; best ping RTT p50 {fmt(s['clock_best_rtt_p50_ms'], 2)} ms"
            )
        if s["pings"]:
            print(heartbeat_line(s))
        if s["hall"]:
            h = s["hall"]
            print(
                f"  hall page ({h['screens']} screens, /api/hall every {APP.hall_poll_s:g} s): "
                f"{h['polls']:,} answers, {h['failed']} failed, p50 {fmt(h['p50_ms'], 2)} ms, "
                f"p99 {fmt(h['p99_ms'], 2)} ms, max {fmt(h['max_ms'], 1)} ms"
            )
        if args.floor_views:
            if s["floor_skipped"]:
                print(f"  floor views: skipped ({s['floor_skipped']})")
            elif s["floor"]:
                f = s["floor"]
                print(
                    f"  floor views ({f['views']}): {f['bytes_per_s_per_view']:.0f} bytes/s, "
                    f"{f['messages_per_s_per_view']:.1f} messages/s and "
                    f"{f['summaries_per_s_per_view']:.1f} table summaries/s per view; staleness "
                    f"(command acknowledged -> floor view has it) p99 "
                    f"{fmt(s['floor_staleness_p99_ms'], 1)} ms"
                )
        if s.get("storm"):
            print(storm_line(s["storm"]))
        if s.get("busy"):
            print(busy_line(s["busy"]))
        if s.get("setup_busy_opens"):
            print(f"  set-up opens refused as busy and tried again: {s['setup_busy_opens']}")
        if s["clock_start_refused"]:
            print(f"  clock.start refused at some tables: {s['clock_start_refused']}")
        if s["note"]:
            print(f"  note: {s['note']}")
    print(
        f"Targets: at 2,500 tables + 20 floor views: 0 errors, p99 <= {TARGETS['p99_ms']:g} ms, "
        f"RSS <= {TARGETS['rss_mib']:g} MiB, CPU <= {TARGETS['cpu_pct']:g}% of a core, "
        f"p50 <= {TARGETS['p50_ratio']:g}x and p99 <= {TARGETS['p99_ratio']:g}x the bare relay; "
        f"at 5,000 tables: 0 errors, p99 <= {TARGETS['p99_ms_5000']:g} ms. Every run: CPU per "
        f"command <= {report.CPU_PER_COMMAND_MS:g} ms, RSS per table <= "
        f"{report.RSS_PER_TABLE_KIB:g} KiB. Long run: p99.9 <= {report.LONG_TARGETS['p999_ms']:g} "
        f"ms, max <= {report.LONG_TARGETS['max_ms']:g} ms."
    )
    if args.baseline_ref:
        print_baseline(summaries, args.baseline_ref)


def parse_list(text: str, kind: type = str) -> list[Any]:
    return [kind(item) for item in text.split(",") if item.strip()]


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m bench", description=__doc__)
    p.add_argument(
        "--tables",
        default=None,
        help=f"table counts, comma-separated (default 500; {LONG_TABLES} with --long)",
    )
    p.add_argument(
        "--seconds",
        type=float,
        default=30.0,
        help="measured seconds per run (with --long: the relay's run)",
    )
    p.add_argument(
        "--long",
        action="store_true",
        help=f"the long run: {LONG_SECONDS / 60:.0f} minutes measured at {LONG_TABLES} tables "
        f"with {LONG_FLOOR_VIEWS} floor views, the production settings of "
        f"{', '.join(PRODUCTION)}, p99.9 and max, and every stall of the worker's loop over 20 ms "
        "with its cause",
    )
    p.add_argument(
        "--long-seconds",
        type=float,
        default=None,
        help=f"the long run's measured seconds (default {LONG_SECONDS:.0f}; implies --long), "
        "e.g. --long-seconds 60 --tables 300 for a quick check",
    )
    p.add_argument(
        "--stalls",
        action="store_true",
        help="the worker records its loop's stalls (STALL_REPORT; on with --long)",
    )
    p.add_argument(
        "--baseline-ref",
        help="also run the server of this git ref (a temporary worktree), alternately with "
        "the current code, and print the ratios current/baseline",
    )
    p.add_argument(
        "--repeat",
        type=int,
        default=1,
        help="server runs of each code per table count (with --baseline-ref: baseline, "
        "current, baseline, current, ... for 2)",
    )
    p.add_argument(
        "--interval",
        type=float,
        default=6.0,
        help="mean seconds between a table's commands (default 6)",
    )
    p.add_argument("--db", default="sqlite", help="sqlite, postgres or both: sqlite,postgres")
    p.add_argument("--processes", default="1", help="server processes: 1, 2 or 1,2")
    p.add_argument("--redis", action="store_true", help="REDIS_URL hub (forced with 2 processes)")
    p.add_argument(
        "--placement",
        choices=("cross", "table"),
        default="cross",
        help="with 2 processes: cross = seat A on one, seat B on the other (every command "
        "crosses Redis); table = both seats of a table on one process, as a proxy hashing the "
        "table's socket path places them",
    )
    p.add_argument("--no-relay", action="store_true", help="skip the bare relay baseline")
    p.add_argument(
        "--storm",
        type=float,
        nargs="?",
        const=20.0,
        default=None,
        help="the hall reconnecting: this many seconds into the window (20 when given alone), "
        "every phone's socket dropped at once and back with `since` within --storm-spread "
        "seconds, while the load goes on (one table in 50 stays connected and pings)",
    )
    p.add_argument(
        "--profile",
        nargs="?",
        const="run",
        default=None,
        help="a py-spy flame graph (SVG) of each server worker over the measured window, in "
        "this folder (the run's folder when given alone)",
    )
    p.add_argument(
        "--profile-rate",
        type=int,
        default=100,
        help="with --profile: samples a second (100; 1000 to see a one-second burst such as "
        "the time call in some detail)",
    )
    p.add_argument(
        "--profile-format",
        choices=("flamegraph", "raw"),
        default="flamegraph",
        help="with --profile: an SVG flame graph (default) or py-spy's collapsed stacks (raw "
        "text, one stack and its count a line: for reading the top functions)",
    )
    p.add_argument("--storm-spread", type=float, default=5.0, help="seconds (5)")
    p.add_argument(
        "--break-at",
        type=float,
        default=0.0,
        help="the break between rounds: this many seconds into the window no table sends a "
        "command for --break-seconds (the phones stay connected and ping); with GC_FULL_SECONDS "
        "below the window and --stalls, shows where the worker's full collection runs",
    )
    p.add_argument("--break-seconds", type=float, default=0.0, help="seconds (0: no break)")
    busy = p.add_mutually_exclusive_group()
    busy.add_argument(
        "--round-start",
        type=float,
        nargs="?",
        const=10.0,
        default=None,
        help="the round's start: the event's tables register their decks and wait; this many "
        "seconds into the window (10 when given alone) the organiser taps Start round; "
        "measured: from the tap to each phone and each floor view showing its clock running, "
        f"and the commands and pings of the next {BUSY_SECONDS:g} s (one table in "
        f"{CONTROL_EVERY} is a casual table, sending commands throughout)",
    )
    busy.add_argument(
        "--time-call",
        action="store_true",
        help="time called at every table in the same second: the round (of --round-minutes) "
        "is started at set-up, every clock reaches its deadline in the window; measured: from "
        "the deadline to each phone and each floor view showing time called, and the commands "
        f"and pings of the next {BUSY_SECONDS:g} s (--seconds must reach {BUSY_SECONDS:g} s "
        "past the deadline)",
    )
    p.add_argument(
        "--round-minutes",
        type=int,
        default=1,
        help="the event round's time with --time-call (default 1, the shortest an event takes)",
    )
    p.add_argument(
        "--no-pin",
        action="store_true",
        help="do not pin the server and its clients to different CPUs",
    )
    p.add_argument("--relay-only", action="store_true", help="only the bare relay")
    p.add_argument(
        "--floor-views",
        type=int,
        default=None,
        help=f"judges' floor views to open during the run (default {FLOOR_VIEWS}; 0: casual "
        "tables, no event; skipped if the server has none); "
        "--floor-bench runs the floor-view benchmark of bench/floorview.py instead",
    )
    p.add_argument(
        "--hall-screens",
        type=int,
        default=HALL_SCREENS,
        help=f"screens showing the hall page during the run (default {HALL_SCREENS}; with the "
        "floor's events)",
    )
    p.add_argument(
        "--clock-tables",
        type=int,
        default=100,
        help="tables that also sample the displayed clock (issue 4)",
    )
    p.add_argument("--clients", type=int, default=0, help="client processes (default: 2-4)")
    p.add_argument("--ramp", type=float, default=150.0, help="tables set up a second")
    p.add_argument(
        "--setup-slots",
        type=int,
        default=64,
        help="tables being set up at once, over all client processes",
    )
    p.add_argument(
        "--setup-timeout",
        type=float,
        default=0.0,
        help="seconds for all tables to be set up (default: 30 + tables / 4, at least 90)",
    )
    p.add_argument(
        "--postgres-url",
        default="postgresql://postgres@127.0.0.1:5432/test",
        help="where to create (and drop) a fresh database for each run",
    )
    p.add_argument("--seed", type=int, default=1)
    p.add_argument(
        "--data-dir",
        type=Path,
        help="where the SQLite file goes (default: the run's "
        "directory under bench-results/, on the repository's disk)",
    )
    p.add_argument(
        "--gunicorn-conf",
        type=Path,
        default=GUNICORN_CONF,
        help="gunicorn settings (default: the project's server/gunicorn_conf.py)",
    )
    p.add_argument("--json", type=Path, help="also write the figures to this file")
    p.add_argument("--keep", action="store_true", help="keep the run directory (logs, data)")
    return p


def resolve(args: argparse.Namespace) -> argparse.Namespace:
    """Fill in what --long implies: its table count, floor views, length and stall report."""
    if args.long_seconds is not None:
        args.long = True
    if args.long:
        args.long_seconds = LONG_SECONDS if args.long_seconds is None else args.long_seconds
        args.tables = args.tables or LONG_TABLES
        args.floor_views = LONG_FLOOR_VIEWS if args.floor_views is None else args.floor_views
        args.stalls = True
    args.tables = args.tables or "500"
    args.floor_views = FLOOR_VIEWS if args.floor_views is None else args.floor_views
    split = None if args.no_pin else cpu_split()
    args.server_cpus, args.client_cpus = split or (None, None)
    if args.repeat < 1:
        raise SystemExit("--repeat must be at least 1")
    return args


def build_cases(args: argparse.Namespace, baseline_root: Path | None) -> list[Case]:
    """The runs, in order: per table count the relay, then the server runs; with a baseline,
    baseline and current alternately (`--repeat` pairs), baseline first."""
    cases: list[Case] = []
    server_seconds = args.long_seconds if args.long else args.seconds
    codes: list[tuple[str, Path]] = [("", ROOT)]
    if baseline_root is not None:
        codes = [(f"baseline {args.baseline_ref}", baseline_root), ("", ROOT)]
    for n in parse_list(args.tables, int):
        if not args.no_relay:
            cases.append(Case("relay", n, seconds=args.seconds))
        if args.relay_only:
            continue
        for db in parse_list(args.db):
            if db not in ("sqlite", "postgres"):
                raise SystemExit(f"unknown --db {db!r}")
            for processes in parse_list(args.processes, int):
                redis = args.redis or processes > 1
                for _ in range(args.repeat):
                    for code, root in codes:
                        cases.append(
                            Case(
                                "server",
                                n,
                                db,
                                processes,
                                redis,
                                args.placement,
                                seconds=server_seconds,
                                code=code,
                                root=root,
                                stalls=args.stalls,
                            )
                        )
    return cases


def production_text() -> str:
    """What the long run says of the settings it keeps at production values."""
    inherited = {k: os.environ[k] for k in PRODUCTION if k in os.environ}
    dropped = (
        "; left out of the environment the servers inherit: "
        + ", ".join(f"{k}={v}" for k, v in inherited.items())
        if inherited
        else ""
    )
    return (
        "Long run: "
        + ", ".join(f"{k}={v}" for k, v in PRODUCTION.items())
        + " (production defaults; bench/servers.py sets none of them"
        + dropped
        + "). Checked again after the run from what the worker reports."
    )


@contextlib.contextmanager
def baseline_worktree(ref: str | None, run_dir: Path) -> Iterator[Path | None]:
    """A detached git worktree of `ref` for the baseline's server, removed afterwards."""
    if not ref:
        yield None
        return
    commit = subprocess.run(
        ["git", "-C", str(ROOT), "rev-parse", "--verify", f"{ref}^{{commit}}"],
        capture_output=True,
        text=True,
    )
    if commit.returncode != 0:
        raise SystemExit(f"--baseline-ref {ref!r}: {commit.stderr.strip()}")
    path = Path(tempfile.mkdtemp(prefix="bench-baseline-")) / "src"
    subprocess.run(
        ["git", "-C", str(ROOT), "worktree", "add", "--detach", str(path), commit.stdout.strip()],
        check=True,
        capture_output=True,
    )
    print(f"baseline {ref} = {commit.stdout.strip()[:12]} checked out in {path}", flush=True)
    try:
        yield path
    finally:
        subprocess.run(
            ["git", "-C", str(ROOT), "worktree", "remove", "--force", str(path)],
            capture_output=True,
        )
        shutil.rmtree(path.parent, ignore_errors=True)
        subprocess.run(["git", "-C", str(ROOT), "worktree", "prune"], capture_output=True)


def storm_line(st: dict[str, Any]) -> str:
    return (
        f"  storm: {st['welcomed']}/{st['phones']} phones welcomed again, p50 "
        f"{fmt(st['welcomed_p50_s'], 2)} s, p99 {fmt(st['welcomed_p99_s'], 2)} s, max "
        f"{fmt(st['welcomed_max_s'], 2)} s after the drop "
        f"(target <= {STORM_TARGETS['welcomed_s']:g} s); "
        f"{st['refused_opens']} opens refused with 503 on the way, other failures "
        f"{st['failed_opens'] or 0}, refused for good {st['refused_for_good']} (target 0); "
        f"another table's ping p99 {fmt(st['control_ping_p99_ms'], 1)} ms, max "
        f"{fmt(st['control_ping_max_ms'], 1)} ms over {st['control_pings']} pings (target <= "
        f"{STORM_TARGETS['control_ping_p99_ms']:g} ms); acknowledged commands lost "
        f"{st['lost_acknowledged']} (target 0); commands across the drop {st['in_flight']}\n"
        f"  another table's ping p99 in each {STORM_SLICE:g} s after the drop: "
        + ", ".join(
            f"{k * STORM_SLICE:g}-{(k + 1) * STORM_SLICE:g} s {fmt(ms, 1)} ms"
            for k, ms in enumerate(st.get("control_ping_p99_by_slice_ms", ()))
        )
    )


def heartbeat_line(s: dict[str, Any]) -> str:
    """The phones' heartbeat in a run: how many pings, their round trips, the resends."""
    return (
        f"  the phones' heartbeat (a ping every {APP.ping_s:g} s a phone, web/js/conn.js): "
        f"{s['pings']:,} pings, round trip p50 {fmt(s['ping_p50_ms'], 2)} ms, p99 "
        f"{fmt(s['ping_p99_ms'], 2)} ms, max {fmt(s['ping_max_ms'], 1)} ms; commands sent "
        f"again after {APP.resend_s:g} s unanswered: {s['resent']}"
    )


def busy_line(b: dict[str, Any]) -> str:
    """The busiest minute's figures, with the targets at 2,000 tables."""
    kind = b["kind"]
    what, since = (
        ("clock running", "the tap") if kind == "round_start" else ("time called", "the deadline")
    )
    targets = BUSY_TARGETS[kind]
    limits = ", ".join(f"{k.removesuffix('_ms')} <= {v:g} ms" for k, v in targets.items())
    return (
        f"  {kind.replace('_', ' ')}: {b['shown']}/{b['phones']} phones showed {what}, from "
        f"{since}: p50 {fmt(b['shown_p50_ms'], 1)} ms, p99 {fmt(b['shown_p99_ms'], 1)} ms, max "
        f"{fmt(b['shown_max_ms'], 1)} ms; floor views {b['floor_shown']} tables, p99 "
        f"{fmt(b['floor_p99_ms'], 1)} ms, max {fmt(b['floor_max_ms'], 1)} ms; within "
        f"{BUSY_SECONDS:g} s of it {b['commands']} commands (p50 {fmt(b['commands_p50_ms'], 2)} "
        f"ms, p99 {fmt(b['commands_p99_ms'], 2)} ms) and {b['pings']} pings (p99 "
        f"{fmt(b['pings_p99_ms'], 2)} ms); tables refused the start {b['refused']} "
        f"(targets at 2,000 tables: {limits}, 0 refused, every phone)"
    )


def affinity_text(args: argparse.Namespace) -> str:
    if not args.server_cpus:
        why = "--no-pin" if args.no_pin else "one CPU"
        return f"CPU affinity: none ({why}): the server and its clients share the CPUs"
    server = ",".join(map(str, sorted(args.server_cpus)))
    clients = ",".join(map(str, sorted(args.client_cpus)))
    return f"CPU affinity: the server (master and worker) on CPU {server}, the clients on {clients}"


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if "--floor-bench" in argv:
        # Issue 6: the judges' floor view under load has its own driver (bench/floorview.py).
        from .floorview import main as floor_main

        return floor_main([a for a in argv if a != "--floor-bench"])
    args = resolve(build_parser().parse_args(argv))
    raise_nofile()
    run_dir = ROOT / "bench-results" / time.strftime("%Y%m%d-%H%M%S")
    run_dir.mkdir(parents=True, exist_ok=True)
    if args.long:
        print(production_text(), flush=True)
    print(affinity_text(args), flush=True)
    summaries: list[dict[str, Any]] = []
    with baseline_worktree(args.baseline_ref, run_dir) as baseline_root:
        cases = build_cases(args, baseline_root)
        try:
            for case in cases:
                print(
                    f"running {case.label} with {case.tables} tables for {case.seconds:.0f} s ...",
                    flush=True,
                )
                try:
                    result = run_case(case, args, run_dir)
                except Exception as exc:
                    # A run that could not be set up measured nothing: no report, an error.
                    print(
                        f"bench: set-up failed: {exc}; no report (logs: {run_dir})",
                        file=sys.stderr,
                        flush=True,
                    )
                    return 2
                summary = result.summary()
                summaries.append(summary)
                print("  " + row(summary), flush=True)
                if args.json:
                    args.json.write_text(json.dumps(summaries, indent=1))
        except KeyboardInterrupt:
            print("interrupted", flush=True)
    print_report(summaries, args)
    if args.keep:
        print(f"logs and data: {run_dir}")
    else:
        for path in [
            *run_dir.glob("data-*"),
            *(args.data_dir or run_dir).glob(f"data-*-{os.getpid()}"),
        ]:
            shutil.rmtree(path, ignore_errors=True)
        print(f"server logs: {run_dir}")
    return 0
