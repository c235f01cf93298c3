"""Crash recovery: drive many tables while the server is SIGKILLed and restarted.

Each table has two seat clients. A driver plays the match up to the duel, then loops: the turn
player proposes an LP entry (its note carries the command id), the other seat confirms it, both
seats toss a coin or roll a die at the same time, the turn player ends the turn. Now and then a
seat sends an acknowledged command again on purpose and expects the original answer. A killer
SIGKILLs the server at random moments and starts it again at once.
"""

from __future__ import annotations

import asyncio
import random
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .client import Outcome, SeatClient
from .http import retrying
from .proc import Backend, ServerProcess
from .verify import TableCheck, verify_tables

CHECKS = ["handshake", "side_shown", "shuffled", "cut"]
DECK = {"main": 40, "extra": 15, "side": 15}


class Stalled(Exception):
    """A table could not go on (a command was refused or never answered)."""


@dataclass
class CrashReport:
    backend: str
    tables: int
    kills: int = 0
    acknowledged: int = 0
    lost: int = 0
    duplicated: int = 0
    mismatched: int = 0
    chains_broken: int = 0
    applied_unanswered: int = 0
    refused: dict[str, int] = field(default_factory=dict)
    stalled: int = 0
    replays_checked: int = 0
    duplicate_probes: int = 0
    duplicate_probe_failures: int = 0
    resent: int = 0
    stale_resends: int = 0
    silent_drops: int = 0
    reconnects: int = 0
    internal_errors: int = 0
    tracebacks: int = 0
    restart_ms: list[int] = field(default_factory=list)
    acks_at_kill: list[int] = field(default_factory=list)
    seconds: float = 0.0
    problems: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return (
            self.lost == 0
            and self.duplicated == 0
            and self.mismatched == 0
            and self.chains_broken == 0
            and self.applied_unanswered == 0
            and self.internal_errors == 0
            and self.tracebacks == 0
            and self.duplicate_probe_failures == 0
            and self.stalled == 0
        )


@dataclass
class Table:
    code: str
    a: SeatClient
    b: SeatClient
    rounds: int = 0
    last_seq: int = 0
    probes: int = 0
    probe_failures: int = 0

    def seat(self, name: str) -> SeatClient:
        return self.a if name == "A" else self.b


async def must(client: SeatClient, cmd: str, args: dict[str, Any], timeout: float) -> Outcome:
    try:
        out = await client.call(cmd, args, timeout=timeout)
    except TimeoutError:
        raise Stalled(
            f"{client.code} {client.seat} {cmd} unanswered after {timeout} s "
            f"(connected {client.connected}, seq {client.seq}, unanswered {client.unanswered})"
        ) from None
    if not out.ok:
        raise Stalled(f"{client.code} {client.seat} {cmd} refused: {out.code}")
    return out


async def to_duel(t: Table, timeout: float) -> None:
    """Registration and the pre-game steps, up to the first turn of duel 1."""
    await asyncio.gather(
        must(t.a, "deck.declare", DECK, timeout), must(t.b, "deck.declare", DECK, timeout)
    )
    await asyncio.gather(
        must(t.a, "deck.confirm", {"seat": "B"}, timeout),
        must(t.b, "deck.confirm", {"seat": "A"}, timeout),
    )
    await asyncio.gather(
        must(t.a, "pregame.check", {"items": CHECKS}, timeout),
        must(t.b, "pregame.check", {"items": CHECKS}, timeout),
    )
    await must(t.a, "rps.report", {"winner": "A"}, timeout)
    await must(t.b, "rps.confirm", {}, timeout)
    await must(t.a, "duel.choose", {"order": "first"}, timeout)
    drawn = await asyncio.gather(
        must(t.a, "duel.draw", {}, timeout), must(t.b, "duel.draw", {}, timeout)
    )
    t.last_seq = max(out.seq or 0 for out in drawn)


