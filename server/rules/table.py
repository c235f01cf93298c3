"""The table as a whole: creation, seats, and the two functions everything goes through:
``decide(state, cmd, args, actor, now, randbelow) -> events`` and ``apply(state, event)``."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from typing import Any

from . import (  # noqa: F401  (register commands and handlers)
    clock,
    dice,
    judge,
    ledger,
    match,
    overlay,
    registration,
    time_over,
)
from .base import (
    DECIDERS,
    HANDLERS,
    SEATS,
    SYSTEM,
    Actor,
    Event,
    RandBelow,
    RuleError,
    SheetLine,
    Tx,
    Words,
    command,
    handler,
    plain,
    require,
    row,
)
from .ruleset import RuleSet
from .state import EMPTY, SeatAsk, SeatInfo, TableState, per_seat, put

MAX_NAME = 40


def create_events(code: str, ruleset: RuleSet, now_ms: int) -> list[Event]:
    """The first event of a new table's log."""
    return [Event("table.created", {"code": code, "ruleset": ruleset.to_dict()}, now_ms)]


@dataclass(frozen=True)
class Decision:
    """What a command decided: its events, and the state after them (each event applied once,
    as it was emitted: the state a replay of the stored events gives)."""

    events: list[Event]
    state: TableState


def decide(
    state: TableState,
    cmd: str,
    args: Mapping[str, Any],
    actor: Actor,
    now_ms: int,
    randbelow: RandBelow,
) -> list[Event]:
    """The events a command produces, or a ``RuleError``; ``state`` is not changed."""
    return decision(state, cmd, args, actor, now_ms, randbelow).events


def decision(
    state: TableState,
    cmd: str,
    args: Mapping[str, Any],
    actor: Actor,
    now_ms: int,
    randbelow: RandBelow,
) -> Decision:
    """The events a command produces and the state after them, or a ``RuleError``.

    The sender's role and the arguments were checked once, at the edge (`admit`, the loaders
    of `server/api/arguments.py`); the server's own commands come from its code. Here only
    the state is asked: the table exists, and a seat acts once it has been taken (R1.1, as
    `now.may_send` says). An unknown command is still refused, so the rules stay total."""
    decider = DECIDERS.get(cmd)
    if decider is None:
        raise RuleError("unknown_command", f"Unknown command {cmd!r}.")
    require(state.created, "no_such_table", "This table does not exist.")
    if actor.role == "seat":
        taken = state.seats.get(str(actor.seat))
        require(taken is not None and taken.joined, "forbidden", "Take your seat first.")
    tx = Tx(state, actor, now_ms, randbelow)
    decider(tx, args)
    return Decision(tx.events, tx.state)


def facts(state: TableState, events: list[Event]) -> Decision:
    """Events the server states as they are (a seat request, a tamper alarm), applied once."""
    made = [Event(e.type, plain(e.data), e.at_ms, e.actor) for e in events]
    return Decision(made, replay(made, state))


def apply(state: TableState, event: Event) -> TableState:
    """Apply one event; never fails (an unknown type leaves the state as it was)."""
    fn = HANDLERS.get(event.type)
    return fn(state, event) if fn else state


def replay(events: Iterable[Event], state: TableState = EMPTY) -> TableState:
    """Fold a log into a state."""
    for event in events:
        state = apply(state, event)
    return state


def choose_seat(state: TableState, wanted: str | None = None) -> str:
    """The seat a join takes: `wanted` if it is free, else the first free one when
    none is named. Refuses a taken seat ("seat_taken") and a full table ("table_full")."""
    if wanted is None:
        free = [s for s in SEATS if not state.seats[s].joined]
        require(bool(free), "table_full", "Both seats are taken.")
        return free[0]
    require(wanted in SEATS, "unknown_seat", "The seat must be A or B.")
    require(not state.seats[wanted].joined, "seat_taken", "That seat is taken.")
    return wanted


