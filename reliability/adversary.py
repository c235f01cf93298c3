"""The adversary suite: one attacker at a time while ordinary tables play.

The ordinary tables are the bench's clients (`bench.load.Table`: two phones a table, a command
every `interval` seconds, latency = send to the opponent's update). After a quiet window, each
attack runs for `attack_seconds` in a process of its own (so its own loop does not slow the
phones' clock), then the server gets a few seconds to settle. For each attack it prints the
ordinary tables' p99 during the attack beside the quiet p99, the errors they saw, how long the
attacker lasted before the server closed or refused it, worker restarts, and the worker's RSS
before, at peak and after.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import json
import multiprocessing
import os
import random
import socket
import threading
import time
import urllib.request
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from bench import procstat
from bench.httpc import HttpClient
from bench.load import SETUP_STEPS, Plan, Stats, Table, lag_monitor, raise_nofile
from bench.servers import start_gunicorn, wait_ready

PING = json.dumps({"type": "ping", "t": 1})
ATTACKS = (
    "flood_anon",
    "flood_seat",
    "seat_entries",
    "never_read",
    "no_hello",
    "logins",
    "bodies",
    "seat_requests",
    "claim_reuse",
)
SEAT_REQUESTS_PER_TABLE = 3  # the server's default cap of waiting seat requests a table
P99_TARGET_MS = 25.0
HELLO_SECONDS = 10.0  # the server's default WS_HELLO_SECONDS
PONG_SECONDS = 8.0  # the server's default WS_PONG_SECONDS


class StampedList(list):
    """A list that also keeps when each item was appended (time.monotonic)."""

    def __init__(self) -> None:
        super().__init__()
        self.stamps: list[float] = []

    def append(self, value: Any) -> None:
        super().append(value)
        self.stamps.append(time.monotonic())

    def between(self, start: float, end: float) -> list[float]:
        return [v for v, t in zip(self, self.stamps, strict=False) if start <= t < end]


def p99(values: list[float]) -> float | None:
    if not values:
        return None
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))]


@dataclass
class AttackResult:
    name: str
    p99_ms: float | None = None
    samples: int = 0
    errors: dict[str, int] = field(default_factory=dict)
    lasted_s: float | None = None  # until the server closed or refused the attacker
    cut_off: bool = False
    detail: str = ""
    rss_before: int = 0
    rss_peak: int = 0
    rss_after: int = 0
    restarts: int = 0
    # The second of the attack with the highest p99: (seconds after its start, p99 ms).
    worst_second: tuple[float, float] | None = None


@dataclass
class AdversaryReport:
    tables: int = 0
    quiet_p99_ms: float | None = None
    quiet_samples: int = 0
    # The quiet window's cost: the worker's CPU (% of one core) and how late the client
    # processes' loops woke up (p99 over the whole run, ms): a busy client inflates latencies.
    quiet_server_cpu_pct: float | None = None
    client_lag_p99_ms: float | None = None
    attacks: list[AttackResult] = field(default_factory=list)
    worker_restarts: int = 0
    setup_errors: dict[str, int] = field(default_factory=dict)


# -- the attackers (each in a process of its own) ---------------------------------------------


def _http(base: str, method: str, path: str, body: Any = None) -> Any:
    data = None if body is None else json.dumps(body).encode()
    req = urllib.request.Request(
        base + path, data=data, method=method, headers={"Content-Type": "application/json"}
    )
    with urllib.request.urlopen(req, timeout=30) as response:
        return json.load(response)


def _seated_table(base: str) -> tuple[str, dict[str, str]]:
    code = _http(base, "POST", "/api/tables", {})["code"]
    tokens = {}
    for seat in "AB":
        tokens[seat] = _http(base, "POST", f"/api/tables/{code}/join", {"name": f"X{seat}"})[
            "token"
        ]
    return code, tokens


TCP_ESTABLISHED = 1  # tcpi_state in Linux's TCP_INFO


def tcp_state(sock: socket.socket) -> int:
    """The socket's TCP state, read without reading its data (Linux): ESTABLISHED until the
    server's FIN arrives, even with unread bytes in the receive buffer."""
    return sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_INFO, 8)[0]


def masked_text(text: str) -> bytes:
    """A client's text frame (RFC 6455: masked)."""
    payload = text.encode()
    mask = os.urandom(4)
    n = len(payload)
    head = bytes([0x81]) + (
        bytes([0x80 | n]) if n < 126 else bytes([0x80 | 126]) + n.to_bytes(2, "big")
    )
    return head + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(payload))


