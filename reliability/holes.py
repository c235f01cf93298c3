"""Attacks on the edges a probe found open: each run against a real server while another table's
phone pings it, with the server on CPU 0 and the attackers (and the pinging phone) on CPU 1 when
the machine has two CPUs or more.

`unread_*`: bodies sent to a route that answers before reading them (`/api/auth/logout` answers
401 without a login): one 2 GB Content-Length, four chunked senders, four 200 MB bodies, each
sender opening a new connection whenever the server closed the last, for the whole attack. The
figures: another table's ping (max and p99, ms), the worker's restarts, how much each sender got
to send before the server closed its connection. Targets (docs/reliability.md): ping max <= 300
ms, no worker restart, every connection closed.

The probes, from one address, as fast as it goes: `short_links` walks every table card's short
address (held: no table code given out); `seat_requests` asks for a seat at every casual table
(held: a few requests, not a table at its cap); `id_search` tries player IDs 000-999 on the
players' page search (held: refused within the join's budget); `old_recovery` uses a one-phone
table's code after seat B moved to its own phone (held: refused); `table_flood` opens tables
(held: refused within the per-address bound).
"""

from __future__ import annotations

import asyncio
import json
import multiprocessing
import os
import socket
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from bench.servers import start_gunicorn, wait_ready

from .adversary import _seated_table, p99

UNREAD = ("unread_length", "unread_chunked", "unread_200mb")
PROBES = ("short_links", "seat_requests", "id_search", "old_recovery", "table_flood")
ATTACKS = UNREAD + PROBES
EVENT_TABLES = 20
TABLES_PER_ADDRESS = 60  # the server's CASUAL_TABLES_PER_ADDRESS_PER_HOUR default
PING_MAX_TARGET_MS = 300.0
PIECE = 65536


@dataclass
class HoleResult:
    name: str
    ping_max_ms: float | None = None
    ping_p99_ms: float | None = None
    pings: int = 0
    restarts: int = 0
    detail: str = ""
    held: bool = False
    problems: list[str] = field(default_factory=list)


@dataclass
class HolesReport:
    pinned: str = ""
    quiet_ping_max_ms: float | None = None
    quiet_ping_p99_ms: float | None = None
    attacks: list[HoleResult] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        """Whether every attack held."""
        return all(a.held for a in self.attacks)


def _cpus() -> tuple[set[int] | None, set[int] | None]:
    """(the server's CPUs, the attackers' CPUs): 0 and the rest, or no pinning on one CPU."""
    cpus = sorted(os.sched_getaffinity(0))
    if len(cpus) < 2:
        return None, None
    return {cpus[0]}, set(cpus[1:])


# -- the attackers (in a process of their own) --------------------------------------------------


def _unread_sender(host: str, port: int, framing: str, total: int, until: float) -> dict:
    """Send bodies of `total` bytes (`framing`: "length" or "chunked") to a route that answers
    401 without reading them, a new connection each time the server closes one, until `until`.
    What happened, in a dict: connections, bytes sent, connections the server closed, answers."""
    out: dict[str, Any] = {"connections": 0, "sent": 0, "closed": 0, "answers": {}, "most": 0}
    piece = b"[" * PIECE
    if framing == "chunked":
        piece = f"{PIECE:x}\r\n".encode() + piece + b"\r\n"
    while time.monotonic() < until:
        sock = socket.create_connection((host, port), timeout=10)
        out["connections"] += 1
        head = "Transfer-Encoding: chunked" if framing == "chunked" else f"Content-Length: {total}"
        sock.sendall(
            b"POST /api/auth/logout HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
            + head.encode()
            + b"\r\n\r\n"
        )
        sent = 0
        try:
            while sent < total and time.monotonic() < until:
                sock.sendall(piece)
                sent += PIECE
        except OSError:
            out["closed"] += 1  # the server closed it: the rest is not read
        out["sent"] += sent
        out["most"] = max(out["most"], sent)
        try:
            answer = sock.recv(12)
        except OSError:
            answer = b""
        key = answer.decode(errors="replace").strip() or "reset"
        out["answers"][key] = out["answers"].get(key, 0) + 1
        sock.close()
    return out


def _call(base: str, method: str, path: str, body: Any = None, token: str = "") -> tuple[int, Any]:
    """One JSON request: (status, answer, or the redirect's Location for a 3xx)."""
    import http.client

    parts = urlsplit(base)
    conn = http.client.HTTPConnection(parts.hostname or "", parts.port or 80, timeout=30)
    headers = {"Content-Type": "application/json", "Origin": base}
    if token:
        headers["Authorization"] = f"Bearer {token}"
    conn.request(method, path, None if body is None else json.dumps(body), headers)
    answer = conn.getresponse()
    text = answer.read()
    conn.close()
    if 300 <= answer.status < 400:
        return answer.status, answer.getheader("Location") or ""
    try:
        return answer.status, json.loads(text)
    except ValueError:
        return answer.status, text[:200].decode(errors="replace")


