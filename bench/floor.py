"""Judges' floor views during the load run (`python -m bench --floor-views N`).

The floor view is `/ws/floor/<event id>` for a logged-in judge or organiser. With `--floor-views`,
the bench makes an organiser (`python -m server create-organiser`), logs in, creates events of at
most 1,000 tables holding the run's tables (the phones join those tables instead of creating
casual ones), and opens N floor views spread over the events from the first client process. If
any of that is missing on the server (404, no such command), the run goes on without floor views
and says why.

Measured per view: bytes and messages received a second, and the staleness of what a judge sees:
from a command's acknowledgement at the phone to the floor view receiving that table's summary at
or past the command's `seq` (for the tables of the client process holding the views, a 1/k share
of all tables). `python -m bench --floor-bench` runs the floor view's own, fuller benchmark
(bench/floorview.py). To measure more here, extend `FloorViews.on_message`.
"""

from __future__ import annotations

import asyncio
import bisect
import functools
import http.cookiejar
import json
import random
import subprocess
import sys
import time
import urllib.error
import urllib.parse
import urllib.request
from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any

from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import WebSocketException

from .phone import open_as_phone
from .servers import Server

PASSWORD = "bench floor password"
EVENT_MAX_TABLES = 1000


class FloorUnavailable(Exception):
    """The server cannot serve floor views (yet)."""


@dataclass
class FloorSetup:
    events: list[int]
    codes: list[str]  # by global table number
    cookie: str
    # The table cards' seat claims by global table number ({} where the server has none):
    # a phone joining an event's table with its card's claim takes the seat at once.
    claims: list[dict[str, str]]
    csrf: str = ""  # the organiser's login, for the round's start (`start_rounds`)
    base: str = ""
    slugs: list[str] = field(default_factory=list)  # the events' public names (the hall page)


def staff_call(base: str, cookie: str, csrf: str, method: str, path: str, body: Any) -> Any:
    """One call of the organiser's logged-in session; raise FloorUnavailable on an HTTP error."""
    headers = {"Content-Type": "application/json", "Origin": base, "Cookie": cookie}
    if csrf:
        headers["X-CSRF-Token"] = csrf
    request = urllib.request.Request(
        base + path,
        None if body is None else json.dumps(body).encode(),
        method=method,
        headers=headers,
    )
    try:
        with urllib.request.urlopen(request, timeout=300) as response:
            return json.load(response)
    except urllib.error.HTTPError as exc:
        detail = exc.read().decode(errors="replace")[:200]
        raise FloorUnavailable(f"{method} {path}: {exc.code} {detail}") from None


def pairing_csv(first: int, count: int) -> str:
    """The round's pairing of an event's `count` tables (global numbers from `first`), as an
    organiser pastes it: table, player A, A's ID, player B, B's ID (no IDs: R1.1 waived)."""
    return "\n".join(f"{n},PA{first + n - 1},,PB{first + n - 1}," for n in range(1, count + 1))


def start_rounds(setup: FloorSetup) -> list[dict[str, Any]]:
    """The organiser's "Start round" on each event: every table's clock starts at one server
    instant. The answers ({"round", "started", "refused", "now_ms"}), one per event."""
    return [
        staff_call(
            setup.base, setup.cookie, setup.csrf, "POST", f"/api/events/{ev}/round/start", {}
        )
        for ev in setup.events
    ]


