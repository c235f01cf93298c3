"""Judge calls, penalties (PENALTIES.md, R8) and the players' way to reach a judge (R7.1, R4.4)."""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import replace
from typing import Any

from . import match
from .args import MAX_INT, NAME_MAX, Int, Note, Seat, Text, spec
from .base import (
    JUDGES,
    SEAT,
    SEATS,
    Event,
    SheetLine,
    Tx,
    Words,
    command,
    handler,
    other,
    require,
    row,
)
from .duel_end import decide_match
from .state import MATCH_OVER, Call, Penalty, TableState

LEVELS = (
    "caution",
    "warning",
    "duel_loss",
    "match_loss",
    "disqualification",
    "disqualification_total",
)
# The levels that take the player out of the event, with or without the prize (the penalty
# guidelines): out of every later pairing.
DISQUALIFICATIONS = frozenset({"disqualification", "disqualification_total"})
# The levels that decide the match (the judges' page asks before recording one).
MATCH_LEVELS = frozenset({"match_loss"}) | DISQUALIFICATIONS
# The levels that end the duel or the match: refused once the match is over.
ENDING_LEVELS = frozenset({"duel_loss"}) | MATCH_LEVELS
INFRACTIONS = (
    "procedural_error",
    "tardiness",
    "deck_problem",
    "deck_list_problem",
    "marked_cards",
    "slow_play",
    "improper_result",
    "unsporting_conduct",
    "cheating",
    "other",
)


# Open judge calls one seat may have at once (`now.py` asks the same).
MAX_OPEN_CALLS = 3


def penalty_levels(s: TableState) -> list[str]:
    """The penalty levels a judge may record at state `s`, in order of weight: all of them,
    but none that ends a duel or the match once the match is over."""
    return [lv for lv in LEVELS if lv not in ENDING_LEVELS or s.phase != MATCH_OVER]


def penalty_choices(s: TableState) -> dict[str, list[str]]:
    """What the judges' page offers for `penalty.record` here (their view's
    `penalty_choices`): the levels (`penalty_levels`), the infractions, and the levels that
    decide the match (the page asks before recording those)."""
    return {
        "levels": penalty_levels(s),
        "infractions": list(INFRACTIONS),
        "decide_match": [lv for lv in LEVELS if lv in MATCH_LEVELS],
    }


@command("judge.call", SEAT, spec(reason=Note()), {"reason": "help"})
@row(
    "S",
    '`{"reason": ""}`',
    'the reason is for judges: the opponent, spectators and the public log get `""`',
)
def call(tx: Tx, args: Mapping[str, Any]) -> None:
    """A player calls a judge, with an optional reason (R7.1, R4.4)."""
    seat = tx.seat
    open_calls = [c for c in tx.state.calls if c.seat == seat and c.status != "closed"]
    require(len(open_calls) < MAX_OPEN_CALLS, "too_many", "A judge is already called; please wait.")
    tx.call_judge(seat, None, str(args.get("reason") or ""))


def _find(tx: Tx, args: Mapping[str, Any]) -> Call:
    found: Call | None = next((c for c in tx.state.calls if c.call == args.get("call")), None)
    require(found is not None, "not_found", "No such judge call.")
    assert found is not None
    return found


@command("judge.ack", JUDGES, spec(call=Int(1, MAX_INT, required=True), note=Note()), {"call": 1})
@row("J", '`{"call": 2, "note": ""?}`', "a judge takes a call (R7.1)")
def ack(tx: Tx, args: Mapping[str, Any]) -> None:
    """A judge takes the call: the players see 'a judge is coming'."""
    c = _find(tx, args)
    require(c.status == "open", "already_done", "That call is already taken.")
    tx.emit("judge.acknowledged", call=c.call, judge=tx.actor.name)


@command(
    "judge.close",
    JUDGES,
    spec(call=Int(1, MAX_INT, required=True), note=Note()),
    {"call": 1, "note": ""},
)
@row("J", '`{"call": 2, "note": ""?}`', "a judge closes a call, with a `note`")
def close(tx: Tx, args: Mapping[str, Any]) -> None:
    """A judge closes the call, with a note of the ruling."""
    c = _find(tx, args)
    require(c.status != "closed", "already_done", "That call is already closed.")
    tx.emit("judge.closed", call=c.call, judge=tx.actor.name, note=str(args.get("note") or ""))


