"""The public pages' cost to the floor: `python -m reliability.public_cost [--players 2000]`
(and `python -m reliability`, unless `--skip public`).

A real server (gunicorn, one gevent worker) pinned to the first CPU, this process (every
client) to the others. An event of N players (2,000: 1,000 tables) is paired and its round
started; one seat of every table joins with its card's claim and opens its socket; a casual
table elsewhere is the probe, its phone pinging the server every 50 ms. Three phases of
`seconds` each, measured in the same run:

- idle: the probe alone;
- floor (the baseline): every table writing (a deck declaration every `interval` s each,
  staggered), nobody reading the public pages;
- readers: the same writing, and `readers` readers of the hall clock, the players' page data
  and the public standings, within their address's rate limit;
- hammer: the same, and one address hammering `/api/hall/<slug>` without pause (four threads)
  on top.

Target (docs/reliability.md): the probe's ping p99 in each of the last two at most 2x the floor's,
its max at most 300 ms, no worker restart, and the hammering address refused (429).
"""

from __future__ import annotations

import argparse
import asyncio
import http.cookiejar
import json
import os
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from bench.servers import cpu_split, start_gunicorn, wait_ready

PASSWORD = "correct horse battery"
MAX_MS = 300.0


@dataclass
class PublicCostReport:
    players: int = 0
    tables: int = 0
    seated: int = 0
    load_before: tuple[float, float, float] | None = None
    load_after: tuple[float, float, float] | None = None
    idle_p99_ms: float | None = None
    floor_p99_ms: float | None = None
    attack_p99_ms: float | None = None
    attack_max_ms: float | None = None
    hammer_p99_ms: float | None = None  # the readers and one address hammering the hall clock
    hammer_max_ms: float | None = None
    floor_writes: int = 0
    attack_writes: int = 0
    write_errors: int = 0
    reads: dict[str, int] = field(default_factory=dict)
    projections_seen: int = 0
    hammer: dict[str, int] = field(default_factory=dict)
    worker_restarts: int = 0
    pinned: str = ""
    problems: list[str] = field(default_factory=list)


def p99(values: list[float]) -> float | None:
    if not values:
        return None
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))]


class Client:
    """HTTP with a cookie jar (a staff login) from this process's address."""

    def __init__(self, base: str) -> None:
        self.base = base
        self.opener = urllib.request.build_opener(
            urllib.request.HTTPCookieProcessor(http.cookiejar.CookieJar())
        )
        self.csrf = ""

    def call(self, method: str, path: str, body: Any = None) -> tuple[int, Any, dict[str, str]]:
        data = None if body is None else json.dumps(body).encode()
        headers = {"Content-Type": "application/json", "Origin": self.base}
        if self.csrf:
            headers["X-CSRF-Token"] = self.csrf
        request = urllib.request.Request(self.base + path, data, headers, method=method)
        try:
            with self.opener.open(request, timeout=120) as answer:
                raw = answer.read()
                status, got = answer.status, dict(answer.headers)
        except urllib.error.HTTPError as exc:
            with exc:
                raw, status, got = exc.read(), exc.code, dict(exc.headers)
        try:
            return status, json.loads(raw or b"null"), got
        except ValueError:
            return status, None, got


def _pinger_main(ws_url: str, code: str, token: str, until: float, out: Any) -> None:
    """The probe's phone, in a process of its own (the load's clients never delay its
    reading): a ping every 50 ms until `until` (time.monotonic, the same clock in every
    process); puts [(sent, round trip ms)]."""
    from websockets.asyncio.client import connect

    async def go() -> list[tuple[float, float]]:
        found = []
        async with connect(f"{ws_url}/ws/table/{code}") as ws:
            await ws.send(json.dumps({"type": "hello", "token": token}))
            while json.loads(await ws.recv())["type"] != "welcome":
                pass
            while time.monotonic() < until:
                sent = time.monotonic()
                await ws.send(json.dumps({"type": "ping", "t": int(sent * 1000)}))
                while json.loads(await ws.recv())["type"] != "pong":
                    pass
                found.append((sent, (time.monotonic() - sent) * 1000))
                await asyncio.sleep(0.05)
        return found

    out.put(asyncio.run(go()))


