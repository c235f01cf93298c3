"""One client process of the load generator: simulated tables of two phones on asyncio.

A table is created and joined over HTTP, its two phones open websockets (offering
permessage-deflate as browsers do; the server declines it), and the match is driven to the duel.
Then each table sends a command every `interval` seconds on average (exponential gaps), in a
cycle of LP proposals, the other seat's confirmations and coin tosses, and measures for each the
time from sending it to the OPPONENT's phone receiving the `update` that contains it (an update
whose `seq` reaches the `seq` of the reply). Against the relay the same phones send a message of
the same size and time its arrival at the other phone.
"""

from __future__ import annotations

import asyncio
import functools
import itertools
import json
import math
import random
import resource
import time
from collections import Counter, deque
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import InvalidStatus, WebSocketException

from clients.wire import PROTOCOL, apply_update, unfold
from server.runtime import gctune

from .httpc import HttpClient
from .phone import APP, backoff_delay, open_as_phone

SEATS = ("A", "B")
OTHER = {"A": "B", "B": "A"}
COMMAND_TIMEOUT = 10.0
SETUP_TABLE_TIMEOUT = 90.0
CHECK_ITEMS = ["handshake", "side_shown", "shuffled", "cut"]
# The steps from two joined seats to a running duel (docs/protocol.md, server/rules/match.py):
# first what is done before the round (decks registered, the pre-game checks), then what an
# event table may do only once the organiser has started the round (`wait_for_round`).
REGISTRATION_STEPS: list[tuple[str, str, dict[str, Any]]] = [
    ("A", "deck.declare", {"main": 40, "extra": 15, "side": 15}),
    ("B", "deck.declare", {"main": 40, "extra": 15, "side": 15}),
    ("A", "deck.confirm", {"seat": "B"}),
    ("B", "deck.confirm", {"seat": "A"}),
    ("A", "pregame.check", {"items": CHECK_ITEMS}),
    ("B", "pregame.check", {"items": CHECK_ITEMS}),
]
DUEL_STEPS: list[tuple[str, str, dict[str, Any]]] = [
    ("A", "rps.report", {"winner": "A"}),
    ("B", "rps.confirm", {}),
    ("A", "duel.choose", {"order": "first"}),
    ("A", "duel.draw", {}),
    ("B", "duel.draw", {}),
]
SETUP_STEPS = REGISTRATION_STEPS + DUEL_STEPS
# Seconds from a round's clock shown running to the players' first step of duel 1.
AFTER_START_SECONDS = (3.0, 15.0)
# A casual table's clock starts with duel 1 (R4.1: both seats' "drawn 5" above), so every
# table's clock runs; nothing more to send (a judge starts a round's clocks at once).
CLOCK_STEPS: list[tuple[str, str, dict[str, Any]]] = []


@dataclass
class Plan:
    """What one client process does; picklable."""

    mode: str  # "server" or "relay"
    # One base URL per server process. "cross": seat A uses urls[0], seat B urls[-1] (every
    # command crosses the hub); "table": both seats of table n use urls[n % len(urls)], as a
    # proxy hashing /ws/table/<code> places them (docs/deploy.md).
    urls: list[str]
    tables: list[int]  # global table numbers this process simulates
    seconds: float
    interval: float
    ramp: float  # tables a second, over the whole run
    ramp_base: float  # time.monotonic() at which table 0 may start
    setup_slots: int
    setup_timeout: float
    clock_tables: int  # tables (global numbers below this) that also sample the clock spread
    floor_views: int = 0
    seed: int = 0
    codes: list[str] | None = None  # tables made beforehand (in an event), by position in tables
    claims: list[dict[str, str]] | None = None  # their cards' seat claims, by position
    # The tables are an event round's (`codes`): set-up registers the decks, then waits for
    # the organiser's start (the driver's tap, signalled by `started`) before the duel's steps.
    event_round: bool = False
    # The busiest minutes (`python -m bench --round-start`, `--time-call`): "round_start", the
    # event tables wait in the window for the organiser's tap, then play to their duels;
    # "time_call", every event clock reaches its deadline in the window. Each phone records
    # when it first shows the clock running (or time called), in wall ms. The tables without
    # a code are casual tables, whose commands flow through it all.
    busy: str = ""
    hall_screens: int = 0  # the hall page's screens (with `floor`: the events' slugs)
    floor: dict[str, Any] | None = None  # {"events": [...], "cookie": "..."} for the floor views
    placement: str = "cross"
    # The storm: `storm_at` seconds into the measured window every socket of every table but
    # the control tables (one in `storm_control`) is dropped at once, and each phone comes back
    # after a delay spread over `storm_spread` seconds, with `since`, retrying as the phones'
    # backoff does (web/js/conn.js). 0: no storm.
    storm_at: float = 0.0
    storm_spread: float = 5.0
    storm_control: int = 50
    # The break between rounds: from `break_at` seconds into the measured window, for
    # `break_seconds`, no table sends a command (the phones stay connected and ping). 0: none.
    break_at: float = 0.0
    break_seconds: float = 0.0