def prepare_floor(server: Server, tables: int, match_minutes: int | None = None) -> FloorSetup:
    """An organiser, and events holding `tables` tables; raise FloorUnavailable if not possible."""
    done = subprocess.run(
        [sys.executable, "-m", "server", "create-organiser", "bench", "--password", PASSWORD],
        cwd=server.root,
        env=server.env,
        capture_output=True,
        timeout=60,
    )
    if done.returncode != 0:
        tail = (done.stderr or done.stdout).decode(errors="replace").strip().splitlines()[-1:]
        raise FloorUnavailable(f"create-organiser failed: {' '.join(tail)}")
    jar = http.cookiejar.CookieJar()
    opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(jar))
    csrf = ""

    def call(method: str, path: str, body: Any) -> Any:
        headers = {"Content-Type": "application/json", "Origin": server.url}
        if csrf:
            headers["X-CSRF-Token"] = csrf
        request = urllib.request.Request(
            server.url + path,
            None if body is None else json.dumps(body).encode(),
            method=method,
            headers=headers,
        )
        try:
            with opener.open(request, timeout=300) as response:
                return json.load(response)
        except urllib.error.HTTPError as exc:
            raise FloorUnavailable(f"{method} {path}: {exc.code}") from None

    csrf = call("POST", "/api/auth/login", {"username": "bench", "password": PASSWORD}).get(
        "csrf", ""
    )
    events, codes, slugs = [], [], []
    claims: list[dict[str, str]] = []
    for first in range(0, tables, EVENT_MAX_TABLES):
        count = min(EVENT_MAX_TABLES, tables - first)
        body = {
            "name": f"Bench {first // EVENT_MAX_TABLES + 1}",
            "date": "2026-12-01",
            "require_player_id": False,  # the bench's phones give no player ID (R1.1)
            **({"match_minutes": match_minutes} if match_minutes else {}),
        }
        event = call("POST", "/api/events", {**body, "tables": count})
        events.append(int(event["id"]))
        slugs.append(str(event.get("slug") or ""))
        # The round is paired before the phones join, as an organiser does: its start (the
        # organiser's tap, `start_rounds`) needs a pairing, and a table's duel needs the start.
        call("POST", f"/api/events/{event['id']}/pairings", {"csv": pairing_csv(first, count)})
        codes += [t["code"] for t in event["tables"]]
        detail = call("GET", f"/api/events/{event['id']}", None)
        cards = {t["code"]: t.get("claims") or {} for t in detail.get("tables", [])}
        claims += [cards.get(t["code"], {}) for t in event["tables"]]
    cookie = "; ".join(f"{c.name}={c.value}" for c in jar)
    return FloorSetup(events, codes, cookie, claims, csrf, server.url, slugs)