def _probe(name: str, base: str, seconds: float, world: dict[str, Any]) -> dict[str, Any]:
    """One probe from one address; what it got, and whether the edge held."""
    until = time.monotonic() + seconds
    if name == "short_links":
        got = [_call(base, "GET", f"/s/{world['slug']}/{n}") for n in range(1, EVENT_TABLES + 1)]
        leaked = [loc for _, loc in got if "/t/" in str(loc)]
        return {
            "held": not leaked,
            "detail": f"{len(got)} short addresses walked: codes given out {len(leaked)}, "
            f"led to {sorted({str(loc) for _, loc in got})[:2]}",
        }
    if name == "seat_requests":
        statuses: dict[str, int] = {}
        waiting = 0
        for code in world["casual"]:
            status, said = _call(
                base,
                "POST",
                f"/api/tables/{code}/join",
                {"name": "Bandit", "seat": "B", "takeover": True, "device": "bandit"},
            )
            word = (said.get("code") or said.get("status")) if isinstance(said, dict) else ""
            key = f"{status} {word}"
            statuses[key] = statuses.get(key, 0) + 1
            waiting += status == 202
        full = 0
        for code in world["casual"]:
            _, table = _call(base, "GET", f"/api/tables/{code}")
            full += len(table["state"]["seat_requests"]) >= 3
        return {
            "held": full == 0 and waiting <= 6,
            "detail": f"asked at {len(world['casual'])} tables: {statuses}; "
            f"tables at their cap {full}",
        }
    if name == "id_search":
        answered = found = 0
        first_429 = None
        for n in range(1000):
            if time.monotonic() > until:
                break
            status, said = _call(base, "GET", f"/api/e/{world['slug']}/find?q={n:03}")
            if status == 429:
                first_429 = first_429 or n + 1
                continue
            answered += 1
            found += any(p.get("by_id") for p in said.get("players", []))
        return {
            # The join's budget: a burst of 30 misses, then 30 a minute.
            "held": first_429 is not None and first_429 <= 31,
            "detail": f"IDs tried {n + 1}: answered {answered}, IDs found {found} of "
            f"{len(world['ids'])}, first 429 at guess {first_429}",
        }
    if name == "old_recovery":
        code, recovery = world["recovery"]
        status, said = _call(
            base, "POST", f"/api/tables/{code}/recover", {"recovery": recovery, "device": "thief"}
        )
        code_word = said.get("code") if isinstance(said, dict) else said
        return {
            "held": status != 200,
            "detail": f"the one-phone days' code after B moved: {status} {code_word}",
        }
    if name == "table_flood":
        made = 0
        refusal = ""
        while time.monotonic() < until:
            status, said = _call(base, "POST", "/api/tables", {})
            if status != 201:
                refusal = f"{status} {said.get('code') if isinstance(said, dict) else said}"
                break
            made += 1
        return {
            "held": bool(refusal) and made <= TABLES_PER_ADDRESS,
            "detail": f"{made} tables opened, then {refusal or 'no refusal'}",
        }
    raise ValueError(name)