async def one_round(t: Table, rng: random.Random, timeout: float) -> None:
    """One turn: an LP entry proposed and confirmed, a coin and a die, the turn ended."""
    try:
        state = await t.a.wait_state(
            lambda s: s["phase"] == "duel" and s["turn"] and s["seq"] >= t.last_seq, timeout
        )
    except TimeoutError:
        raise Stalled(
            f"{t.code} A never reached seq {t.last_seq} in a duel "
            f"(holds seq {t.a.seq}, phase {(t.a.state or {}).get('phase')}, "
            f"connected {t.a.connected})"
        ) from None
    player = state["turn"]["player"]
    turn_no = state["turn"]["no"]
    mover, other = t.seat(player), t.seat("B" if player == "A" else "A")
    # Net LP change over two rounds is zero, so a duel never ends by LP.
    kind = "damage" if t.rounds % 2 == 0 else "gain"
    note_id = f"rel-{rng.getrandbits(64):016x}"
    out = await must(
        mover,
        "lp.propose",
        {"changes": [{"seat": other.seat, "kind": kind, "amount": 100}], "note": note_id},
        timeout,
    )
    try:
        seen = await other.wait_state(
            lambda s: any(p["note"] == note_id for p in s["pending"]) or s["seq"] > out.seq + 50,
            timeout,
        )
    except TimeoutError:
        raise Stalled(
            f"{t.code} {other.seat} never saw proposal at seq {out.seq} "
            f"(holds seq {other.seq}, connected {other.connected})"
        ) from None
    entry = next((p["entry"] for p in seen["pending"] if p["note"] == note_id), None)
    if entry is None:
        raise Stalled(f"{t.code}: proposal {note_id} not seen pending")
    await asyncio.gather(
        must(other, "lp.confirm", {"entry": entry}, timeout),
        must(t.a, "coin.toss", {"count": 1}, timeout),
        must(t.b, "die.roll", {"count": 1}, timeout),
    )
    if rng.random() < 0.15:
        # Idempotency without a crash: an acknowledged id sent again gets the original answer.
        t.probes += 1
        again = await mover.call(out.cmd, out.args, timeout=timeout, cid=out.id)
        if not (again.ok and again.seq == out.seq and again.duplicate):
            t.probe_failures += 1
        mover.outcomes[out.id] = out  # keep the first answer on record
    ended = await must(mover, "turn.end", {"turn": turn_no}, timeout)
    t.last_seq = ended.seq or 0
    t.rounds += 1


async def drive(t: Table, stop: asyncio.Event, min_rounds: int, seed: int, timeout: float) -> str:
    rng = random.Random(seed)
    try:
        await to_duel(t, timeout)
        while not (stop.is_set() and t.rounds >= min_rounds):
            await one_round(t, rng, timeout)
        return ""
    except (TimeoutError, Stalled) as exc:
        return f"{t.code}: {type(exc).__name__} {exc}"


async def killer(
    server: ServerProcess,
    kills: int,
    acks: list[int],
    most: int,
    clients: list[SeatClient],
    rng: random.Random,
    report: CrashReport,
    patience: float = 30.0,
) -> None:
    """Kill once every client is back (welcomed) and the clients have seen a random number
    (1..most) of new acknowledgements since, so every kill lands in the middle of traffic
    whatever the machine's speed and no table is starved by the others; `patience` bounds
    each wait."""
    for _ in range(kills):
        deadline = time.monotonic() + patience
        while not all(c.connected for c in clients) and time.monotonic() < deadline:
            await asyncio.sleep(0.01)
        target = acks[0] + rng.randint(1, most)
        deadline = time.monotonic() + patience
        while acks[0] < target and time.monotonic() < deadline:
            await asyncio.sleep(0.005)
        await asyncio.sleep(rng.uniform(0, 0.05))
        await asyncio.to_thread(server.kill)
        report.kills += 1
        report.acks_at_kill.append(acks[0])
        started = time.monotonic()
        await asyncio.to_thread(server.start)
        report.restart_ms.append(round((time.monotonic() - started) * 1000))