def raw_websocket(host: str, port: int, path: str, hello: str | None) -> socket.socket:
    """A websocket on a bare socket that reads the handshake's answer and nothing more: it
    never answers a ping and never takes an update off the kernel's buffer."""
    sock = socket.create_connection((host, port), timeout=10)
    key = base64.b64encode(os.urandom(16)).decode()
    sock.sendall(
        f"GET {path} HTTP/1.1\r\nHost: {host}:{port}\r\nUpgrade: websocket\r\n"
        f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n"
        "\r\n".encode()
    )
    head = b""
    while not head.endswith(b"\r\n\r\n"):  # one byte at a time: not a frame more
        byte = sock.recv(1)
        if not byte:
            raise ConnectionError("closed during the handshake")
        head += byte
    if not head.startswith(b"HTTP/1.1 101"):
        raise ConnectionError(head.split(b"\r\n")[0].decode(errors="replace"))
    if hello is not None:
        sock.sendall(masked_text(hello))
    return sock


def wait_closed_unread(
    sockets: list[socket.socket], start: float, seconds: float
) -> list[float | None]:
    """Watch the sockets' TCP state (not their data) until the server closed them all or
    `seconds` from `start` passed: for each, when the server closed it (from `start`)."""
    closed_at: list[float | None] = [None] * len(sockets)
    while True:
        now = time.monotonic() - start
        for n, sock in enumerate(sockets):
            if closed_at[n] is None and tcp_state(sock) != TCP_ESTABLISHED:
                closed_at[n] = now
        if now >= seconds or None not in closed_at:
            return closed_at
        time.sleep(0.05)


async def _flood(ws: Any, frames: list[str], seconds: float) -> tuple[float, bool]:
    """Send without reading until closed or `seconds`; (lasted, closed by the server)."""
    start = time.monotonic()
    sent = 0
    try:
        while time.monotonic() - start < seconds:
            for frame in frames:
                await ws.send(frame)
                sent += 1
            if sent % 200 < len(frames):
                await asyncio.sleep(0)
        return time.monotonic() - start, False
    except Exception:
        return time.monotonic() - start, True