@dataclass
class Stats:
    latencies: list[float] = field(default_factory=list)  # ms, send -> opponent's update
    replies: list[float] = field(default_factory=list)  # ms, send -> own reply
    errors: Counter = field(default_factory=Counter)
    setup_errors: Counter = field(default_factory=Counter)
    setup_retries: Counter = field(default_factory=Counter)  # set-up opens refused as busy
    sent: int = 0
    lag: list[float] = field(default_factory=list)  # ms, event-loop lag samples
    clock_spread: list[float] = field(default_factory=list)  # ms
    clock_second_differs: int = 0
    clock_rtt: list[float] = field(default_factory=list)  # ms, best round trip per phone
    pings: list[float] = field(default_factory=list)  # ms, the heartbeat's round trips
    # Wall ms each latency's command (ping) was sent, beside `latencies` (`pings`): what flowed
    # during the busiest seconds.
    latency_wall: list[float] = field(default_factory=list)
    ping_wall: list[float] = field(default_factory=list)
    busy_seen: list[float] = field(default_factory=list)  # wall ms a phone first showed it
    busy_phones: int = 0  # the phones that should show it
    extra: dict[str, Any] = field(default_factory=dict)
    storm: Storm = field(default_factory=lambda: Storm())


@dataclass
class Storm:
    """What the storm did: per phone, the seconds from the drop to its welcome, the opens
    refused on the way, and whether it came back at all or lost what it had acknowledged; the
    control tables' ping round trips while the hall reconnected."""

    welcomed_s: list[float] = field(default_factory=list)
    refused_opens: int = 0
    failed_opens: Counter = field(default_factory=Counter)
    refused_for_good: int = 0
    lost_acknowledged: int = 0
    control_ping_ms: list[float] = field(default_factory=list)
    # (seconds after the drop the ping was sent, its round trip in ms): where the wait was
    control_ping_at: list[tuple[float, float]] = field(default_factory=list)
    phones: int = 0

    def as_dict(self) -> dict[str, Any]:
        return {
            "welcomed_s": self.welcomed_s,
            "refused_opens": self.refused_opens,
            "failed_opens": dict(self.failed_opens),
            "refused_for_good": self.refused_for_good,
            "lost_acknowledged": self.lost_acknowledged,
            "control_ping_ms": self.control_ping_ms,
            "control_ping_at": self.control_ping_at,
            "phones": self.phones,
        }


STORM_GIVE_UP = 60.0  # seconds after the drop: a phone not welcomed by then is refused for good


def raise_nofile() -> None:
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft < hard:
        resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))


def ws_url(base: str, code: str) -> str:
    return "ws" + base[len("http") :] + f"/ws/table/{code}"


class ClockSync:
    """A phone's estimate of the server's clock, as web/js/conn.js's `ClockOffset`: of the last
    OFFSET_SAMPLES ping/pong samples, the one with the smallest RTT."""

    def __init__(self) -> None:
        self.sent: dict[int, float] = {}
        self.samples: deque[tuple[float, float]] = deque(maxlen=APP.offset_samples)
        self.best_rtt = math.inf
        self.offset: float | None = None  # server ms - local ms

    def ping(self) -> dict[str, Any]:
        now = time.time() * 1000
        t = int(now)
        self.sent[t] = now
        return {"type": "ping", "t": t}

    def pong(self, message: dict[str, Any], received_ms: float) -> float | None:
        """Take a pong's sample; its round trip in ms (None if no ping of this phone's)."""
        sent = self.sent.pop(message.get("t"), None)  # type: ignore[arg-type]
        if sent is None:
            return None
        rtt = received_ms - sent
        self.samples.append((rtt, message["now_ms"] - (sent + received_ms) / 2))
        self.best_rtt, self.offset = min(self.samples)
        return rtt