def _readers_main(
    base: str, slug: str, readers: int, hammer_from: float, until: float, out: Any
) -> None:
    """The public pages' readers and the one address hammering the hall clock, in a process
    of their own: threads of plain HTTP GETs until `until`; puts their counts."""
    import threading

    counts: dict[str, int] = {}
    projections: set[str] = set()
    lock = threading.Lock()

    def get(path: str, key: str) -> None:
        status, _, got = Client(base).call("GET", path)
        with lock:
            counts[f"{key}:{status}"] = counts.get(f"{key}:{status}", 0) + 1
            if "X-Projection" in got:
                projections.add(got["X-Projection"])

    def reader(k: int) -> None:
        paths = [f"/api/hall/{slug}", f"/api/e/{slug}", f"/e/{slug}/standings"]
        n = k
        while time.monotonic() < until:
            get(paths[n % 3], paths[n % 3].split("/")[1] + "/" + paths[n % 3].split("/")[2])
            n += 1
            time.sleep(readers / 9.0)  # each within its share of the address's budget

    def hammer() -> None:
        time.sleep(max(0.0, hammer_from - time.monotonic()))
        while time.monotonic() < until:
            get(f"/api/hall/{slug}", "hammer")

    threads = [threading.Thread(target=reader, args=(k,)) for k in range(readers)]
    threads += [threading.Thread(target=hammer) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    out.put({"counts": counts, "projections": len(projections)})


def set_up(server: Any, players: int) -> tuple[dict[str, Any], str]:
    """The event: an organiser (the command line), the event, its players (written straight
    into the database, as a registration desk's import would), round 1 paired and started."""
    env = {**os.environ, **server.env}
    subprocess.run(
        [sys.executable, "-m", "server", "create-organiser", "boss", "--password", PASSWORD],
        env=env,
        check=True,
        capture_output=True,
    )
    org = Client(server.url)
    status, body, _ = org.call(
        "POST", "/api/auth/login", {"username": "boss", "password": PASSWORD}
    )
    assert status == 200, body
    org.csrf = body["csrf"]
    event = {"name": "Public Cup", "date": "2026-12-01", "tables": players // 2}
    status, body, _ = org.call("POST", "/api/events", {**event, "require_player_id": False})
    assert status == 201, body
    event_id = body["id"]
    from server.store import bind, db, open_database
    from server.store.swiss import SwissPlayer

    bind(open_database(server.env.get("DATABASE_URL", ""), server.env["DATA_DIR"]), create=False)
    with db.connection_context(), db.atomic():
        rows = [
            {"event": event_id, "number": i, "name": f"Player {i:04}", "player_id": f"{i:06}"}
            | {"created_ms": 1}
            for i in range(1, players + 1)
        ]
        for start in range(0, len(rows), 500):
            SwissPlayer.insert_many(rows[start : start + 500]).execute()
    for path in (f"/api/events/{event_id}/swiss/pair", f"/api/events/{event_id}/round/start"):
        status, body, _ = org.call("POST", path)
        assert status == 200, (path, body)
    org.call("PATCH", f"/api/events/{event_id}/swiss", {"public": True})
    status, detail, _ = org.call("GET", f"/api/events/{event_id}")
    assert status == 200, detail
    return detail, str(detail["slug"])


async def measure(server: Any, detail: dict[str, Any], slug: str, args: Any) -> PublicCostReport:
    from websockets.asyncio.client import connect

    report = PublicCostReport(players=args.players, tables=len(detail["tables"]))
    ws_url = server.url.replace("http://", "ws://")
    loop = asyncio.get_running_loop()

    def join(table: dict[str, Any]) -> str | None:
        claim = table["claims"]["A"]
        paired = (table.get("pairing") or {}).get("A") or {}
        client = Client(server.url)
        status, body, _ = client.call(
            "POST",
            f"/api/tables/{table['code']}/join?seat=A&claim={claim}",
            {
                "name": paired.get("name") or "Player",
                "player_id": paired.get("player_id") or "",
                "seat": "A",
                "claim": claim,
            },
        )
        return body.get("token") if status in (200, 201) and isinstance(body, dict) else None

    tokens = []
    for start in range(0, len(detail["tables"]), 50):
        chunk = detail["tables"][start : start + 50]
        found = await asyncio.gather(*(loop.run_in_executor(None, join, t) for t in chunk))
        tokens += [(t["code"], tok) for t, tok in zip(chunk, found, strict=True) if tok]
    report.seated = len(tokens)

    async def open_seat(code: str, token: str) -> Any:
        for _ in range(20):
            try:
                ws = await connect(f"{ws_url}/ws/table/{code}", max_size=None)
            except Exception:
                await asyncio.sleep(0.5)
                continue
            await ws.send(json.dumps({"type": "hello", "token": token, "v": 2}))
            while json.loads(await ws.recv())["type"] != "welcome":
                pass
            return ws
        return None

    sockets = []
    for start in range(0, len(tokens), 100):  # within the address's open budget
        sockets += await asyncio.gather(*(open_seat(c, t) for c, t in tokens[start : start + 100]))
        await asyncio.sleep(0.5)
    seats = [(code, ws) for (code, _), ws in zip(tokens, sockets, strict=True) if ws is not None]

    # The probe: a casual table of its own, its phone pinging from a process of its own.
    import multiprocessing

    ctx = multiprocessing.get_context("spawn")
    probe = Client(server.url)
    _, made, _ = probe.call("POST", "/api/tables", {})
    _, joined, _ = probe.call("POST", f"/api/tables/{made['code']}/join", {"name": "Probe"})
    phase = {"name": "idle"}
    writes = {"floor": 0, "attack": 0, "errors": 0}
    stop = asyncio.Event()

    async def writer(k: int, ws: Any) -> None:
        await asyncio.sleep(args.interval * k / max(1, len(seats)))  # staggered
        n = 0
        while not stop.is_set():
            if phase["name"] in ("floor", "attack"):
                n += 1
                counts = {"main": 40 + n % 20, "extra": 15, "side": 15}
                ref = f"w{k}-{n}"
                await ws.send(
                    json.dumps(
                        {"type": "command", "id": ref, "cmd": "deck.declare", "args": counts}
                    )
                )
                writes[phase["name"]] += 1
            await asyncio.sleep(args.interval)

    async def drain(ws: Any) -> None:
        try:
            async for raw in ws:
                message = json.loads(raw)
                if message.get("type") == "reply" and not message.get("ok"):
                    writes["errors"] += 1
        except Exception:
            pass

    tasks = [asyncio.create_task(drain(ws)) for _, ws in seats]
    tasks += [asyncio.create_task(writer(k, ws)) for k, (_, ws) in enumerate(seats)]
    workers = set(server.worker_pids())
    report.load_before = os.getloadavg()
    start = time.monotonic() + 3  # the pinger's process is up
    marks = [start + i * (args.seconds + args.interval) for i in range(5)]
    pings_out = ctx.Queue()
    pinger = ctx.Process(
        target=_pinger_main,
        args=(ws_url, made["code"], joined["token"], marks[4], pings_out),
    )
    pinger.start()
    await asyncio.sleep(max(0.0, marks[1] - time.monotonic()))
    phase["name"] = "floor"
    await asyncio.sleep(max(0.0, marks[2] - time.monotonic()))
    phase["name"] = "attack"
    reads_out = ctx.Queue()
    readers = ctx.Process(
        target=_readers_main,
        args=(server.url, slug, args.readers, marks[3] - args.interval, marks[4], reads_out),
    )
    readers.start()
    await asyncio.sleep(max(0.0, marks[4] - time.monotonic()))
    phase["name"] = "done"
    report.load_after = os.getloadavg()
    stop.set()
    pinged = await loop.run_in_executor(None, pings_out.get, True, 120)
    found = await loop.run_in_executor(None, reads_out.get, True, 120)
    pinger.join(10)
    readers.join(10)
    for task in tasks:
        task.cancel()
    for _, ws in seats:
        await ws.close()

    def window(begin: float, end: float) -> list[float]:
        # From `interval` after a phase begins (every table writing by then) to its end.
        return [ms for at, ms in pinged if begin + args.interval <= at < end]

    pings = {
        "idle": window(marks[0] - args.interval, marks[1]),
        "floor": window(marks[1], marks[2]),
        "attack": window(marks[2], marks[3]),
        "hammer": window(marks[3], marks[4]),
    }
    hammer = {k.split(":")[1]: v for k, v in found["counts"].items() if k.startswith("hammer")}
    reads = {k: v for k, v in found["counts"].items() if not k.startswith("hammer")}
    projections = found["projections"]
    report.idle_p99_ms = p99(pings["idle"])
    report.floor_p99_ms = p99(pings["floor"])
    report.attack_p99_ms = p99(pings["attack"])
    report.attack_max_ms = max(pings["attack"]) if pings["attack"] else None
    report.hammer_p99_ms = p99(pings["hammer"])
    report.hammer_max_ms = max(pings["hammer"]) if pings["hammer"] else None
    report.floor_writes, report.attack_writes = writes["floor"], writes["attack"]
    report.write_errors = writes["errors"]
    report.reads, report.hammer = reads, hammer
    report.projections_seen = projections
    report.worker_restarts = len(set(server.worker_pids()) - workers)
    return report


def problems(report: PublicCostReport) -> list[str]:
    """The targets missed."""
    found = []
    floor, attack = report.floor_p99_ms, report.attack_p99_ms
    if floor is None or attack is None:
        found.append("no latency measured")
    elif attack > max(2 * floor, 1.0):
        found.append(f"ping p99 {attack:.1f} ms under the readers (floor {floor:.1f} ms)")
    if report.attack_max_ms is not None and report.attack_max_ms > MAX_MS:
        found.append(f"ping max {report.attack_max_ms:.0f} ms")
    if report.worker_restarts:
        found.append(f"{report.worker_restarts} worker restarts")
    hammer = report.hammer_p99_ms
    if floor is not None and hammer is not None and hammer > max(2 * floor, 1.0):
        found.append(f"ping p99 {hammer:.1f} ms with an address hammering (floor {floor:.1f} ms)")
    if not report.hammer.get("429"):
        found.append(f"the hammering address was never refused: {report.hammer}")
    if report.seated < report.tables:
        found.append(f"{report.tables - report.seated} tables not seated")
    return found


def run(workdir: Path, args: Any) -> PublicCostReport:
    split = cpu_split()
    run_dir = workdir / "public_cost"
    run_dir.mkdir(parents=True, exist_ok=True)
    server_cpus = split[0] if split else None
    # A smaller burst than the default (300), so one address hammering without pause is
    # refused within the run's seconds; the rate per minute is the default (600).
    env = {
        "LOG_LEVEL": "warning",
        "WS_MAX_PER_ADDRESS": "5000",
        "HTTP_RATE_PER_MINUTE": "600",
        "HTTP_RATE_BURST": "60",
    }
    root = Path(args.root).resolve() if getattr(args, "root", None) else None
    extra = {"root": root} if root else {}
    server = start_gunicorn(
        "public", "server:create_app()", run_dir, env, cpus=server_cpus, **extra
    )
    try:
        if split:
            os.sched_setaffinity(0, split[1])
        wait_ready(server, "/api/time")
        detail, slug = set_up(server, args.players)
        report = asyncio.run(measure(server, detail, slug, args))
        report.pinned = (
            f"server on CPU {sorted(split[0])}, clients on {sorted(split[1])}" if split else "none"
        )
    finally:
        server.stop()
    report.problems = problems(report)
    return report


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m reliability.public_cost", description=__doc__)
    parser.add_argument("--players", type=int, default=2000)
    parser.add_argument("--seconds", type=float, default=20, help="each phase")
    parser.add_argument("--interval", type=float, default=5, help="between a table's writes")
    parser.add_argument("--readers", type=int, default=4)
    parser.add_argument("--workdir", type=Path, default=None)
    parser.add_argument(
        "--root", default=None, help="run the server of another checkout (an earlier commit)"
    )
    return parser


def summary(report: PublicCostReport) -> str:
    def ms(value: float | None) -> str:
        return "-" if value is None else f"{value:.1f} ms"

    return (
        f"[public] {report.players} players, {report.seated}/{report.tables} tables writing "
        f"({report.floor_writes} writes on the floor, {report.attack_writes} under the "
        f"readers, {report.write_errors} refused); probe ping p99 idle {ms(report.idle_p99_ms)}, "
        f"floor {ms(report.floor_p99_ms)}, readers {ms(report.attack_p99_ms)} "
        f"(max {ms(report.attack_max_ms)}), readers and a hammering address "
        f"{ms(report.hammer_p99_ms)} (max {ms(report.hammer_max_ms)}); "
        f"reads {report.reads}, projections seen "
        f"{report.projections_seen}; hammering address {report.hammer}; worker restarts "
        f"{report.worker_restarts}; {report.pinned}; load average {report.load_before} -> "
        f"{report.load_after}"
    )


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    workdir = args.workdir or Path(tempfile.mkdtemp(prefix="reliability-public-"))
    report = run(workdir, args)
    print(summary(report))
    print(json.dumps(asdict(report), default=str))
    for problem in report.problems:
        print(f"  ! {problem}")
    return 1 if report.problems else 0


if __name__ == "__main__":
    sys.exit(main())