async def _attack(
    name: str, base: str, codes: list[str], seconds: float, extra: Any = None
) -> dict[str, Any]:
    from websockets.asyncio.client import connect

    ws_base = "ws" + base[4:]
    if name in ("flood_anon", "flood_seat"):
        # Flood, and once closed open another socket and flood again, for `seconds`: the
        # ordinary tables are measured under a flood that lasts, each socket of it cut off.
        start = time.monotonic()
        lives: list[tuple[float, bool]] = []
        code, tokens = _seated_table(base) if name == "flood_seat" else (codes[0], {})
        command = json.dumps(
            {"type": "command", "id": "x", "cmd": "coin.toss", "args": {"count": 1}}
        )
        while time.monotonic() - start < seconds:
            async with connect(f"{ws_base}/ws/table/{code}", max_queue=None) as ws:
                if tokens:
                    await ws.send(json.dumps({"type": "hello", "token": tokens["A"]}))
                    await ws.recv()
                left = seconds - (time.monotonic() - start)
                frames = [command, PING] if tokens else [PING]
                lives.append(await _flood(ws, frames, max(left, 0.1)))
        longest = max(t for t, _ in lives)
        return {
            "lasted": longest,
            "cut_off": all(closed for _, closed in lives),
            "detail": f"{'a seat' if tokens else 'a socket without hello'} sending without "
            f"reading: {len(lives)} sockets in {seconds:.0f} s, each closed after "
            f"{min(t for t, _ in lives):.2f}-{longest:.2f} s",
        }

    if name == "seat_entries":
        code, tokens = _seated_table(base)
        url = f"{ws_base}/ws/table/{code}"
        async with connect(url) as a, connect(url) as b:
            for seat, ws in (("A", a), ("B", b)):
                await ws.send(json.dumps({"type": "hello", "token": tokens[seat]}))
                await ws.recv()
            for n, (seat, cmd, args) in enumerate(SETUP_STEPS):
                ws = a if seat == "A" else b
                await ws.send(
                    json.dumps({"type": "command", "id": f"s{n}", "cmd": cmd, "args": args})
                )
                while json.loads(await ws.recv()).get("type") != "reply":
                    pass
        start = time.monotonic()
        counts: Counter[str] = Counter()
        first_refusal: list[float] = []

        async def phone(k: int) -> None:
            try:
                async with connect(url) as ws:
                    await ws.send(json.dumps({"type": "hello", "token": tokens["A"]}))

                    async def read() -> None:
                        with contextlib.suppress(Exception):  # closed: the loop below sees it
                            await read_all()

                    async def read_all() -> None:
                        async for raw in ws:
                            m = json.loads(raw)
                            if m.get("type") == "reply":
                                if m.get("ok"):
                                    counts["ok"] += 1
                                else:
                                    counts[m["error"]["code"]] += 1
                                    if not first_refusal:
                                        first_refusal.append(time.monotonic() - start)

                    reader = asyncio.create_task(read())
                    n = 0
                    while time.monotonic() - start < seconds and not reader.done():
                        n += 1
                        await ws.send(
                            json.dumps(
                                {
                                    "type": "command",
                                    "id": f"p{k}-{n}",
                                    "cmd": "lp.propose",
                                    "args": {"seat": "B", "delta": -1, "note": "x" * 200},
                                }
                            )
                        )
                        await asyncio.sleep(0.02)
                    counts["closed" if reader.done() else "open"] += 1
                    reader.cancel()
            except Exception:
                counts["closed"] += 1

        await asyncio.gather(*(phone(k) for k in range(6)))
        lasted = first_refusal[0] if first_refusal else time.monotonic() - start
        return {
            "lasted": lasted,
            "cut_off": bool(first_refusal),
            "detail": f"6 sockets of one seat: {dict(counts)}",
        }

    if name == "never_read":
        parts = urlsplit(base)
        start = time.monotonic()

        def spectator(n: int) -> tuple[socket.socket, float]:
            sock = raw_websocket(
                parts.hostname or "",
                parts.port or 80,
                f"/ws/table/{codes[n % len(codes)]}",
                json.dumps({"type": "hello"}),
            )
            return sock, time.monotonic() - start

        with ThreadPoolExecutor(20) as pool:  # open them together, as an attacker would
            pairs = list(pool.map(spectator, range(200)))
        sockets = [sock for sock, _ in pairs]
        opened = [t for _, t in pairs]
        closed_at = await asyncio.to_thread(
            wait_closed_unread, sockets, start, max(seconds, max(opened) + PONG_SECONDS + 5)
        )
        for sock in sockets:
            sock.close()
        cut = [t for t in closed_at if t is not None]
        lives = [t - o for t, o in zip(closed_at, opened, strict=True) if t is not None]
        return {
            "lasted": max(cut) if len(cut) == len(sockets) else time.monotonic() - start,
            "cut_off": len(cut) == len(sockets),
            "detail": f"200 spectators never reading (opened within {max(opened):.1f} s): "
            f"{len(cut)} closed by the server {min(cut, default=0):.1f}-"
            f"{max(cut, default=0):.1f} s after the attack began, "
            f"{min(lives, default=0):.1f}-{max(lives, default=0):.1f} s after each opened",
        }

    if name == "no_hello":
        lifetimes: list[float] = []

        async def silent(n: int) -> None:
            ws = await connect(f"{ws_base}/ws/table/{codes[n % len(codes)]}", ping_interval=None)
            opened = time.monotonic()
            try:
                await asyncio.wait_for(ws.wait_closed(), HELLO_SECONDS + 5)
                lifetimes.append(time.monotonic() - opened)
            except TimeoutError:
                ws.transport.abort()

        await asyncio.gather(*(silent(n) for n in range(300)), return_exceptions=True)
        return {
            "lasted": max(lifetimes) if lifetimes else None,
            "cut_off": len(lifetimes) == 300,
            "detail": f"300 sockets without hello: {len(lifetimes)} closed by the server, "
            f"lifetimes {min(lifetimes, default=0):.1f}-{max(lifetimes, default=0):.1f} s",
        }

    if name == "logins":
        parts = urlsplit(base)
        statuses: Counter[int] = Counter()
        first_429: list[float] = []
        start = time.monotonic()

        async def guesser(k: int) -> None:
            client = HttpClient(parts.hostname or "", parts.port or 80)
            try:
                for n in range(50):
                    status, _ = await client.request(
                        "POST", "/api/auth/login", {"username": "admin", "password": f"g{k}-{n}"}
                    )
                    statuses[status] += 1
                    if status == 429 and not first_429:
                        first_429.append(time.monotonic() - start)
            finally:
                await client.close()

        await asyncio.gather(*(guesser(k) for k in range(8)))
        return {
            "lasted": first_429[0] if first_429 else time.monotonic() - start,
            "cut_off": bool(first_429),
            "detail": f"400 guesses: {dict(statuses)}",
        }

    if name == "bodies":
        # Both forms of a body too big to take: one that says its length (100 MB) and one
        # without a length (`Transfer-Encoding: chunked`, 200 MB), four of each at once.
        parts = urlsplit(base)
        answers: list[tuple[str, float, bytes]] = []

        def body(chunked: bool) -> None:
            start = time.monotonic()
            sock = socket.create_connection((parts.hostname, parts.port))
            sock.settimeout(10)
            total = 200_000_000 if chunked else 100_000_000
            framing = "Transfer-Encoding: chunked" if chunked else f"Content-Length: {total}"
            sock.sendall(
                b"POST /api/tables HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                + framing.encode()
                + b"\r\n\r\n"
            )
            chunk = b"[" * 65536
            if chunked:
                chunk = f"{len(chunk):x}\r\n".encode() + chunk + b"\r\n"
            try:
                for _ in range(total // 65536):
                    sock.sendall(chunk)
            except OSError:
                pass
            try:
                head = sock.recv(200)
            except OSError:
                head = b""
            form = "chunked" if chunked else "length"
            answers.append((form, time.monotonic() - start, head[:12]))
            sock.close()

        threads = [threading.Thread(target=body, args=(k % 2 == 1,)) for k in range(8)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        seen = Counter(f"{f} {h.decode(errors='replace').strip()}" for f, _, h in answers)
        return {
            "lasted": max(a[1] for a in answers),
            # A sender may see the connection reset before it reads the answer, as the server
            # closes a connection whose body it did not read: refused either way.
            "cut_off": all(not h or h.startswith(b"HTTP/1.1 413") for _, _, h in answers),
            "detail": f"4 x 100 MB with a length, 4 x 200 MB chunked: answers {dict(seen)}",
        }
    if name == "seat_requests":
        return await _seat_requests(base, seconds)
    if name == "claim_reuse":
        return _claim_reuse(base, seconds, extra or {})
    raise ValueError(name)


async def _seat_requests(base: str, seconds: float) -> dict[str, Any]:
    """A stranger asks for a casual table's seat B as fast as it can, from 8 connections, each
    attempt under another name: one waiting request per asker, a few per table, and each one
    prompt on the phones (the table's state holds the waiting requests)."""
    parts = urlsplit(base)
    code, _tokens = _seated_table(base)
    statuses: Counter[str] = Counter()
    first_refusal: list[float] = []
    start = time.monotonic()

    async def asker(k: int) -> None:
        client = HttpClient(parts.hostname or "", parts.port or 80)
        n = 0
        try:
            while time.monotonic() - start < seconds:
                n += 1
                body = {"name": f"Bob{k}-{n}", "seat": "B", "takeover": True}
                status, answer = await client.request("POST", f"/api/tables/{code}/join", body)
                said = answer or {}
                statuses[f"{status} {said.get('code') or said.get('status')}"] += 1
                if status in (409, 429) and not first_refusal:
                    first_refusal.append(time.monotonic() - start)
        finally:
            await client.close()

    await asyncio.gather(*(asker(k) for k in range(8)))
    waiting = len(_http(base, "GET", f"/api/tables/{code}")["state"]["seat_requests"])
    return {
        "lasted": first_refusal[0] if first_refusal else time.monotonic() - start,
        "cut_off": bool(first_refusal) and waiting <= SEAT_REQUESTS_PER_TABLE,
        "detail": f"{sum(statuses.values())} requests: {dict(statuses)}; "
        f"{waiting} waiting (prompts) at the table",
    }


def _claim_reuse(base: str, seconds: float, event: dict[str, Any]) -> dict[str, Any]:
    """The photo of a round-1 table card in round 2: its `/s/` link and its claim, sent again
    and again (as fast as one client can, 8 threads). Never a seat, never the table's code."""
    import http.client

    if not event:
        return {"lasted": None, "cut_off": False, "detail": "no event (create-organiser failed)"}
    parts = urlsplit(base)
    slug, claim, code = event["slug"], event["claim"], event["code"]
    statuses: Counter[str] = Counter()
    leaks: list[str] = []
    first_429: list[float] = []
    start = time.monotonic()

    def prober(k: int) -> None:
        conn = http.client.HTTPConnection(parts.hostname or "", parts.port or 80, timeout=10)
        n = 0
        while time.monotonic() - start < seconds:
            n += 1
            if n % 2:
                conn.request("GET", f"/s/{slug}/1/A?c={claim}")
                kind = "link"
            else:
                body = json.dumps({"name": f"Imp{k}-{n}", "seat": "A", "claim": claim})
                headers = {"Content-Type": "application/json"}
                conn.request("POST", f"/api/tables/{code}/join", body, headers)
                kind = "join"
            answer = conn.getresponse()
            text = answer.read().decode(errors="replace")
            statuses[f"{kind} {answer.status}"] += 1
            if answer.status == 429 and not first_429:
                first_429.append(time.monotonic() - start)
            if code in (answer.getheader("Location") or "") or (kind == "link" and code in text):
                leaks.append("code")
            if kind == "join" and answer.status == 201:
                leaks.append("seat")

    with ThreadPoolExecutor(8) as pool:
        list(pool.map(prober, range(8)))
    state = _http(base, "GET", f"/api/tables/{code}")["state"]
    seated = state["seats"]["A"]["joined"]
    return {
        "lasted": first_429[0] if first_429 else time.monotonic() - start,
        "cut_off": not leaks and not seated,
        "detail": f"{sum(statuses.values())} tries with a round-1 claim in round 2: "
        f"{dict(statuses)}; codes revealed {leaks.count('code')}, seats taken "
        f"{leaks.count('seat') + int(seated)}",
    }


def prepare_claim_reuse(server: Any) -> dict[str, Any]:
    """An organiser's event whose round 1 has ended and round 2 is open: round 1's card claim
    for table 1 seat A, and round 2's table 1 code ({} if it cannot be made)."""
    import http.cookiejar
    import subprocess
    import sys

    password = "adversary organiser password"
    username = f"adv{random.randrange(16**8):08x}"  # the database may outlive one run
    done = subprocess.run(
        [sys.executable, "-m", "server", "create-organiser", username, "--password", password],
        cwd=server.root,
        env=server.env,
        capture_output=True,
        timeout=60,
    )
    if done.returncode != 0:
        tail = (done.stderr or done.stdout).decode(errors="replace").strip().splitlines()[-1:]
        print(f"[adversary/claim_reuse] create-organiser failed: {' '.join(tail)}", flush=True)
        return {}
    jar = http.cookiejar.CookieJar()
    opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(jar))
    csrf = ""

    def call(method: str, path: str, body: Any = None) -> Any:
        headers = {"Content-Type": "application/json", "Origin": server.url}
        if csrf:
            headers["X-CSRF-Token"] = csrf
        data = None if body is None else json.dumps(body).encode()
        req = urllib.request.Request(server.url + path, data, method=method, headers=headers)
        with opener.open(req, timeout=30) as response:
            return json.load(response)

    login = call("POST", "/api/auth/login", {"username": username, "password": password})
    csrf = login.get("csrf", "")
    ev = call(
        "POST",
        "/api/events",
        {"name": "Adversary Cup", "date": "2026-12-01", "tables": 1, "match_minutes": 40},
    )
    detail = call("GET", f"/api/events/{ev['id']}")
    claim = detail["tables"][0]["claims"]["A"]
    call("POST", f"/api/events/{ev['id']}/pairings", {"csv": "1,Yugi Muto,0001,Seto Kaiba,0002\n"})
    call("POST", f"/api/events/{ev['id']}/round/start", {})
    call(
        "POST", f"/api/events/{ev['id']}/tables/1/result", {"result": "A"}
    )  # a judge's result: A wins
    call("POST", f"/api/events/{ev['id']}/round/end", {})
    call("POST", f"/api/events/{ev['id']}/round/next", {})
    detail = call("GET", f"/api/events/{ev['id']}")
    return {"slug": detail["slug"], "claim": claim, "code": detail["tables"][0]["code"]}


def _attack_main(
    name: str, base: str, codes: list[str], seconds: float, out: Any, extra: Any = None
) -> None:
    raise_nofile()
    began = time.monotonic()
    try:
        out.put({"began": began, **asyncio.run(_attack(name, base, codes, seconds, extra))})
    except Exception as exc:  # the suite reports it rather than hanging
        out.put({"lasted": None, "cut_off": False, "detail": f"attacker failed: {exc!r}"})


# -- the ordinary tables ------------------------------------------------------------------------


class StampedCounter(Counter):
    """A Counter that also keeps when each count was added (time.monotonic, the same clock
    in every process on Linux), so a window's errors can be cut."""

    def __init__(self) -> None:
        super().__init__()
        self.events: list[tuple[float, str]] = []

    def __setitem__(self, key: Any, value: int) -> None:
        added = value - self.get(key, 0)
        if added > 0:
            self.events.extend([(time.monotonic(), str(key))] * added)
        super().__setitem__(key, value)


async def _hall(
    base: str,
    numbers: list[int],
    interval: float,
    seconds: float,
    out: Any,
    go: Any,
    go_time: Any,
    stopped: Any,
    setup_slots: int,
) -> None:
    plan = Plan(
        mode="server",
        urls=[base],
        tables=numbers,
        seconds=seconds,
        interval=interval,
        ramp=1e9,
        ramp_base=time.monotonic(),
        setup_slots=setup_slots,
        setup_timeout=180,
        clock_tables=0,
    )
    stats = Stats()
    stats.latencies = StampedList()
    stats.errors = StampedCounter()
    rng = random.Random(7 + numbers[0] if numbers else 7)
    tables = [Table(n, plan, stats, random.Random(rng.random())) for n in plan.tables]
    parts = urlsplit(base)
    queue: asyncio.Queue[Table] = asyncio.Queue()
    for t in tables:
        queue.put_nowait(t)
    ready: list[Table] = []

    async def slot() -> None:
        client = HttpClient(parts.hostname or "", parts.port or 80)
        try:
            while not queue.empty():
                t = queue.get_nowait()
                try:
                    await asyncio.wait_for(t.setup({base: client}), 60)
                    ready.append(t)
                except Exception as exc:
                    stats.setup_errors[type(exc).__name__] += 1
        finally:
            await client.close()

    await asyncio.gather(*(slot() for _ in range(setup_slots)))
    out.put(("ready", [t.code for t in ready], dict(stats.setup_errors)))
    await asyncio.to_thread(go.wait)
    start = go_time.value
    if start > 0:
        play = asyncio.gather(
            lag_monitor(stats, start, start + seconds),
            *(t.run(start, start + seconds) for t in ready),
        )
        stop = asyncio.ensure_future(asyncio.to_thread(stopped.wait, seconds + 5))
        await asyncio.wait([play, stop], return_when=asyncio.FIRST_COMPLETED)
        play.cancel()  # the attacks are over: what is still in flight is not counted
        with contextlib.suppress(asyncio.CancelledError, Exception):
            await play
    await asyncio.gather(*(t.close() for t in ready), return_exceptions=True)
    latencies: StampedList = stats.latencies  # type: ignore[assignment]
    errors: StampedCounter = stats.errors  # type: ignore[assignment]
    out.put(("result", list(latencies), latencies.stamps, errors.events, stats.lag))


def _hall_main(*args: Any) -> None:
    raise_nofile()
    asyncio.run(_hall(*args))


class Hall:
    """The bench's ordinary tables, spread over `clients` processes (one asyncio loop cannot
    drive 1,000 phones without its own lag entering the figures), each reporting its
    latencies and errors with the time they happened."""

    def __init__(
        self, base: str, tables: int, interval: float, seconds: float, clients: int
    ) -> None:
        ctx = multiprocessing.get_context("spawn")
        self.out = ctx.Queue()
        self.go = ctx.Event()
        self.go_time = ctx.Value("d", 0.0)
        self.stopped = ctx.Event()
        clients = max(1, min(clients, tables))
        self.procs = [
            ctx.Process(
                target=_hall_main,
                args=(
                    base,
                    list(range(w, tables, clients)),
                    interval,
                    seconds,
                    self.out,
                    self.go,
                    self.go_time,
                    self.stopped,
                    max(1, 16 // clients),
                ),
                daemon=True,
            )
            for w in range(clients)
        ]
        self.codes: list[str] = []
        self.setup_errors: Counter[str] = Counter()
        self.latencies: list[tuple[float, float]] = []  # (when, ms)
        self.errors: list[tuple[float, str]] = []
        self.lag: list[float] = []  # ms, how late the client processes' loops woke up
        self.start_at = 0.0
        self.seconds = seconds

    def start(self, timeout: float) -> None:
        """Set the tables up in every process, then let them all play from the same moment."""
        for proc in self.procs:
            proc.start()
        deadline = time.monotonic() + timeout
        waited = 0
        while waited < len(self.procs) and time.monotonic() < deadline:
            try:
                _, codes, setup_errors = self.out.get(timeout=1.0)
            except Exception:
                continue
            waited += 1
            self.codes += codes
            self.setup_errors.update(setup_errors)
        if waited < len(self.procs):
            self.go.set()
            raise RuntimeError(f"the ordinary tables were not ready in {timeout:.0f} s")
        self.start_at = time.monotonic() + 1
        self.go_time.value = self.start_at
        self.go.set()

    def finish(self) -> None:
        """Stop the tables, and collect every process's latencies and errors."""
        self.stopped.set()
        got = 0
        deadline = time.monotonic() + 60
        while got < len(self.procs) and time.monotonic() < deadline:
            try:
                _, values, stamps, errors, lag = self.out.get(timeout=1.0)
            except Exception:
                continue
            got += 1
            self.lag += lag
            self.latencies += list(zip(stamps, values, strict=False))
            self.errors += errors
        if got < len(self.procs):
            self.errors.append((time.monotonic(), "client_process_lost"))
        for proc in self.procs:
            proc.join(10)
            if proc.is_alive():
                proc.kill()

    def between(self, start: float, end: float) -> tuple[list[float], Counter[str]]:
        """The latencies (ms) and the errors seen in [start, end)."""
        values = [v for t, v in self.latencies if start <= t < end]
        return values, Counter(k for t, k in self.errors if start <= t < end)


class RssPeak(threading.Thread):
    def __init__(self, pid: int) -> None:
        super().__init__(daemon=True)
        self.pid, self.peak, self.stop = pid, 0, threading.Event()

    def run(self) -> None:
        while not self.stop.is_set():
            self.peak = max(self.peak, procstat.rss_bytes(self.pid))
            time.sleep(0.1)


def run(
    workdir: Path,
    tables: int = 500,
    quiet_seconds: float = 10,
    attack_seconds: float = 12,
    settle_seconds: float = 4,
    interval: float = 2.0,
    only: list[str] | None = None,
    clients: int = 0,
) -> AdversaryReport:
    attacks = [a for a in ATTACKS if not only or a in only]
    run_dir = workdir / "adversary"
    run_dir.mkdir(parents=True, exist_ok=True)
    server = start_gunicorn("adversary", "server:create_app()", run_dir, {"LOG_LEVEL": "warning"})
    report = AdversaryReport(tables=tables)
    clients = clients or min(4, max(2, -(-tables // 150)))
    try:
        wait_ready(server, "/api/time")
        # The claim-reuse attack's event, made while the server is idle.
        event = prepare_claim_reuse(server) if "claim_reuse" in attacks else {}
        workers = set(server.worker_pids())
        # Never-read spectators and sockets without hello last until the server's deadlines.
        longest = max(attack_seconds, HELLO_SECONDS + 5, PONG_SECONDS + 5)
        total = quiet_seconds + len(attacks) * (longest + settle_seconds + 3) + 5
        hall = Hall(server.url, tables, interval, total, clients)
        hall.start(240)
        report.tables = len(hall.codes)
        report.setup_errors = dict(hall.setup_errors)
        time.sleep(max(0.0, hall.start_at - time.monotonic()))
        worker = (server.worker_pids() or [0])[0]
        cpu0, t0 = procstat.cpu_seconds(worker), time.monotonic()
        time.sleep(quiet_seconds)
        report.quiet_server_cpu_pct = (
            (procstat.cpu_seconds(worker) - cpu0) / (time.monotonic() - t0) * 100
        )
        event = prepare_claim_reuse(server) if "claim_reuse" in attacks else {}
        ctx = multiprocessing.get_context("spawn")
        windows: list[tuple[float, float, float]] = []
        for name in attacks:
            pid = (server.worker_pids() or [0])[0]
            result = AttackResult(name, rss_before=procstat.rss_bytes(pid))
            peak = RssPeak(pid)
            peak.start()
            out = ctx.Queue()
            proc = ctx.Process(
                target=_attack_main,
                args=(name, server.url, hall.codes, attack_seconds, out, event),
            )
            began = time.monotonic()
            proc.start()
            try:
                found = out.get(timeout=longest + 120)
            except Exception:
                found = {"lasted": None, "cut_off": False, "detail": "no answer from attacker"}
            ended = time.monotonic()
            began = found.get("began", began)
            proc.join(10)
            if proc.is_alive():
                proc.kill()
            result.lasted_s, result.cut_off = found["lasted"], found["cut_off"]
            result.detail = found["detail"]
            time.sleep(settle_seconds)
            peak.stop.set()
            peak.join()
            now_workers = set(server.worker_pids())
            result.restarts = len(now_workers - workers)
            workers |= now_workers
            pid = (server.worker_pids() or [0])[0]
            result.rss_peak = max(peak.peak, result.rss_before)
            result.rss_after = procstat.rss_bytes(pid)
            report.attacks.append(result)
            windows.append((began, max(ended, began + 1), ended + settle_seconds))
            print(f"[adversary/{name}] attacker done: {_cut(result)}; {result.detail}", flush=True)
        report.worker_restarts = sum(a.restarts for a in report.attacks)
        hall.finish()
        report.client_lag_p99_ms = p99(hall.lag)
        quiet, _ = hall.between(hall.start_at, hall.start_at + quiet_seconds)
        report.quiet_p99_ms, report.quiet_samples = p99(quiet), len(quiet)
        for result, (began, ended, settled) in zip(report.attacks, windows, strict=True):
            during, _ = hall.between(began, ended)
            result.p99_ms, result.samples = p99(during), len(during)
            result.worst_second = worst_second(hall, began, ended)
            result.errors = dict(hall.between(began, settled)[1])
            print(line(result, report.quiet_p99_ms), flush=True)
    finally:
        server.stop()
    return report


def worst_second(hall: Hall, began: float, ended: float) -> tuple[float, float] | None:
    """The one-second slice of [began, ended) with the highest p99: when the attack hurt."""
    worst: tuple[float, float] | None = None
    second = 0
    while began + second < ended:
        found = p99(hall.between(began + second, began + second + 1)[0])
        if found is not None and (worst is None or found > worst[1]):
            worst = (float(second), found)
        second += 1
    return worst


def _cut(a: AttackResult) -> str:
    lasted = "-" if a.lasted_s is None else f"{a.lasted_s:.2f} s"
    return f"attacker {'cut off' if a.cut_off else 'NOT cut off'} after {lasted}"


def _pct(value: float | None) -> str:
    return "-" if value is None else f"{value:.0f}%"


def _ms(value: float | None) -> str:
    return "-" if value is None else f"{value:.1f} ms"


def _worst(a: AttackResult) -> str:
    if a.worst_second is None:
        return "-"
    return f"+{a.worst_second[0]:.0f} s: {a.worst_second[1]:.1f} ms"


def line(a: AttackResult, quiet: float | None) -> str:
    mb = 1024 * 1024
    return (
        f"[adversary/{a.name}] ordinary p99 {_ms(a.p99_ms)} (quiet {_ms(quiet)}, "
        f"{a.samples} commands; worst second {_worst(a)}), "
        f"errors {sum(a.errors.values())} {a.errors or ''}, "
        f"{_cut(a)}, "
        f"worker restarts {a.restarts}, RSS {a.rss_before / mb:.0f}/{a.rss_peak / mb:.0f}/"
        f"{a.rss_after / mb:.0f} MB (before/peak/after); {a.detail}"
    )


def problems(report: AdversaryReport) -> list[str]:
    """Each attack's misses of the targets (docs/reliability.md)."""
    found = []
    quiet = report.quiet_p99_ms
    for a in report.attacks:
        if a.p99_ms is None or quiet is None:
            found.append(f"{a.name}: no latency measured")
        elif a.p99_ms > max(2 * quiet, 1.0) or a.p99_ms > P99_TARGET_MS:
            found.append(f"{a.name}: p99 {a.p99_ms:.1f} ms (quiet {quiet:.1f})")
        if a.errors:
            found.append(f"{a.name}: errors {a.errors}")
        if a.restarts:
            found.append(f"{a.name}: {a.restarts} worker restarts")
        # Sockets without hello have WS_HELLO_SECONDS (10 s) by design; a spectator that does
        # not read is closed when the pong of its first ping is overdue (WS_PONG_SECONDS).
        allowed = {"no_hello": HELLO_SECONDS + 2.0, "never_read": PONG_SECONDS + 2.0}.get(
            a.name, 2.0
        )
        if not a.cut_off or a.lasted_s is None or a.lasted_s > allowed:
            found.append(f"{a.name}: attacker lasted {a.lasted_s} s (cut off: {a.cut_off})")
        if a.rss_before and a.rss_after > 1.1 * a.rss_before:
            found.append(f"{a.name}: RSS {a.rss_before} -> {a.rss_after}")
    return found