class Table:
    def __init__(
        self,
        number: int,
        plan: Plan,
        stats: Stats,
        rng: random.Random,
        code: str | None = None,
        claims: dict[str, str] | None = None,
    ) -> None:
        self.number = number
        self.claims = claims or {}  # an event table's card claims, by seat
        self.plan = plan
        self.stats = stats
        self.rng = rng
        self.made = code is not None  # made beforehand: join it, do not create it
        self.code = code or f"R{number:06d}"
        self.floor: Any = None  # the floor views to tell of acknowledged commands
        self.ws: dict[str, ClientConnection] = {}
        self.readers: list[asyncio.Task] = []
        self.futures: dict[str, asyncio.Future] = {}
        self.arrivals: dict[str, list[tuple[int, float]]] = {"A": [], "B": []}
        self.signal: dict[str, asyncio.Event] = {"A": asyncio.Event(), "B": asyncio.Event()}
        self.welcome: dict[str, asyncio.Future] = {}
        self.state: dict[str, dict[str, Any]] = {}
        self.entry: int | None = None  # the last LP entry proposed, as the confirmer saw it
        self.clock = {"A": ClockSync(), "B": ClockSync()}
        self.ids = itertools.count(1)
        self.closing = False
        self.broken = False
        self.measuring = False
        self.tokens: dict[str, str] = {}
        self.seen_seq: dict[str, int] = {"A": 0, "B": 0}  # the last seq each phone holds
        self.acked_seq = 0  # the highest seq a reply acknowledged
        self.back = asyncio.Event()  # set while both phones are connected
        self.back.set()
        self.drops = 0  # storms this table went through (a command across one is not timed)
        self.pings: dict[int, float] = {}
        self.pinging_from = 0.0  # when the control pings began (the storm's drop)
        self.ping_ids = itertools.count(1)
        self.busy_seen: dict[str, float] = {}
        self.busy_both = asyncio.Event()

    # -- connections ---------------------------------------------------------------------------

    def base(self, seat: str) -> str:
        urls = self.plan.urls
        if self.plan.placement == "table":
            return urls[self.number % len(urls)]
        return urls[0] if seat == "A" else urls[-1]

    async def open(self, seat: str) -> None:
        base = self.base(seat)
        ws = await connect(
            ws_url(base, self.code),
            origin=base,  # type: ignore[arg-type]
            compression="deflate",  # offered, as browsers do; the server declines it
            ping_interval=None,  # browsers answer pings but do not send them
            open_timeout=30,
            close_timeout=3,
            max_size=2**22,
        )
        self.ws[seat] = ws
        self.readers.append(asyncio.create_task(self.read(seat, ws)))

    async def hello(self, seat: str, token: str, since: int | None = None) -> dict[str, Any]:
        self.welcome[seat] = asyncio.get_running_loop().create_future()
        # Protocol 2: updates as deltas, merged into the state held (`clients.wire`).
        hello: dict[str, Any] = {"type": "hello", "token": token, "v": PROTOCOL}
        if since is not None:
            hello["since"] = since
        await self.ws[seat].send(json.dumps(hello))
        return await asyncio.wait_for(self.welcome[seat], 30)

    async def close(self) -> None:
        self.closing = True
        for ws in self.ws.values():
            try:
                await asyncio.wait_for(ws.close(), 5)
            except (OSError, TimeoutError, WebSocketException):
                pass
        for task in self.readers:
            task.cancel()

    def _arrived(self, seat: str, seq: int, at: float) -> None:
        self.seen_seq[seat] = max(self.seen_seq[seat], seq)
        self.arrivals[seat].append((seq, at))
        old, self.signal[seat] = self.signal[seat], asyncio.Event()
        old.set()

    def take(self, seat: str, message: dict[str, Any], at: float) -> None:
        """One message `seat`'s phone received at `at`."""
        kind = message.get("type")
        if kind == "pong" and self.plan.mode == "relay":
            self.pong(seat, message)
            return
        if self.plan.mode == "relay":
            future = self.futures.pop(message.get("id"), None)
            if future is not None and not future.done():
                future.set_result(at)
            return
        if kind == "reply":
            future = self.futures.pop(message.get("re"), None)
            if future is not None and not future.done():
                future.set_result((message, at))
        elif kind == "update":
            self.state[seat] = apply_update(self.state.get(seat), message)
            for event in message.get("events") or ():
                if event.get("type") == "lp.proposed":
                    self.entry = event["data"]["entry"]
            self._arrived(seat, int(message["seq"]), at)
            self.watch_busy(seat)
        elif kind == "welcome":
            self.state[seat] = apply_update(None, message)
            future = self.welcome.get(seat)
            if future is not None and not future.done():
                future.set_result(message)
            if "seq" in message:
                self._arrived(seat, int(message["seq"]), at)
        elif kind == "pong":
            sent = self.pings.pop(message.get("t"), None)
            if sent is not None:
                self.stats.storm.control_ping_ms.append((at - sent) * 1000)
                after = sent - self.pinging_from
                self.stats.storm.control_ping_at.append((after, (at - sent) * 1000))
            else:
                self.pong(seat, message)
        elif kind == "error":
            code = (message.get("error") or {}).get("code", "?")
            if self.measuring:
                self.stats.errors[f"server_error:{code}"] += 1
            else:
                self.stats.setup_errors[f"server_error:{code}"] += 1

    async def read(self, seat: str, ws: ClientConnection) -> None:
        try:
            async for raw in ws:
                at = time.perf_counter()
                for message in unfold(json.loads(raw)):  # a version-3 reply may hold an update
                    self.take(seat, message, at)
        except WebSocketException:
            pass
        except Exception as exc:  # a bug in the bench must show, not hang the run
            self.stats.errors[f"client_bug:{type(exc).__name__}"] += 1
        finally:
            dropped = self.ws.get(seat) is not ws  # by the storm: its phone opens another
            if not self.closing:
                if not dropped:
                    self.broken = True
                    if self.measuring:
                        self.stats.errors["socket_closed"] += 1
                for future in self.futures.values():
                    if not future.done():
                        future.set_exception(ConnectionError("socket closed"))

    def pong(self, seat: str, message: dict[str, Any]) -> None:
        """A heartbeat's pong: a clock sync sample, and its round trip in the window."""
        rtt = self.clock[seat].pong(message, time.time() * 1000)
        if rtt is not None and self.measuring:
            self.stats.pings.append(rtt)
            self.stats.ping_wall.append(time.time() * 1000 - rtt)

    def watch_busy(self, seat: str) -> None:
        """The busiest minutes: the first moment this phone's state shows the round's clock
        running (`round_start`) or time called (`time_call`)."""
        if not self.made or seat in self.busy_seen or not self.plan.busy:
            return
        state = self.state.get(seat) or {}
        if self.plan.busy == "round_start":
            shown = (state.get("clock") or {}).get("status") == "running"
        else:
            shown = bool((state.get("time") or {}).get("called"))
        if shown:
            self.busy_seen[seat] = time.time() * 1000
            self.stats.busy_seen.append(self.busy_seen[seat])
            if len(self.busy_seen) == len(SEATS):
                self.busy_both.set()

    async def heartbeat(self, seat: str, end: float) -> None:
        """The app's heartbeat (web/js/conn.js): a ping every PING_MS from each phone, whose
        pong is also a clock sync sample; phones start out of step, as a hall's do."""
        await asyncio.sleep(self.rng.uniform(0, APP.ping_s))
        while time.monotonic() < end and not self.broken and not self.closing:
            ws = self.ws.get(seat)
            if ws is not None:  # not while the storm has it dropped
                try:
                    await ws.send(json.dumps(self.clock[seat].ping()))
                except WebSocketException:
                    pass
            await asyncio.sleep(APP.ping_s)

    # -- commands ------------------------------------------------------------------------------

    async def send(self, seat: str, cmd: str, args: dict[str, Any]) -> tuple[dict, float, float]:
        """Send a command; return (reply, time sent, time the reply came)."""
        cid = f"{self.code}-{next(self.ids)}-{self.rng.getrandbits(32):08x}"
        future = asyncio.get_running_loop().create_future()
        self.futures[cid] = future
        self.arrivals[OTHER[seat]] = []
        message = {"type": "command", "id": cid, "cmd": cmd, "args": args}
        sent = time.perf_counter()
        ws = self.ws.get(seat)
        if ws is None:  # dropped by the storm, not back yet
            raise ConnectionError("socket dropped")
        text = json.dumps(message)
        await ws.send(text)
        try:
            # The app sends a command again, with the same id, after RESEND_MS unanswered.
            reply, at = await asyncio.wait_for(asyncio.shield(future), APP.resend_s)
        except TimeoutError:
            self.stats.extra["resent"] = self.stats.extra.get("resent", 0) + 1
            ws = self.ws.get(seat)
            if ws is None:
                raise ConnectionError("socket dropped") from None
            await ws.send(text)
            reply, at = await asyncio.wait_for(future, COMMAND_TIMEOUT)
        return reply, sent, at

    async def wait_seq(self, seat: str, seq: int, deadline: float) -> float:
        """When `seat` received an update reaching `seq` (after the last command was sent)."""
        while True:
            event = self.signal[seat]
            for got, at in self.arrivals[seat]:
                if got >= seq:
                    return at
            left = deadline - time.perf_counter()
            if left <= 0:
                raise TimeoutError
            await asyncio.wait_for(event.wait(), left)

    async def setup(self, http: dict[str, HttpClient]) -> None:
        if self.plan.mode == "relay":
            await self.open("A")
            await self.open("B")
            return
        if not self.made:
            status, body = await http[self.plan.urls[0]].request("POST", "/api/tables", {})
            if status != 201:
                raise SetupError(f"create:{status}")
            self.code = body["code"]
        tokens = {}
        for seat in SEATS:
            status, body = await http[self.base(seat)].request(
                "POST",
                f"/api/tables/{self.code}/join",
                {
                    "seat": seat,
                    "name": f"P{seat}{self.number}",
                    # The table card's claim, where the server has them (sent only then).
                    **({"claim": self.claims[seat]} if seat in self.claims else {}),
                },
            )
            if status != 201:
                raise SetupError(f"join:{status}")
            tokens[seat] = body["token"]
        self.tokens = tokens
        for seat in SEATS:
            # A phone refused as busy (the hall opening at once) tries again after its backoff.
            opener = functools.partial(self.open, seat)
            await open_as_phone(opener, self.rng, self.stats.setup_retries)
            await self.hello(seat, tokens[seat])
        await self.steps(REGISTRATION_STEPS)
        if self.plan.event_round and self.made:
            return  # the duel waits for the round's start (`after_start`)
        await self.steps(DUEL_STEPS)
        await self.clock_steps()

    async def steps(self, steps: list[tuple[str, str, dict[str, Any]]]) -> None:
        """Send each set-up command in turn; raise SetupError at the first refused."""
        for seat, cmd, args in steps:
            reply, _, _ = await self.send(seat, cmd, args)
            if not reply.get("ok"):
                raise SetupError(f"{cmd}:{(reply.get('error') or {}).get('code')}")

    async def after_start(self, pause: bool = False) -> None:
        """An event table once the organiser started the round: its clock runs (started by
        the round), the players play rock-paper-scissors and draw (`pause`: as people do, in
        the measured round start; set-up's tables, played a few at a time, go straight on)."""
        if pause:
            # People, not scripts: the players see the clock run, play rock-paper-scissors,
            # report it and draw (R6.5, R6.6): seconds after the tap, not in its millisecond.
            await asyncio.sleep(self.rng.uniform(*AFTER_START_SECONDS))
        await self.steps(DUEL_STEPS)
        await self.clock_steps()

    async def clock_steps(self) -> None:
        """The tables that sample the displayed clock: a casual table's clock started by both
        seats' votes (an event's is already running), then the clock sync's pings."""
        if self.number < self.plan.clock_tables and not self.made:
            for seat, cmd, args in CLOCK_STEPS:
                reply, _, _ = await self.send(seat, cmd, args)
                if not reply.get("ok"):  # e.g. an event's clock is the judges' to start
                    code = (reply.get("error") or {}).get("code")
                    self.stats.extra.setdefault("clock_start_refused", {})
                    refused = self.stats.extra["clock_start_refused"]
                    refused[code] = refused.get(code, 0) + 1
                    break
        if self.number < self.plan.clock_tables:
            # The clock sync of docs/protocol.md: a few pings, keep the fastest.
            for _ in range(5):
                for seat in SEATS:
                    await self.ws[seat].send(json.dumps(self.clock[seat].ping()))
                await asyncio.sleep(0.05)

    # -- the measured phase --------------------------------------------------------------------

    def next_command(self, k: int) -> tuple[str, str, dict[str, Any]]:
        """A cycle: A proposes, B confirms, B proposes, A confirms, a coin toss."""
        step = k % 5
        if step == 4:
            return self.rng.choice(SEATS), "coin.toss", {"count": 1}
        proposer = "A" if step < 2 else "B"
        if step in (1, 3) and self.entry is not None:
            entry, self.entry = self.entry, None
            return OTHER[proposer], "lp.confirm", {"entry": entry}
        # Small damage, so no duel ends within a run.
        return proposer, "lp.propose", {"seat": OTHER[proposer], "delta": -10}

    async def measure_one(self, seat: str, cmd: str, args: dict[str, Any], record: bool) -> None:
        stats = self.stats
        other = OTHER[seat]
        if self.plan.mode == "relay":
            cid = f"{self.code}-{next(self.ids)}"
            future = asyncio.get_running_loop().create_future()
            self.futures[cid] = future
            # About the size of a real command.
            message = {"type": "command", "id": cid, "cmd": cmd, "args": args, "note": "x" * 40}
            sent = time.perf_counter()
            await self.ws[seat].send(json.dumps(message))
            try:
                at = await asyncio.wait_for(future, COMMAND_TIMEOUT)
            except TimeoutError:
                stats.errors["timeout"] += 1
                return
            if record:
                stats.latencies.append((at - sent) * 1000)
                stats.latency_wall.append(time.time() * 1000 - (time.perf_counter() - sent) * 1000)
            return
        drops = self.drops
        try:
            reply, sent, replied = await self.send(seat, cmd, args)
        except TimeoutError:
            stats.errors["reply_timeout"] += 1
            return
        if not reply.get("ok"):
            stats.errors[f"refused:{(reply.get('error') or {}).get('code')}"] += 1
            return
        self.acked_seq = max(self.acked_seq, int(reply["seq"]))
        if self.floor is not None:
            self.floor.acknowledged(self.code, int(reply["seq"]))
        try:
            at = await self.wait_seq(other, int(reply["seq"]), sent + COMMAND_TIMEOUT)
        except TimeoutError:
            if drops == self.drops:  # across a storm's drop the update may come as a welcome
                stats.errors["update_timeout"] += 1
            return
        if record and drops == self.drops:  # not across a storm's drop
            stats.latencies.append((at - sent) * 1000)
            stats.latency_wall.append(time.time() * 1000 - (time.perf_counter() - sent) * 1000)
            stats.replies.append((replied - sent) * 1000)

    async def run(self, start: float, end: float) -> None:
        """Commands at exponential gaps from `start` (monotonic) until `end`."""
        self.measuring = True
        mean = self.plan.interval
        if self.plan.busy == "round_start" and self.made:
            # The organiser's tap comes in the window: the phones show the clock running,
            # then the players play to their duel, then their commands flow as every table's.
            try:
                await asyncio.wait_for(self.busy_both.wait(), max(0.0, end - time.monotonic()))
            except TimeoutError:
                return  # never shown: the phones not seeing it are counted by the driver
            try:
                await asyncio.wait_for(self.after_start(pause=True), SETUP_TABLE_TIMEOUT)
            except SetupError as exc:
                self.stats.errors[f"after_start:{exc}"] += 1
                return
            except (TimeoutError, OSError, WebSocketException, ConnectionError) as exc:
                self.stats.errors[f"after_start:{type(exc).__name__}"] += 1
                return
        await asyncio.sleep(max(0.0, start + self.rng.uniform(0, 2 * mean) - time.monotonic()))
        k = 0
        rest = (start + self.plan.break_at, start + self.plan.break_at + self.plan.break_seconds)
        while time.monotonic() < end and not self.broken:
            await self.back.wait()
            if self.plan.break_seconds and rest[0] <= time.monotonic() < rest[1]:
                await asyncio.sleep(rest[1] - time.monotonic() + self.rng.uniform(0, mean))
                continue
            seat, cmd, args = self.next_command(k)
            k += 1
            self.stats.sent += 1
            drops = self.drops
            try:
                await self.measure_one(seat, cmd, args, record=True)
            except (ConnectionError, WebSocketException):
                if self.drops == drops and self.back.is_set():
                    return  # counted once by the reader
                self.entry = None  # a proposal across the drop: start the cycle again
                self.stats.extra["storm_in_flight"] = self.stats.extra.get("storm_in_flight", 0) + 1
            await asyncio.sleep(self.rng.expovariate(1 / mean))

    # -- the storm -----------------------------------------------------------------------------

    async def storm(self, at: float, spread: float) -> None:
        """Drop both phones' sockets at `at` (monotonic), as a Wi-Fi blip does (no close
        frame), then bring each back after a delay within `spread` seconds, with `since`."""
        await asyncio.sleep(max(0.0, at - time.monotonic()))
        if self.broken:
            return
        self.back.clear()
        self.drops += 1
        dropped = time.perf_counter()
        for seat in SEATS:
            ws = self.ws.pop(seat, None)
            if ws is not None:
                ws.transport.abort()
        await asyncio.gather(*(self.come_back(seat, dropped, spread) for seat in SEATS))
        if all(seat in self.ws for seat in SEATS):
            self.back.set()
        else:
            self.broken = True

    async def come_back(self, seat: str, dropped: float, spread: float) -> None:
        storm = self.stats.storm
        storm.phones += 1
        await asyncio.sleep(self.rng.uniform(0, spread))
        attempt = 0
        while time.perf_counter() - dropped < STORM_GIVE_UP:
            try:
                await self.open(seat)
                welcome = await self.hello(seat, self.tokens[seat], self.seen_seq[seat])
            except InvalidStatus as exc:
                status = exc.response.status_code
                if status == 503:
                    storm.refused_opens += 1
                else:
                    storm.failed_opens[f"http_{status}"] += 1
            except (OSError, TimeoutError, WebSocketException) as exc:
                storm.failed_opens[type(exc).__name__] += 1
                self.ws.pop(seat, None)
            else:
                storm.welcomed_s.append(time.perf_counter() - dropped)
                if int(welcome.get("seq", -1)) < self.acked_seq:
                    storm.lost_acknowledged += 1
                return
            await asyncio.sleep(backoff_delay(attempt, self.rng))
            attempt += 1
        storm.refused_for_good += 1

    async def ping_through(self, start: float, end: float, every: float = 0.25) -> None:
        """A control table's ping round trips from `start` to `end`: what a phone that was not
        dropped sees of the server while the hall reconnects."""
        await asyncio.sleep(max(0.0, start - time.monotonic()))
        self.pinging_from = time.perf_counter()  # the drop, on the pings' own clock
        while time.monotonic() < end and not self.broken:
            t = -next(self.ping_ids)  # negative: not the clock sync's pings
            self.pings[t] = time.perf_counter()
            try:
                await self.ws["A"].send(json.dumps({"type": "ping", "t": t}))
            except WebSocketException:
                return
            await asyncio.sleep(every)

    async def sample_clock(self, start: float, end: float) -> None:
        """Every second: the time left each phone would display, and how far apart they are."""
        await asyncio.sleep(max(0.0, start - time.monotonic()))
        # The heartbeat's pongs keep each phone's clock sync (`heartbeat`).
        while time.monotonic() < end and not self.broken:
            await asyncio.sleep(1.0)
            shown = []
            now = time.time() * 1000  # one instant for both phones
            for seat in SEATS:
                deadline = ((self.state.get(seat) or {}).get("clock") or {}).get("deadline_ms")
                offset = self.clock[seat].offset
                if deadline is None or offset is None:
                    break
                shown.append(deadline - (now + offset))
            if len(shown) == 2:
                self.stats.clock_spread.append(abs(shown[0] - shown[1]))
                if math.ceil(shown[0] / 1000) != math.ceil(shown[1] / 1000):
                    self.stats.clock_second_differs += 1


