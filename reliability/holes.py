"""Attacks on the edges a probe found open: each run against a real server while another table's
phone pings it, with the server on CPU 0 and the attackers (and the pinging phone) on CPU 1 when
the machine has two CPUs or more.

`unread_*`: bodies sent to a route that answers before reading them (`/api/auth/logout` answers
401 without a login): one 2 GB Content-Length, four chunked senders, four 200 MB bodies, each
sender opening a new connection whenever the server closed the last, for the whole attack. The
figures: another table's ping (max and p99, ms), the worker's restarts, how much each sender got
to send before the server closed its connection. Targets (docs/reliability.md): ping max <= 300
ms, no worker restart, every connection closed.
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

ATTACKS = ("unread_length", "unread_chunked", "unread_200mb")
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


def _attack_main(name: str, base: str, seconds: float, cpus: set[int] | None, queue: Any) -> None:
    if cpus:
        os.sched_setaffinity(0, cpus)
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
    trip in ms; one that goes unanswered for 10 s counts as 10 s."""
    from websockets.asyncio.client import connect

    times: list[float] = []
    async with connect(ws_url) as ws:
        await ws.send(json.dumps({"type": "hello"}))
        while json.loads(await asyncio.wait_for(ws.recv(), 10))["type"] != "welcome":
            pass
        end = time.monotonic() + seconds
        n = 0
        while time.monotonic() < end and not (stop and stop()):
            n += 1
            start = time.monotonic()
            await ws.send(json.dumps({"type": "ping", "t": n}))
            try:
                while True:
                    left = 10 - (time.monotonic() - start)
                    message = json.loads(await asyncio.wait_for(ws.recv(), max(left, 0.01)))
                    if message.get("type") == "pong" and message.get("t") == n:
                        break
            except TimeoutError:
                pass
            times.append((time.monotonic() - start) * 1000)
            await asyncio.sleep(0.05)
    return times


def run(
    workdir: Path, only: list[str] | None = None, seconds: float = 30, quiet_seconds: float = 5
) -> HolesReport:
    """Run each attack against one server; the figures in a report."""
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
    server = start_gunicorn("holes", "server:create_app()", run_dir, cpus=server_cpus)
    try:
        wait_ready(server, "/api/time")
        code, _ = _seated_table(server.url)
        ws_url = f"ws{server.url[4:]}/ws/table/{code}"
        quiet = asyncio.run(_pings(ws_url, quiet_seconds))
        report.quiet_ping_max_ms = max(quiet) if quiet else None
        ctx = multiprocessing.get_context("spawn")
        for name in attacks:
            workers = set(server.worker_pids())
            queue = ctx.Queue()
            proc = ctx.Process(
                target=_attack_main, args=(name, server.url, seconds, client_cpus, queue)
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
    print(f"pinned: {found.pinned}; quiet ping max {found.quiet_ping_max_ms}")
    sys.exit(0 if found.ok else 1)
