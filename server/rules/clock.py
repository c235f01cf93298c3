"""The round clock (R4) and the server's tick, which writes what time makes due: time called
(R5), a turn over its thinking time (R4.3), a between-duel window over 3 minutes (R4.2).

The clock stores what happened (started, paused, resumed, extended); time left is computed
from an injected ``now``."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from . import match, time_over, twokey
from .args import NONE, Int, Note, spec
from .base import JUDGES, SYSTEM, Event, SheetLine, Tx, Words, command, handler, require, row
from .state import (
    BETWEEN,
    DUEL,
    DUEL_RESULT,
    MATCH_OVER,
    MATCH_RESULT,
    PREGAME,
    Flag,
    TableState,
    renew,
)
from .twokey import CLOCK, Offer, alone, said_yes

MAX_EXTENSION_MS = 60 * 60_000


@command("clock.start", frozenset({"seat", "judge", "organiser"}), NONE, {})
@row(
    "S, J",
    "`{}`",
    "casual: both seats, else duel 1 starts it (R4.1); a judge or organiser: at once",
)
def start(tx: Tx, args: Mapping[str, Any]) -> None:
    """Start the match clock: at once for a judge or organiser, when both seats agree at a
    casual table (R4.1)."""
    s = tx.state
    require(s.clock.status == "idle", "clock_started", "The clock has already been started.")
    require(s.phase not in (MATCH_RESULT, MATCH_OVER), "wrong_phase", "The match is over.")
    if tx.actor.role == "seat":
        require(
            not s.ruleset.staff_start,
            "staff_start",
            "The round's clock is started by the organiser: wait for the round to start.",
        )
        seat = tx.seat
        twokey.vote(CLOCK, s.clock.start, seat)
        tx.emit("clock.start_voted", seat=seat)
        if not twokey.agreed(tx.state.clock.start):
            return
    tx.emit("clock.started", duration_ms=s.clock.duration_ms or s.ruleset.match_ms)


@command("clock.pause", JUDGES, NONE, {})
@row("J", "`{}`", "pause the match clock")
def pause(tx: Tx, args: Mapping[str, Any]) -> None:
    """A judge stops the clock (a ruling, a deck check)."""
    require(tx.state.clock.status == "running", "clock_not_running", "The clock is not running.")
    tx.emit("clock.paused", remaining_ms=tx.state.clock.remaining(tx.now_ms))


@command("clock.resume", JUDGES, NONE, {})
@row("J", "`{}`", "resume the paused match clock")
def resume(tx: Tx, args: Mapping[str, Any]) -> None:
    """A judge restarts a paused clock."""
    require(tx.state.clock.status == "paused", "clock_not_paused", "The clock is not paused.")
    tx.emit("clock.resumed", remaining_ms=tx.state.clock.remaining(tx.now_ms))


def _one_unit(a: Mapping[str, Any]) -> tuple[str, str] | None:
    """An extension in minutes or in seconds, one of them."""
    if ("minutes" in a) == ("seconds" in a):
        return "minutes", "Give minutes or seconds."
    return None


@command(
    "clock.extend",
    JUDGES,
    spec(check=_one_unit, minutes=Int(), seconds=Int(), reason=Note()),
    {"minutes": 2},
)
@row(
    "J",
    '`{"minutes": 2}` (or `"seconds"`)',
    "add `minutes` or `seconds` to the match clock, with a `reason`",
)
def extend(tx: Tx, args: Mapping[str, Any]) -> None:
    """A judge gives extra time, in minutes or seconds."""
    s = tx.state
    minutes, seconds = args.get("minutes") or 0, args.get("seconds") or 0
    require(
        all(isinstance(n, int) and not isinstance(n, bool) and n >= 0 for n in (minutes, seconds)),
        "invalid",
        "Minutes and seconds are whole numbers.",
    )
    ms = int(minutes) * 60_000 + int(seconds) * 1000
    require(0 < ms <= MAX_EXTENSION_MS, "invalid", "An extension is 1 second to 60 minutes.")
    require(not s.time.called, "time_called", "Time has been called; settle the table instead.")
    require(s.phase != MATCH_OVER, "wrong_phase", "The match is over.")
    tx.emit("clock.extended", ms=ms, reason=str(args.get("reason") or ""))


@command(
    "round.end", frozenset({"organiser"}), spec(round=Int(1, 10_000, default=None)), {"round": 1}
)
@row(
    "organiser",
    '`{"round": 1}`',
    'the event\'s round ended: a `round_ended` flag the phones show (sent by "End round")',
)
def end_round(tx: Tx, args: Mapping[str, Any]) -> None:
    """The organiser ends the event's round: the table's phones are told (a flag)."""
    ended = any(f.kind == "round_ended" for f in tx.state.flags)
    require(not ended, "already_done", "This table has been told the round ended.")
    tx.emit("flag.raised", kind="round_ended", seat=None, detail=str(args.get("round") or ""))


@command("tick", SYSTEM, None, {})
@row("X", "`{}`", "the server's timer: writes what is due (time called, overtime flags)")
def tick(tx: Tx, args: Mapping[str, Any]) -> None:
    """Write every time-driven event that is due at ``now``; nothing if none is."""
    s = tx.state
    now = tx.now_ms
    if s.clock.status == "running" and not s.time.called and s.clock.remaining(now) <= 0:
        time_over.call_time(tx)
    s = tx.state
    if s.phase == DUEL and s.turn and not s.turn.flagged:
        if now - s.turn.started_ms >= s.ruleset.think_seconds * 1000:  # R4.3
            # R4.3 (reading): a neutral flag for judges; the app cannot see who is thinking,
            # so it is charged to nobody (not to the turn player, who may be waiting).
            tx.emit(
                "flag.raised",
                kind="turn_overtime",
                seat=None,
                detail=f"turn {s.turn.no}",
                turn=s.turn.no,
            )
    s = tx.state
    if window_counts(s):
        assert s.window is not None
        if now - s.window.started_ms >= s.ruleset.window_seconds * 1000:  # R4.2
            tx.emit(
                "flag.raised",
                kind="window_overtime",
                seat=None,
                detail=f"after duel {s.window.after_duel}",
                after_duel=s.window.after_duel,
            )


def window_counts(s: TableState) -> bool:
    """R4.2 (reading): the between-duel window runs from the duel's end, through the result's
    confirmation, side decking and the next checklist, unless that result ends the match."""
    if s.window is None or s.window.flagged:
        return False
    if s.phase == DUEL_RESULT:
        return not match.result_ends_match(s)
    return s.phase in (BETWEEN, PREGAME)


def next_due_ms(s: TableState) -> int | None:
    """The earliest server time at which ``tick`` would write something."""
    due: list[int] = []
    deadline = s.clock.deadline_ms
    if deadline is not None and not s.time.called:
        due.append(deadline)
    if s.phase == DUEL and s.turn and not s.turn.flagged:
        due.append(s.turn.started_ms + s.ruleset.think_seconds * 1000)
    if window_counts(s):
        assert s.window is not None
        due.append(s.window.started_ms + s.ruleset.window_seconds * 1000)
    return min(due) if due else None


# --- handlers ----------------------------------------------------------------------------


@handler("clock.start_voted", {"seat": "seat"})
def _voted(s: TableState, e: Event) -> TableState:
    seat = e.data["seat"]
    vote = s.clock.start
    if vote is None:
        vote = Offer(CLOCK.what, seat, e.at_ms, alone(seat))
    else:
        vote = renew(vote, yes=said_yes(vote, seat))
    return s.evolve(clock=replace(s.clock, start=vote))


@handler(
    "clock.started",
    {"duration_ms": "int"},
    words=Words(params={"time": ("minutes", "duration_ms")}),
    sheet=SheetLine("clock", "sheet.row.clock_started", {"time": ("minutes", "duration_ms")}),
)
def _started(s: TableState, e: Event) -> TableState:
    clock = replace(
        s.clock,
        status="running",
        duration_ms=e.data["duration_ms"],
        started_ms=e.at_ms,
        paused_ms=None,
        paused_total_ms=0,
    )
    return s.evolve(clock=clock)


@handler(
    "clock.paused",
    {"remaining_ms": "int"},
    words=Words(params={"left": ("minutes", "remaining_ms")}),
    sheet=SheetLine("clock", "sheet.row.clock_paused", {"left": ("minutes", "remaining_ms")}),
)
def _paused(s: TableState, e: Event) -> TableState:
    return s.evolve(clock=replace(s.clock, status="paused", paused_ms=e.at_ms))


@handler(
    "clock.resumed",
    {"remaining_ms": "int"},
    words=Words(params={"left": ("minutes", "remaining_ms")}),
    sheet=SheetLine("clock", "sheet.row.clock_resumed", {"left": ("minutes", "remaining_ms")}),
)
def _resumed(s: TableState, e: Event) -> TableState:
    c = s.clock
    total = c.paused_total_ms + (e.at_ms - (c.paused_ms or e.at_ms))
    return s.evolve(clock=replace(c, status="running", paused_ms=None, paused_total_ms=total))


@handler(
    "clock.extended",
    {"ms": "int", "reason": "str"},
    words=Words(params={"time": ("minutes", "ms")}, note="reason"),
    sheet=SheetLine(
        "clock", "sheet.row.clock_extended", {"time": ("minutes", "ms")}, note="reason"
    ),
)
def _extended(s: TableState, e: Event) -> TableState:
    return s.evolve(clock=replace(s.clock, duration_ms=s.clock.duration_ms + e.data["ms"]))


@handler(
    "time.called",
    {"during": "str"},
    words=Words(params={"where": ("key?", "during", "sheet.during.")}),
    sheet=SheetLine(step="time_called"),
)
def _called(s: TableState, e: Event) -> TableState:
    t = replace(s.time, called=True, called_ms=e.at_ms, during=e.data["during"])
    return s.evolve(time=t, clock=replace(s.clock, status="expired", paused_ms=e.at_ms))


def _flag_before_fields(s: TableState, e: Event) -> Mapping[str, Any]:
    """A flag from a log written before flags named their turn and duel: the turn an
    overtime flag was raised in, the duel a between-duel window followed, from the state it
    was raised on (the rules wrote them from that state)."""
    d = e.data
    if d.get("kind") == "turn_overtime" and "turn" not in d and s.turn is not None:
        return {**d, "turn": s.turn.no}
    if d.get("kind") == "window_overtime" and "after_duel" not in d and s.window is not None:
        return {**d, "after_duel": s.window.after_duel}
    return d


@handler(
    "flag.raised",
    {"kind": "str", "seat": "seat?", "detail": "str", "turn": "int", "after_duel": "int"},
    words=Words(
        code="event.flag.other",
        params={"turn": ("num", "turn"), "duel": ("num", "after_duel"), "round": "detail"},
        variants=(
            ("kind", "turn_overtime", "event.flag.turn_overtime"),
            ("kind", "window_overtime", "event.flag.window_overtime"),
            ("kind", "round_ended", "event.flag.round_ended"),
        ),
    ),
    sheet=SheetLine(step="flag"),
    upgrade=_flag_before_fields,
)
def _flag(s: TableState, e: Event) -> TableState:
    d = e.data
    flag = Flag(d["kind"], e.at_ms, s.duel_no, d.get("seat"), d.get("detail", ""))
    turn, window = s.turn, s.window
    if d["kind"] == "turn_overtime" and turn:
        turn = replace(turn, flagged=True)
    if d["kind"] == "window_overtime" and window:
        window = replace(window, flagged=True)
    return s.evolve(flags=s.flags + (flag,), turn=turn, window=window)
