"""The judges' floor view under load: `python -m bench --floor-bench`.

Starts the server (gunicorn, gevent worker), makes an organiser and an event of `--tables` tables,
seats two phones at each, and has every table send a command every `--interval` seconds on average
(each one a new event, so each one changes the table's floor summary). `--views` judges watch the
floor socket. Measured, per floor view:
  - staleness: from a command's acknowledgement at the phone to the floor view receiving a summary
    of that table at or past the command's sequence number (p50, p99, max);
  - what it receives a second: messages, table summaries, bytes;
  - the most updates any one table got in any one second (the coalescing promises about 2).
"""

from __future__ import annotations

import argparse
import asyncio
import http.cookiejar
import json
import random
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections import defaultdict, deque
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from websockets.asyncio.client import connect

from .load import raise_nofile
from .servers import start_gunicorn, wait_ready

PASSWORD = "floor bench password"


def pct(values: list[float], p: float) -> float | None:
    if not values:
        return None
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(len(ordered) * p / 100))]


class Client:
    """HTTP with a cookie jar, as a browser of the organiser."""

    def __init__(self, base: str) -> None:
        self.base = base
        self.jar = http.cookiejar.CookieJar()
        self.opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(self.jar))
        self.csrf = ""

    def call(self, method: str, path: str, body: Any = None) -> Any:
        headers = {"Content-Type": "application/json", "Origin": self.base}
        if self.csrf:
            headers["X-CSRF-Token"] = self.csrf
        data = None if body is None else json.dumps(body).encode()
        req = urllib.request.Request(self.base + path, data=data, method=method, headers=headers)
        with self.opener.open(req, timeout=300) as response:
            return json.load(response)

    @property
    def cookie(self) -> str:
        return "; ".join(f"{c.name}={c.value}" for c in self.jar)


def prepare(server: Any, tables: int) -> tuple[Client, int, list[str], dict[str, tuple[str, str]]]:
    """An organiser, an event of `tables` tables, both seats of each taken."""
    subprocess.run(
        [sys.executable, "-m", "server", "create-organiser", "bench", "--password", PASSWORD],
        cwd=server.root,
        env=server.env,
        check=True,
        capture_output=True,
    )
    org = Client(server.url)
    org.csrf = org.call("POST", "/api/auth/login", {"username": "bench", "password": PASSWORD})[
        "csrf"
    ]
    event = org.call(
        "POST",
        "/api/events",
        {"name": "Bench", "date": "2026-12-01", "tables": tables, "require_player_id": False},
    )
    codes = [t["code"] for t in event["tables"]]
    phones = Client(server.url)

    def seats(code: str) -> tuple[str, str]:
        a = phones.call("POST", f"/api/tables/{code}/join", {"name": "A"})["token"]
        b = phones.call("POST", f"/api/tables/{code}/join", {"name": "B"})["token"]
        return a, b

    with ThreadPoolExecutor(16) as pool:
        tokens = dict(zip(codes, pool.map(seats, codes), strict=True))
    # A round starts once paired: every table paired as its seats joined.
    lines = "\n".join(f"{t['number']},A,,B," for t in event["tables"])
    org.call("POST", f"/api/events/{event['id']}/pairings", {"csv": lines})
    org.call("POST", f"/api/events/{event['id']}/round/start")
    return org, event["id"], codes, tokens


class Measure:
    def __init__(self) -> None:
        self.acks: dict[str, deque[tuple[int, float]]] = defaultdict(deque)
        self.staleness: list[float] = []
        self.commands = 0
        self.errors: dict[str, int] = defaultdict(int)
        self.measuring = False
        self.bytes = 0
        self.messages = 0
        self.summaries = 0
        self.per_table_second: dict[tuple[str, int], int] = defaultdict(int)
        self.ready = 0
        self.go = asyncio.Event()
        self.end = 0.0