@command(
    "penalty.record",
    JUDGES,
    spec(
        seat=Seat(required=True),
        level=Text(NAME_MAX, 1, required=True),
        infraction=Text(NAME_MAX, 1, required=True),
        note=Note(),
    ),
    {"seat": "A", "level": "warning", "infraction": "slow_play", "note": ""},
)
@row(
    "J",
    '`{"seat": "A", "level": "warning", "infraction": "slow_play", "note": ""}`',
    "record a penalty; a duel loss ends the duel, a match loss or disqualification the match",
)
def penalty(tx: Tx, args: Mapping[str, Any]) -> None:
    """Record a penalty; a duel loss ends the duel, a match loss or disqualification the match."""
    seat, level, infraction = args.get("seat"), args.get("level"), args.get("infraction")
    require(seat in SEATS, "unknown_seat", "The seat must be A or B.")
    require(level in LEVELS, "invalid", "Unknown penalty level.", allowed=list(LEVELS))
    require(infraction in INFRACTIONS, "invalid", "Unknown infraction.", allowed=list(INFRACTIONS))
    require(level in penalty_levels(tx.state), "wrong_phase", "The match is already over.")
    tx.emit(
        "penalty.recorded",
        seat=seat,
        level=level,
        infraction=infraction,
        note=str(args.get("note") or ""),
        judge=tx.actor.name,
    )
    if level == "duel_loss":
        match.forfeit_duel(tx, str(seat))
    elif level != "caution" and level != "warning":
        decide_match(tx, other(str(seat)), str(level), final=True, note=str(args.get("note") or ""))


def _entry_of(s: TableState, e: Event) -> int | None:
    """The LP entry a call is about: the one its event names. A log written before calls named
    their entry still links the call a rejection made to its dispute: that call was written in
    the same step as the rejection (same time, same seat, at a table with judges), before any
    other call for the dispute; never by the call's words."""
    if "entry" in e.data:
        entry: int | None = e.data["entry"]
        return entry
    if not s.ruleset.staff_start or not s.disputes:
        return None
    d = s.disputes[-1]
    if (
        d.status == "open"
        and d.at_ms == e.at_ms
        and d.rejected_by == e.data.get("seat")
        and not any(c.entry == d.entry for c in s.calls)
    ):
        return d.entry
    return None


# What the server wrote in a call's reason before calls had codes, from the call's own fields:
# a reason that is this sentence (or it, ": ", then the player's words) was the server's.
BEFORE_CODES: dict[str, Callable[[Mapping[str, Any]], str]] = {
    "lp_disputed": lambda d: f"LP entry #{d['entry']} disputed",
    "result_disputed": lambda d: f"Result of duel {d['duel']} disputed",
    "deck_problem": lambda d: "Deck count problem after the duel (R7.5)",
}
# The server's tamper alarm before codes: its values were only in its sentence (this one
# sentence of an old log is read; no call written since is).
_ALARM_BEFORE_CODES = re.compile(
    r"The stored log changed under the server at seq (?P<seq>\d+): "
    r"expected (?P<expected>\w+), found (?P<found>\w*)\.?"
)


def _called_before_codes(s: TableState, e: Event) -> Mapping[str, Any]:
    """A call from a log written before calls named their entry: the entry, as `_entry_of`
    links it. Before calls had codes: its code from what it is about (its entry, its duel, its
    deck), the server's sentence taken off its reason (the person's words stay). A player's
    call that copied the server's words names nothing, so it stays as typed."""
    d = e.data
    if "entry" not in d:
        d = {**d, "entry": _entry_of(s, e)}
    if "code" in d:
        return d
    reason = str(d.get("reason") or "")
    about = d
    if d.get("seat") is None and not any(about.get(k) for k in ("entry", "duel", "deck")):
        found = _ALARM_BEFORE_CODES.fullmatch(reason)
        if found is not None:
            values = {"seq": int(found["seq"]), "expected": found["expected"]}
            values["found"] = "" if found["found"] == "nothing" else found["found"]
            return {**d, "code": "log_changed", "reason": "", "params": values}
    if about.get("entry") is not None:
        code = "lp_disputed"
    elif d.get("duel") is not None:
        code = "result_disputed"
    elif d.get("deck") is not None:
        code = "deck_problem"
    else:
        return {**d, "code": None}
    said = BEFORE_CODES[code](about)
    if reason == said:
        return {**d, "code": code, "reason": ""}
    if reason.startswith(said + ": "):
        return {**d, "code": code, "reason": reason[len(said) + 2 :]}
    return {**d, "code": None}