@command("seat.join", SYSTEM, None, {"seat": "A", "name": "x"})
@row(
    "X",
    '`{"seat": "A", "name": "...", "player_id": "", "device"?: "<id>"}`',
    "a phone takes a free seat (`POST /api/tables/<code>/join` writes it)",
)
def join(tx: Tx, args: Mapping[str, Any]) -> None:
    """A phone takes a free seat (the HTTP join issues its token)."""
    seat = args.get("seat")
    require(seat in SEATS, "unknown_seat", "The seat must be A or B.")
    choose_seat(tx.state, str(seat))
    name = str(args.get("name") or "").strip()
    require(0 < len(name) <= MAX_NAME, "invalid", f"A name has 1 to {MAX_NAME} characters.")
    player_id = str(args.get("player_id") or "").strip()
    require(len(player_id) <= MAX_NAME, "invalid", "The player ID is too long.")
    device = str(args.get("device") or "")
    require(len(device) <= 40, "invalid", "The device id is too long.")
    data: dict[str, Any] = {"seat": seat, "name": name, "player_id": player_id}
    if device:  # one phone holds both seats (table mode): the sheet marks its entries
        data["device"] = device
    if args.get("request"):  # a waiting request granted: who granted it, and its ref
        data.update(by=str(args.get("by") or ""), request=str(args["request"]))
    tx.emit("seat.joined", **data)


@handler("table.created", {"code": "str", "ruleset": "object"}, sheet=SheetLine(step="table"))
def _created(s: TableState, e: Event) -> TableState:
    rules = RuleSet.from_dict(e.data["ruleset"])
    fresh = EMPTY.evolve(
        code=e.data["code"],
        ruleset=rules,
        created_ms=e.at_ms,
        lp=per_seat(rules.starting_lp),
    )
    return fresh.evolve(clock=replace(fresh.clock, duration_ms=rules.match_ms))


@handler(
    "seat.joined",
    {
        "seat": "seat",
        "name": "str",
        "player_id": "str",
        "device": "str",
        "by": "str",
        "request": "str",
    },
    staff_only=("device", "player_id"),
    words=Words(note="name"),
    sheet=SheetLine(step="seat_joined"),
)
def _joined(s: TableState, e: Event) -> TableState:
    info = SeatInfo(name=e.data["name"], player_id=e.data["player_id"], joined=True)
    return _answered(s.evolve(seats=put(s.seats, e.data["seat"], info)), e)


def _answered(s: TableState, e: Event) -> TableState:
    """The seat request an approval or a refusal answers stops waiting."""
    ref = e.data.get("request")
    if not ref:
        return s
    return s.evolve(seat_requests=tuple(r for r in s.seat_requests if r.request != ref))


@handler(
    "seat.requested",
    {
        "request": "str",
        "seat": "seat",
        "name": "str",
        "player_id": "str",
        "why": "str",
        "device": "str",
    },
    staff_only=("device", "player_id"),
    words=Words(note="name"),
)
def _requested(s: TableState, e: Event) -> TableState:
    d = e.data
    ask = SeatAsk(
        request=str(d["request"]),
        seat=str(d["seat"]),
        name=str(d.get("name") or ""),
        player_id=str(d.get("player_id") or ""),
        why=str(d.get("why") or ""),
        at_ms=e.at_ms,
    )
    return s.evolve(seat_requests=(*s.seat_requests, ask))


@handler(
    "seat.refused",
    {"seat": "seat", "request": "str", "by": "str"},
    words=Words(params={"by": ("who", "by")}, variants=(("by", "expired", "event.seat.expired"),)),
)
def _refused(s: TableState, e: Event) -> TableState:
    return _answered(s, e)


@command("seat.release", SYSTEM, None, {"seat": "A"})
@row("X", '`{"seat": "A", "by": "<judge>"}`', "a judge frees a seat (the staff route writes it)")
def release(tx: Tx, args: Mapping[str, Any]) -> None:
    """A judge frees a seat: its phone's token stops working (the HTTP route revokes it)."""
    seat = args.get("seat")
    require(seat in SEATS, "unknown_seat", "The seat must be A or B.")
    require(tx.state.seats[str(seat)].joined, "seat_free", "That seat is free.")
    tx.emit("seat.released", seat=seat, by=str(args.get("by") or ""))