SETUP = [
    ("a", "deck.declare", {"main": 40, "extra": 15, "side": 15}),
    ("b", "deck.declare", {"main": 40, "extra": 15, "side": 15}),
    ("a", "deck.confirm", {"seat": "B"}),
    ("b", "deck.confirm", {"seat": "A"}),
    ("a", "pregame.check", {"items": ["handshake", "side_shown", "shuffled", "cut"]}),
    ("b", "pregame.check", {"items": ["handshake", "side_shown", "shuffled", "cut"]}),
    ("a", "rps.pick", {"hand": "rock"}),
    ("b", "rps.pick", {"hand": "scissors"}),
    ("a", "duel.choose", {"order": "first"}),
    ("a", "duel.draw", {}),
    ("b", "duel.draw", {}),
]


async def _ok(ws: Any, ref: str, cmd: str, args: dict[str, Any]) -> None:
    await ws.send(json.dumps({"type": "command", "id": ref, "cmd": cmd, "args": args}))
    while True:
        msg = json.loads(await ws.recv())
        if msg.get("type") == "reply" and msg.get("re") == ref:
            if not msg["ok"]:
                raise RuntimeError(f"{cmd}: {msg['error']}")
            return


async def drive_table(
    base_ws: str, code: str, tokens: tuple[str, str], interval: float, m: Measure
) -> None:
    """Both seats take the table to its first duel; then seat A changes a counter every
    `interval` s on average while seat B just watches."""
    url = f"{base_ws}/ws/table/{code}"
    async with (
        connect(url, ping_interval=None, max_size=2**22) as a,
        connect(url, ping_interval=None, max_size=2**22) as b,
    ):
        for ws, token in ((a, tokens[0]), (b, tokens[1])):
            # Protocol 2: small updates; this load reads no state from them (drained).
            await ws.send(json.dumps({"type": "hello", "token": token, "v": 2}))

        async def drain(ws: Any) -> None:
            async for _ in ws:
                pass

        for ws in (a, b):
            while json.loads(await ws.recv()).get("type") != "welcome":
                pass
        for i, (who, cmd, args) in enumerate(SETUP):
            await _ok(a if who == "a" else b, f"{code}-setup-{i}", cmd, args)
        m.ready += 1
        reader_b = asyncio.create_task(drain(b))
        await m.go.wait()
        pending: dict[str, float] = {}
        n = 0
        await asyncio.sleep(random.uniform(0, interval))
        while time.monotonic() < m.end:
            n += 1
            ref = f"{code}-{n}"
            pending[ref] = time.time() * 1000
            delta = 1 if n % 2 else -1
            await a.send(
                json.dumps(
                    {
                        "type": "command",
                        "id": ref,
                        "cmd": "counter.change",
                        "args": {"name": "Bench", "delta": delta},
                    }
                )
            )
            deadline = time.monotonic() + random.expovariate(1 / interval)
            while True:
                left = deadline - time.monotonic()
                if left <= 0:
                    break
                try:
                    raw = await asyncio.wait_for(a.recv(), left)
                except TimeoutError:
                    break
                msg = json.loads(raw)
                if msg.get("type") == "reply" and msg.get("re") in pending:
                    sent = pending.pop(msg["re"])
                    if msg.get("ok"):
                        m.acks[code].append((msg["seq"], time.time() * 1000))
                        m.commands += m.measuring
                    else:
                        m.errors[msg["error"]["code"]] += 1
                    del sent
        reader_b.cancel()


