"""Coin, die, counters and tokens (R1.5): fair results both phones see, drawn on the server
from an injected random source (``secrets`` in production)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from .args import MAX_INT, NAME_MAX, Int, Note, Text, spec
from .base import JUDGES, SEAT, Event, SheetLine, Tx, Words, command, handler, require, row, whole
from .state import DUEL, Roll, TableState, put

MAX_DICE = 3
RATE_WINDOW_MS = 1000
RATE_MAX = 3  # draws a seat may ask for within RATE_WINDOW_MS
MAX_COUNTER = 999
MAX_COUNTERS = 20
MAX_TOKENS = 10


def _count(args: Mapping[str, Any]) -> int:
    n = args.get("count", 1)
    require(
        isinstance(n, int) and not isinstance(n, bool) and 1 <= n <= MAX_DICE,
        "invalid",
        f"Toss or roll 1 to {MAX_DICE} at once.",
    )
    return int(n)


def _rate(tx: Tx, seat: str) -> None:
    recent = [r for r in tx.state.rolls if r.by == seat and tx.now_ms - r.at_ms < RATE_WINDOW_MS]
    require(
        len(recent) < RATE_MAX,
        "rate_limited",
        "Too many tosses at once; wait a moment.",
        retry_ms=RATE_WINDOW_MS,
    )


@command("coin.toss", SEAT, spec(count=Int(1, MAX_DICE)), {"count": 1})
@row("S", '`{"count": 1..3}`', "toss 1 to 3 coins (the server's random source)")
def toss(tx: Tx, args: Mapping[str, Any]) -> None:
    """Toss one or more coins."""
    seat = tx.seat
    n = _count(args)
    _rate(tx, seat)
    results = ["heads" if tx.randbelow(2) == 0 else "tails" for _ in range(n)]
    tx.emit("roll.made", roll=len(tx.state.rolls) + 1, kind="coin", results=results, by=seat)


@command("die.roll", SEAT, spec(count=Int(1, MAX_DICE)), {"count": 2})
@row("S", '`{"count": 1..3}`', "roll 1 to 3 six-sided dice (the server's random source)")
def roll(tx: Tx, args: Mapping[str, Any]) -> None:
    """Roll one or more six-sided dice."""
    seat = tx.seat
    n = _count(args)
    _rate(tx, seat)
    results = [1 + tx.randbelow(6) for _ in range(n)]
    tx.emit("roll.made", roll=len(tx.state.rolls) + 1, kind="die", results=results, by=seat)


@command(
    "roll.void",
    JUDGES,
    spec(roll=Int(1, MAX_INT, required=True), note=Note()),
    {"roll": 1, "note": ""},
)
@row("J", '`{"roll": 5, "note": ""}`', "void a coin or die result")
def void(tx: Tx, args: Mapping[str, Any]) -> None:
    """A judge voids a result (only a judge can: a result is final for players)."""
    n = args.get("roll")
    target = next((r for r in tx.state.rolls if r.roll == n), None)
    require(target is not None, "not_found", "No such coin or die result.")
    assert target is not None
    require(not target.void, "already_done", "That result is already void.")
    tx.emit("roll.voided", roll=n, note=str(args.get("note") or ""))


def _in_duel(tx: Tx) -> None:
    require(tx.state.phase == DUEL, "wrong_phase", "Counters are used during a duel.")


@command(
    "counter.change",
    SEAT,
    spec(name=Text(NAME_MAX, 1, required=True), delta=Int(required=True)),
    {"name": "Spell Counter", "delta": 1},
)
@row(
    "S (owner)",
    '`{"name": "Spell Counter: Breaker", "delta": 1}`',
    "change one of the seat's named counters by `delta` (0 to 999)",
)
def change_counter(tx: Tx, args: Mapping[str, Any]) -> None:
    """Add to or take from one of the seat's named counters."""
    seat = tx.seat
    _in_duel(tx)
    name = str(args.get("name") or "").strip()
    require(0 < len(name) <= 40, "invalid", "A counter needs a name (at most 40 characters).")
    delta = whole(args.get("delta"), "invalid", "Change a counter by a whole number.")
    require(delta != 0, "invalid", "Change a counter by a whole number.")
    mine = tx.state.counters[seat]
    require(name in mine or len(mine) < MAX_COUNTERS, "too_many", "Too many different counters.")
    value = mine.get(name, 0) + int(delta)
    require(0 <= value <= MAX_COUNTER, "invalid", f"A counter holds 0 to {MAX_COUNTER}.")
    tx.emit("counter.changed", seat=seat, name=name, value=value)