# The rulings that closed a call, as a log from before codes wrote them in its note.
CLOSED_BEFORE_CODES = {
    "dispute apply": "dispute_apply",
    "dispute void": "dispute_void",
    "dispute correct": "dispute_correct",
    "deck cleared": "deck_cleared",
    "deck fixed": "deck_fixed",
    "result set": "result_set",
}


def _closed_before_codes(s: TableState, e: Event) -> Mapping[str, Any]:
    """A closing from a log written before codes: the ruling its note named, the note then
    empty (a judge's own note stays)."""
    d = e.data
    if d.get("code") is not None:
        return d
    note = str(d.get("note") or "")
    if note in CLOSED_BEFORE_CODES:
        return {**d, "code": CLOSED_BEFORE_CODES[note], "note": ""}
    return d


@handler(
    "judge.called",
    {
        "call": "int",
        "seat": "seat?",
        "code": "str?",
        "reason": "str",
        "entry": "int?",
        "duel": "int?",
        "deck": "seat",
        "params": "object",
    },
    staff_only=("reason",),
    words=Words(params={"seat": ("who", "seat")}, note=("call", "reason")),
    # A player's words to the judge are for staff (`staff_only`): the public sheet says only
    # that a judge was called, and about what.
    sheet=SheetLine(
        "rulings",
        "sheet.row.judge_called",
        {"seat": ("who", "seat"), "about": ("about", "code")},
        (("code", "*", "sheet.row.judge_called_about"),),
        note="reason",
    ),
    upgrade=_called_before_codes,
)
def _called(s: TableState, e: Event) -> TableState:
    c = Call(
        e.data["call"],
        e.data.get("seat"),
        e.data["reason"],
        e.at_ms,
        entry=_entry_of(s, e),
        duel=e.data.get("duel"),
        deck=e.data.get("deck"),
        code=e.data.get("code"),
        params=tuple(sorted((e.data.get("params") or {}).items())),
    )
    return s.evolve(calls=s.calls + (c,))


@handler(
    "judge.acknowledged",
    {"call": "int", "judge": "str"},
    words=Words(params={"judge": ("name", "judge")}),
    sheet=SheetLine("rulings", "sheet.row.call_taken", {"call": "call"}),
)
def _acked(s: TableState, e: Event) -> TableState:
    calls = tuple(
        replace(c, status="acknowledged", judge=e.data["judge"]) if c.call == e.data["call"] else c
        for c in s.calls
    )
    return s.evolve(calls=calls)


@handler(
    "judge.closed",
    {"call": "int", "judge": "str", "note": "str", "code": "str"},
    words=Words(
        params={"ruling": ("key", "code", "sheet.closed.")},
        variants=(("code", "*", "event.judge.closed_by"),),
        note="note",
    ),
    sheet=SheetLine(
        "rulings",
        "sheet.row.call_closed",
        {"call": "call", "ruling": ("key", "code", "sheet.closed.")},
        (("code", "*", "sheet.row.call_closed_by"),),
        note="note",
    ),
    upgrade=_closed_before_codes,
)
def _closed(s: TableState, e: Event) -> TableState:
    calls = tuple(
        replace(c, status="closed", judge=e.data["judge"], note=e.data["note"])
        if c.call == e.data["call"]
        else c
        for c in s.calls
    )
    return s.evolve(calls=calls)


@handler(
    "penalty.recorded",
    {"seat": "seat", "level": "str", "infraction": "str", "note": "str", "judge": "str"},
    words=Words(
        params={
            "level": ("key", "level", "staff.level."),
            "infraction": ("key", "infraction", "staff.inf."),
        },
        note="note",
    ),
    sheet=SheetLine(
        "penalties",
        "sheet.row.penalty",
        {
            "seat": "seat",
            "level": ("key", "level", "sheet.level."),
            "infraction": ("key", "infraction", "sheet.inf."),
        },
        note="note",
    ),
)
def _penalty(s: TableState, e: Event) -> TableState:
    d = e.data
    p = Penalty(d["seat"], d["level"], d["infraction"], d["note"], d["judge"], s.duel_no, e.at_ms)
    return s.evolve(penalties=s.penalties + (p,))