async def watch_floor(
    base_ws: str, event_id: int, cookie: str, origin: str, m: Measure, first: bool
) -> None:
    """One judge's floor view; the first view also consumes the acknowledgements (staleness)."""
    url = f"{base_ws}/ws/floor/{event_id}"
    headers = {"Cookie": cookie, "Origin": origin}
    async with connect(url, additional_headers=headers, ping_interval=None, max_size=2**24) as ws:
        async for raw in ws:
            now = time.time() * 1000
            msg = json.loads(raw)
            if m.measuring:
                m.bytes += len(raw)
                m.messages += 1
            for s in msg.get("tables", []):
                if m.measuring:
                    m.summaries += 1
                    m.per_table_second[(s["code"], int(now // 1000))] += 1
                acks = m.acks.get(s["code"]) if first else None
                while acks and acks[0][0] <= s["seq"]:
                    _, acked = acks.popleft()
                    if m.measuring:
                        m.staleness.append(now - acked)


async def measure(args: argparse.Namespace, server: Any) -> dict[str, Any]:
    org, event_id, codes, tokens = await asyncio.to_thread(prepare, server, args.tables)
    base_ws = "ws" + server.url[len("http") :]
    m = Measure()
    drivers = []
    for c in codes:  # open the sockets at a gentle pace
        drivers.append(asyncio.create_task(drive_table(base_ws, c, tokens[c], args.interval, m)))
        await asyncio.sleep(0.005)
    deadline = time.monotonic() + 300
    while m.ready < len(codes):
        failed = [d for d in drivers if d.done() and d.exception()]
        if failed:
            raise RuntimeError(f"a table failed its setup: {failed[0].exception()!r}")
        if time.monotonic() > deadline:
            raise RuntimeError(f"only {m.ready} of {len(codes)} tables ready")
        await asyncio.sleep(0.2)
    views = [
        asyncio.create_task(watch_floor(base_ws, event_id, org.cookie, server.url, m, i == 0))
        for i in range(args.views)
    ]
    warmup = args.interval + 2
    m.end = time.monotonic() + warmup + args.seconds
    m.go.set()
    await asyncio.sleep(warmup)
    m.measuring = True
    started = time.monotonic()
    await asyncio.sleep(args.seconds)
    m.measuring = False
    seconds = time.monotonic() - started
    for task in views:
        task.cancel()
    _, late = await asyncio.wait(drivers, timeout=args.interval * 5 + 10)
    for task in late:
        task.cancel()
    per_table = list(m.per_table_second.values()) or [0]
    views_n = max(1, args.views)
    return {
        "tables": args.tables,
        "views": args.views,
        "seconds": round(seconds, 1),
        "commands_per_s": round(m.commands / seconds, 1),
        "floor_messages_per_s_per_view": round(m.messages / seconds / views_n, 2),
        "floor_summaries_per_s_per_view": round(m.summaries / seconds / views_n, 1),
        "floor_bytes_per_s_per_view": round(m.bytes / seconds / views_n),
        "staleness_ms": {
            "count": len(m.staleness),
            "p50": pct(m.staleness, 50),
            "p99": pct(m.staleness, 99),
            "max": max(m.staleness) if m.staleness else None,
        },
        "max_updates_per_table_second": max(per_table),
        "errors": dict(m.errors),
    }


def run(args: argparse.Namespace) -> dict[str, Any]:
    run_dir = Path(tempfile.mkdtemp(prefix="floor-bench-"))
    server = start_gunicorn(
        "floor",
        "server:create_app()",
        run_dir,
        {"WS_RATE_PER_SECOND": "1000", "WS_RATE_BURST": "1000"},
    )
    try:
        wait_ready(server, "/api/time")
        return asyncio.run(measure(args, server))
    finally:
        server.stop()


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m bench.floorview", description=__doc__)
    p.add_argument("--tables", type=int, default=500)
    p.add_argument("--views", type=int, default=5, help="floor views (judges) watching")
    p.add_argument("--seconds", type=float, default=30.0, help="measured seconds")
    p.add_argument("--interval", type=float, default=6.0, help="mean seconds between commands")
    p.add_argument("--json", type=Path, help="also write the figures to this file")
    return p


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    raise_nofile()
    figures = run(args)
    print(json.dumps(figures, indent=2))
    if args.json:
        args.json.write_text(json.dumps(figures, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