@command("counter.clear", SEAT, spec(name=Text(NAME_MAX, 1)), {"name": "Spell Counter"})
@row("S (owner)", '`{"name": "..."?}`', "one counter, or all of the seat's")
def clear_counter(tx: Tx, args: Mapping[str, Any]) -> None:
    """Remove one named counter, or all of the seat's."""
    seat = tx.seat
    _in_duel(tx)
    name = args.get("name")
    mine = tx.state.counters[seat]
    require(name is None or isinstance(name, str), "invalid", "A counter's name is text.")
    require(bool(mine) and (name is None or name in mine), "not_found", "No such counter.")
    tx.emit("counter.cleared", seat=seat, name=name)


@command("token.change", SEAT, spec(delta=Int(required=True)), {"delta": 1})
@row("S (owner)", '`{"delta": 1}`', "monster tokens on the seat's field")
def change_tokens(tx: Tx, args: Mapping[str, Any]) -> None:
    """Add or remove monster tokens on the seat's field."""
    seat = tx.seat
    _in_duel(tx)
    delta = whole(args.get("delta"), "invalid", "Change tokens by a whole number.")
    require(delta != 0, "invalid", "Change tokens by a whole number.")
    value = tx.state.tokens[seat] + int(delta)
    require(0 <= value <= MAX_TOKENS, "invalid", f"A field holds 0 to {MAX_TOKENS} tokens.")
    tx.emit("token.changed", seat=seat, value=value)


@handler(
    "roll.made",
    {"roll": "int", "kind": "str", "results": "list", "by": "seat"},
    words=Words(params={"kind": ("key", "kind", "sheet.roll."), "results": ("results", "results")}),
    sheet=SheetLine(step="rolls"),
)
def _made(s: TableState, e: Event) -> TableState:
    d = e.data
    r = Roll(d["roll"], d["kind"], tuple(d["results"]), d["by"], e.at_ms, s.duel_no)
    return s.evolve(rolls=s.rolls + (r,))


@handler(
    "roll.voided",
    {"roll": "int", "note": "str"},
    words=Words(note="note"),
    sheet=SheetLine(step="rolls"),
)
def _voided(s: TableState, e: Event) -> TableState:
    rolls = tuple(replace(r, void=True) if r.roll == e.data["roll"] else r for r in s.rolls)
    return s.evolve(rolls=rolls)


@handler(
    "counter.changed", {"seat": "seat", "name": "str", "value": "int"}, words=Words(note="name")
)
def _counter(s: TableState, e: Event) -> TableState:
    seat = e.data["seat"]
    mine = put(s.counters[seat], e.data["name"], e.data["value"])
    if e.data["value"] == 0:
        del mine[e.data["name"]]
    return s.evolve(counters=put(s.counters, seat, mine))


@handler("counter.cleared", {"seat": "seat", "name": "str?"}, words=Words(note="name"))
def _cleared(s: TableState, e: Event) -> TableState:
    seat, name = e.data["seat"], e.data["name"]
    mine = {} if name is None else {k: v for k, v in s.counters[seat].items() if k != name}
    return s.evolve(counters=put(s.counters, seat, mine))


@handler("token.changed", {"seat": "seat", "value": "int"})
def _tokens(s: TableState, e: Event) -> TableState:
    return s.evolve(tokens=put(s.tokens, e.data["seat"], e.data["value"]))