@command("seat.move", SYSTEM, None, {"seat": "A", "name": "x"})
@row(
    "X",
    '`{"seat": "A", "name": "...", "player_id": "", "by": "..."}`',
    "a taken seat passes to a new phone (an approved seat request, a recovery code)",
)
def move(tx: Tx, args: Mapping[str, Any]) -> None:
    """A taken seat passes to a new phone (approved by a judge, or at a casual table by the
    other seat): the old token stops working."""
    seat = args.get("seat")
    require(seat in SEATS, "unknown_seat", "The seat must be A or B.")
    require(tx.state.seats[str(seat)].joined, "seat_free", "That seat is free: join it.")
    name = str(args.get("name") or "").strip()
    require(0 < len(name) <= MAX_NAME, "invalid", f"A name has 1 to {MAX_NAME} characters.")
    player_id = str(args.get("player_id") or "").strip()
    require(len(player_id) <= MAX_NAME, "invalid", "The player ID is too long.")
    by = str(args.get("by") or "")
    data: dict[str, Any] = {"seat": seat, "name": name, "player_id": player_id, "by": by}
    if args.get("request"):  # a waiting request granted: its ref
        data["request"] = str(args["request"])
    tx.emit("seat.moved", **data)


@command("seat.disown", SYSTEM, None, {"seat": "A"})
@row(
    "X",
    '`{"seat": "A"}`',
    "the seat's phone says it is not its player's any more (`POST .../seat/disown`)",
)
def disown(tx: Tx, args: Mapping[str, Any]) -> None:
    """The phone holding a seat says it is not its player's any more (a borrowed phone): at a
    casual table the other seat may then give the seat to the player's new phone."""
    seat = args.get("seat")
    require(seat in SEATS, "unknown_seat", "The seat must be A or B.")
    info = tx.state.seats[str(seat)]
    require(info.joined, "seat_free", "That seat is free.")
    require(not info.disowned, "already_disowned", "This phone has already said so.")
    tx.emit("seat.disowned", seat=seat)


@handler("seat.disowned", {"seat": "seat"})
def _disowned(s: TableState, e: Event) -> TableState:
    seat = e.data["seat"]
    return s.evolve(seats=put(s.seats, seat, replace(s.seats[seat], disowned=True)))


# Who answers a phone's request for a taken seat of a casual table (an event table's requests
# are its judges' to answer). The seat's own phone, always; the other seat only once the owner
# is gone: its phone said it is not the player's any more, or it has not been seen for
# `away_ms` (counted from the request at the earliest, so an online phone has time to be seen).
OWN, OTHER = "own", "other"


def seat_answer(
    s: TableState, request_seat: str, answering_seat: str, verb: str, unseen_ms: int, away_ms: int
) -> str:
    """Whether `answering_seat` may `verb` ("confirm" or "refuse") a waiting request for
    `request_seat`: OWN (its own phone) or OTHER (the other seat), else a RuleError.

    `unseen_ms`: how long the requested seat's phone has not been seen, at most the request's
    age (0 while it is connected). A refusal keeps things as they are, so either seat may give
    one; a confirmation by the other seat needs the owner gone."""
    require(request_seat in SEATS and answering_seat in SEATS, "unknown_seat", "No such seat.")
    if answering_seat == request_seat:
        return OWN
    if verb == "refuse" or s.seats[request_seat].disowned or not s.seats[request_seat].joined:
        return OTHER
    left = max(0, away_ms - unseen_ms)
    if left > 0:
        raise RuleError(
            "owner_online",
            f"Seat {request_seat}'s phone answers while it is around.",
            seat=request_seat,
            seconds=-(-left // 1000),
            online=unseen_ms == 0,
        )
    return OTHER


@handler(
    "seat.released",
    {"seat": "seat", "by": "str"},
    words=Words(params={"by": ("who", "by")}),
    sheet=SheetLine(step="seat_left"),
)
def _released(s: TableState, e: Event) -> TableState:
    return s.evolve(seats=put(s.seats, e.data["seat"], SeatInfo()))


@handler(
    "seat.moved",
    {
        "seat": "seat",
        "name": "str",
        "player_id": "str",
        "by": "str",
        "request": "str",
        "device": "str",
    },
    staff_only=("device", "player_id"),
    words=Words(params={"by": ("who", "by")}),
    sheet=SheetLine(step="seat_left"),
)
def _moved(s: TableState, e: Event) -> TableState:
    info = SeatInfo(name=e.data["name"], player_id=e.data["player_id"], joined=True)
    return _answered(s.evolve(seats=put(s.seats, e.data["seat"], info)), e)