async def setup_tables(server: ServerProcess, n: int, acks: list[int]) -> list[Table]:
    tables = []
    for i in range(n):
        _s, body = await asyncio.to_thread(retrying, server.base, "POST", "/api/tables", {})
        code = body["code"]
        seats = {}
        for seat in ("A", "B"):
            status, joined = await asyncio.to_thread(
                retrying,
                server.base,
                "POST",
                f"/api/tables/{code}/join",
                {"seat": seat, "name": f"Player {seat}{i}"},
            )
            if status != 201:
                raise RuntimeError(f"join {code} {seat}: {status} {joined}")
            seats[seat] = SeatClient(server.ws_base, code, joined["token"], seat, acks=acks)
        tables.append(Table(code, seats["A"], seats["B"]))
    return tables


async def run_async(
    backend: Backend,
    workdir: Path,
    tables: int,
    kills: int,
    acks_between: int,
    min_rounds: int,
    seed: int,
    mode: str,
) -> CrashReport:
    report = CrashReport(backend.name, tables)
    rng = random.Random(seed)
    server = ServerProcess(
        backend,
        backend.data_dir / "server.log",
        mode=mode,
        extra_env={
            "HTTP_RATE_PER_MINUTE": "1000000",
            "HTTP_RATE_BURST": "100000",
            "CASUAL_TABLES_PER_ADDRESS_PER_HOUR": "0",
            "WS_RATE_PER_SECOND": "200",
            "WS_RATE_BURST": "400",
            # Frames and bytes too: the fuzzer and the resending phones are not attackers.
            "WS_FRAMES_PER_SECOND": "400",
            "WS_FRAMES_BURST": "800",
            "WS_BYTES_PER_SECOND": "100000000",
            "WS_BYTES_BURST": "100000000",
        },
    )
    began = time.monotonic()
    await asyncio.to_thread(server.start)
    try:
        acks = [0]
        tabs = await setup_tables(server, tables, acks)
        for t in tabs:
            t.a.start()
            t.b.start()
        stop = asyncio.Event()
        # Step timeout: long enough to outlast a restart, short enough to bound the run.
        drivers = [
            asyncio.create_task(drive(t, stop, min_rounds, rng.getrandbits(32), 90.0)) for t in tabs
        ]
        clients = [c for t in tabs for c in (t.a, t.b)]
        await killer(server, kills, acks, acks_between, clients, rng, report)
        stop.set()
        results = await asyncio.wait_for(asyncio.gather(*drivers), timeout=240)
        for problem in results:
            if problem:
                report.stalled += 1
                report.problems.append(problem)
        for t in tabs:
            await t.a.close()
            await t.b.close()
        checks: list[TableCheck] = await asyncio.to_thread(
            verify_tables, server.base, backend, {t.code: t for t in tabs}
        )
        for check in checks:
            report.acknowledged += check.acknowledged
            report.lost += check.lost
            report.duplicated += check.duplicated
            report.mismatched += int(not check.replay_equal)
            report.chains_broken += int(not check.chain_ok)
            report.applied_unanswered += check.applied_unanswered
            report.replays_checked += 1
            report.problems.extend(check.problems)
        for t in tabs:
            report.duplicate_probes += t.probes
            report.duplicate_probe_failures += t.probe_failures
            for c in (t.a, t.b):
                report.resent += c.resent
                report.stale_resends += c.stale_resends
                report.silent_drops += c.silent_drops
                report.reconnects += max(0, c.connects - 1)
                report.internal_errors += c.internal_errors
                for out in c.outcomes.values():
                    if not out.ok:
                        report.refused[out.code or "?"] = report.refused.get(out.code or "?", 0) + 1
    finally:
        await asyncio.to_thread(server.stop)
        report.seconds = round(time.monotonic() - began, 1)
        from .proc import count_tracebacks

        report.tracebacks = count_tracebacks(server.log_text())
    return report


def run(
    backend_name: str,
    workdir: Path,
    tables: int = 50,
    kills: int = 20,
    acks_between: int = 200,
    min_rounds: int = 2,
    seed: int = 1,
    mode: str = "gunicorn",
) -> CrashReport:
    """Run the crash scenario on one backend and return what it found."""
    backend = Backend.make(backend_name, workdir)
    try:
        return asyncio.run(
            run_async(backend, workdir, tables, kills, acks_between, min_rounds, seed, mode)
        )
    finally:
        backend.drop()