def _attack_main(
    name: str,
    base: str,
    seconds: float,
    cpus: set[int] | None,
    queue: Any,
    world: dict[str, Any] | None = None,
) -> None:
    if cpus:
        os.sched_setaffinity(0, cpus)
    if name in PROBES:
        try:
            queue.put([_probe(name, base, seconds, world or {})])
        except Exception as exc:  # reported, not hung on
            queue.put([{"held": False, "detail": f"probe failed: {exc!r}"}])
        return
    parts = urlsplit(base)
    host, port = parts.hostname or "", parts.port or 80
    until = time.monotonic() + seconds
    plans = {
        "unread_length": [("length", 2 * 1024**3)],
        "unread_chunked": [("chunked", 2 * 1024**3)] * 4,
        "unread_200mb": [("length", 200 * 1024**2)] * 4,
    }[name]
    import threading

    results: list[dict] = []
    threads = [
        threading.Thread(
            target=lambda f=f, t=t: results.append(_unread_sender(host, port, f, t, until))
        )
        for f, t in plans
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    queue.put(results)


# -- the victim ---------------------------------------------------------------------------------


async def _pings(ws_url: str, seconds: float, stop: Any = None) -> list[float]:
    """Another table's phone: a ping every 50 ms for `seconds` (or until `stop()`), each round
    trip in ms; one that goes unanswered for 10 s counts as 10 s, and a socket the server drops
    (a worker restart) counts 10 s and is opened again."""
    from websockets.asyncio.client import connect

    times: list[float] = []
    end = time.monotonic() + seconds
    n = 0
    while time.monotonic() < end and not (stop and stop()):
        try:
            async with connect(ws_url) as ws:
                await ws.send(json.dumps({"type": "hello"}))
                while json.loads(await asyncio.wait_for(ws.recv(), 10))["type"] != "welcome":
                    pass
                while time.monotonic() < end and not (stop and stop()):
                    n += 1
                    start = time.monotonic()
                    await ws.send(json.dumps({"type": "ping", "t": n}))
                    try:
                        while True:
                            left = 10 - (time.monotonic() - start)
                            raw = await asyncio.wait_for(ws.recv(), max(left, 0.01))
                            message = json.loads(raw)
                            if message.get("type") == "pong" and message.get("t") == n:
                                break
                    except TimeoutError:
                        pass
                    times.append((time.monotonic() - start) * 1000)
                    await asyncio.sleep(0.05)
        except Exception:  # dropped: the phone opens its socket again
            times.append(10_000.0)
            await asyncio.sleep(0.5)
    return times


def prepare(server: Any) -> dict[str, Any]:
    """What the probes need, made before them: an event of `EVENT_TABLES` tables with players
    of 3-digit IDs, casual tables with both seats taken, and a one-phone table whose seat B
    moved to its own phone (its one-phone days' recovery code kept)."""
    import subprocess
    import sys

    from .adversary import _seated_table

    world: dict[str, Any] = {"casual": [_seated_table(server.url)[0] for _ in range(20)]}
    base = server.url
    code = _call(base, "POST", "/api/tables", {})[1]["code"]
    _call(base, "POST", f"/api/tables/{code}/join", {"name": "Yugi", "seat": "A", "device": "duo"})
    b = _call(
        base, "POST", f"/api/tables/{code}/join", {"name": "Kaiba", "seat": "B", "device": "duo"}
    )[1]
    asked = _call(
        base,
        "POST",
        f"/api/tables/{code}/join",
        {"name": "Kaiba", "seat": "B", "takeover": True, "device": "kaiba"},
    )[1]
    _call(
        base,
        "POST",
        f"/api/tables/{code}/seat-requests/{asked['request']}/confirm",
        token=b["token"],
    )
    world["recovery"] = (code, b["recovery"])
    password = "holes organiser password"
    username = f"holes{os.getpid()}"
    subprocess.run(
        [sys.executable, "-m", "server", "create-organiser", username, "--password", password],
        cwd=server.root,
        env=server.env,
        capture_output=True,
        timeout=60,
        check=True,
    )
    import http.cookiejar
    import urllib.request

    jar = http.cookiejar.CookieJar()
    opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(jar))
    csrf = ""

    def call(method: str, path: str, body: Any = None) -> Any:
        headers = {"Content-Type": "application/json", "Origin": base}
        if csrf:
            headers["X-CSRF-Token"] = csrf
        data = None if body is None else json.dumps(body).encode()
        req = urllib.request.Request(base + path, data, method=method, headers=headers)
        with opener.open(req, timeout=30) as response:
            return json.load(response)

    csrf = call("POST", "/api/auth/login", {"username": username, "password": password})["csrf"]
    ev = call("POST", "/api/events", {"name": "Holes Cup", "date": "2026-12-01", "tables": 20})
    ids = [f"{(n * 397 + 101) % 1000:03}" for n in range(8)]
    for n, pid in enumerate(ids):
        call("POST", f"/api/events/{ev['id']}/swiss/players", {"name": f"P{n}", "player_id": pid})
    world["slug"] = call("GET", f"/api/events/{ev['id']}")["slug"]
    world["ids"] = ids
    return world