class SetupError(Exception):
    pass


async def lag_monitor(stats: Stats, start: float, end: float, period: float = 0.1) -> None:
    """How late the event loop wakes up: a late loop would inflate every latency measured."""
    while time.monotonic() < end:
        before = time.perf_counter()
        await asyncio.sleep(period)
        if time.monotonic() >= start:
            stats.lag.append((time.perf_counter() - before - period) * 1000)


async def play_to_duel(
    tables: list[Table], stats: Stats, slots: int, timeout: float
) -> list[Table]:
    """Each event table's steps after the round's start, `slots` tables at once; the tables
    that reached their duel (the others' failures counted in `stats.setup_errors`)."""
    gate = asyncio.Semaphore(max(1, slots))
    playing: list[Table] = []

    async def one(table: Table) -> None:
        async with gate:
            try:
                await asyncio.wait_for(table.after_start(), SETUP_TABLE_TIMEOUT)
                playing.append(table)
            except SetupError as exc:
                stats.setup_errors[str(exc)] += 1
            except (TimeoutError, OSError, WebSocketException, ConnectionError) as exc:
                stats.setup_errors[type(exc).__name__] += 1

    try:
        await asyncio.wait_for(asyncio.gather(*(one(t) for t in tables)), timeout)
    except TimeoutError:
        stats.setup_errors["setup_timeout"] += len(tables) - len(playing)
    return playing