class FloorViews:
    """N floor views in one client process, and what they receive."""

    def __init__(
        self, base: str, count: int, setup: dict[str, Any], stats: Any, busy: str = ""
    ) -> None:
        self.base, self.count, self.stats = base, count, stats
        self.rng = random.Random(count)  # the backoff's jitter of a refused open
        # The busiest minutes (bench/load.py `Plan.busy`): wall ms each view first had each
        # table's clock running ("round_start") or its time called ("time_call").
        self.busy = busy
        self.busy_seen: list[float] = []
        self.events: list[int] = setup["events"]
        self.cookie: str = setup["cookie"]
        self.sockets: list[ClientConnection] = []
        # code -> acknowledged (seq, wall ms), appended by this process's tables.
        self.acks: dict[str, list[tuple[int, float]]] = defaultdict(list)
        self.bytes = 0
        self.messages = 0
        self.summaries = 0
        self.staleness: list[float] = []
        self.measuring = False
        self.readers: list[asyncio.Task] = []

    def acknowledged(self, code: str, seq: int) -> None:
        self.acks[code].append((seq, time.time() * 1000))

    async def open(self) -> None:
        for i in range(self.count):
            url = "ws" + self.base[len("http") :] + f"/ws/floor/{self.events[i % len(self.events)]}"
            opener = functools.partial(
                connect,
                url,
                origin=self.base,  # type: ignore[arg-type]
                additional_headers={"Cookie": self.cookie},
                compression="deflate",
                ping_interval=None,
                open_timeout=30,
                max_size=2**24,
            )
            try:
                # The floor page's backoff is the phones' (web/js/judge/floor.js).
                ws = await open_as_phone(opener, self.rng, self.stats.setup_retries)
                self.sockets.append(ws)
            except (OSError, WebSocketException) as exc:
                self.stats.errors[f"floor_open:{type(exc).__name__}"] += 1

    def on_message(
        self, raw: str | bytes, seen: dict[str, int], now: float, marked: set[str] | None = None
    ) -> None:
        # Traffic counts within the window; staleness for every command acknowledged in the
        # window (only those are recorded), even when the floor view has it after the window.
        if self.measuring:
            self.bytes += len(raw)
            self.messages += 1
        try:
            message = json.loads(raw)
        except ValueError:
            return
        marked = set() if marked is None else marked
        if message.get("type") == "error":
            self.stats.errors[f"floor_error:{(message.get('error') or {}).get('code')}"] += 1
        for summary in message.get("tables") or ():
            self.summaries += self.measuring
            code, seq = summary.get("code"), summary.get("seq", 0)
            if self.busy and code not in marked:
                if self.busy == "round_start":
                    shown = (summary.get("clock") or {}).get("status") == "running"
                else:
                    shown = bool(summary.get("time_called"))
                if shown:
                    marked.add(code)
                    self.busy_seen.append(now)
            acks = self.acks.get(code)
            if not acks:
                continue
            # Every command acknowledged after what this view last saw, up to `seq`.
            low = bisect.bisect_right(acks, (seen.get(code, 0), float("inf")))
            high = bisect.bisect_right(acks, (seq, float("inf")))
            self.staleness += [now - at for _, at in acks[low:high]]
            seen[code] = max(seen.get(code, 0), seq)

    async def _read(self, ws: ClientConnection) -> None:
        seen: dict[str, int] = {}
        marked: set[str] = set()
        try:
            async for raw in ws:
                self.on_message(raw, seen, time.time() * 1000, marked)
        except WebSocketException:
            if self.measuring:
                self.stats.errors["floor_closed"] += 1

    async def run(self, start: float, end: float) -> None:
        if not self.sockets:
            return
        self.readers = [asyncio.create_task(self._read(ws)) for ws in self.sockets]
        await asyncio.sleep(max(0.0, start - time.monotonic()))
        self.measuring = True
        await asyncio.sleep(max(0.0, end - time.monotonic()))
        self.measuring = False
        seconds = max(1e-9, end - start)
        views = len(self.sockets)
        self.stats.extra["floor"] = {
            "views": views,
            "bytes_per_s_per_view": self.bytes / seconds / views,
            "messages_per_s_per_view": self.messages / seconds / views,
            "summaries_per_s_per_view": self.summaries / seconds / views,
            "staleness": self.staleness,
            "busy_seen": self.busy_seen,
        }

    async def close(self) -> None:
        for task in self.readers:
            task.cancel()
        for ws in self.sockets:
            try:
                await asyncio.wait_for(ws.close(), 3)
            except (OSError, TimeoutError, WebSocketException):
                pass


class HallScreens:
    """The hall page open on N screens (web/js/hall.js): each asks for its event's clocks,
    `/api/hall/<slug>`, every POLL_MS (bench/phone.py), as the page does. Measured: each
    answer's time and the answers that failed."""

    def __init__(self, base: str, count: int, slugs: list[str], stats: Any) -> None:
        self.base, self.count, self.stats = base, count, stats
        self.slugs = [s for s in slugs if s]
        self.times: list[float] = []
        self.failed = 0

    async def run(self, start: float, end: float) -> None:
        if not self.slugs or not self.count:
            return
        await asyncio.gather(*(self._screen(i, start, end) for i in range(self.count)))
        self.stats.extra["hall"] = {
            "screens": self.count,
            "polls": len(self.times),
            "failed": self.failed,
            "times": self.times,
        }

    async def _screen(self, i: int, start: float, end: float) -> None:
        from .httpc import HttpClient
        from .phone import APP

        parts = urllib.parse.urlsplit(self.base)
        http = HttpClient(parts.hostname or "", parts.port or 80)
        path = f"/api/hall/{urllib.parse.quote(self.slugs[i % len(self.slugs)])}"
        # Screens out of step with each other, as two screens switched on apart are.
        await asyncio.sleep(max(0.0, start - time.monotonic()) + i * APP.hall_poll_s / self.count)
        try:
            while time.monotonic() < end:
                asked = time.perf_counter()
                try:
                    status, _ = await http.request("GET", path)
                except Exception:
                    status = 0
                took = time.perf_counter() - asked
                if status == 200:
                    self.times.append(took * 1000)
                else:
                    self.failed += 1
                # hall.js asks again POLL_MS after an answer (setTimeout), not on a fixed beat.
                await asyncio.sleep(APP.hall_poll_s)
        finally:
            await http.close()