def run(
    workdir: Path,
    only: list[str] | None = None,
    seconds: float = 30,
    quiet_seconds: float = 5,
    root: Path | None = None,
) -> HolesReport:
    """Run each attack against one server (of checkout `root`: an earlier release's, to compare;
    by default this one); the figures in a report."""
    attacks = [a for a in ATTACKS if not only or a in only]
    run_dir = workdir / "holes"
    run_dir.mkdir(parents=True, exist_ok=True)
    server_cpus, client_cpus = _cpus()
    report = HolesReport(
        pinned=f"server on CPU {sorted(server_cpus)}, attackers and the phone on "
        f"{sorted(client_cpus or [])}"
        if server_cpus
        else "not pinned (one CPU)"
    )
    if client_cpus:
        os.sched_setaffinity(0, client_cpus)
    # The per-address bounds on casual tables and seat requests as they ship (the bench's
    # servers lift them).
    env = {
        "CASUAL_TABLES_PER_ADDRESS_PER_HOUR": str(TABLES_PER_ADDRESS),
        "SEAT_REQUESTS_PER_ADDRESS_PER_MINUTE": "6",
    }
    more = {"root": root} if root is not None else {}
    server = start_gunicorn("holes", "server:create_app()", run_dir, env, cpus=server_cpus, **more)
    try:
        wait_ready(server, "/api/time")
        world = prepare(server) if any(a in PROBES for a in attacks) else {}
        code, _ = _seated_table(server.url)
        ws_url = f"ws{server.url[4:]}/ws/table/{code}"
        quiet = asyncio.run(_pings(ws_url, quiet_seconds))
        report.quiet_ping_max_ms = max(quiet) if quiet else None
        report.quiet_ping_p99_ms = p99(quiet)
        ctx = multiprocessing.get_context("spawn")
        for name in attacks:
            workers = set(server.worker_pids())
            queue = ctx.Queue()
            proc = ctx.Process(
                target=_attack_main,
                args=(
                    name,
                    server.url,
                    seconds if name in UNREAD else 20,
                    client_cpus,
                    queue,
                    world,
                ),
            )
            proc.start()
            times = asyncio.run(_pings(ws_url, seconds + 60, stop=lambda p=proc: not p.is_alive()))
            try:
                senders = queue.get(timeout=30)
            except Exception:
                senders = []
            proc.join(10)
            if proc.is_alive():
                proc.kill()
            time.sleep(1)
            result = HoleResult(name, pings=len(times))
            result.restarts = len(set(server.worker_pids()) - workers)
            if times:
                result.ping_max_ms, result.ping_p99_ms = max(times), p99(times)
            if name in PROBES:
                [probe] = senders or [{"held": False, "detail": "no answer from the probe"}]
                result.detail = probe["detail"]
                if not probe["held"]:
                    result.problems.append("the edge did not hold")
                # The ping is reported, not judged: a probe is a few hundred ordinary requests.
                if result.restarts:
                    result.problems.append(f"{result.restarts} worker restarts")
                result.held = not result.problems
                report.attacks.append(result)
                print(line(result), flush=True)
                continue
            connections = sum(s["connections"] for s in senders)
            closed = sum(s["closed"] for s in senders)
            answers: dict[str, int] = {}
            for s in senders:
                for k, v in s["answers"].items():
                    answers[k] = answers.get(k, 0) + v
            most = max((s["most"] for s in senders), default=0)
            result.detail = (
                f"{len(senders)} senders for {seconds:.0f} s: {connections} connections, "
                f"{closed} closed by the server, at most {most / 1024**2:.1f} MiB sent on one; "
                f"answers {answers}"
            )
            if result.ping_max_ms is None or result.ping_max_ms > PING_MAX_TARGET_MS:
                result.problems.append(f"ping max {result.ping_max_ms} ms")
            if result.restarts:
                result.problems.append(f"{result.restarts} worker restarts")
            if not senders or closed < connections - len(senders):
                result.problems.append("connections the server did not close")
            result.held = not result.problems
            report.attacks.append(result)
            print(line(result), flush=True)
    finally:
        server.stop()
    return report


def line(a: HoleResult) -> str:
    """One attack's figures on one line."""
    p99_ms = "-" if a.ping_p99_ms is None else f"{a.ping_p99_ms:.1f}"
    top = "-" if a.ping_max_ms is None else f"{a.ping_max_ms:.1f}"
    verdict = "held" if a.held else "NOT held: " + "; ".join(a.problems)
    return (
        f"[holes/{a.name}] another table's ping max {top} ms, p99 {p99_ms} ms ({a.pings} pings), "
        f"worker restarts {a.restarts}; {a.detail}; {verdict}"
    )


if __name__ == "__main__":  # `python -m reliability.holes [attack ...]`
    import sys
    import tempfile

    found = run(Path(tempfile.mkdtemp(prefix="holes-")), sys.argv[1:] or None)
    print(
        f"pinned: {found.pinned}; quiet ping max {found.quiet_ping_max_ms:.1f} ms, "
        f"p99 {found.quiet_ping_p99_ms:.1f} ms"
    )
    sys.exit(0 if found.ok else 1)