async def run_worker(
    plan: Plan, wid: int, report: Any, go: Any, go_time: Any, started: Any = None
) -> None:
    stats = Stats()
    rng = random.Random(plan.seed * 1000 + wid)
    codes = plan.codes or [None] * len(plan.tables)
    claims = plan.claims or [{}] * len(plan.tables)
    tables = [
        Table(n, plan, stats, random.Random(rng.random()), code, claim)
        for n, code, claim in zip(plan.tables, codes, claims, strict=True)
    ]
    pending: asyncio.Queue[Table] = asyncio.Queue()
    for table in tables:
        pending.put_nowait(table)
    ready: list[Table] = []
    hosts = {url: urlsplit(url) for url in plan.urls}

    async def slot() -> None:
        http = {
            url: HttpClient(parts.hostname or "", parts.port or 80) for url, parts in hosts.items()
        }
        try:
            while not pending.empty():
                table = pending.get_nowait()
                # The ramp: table n starts no earlier than n / ramp seconds after the base.
                await asyncio.sleep(
                    max(0.0, plan.ramp_base + table.number / plan.ramp - time.monotonic())
                )
                try:
                    await asyncio.wait_for(table.setup(http), SETUP_TABLE_TIMEOUT)
                    ready.append(table)
                except SetupError as exc:
                    stats.setup_errors[str(exc)] += 1
                except (TimeoutError, OSError, WebSocketException, ConnectionError) as exc:
                    stats.setup_errors[type(exc).__name__] += 1
                except Exception as exc:
                    stats.setup_errors[f"client_bug:{type(exc).__name__}:{exc}"] += 1
        finally:
            for client in http.values():
                await client.close()

    slots = [asyncio.create_task(slot()) for _ in range(plan.setup_slots)]
    try:
        await asyncio.wait_for(asyncio.gather(*slots), plan.setup_timeout)
    except TimeoutError:
        # The tables still queued and those cut off in their set-up.
        unaccounted = len(tables) - len(ready) - sum(stats.setup_errors.values())
        stats.setup_errors["setup_timeout"] += max(pending.qsize(), unaccounted)
    report.put(("ready", wid, len(ready), dict(stats.setup_errors)))
    if plan.event_round and plan.busy != "round_start":
        # The organiser starts the round once every table's decks are registered (the
        # driver's tap); then each table plays to its duel, as its players do.
        while not started.is_set() and not go.is_set():  # `go` first: the run is called off
            await asyncio.sleep(0.05)
        if started.is_set():
            casual = [t for t in ready if not t.made]
            made = [t for t in ready if t.made]
            ready = casual + await play_to_duel(made, stats, plan.setup_slots, plan.setup_timeout)
            report.put(("started", wid, len(ready), dict(stats.setup_errors)))
    # The client holds every table's sockets for the whole run: a full collection over them
    # paused this loop for tens of milliseconds, inside every latency it was timing (lag p99
    # 14 ms at 2,500 tables). Set-up's objects frozen, young collections only, as the worker.
    gctune.tune(0)

    loop = asyncio.get_running_loop()
    while not go.is_set():
        await asyncio.sleep(0.05)
    start = go_time.value
    end = start + plan.seconds
    if start < 0:  # the run was called off
        end = start = time.monotonic()
    floor = None
    if plan.floor_views and plan.floor is not None:
        from .floor import FloorViews

        floor = FloorViews(plan.urls[0], plan.floor_views, plan.floor, stats, plan.busy)
        await floor.open()
        for table in ready:
            table.floor = floor
    jobs = [loop.create_task(t.run(start, end)) for t in ready]
    jobs += [loop.create_task(t.heartbeat(seat, end)) for t in ready for seat in SEATS]
    jobs += [
        loop.create_task(t.sample_clock(start, end))
        for t in ready
        if t.number < plan.clock_tables and plan.mode == "server"
    ]
    if plan.storm_at and plan.mode == "server":
        at = start + plan.storm_at
        for t in ready:
            if t.number % plan.storm_control == 0:
                jobs.append(loop.create_task(t.ping_through(at, at + 20.0)))
            else:
                jobs.append(loop.create_task(t.storm(at, plan.storm_spread)))
    jobs.append(loop.create_task(lag_monitor(stats, start, end)))
    if plan.hall_screens and plan.floor is not None:
        from .floor import HallScreens

        hall = HallScreens(plan.urls[0], plan.hall_screens, plan.floor.get("slugs") or [], stats)
        jobs.append(loop.create_task(hall.run(start, end)))
    if floor is not None:
        jobs.append(loop.create_task(floor.run(start, end)))
    grace = end + APP.resend_s + COMMAND_TIMEOUT + 5 - time.monotonic()
    done, late = await asyncio.wait(jobs, timeout=max(1.0, grace))
    for job in late:
        job.cancel()
    for job in done:
        if not job.cancelled() and job.exception() is not None:
            exc = job.exception()
            stats.errors[f"client_bug:{type(exc).__name__}"] += 1
    for table in ready:
        if table.number < plan.clock_tables:
            for seat in SEATS:
                if table.clock[seat].offset is not None:
                    stats.clock_rtt.append(table.clock[seat].best_rtt)
    if floor is not None:
        await floor.close()
    result = {
        "latencies": stats.latencies,
        "replies": stats.replies,
        "errors": dict(stats.errors),
        "setup_errors": dict(stats.setup_errors),
        "setup_busy_opens": stats.setup_retries["busy_open"],
        "sent": stats.sent,
        "lag": stats.lag,
        "clock_spread": stats.clock_spread,
        "clock_second_differs": stats.clock_second_differs,
        "clock_rtt": stats.clock_rtt,
        "pings": stats.pings,
        "latency_wall": stats.latency_wall,
        "ping_wall": stats.ping_wall,
        "busy_seen": stats.busy_seen,
        "busy_phones": len(SEATS) * sum(1 for t in ready if t.made) if plan.busy else 0,
        "extra": stats.extra,
        "storm": stats.storm.as_dict() if plan.storm_at else None,
        "tables": len(ready),
    }
    report.put(("result", wid, result))
    await asyncio.gather(*(t.close() for t in tables), return_exceptions=True)


def worker_main(
    plan: Plan, wid: int, report: Any, go: Any, go_time: Any, started: Any = None
) -> None:
    """The entry point of a client process."""
    raise_nofile()
    asyncio.run(run_worker(plan, wid, report, go, go_time, started))
