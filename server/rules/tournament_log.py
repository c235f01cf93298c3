"""The tournament's log folded into its state: pure handlers, one per event type, each declared
with its data fields the way a table's events are (`base.EventDeclaration`, `base.FIELD_TYPES`).

An event's tournament log holds registrations, check-ins, deck lists, drops, pairings and the
organiser's settings. `apply(state, seq, event)` folds one entry into a `TournamentState`
(a new one: states are never changed in place), `replay` folds a whole log. The store keeps the
folded state as the log's snapshot and advances it by the new entries only
(`server/store/logs.py`); the players themselves (names, IDs, deck lists) are rows of their own,
and disqualifications are read from the tables, so neither is here.

A log written before actors were structured holds a bare name as its actor: `actor_of` gives the
structured actor such a name stands for, the one the store writes for it today.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from .base import FIELD_TYPES, Actor, Event, EventDeclaration

# Who registered a player's deck list (`player.decklist`'s `by`): each is also its actor's role.
DECK_REGISTRARS = ("player", "organiser", "table")
# The role of a staff member (organiser or judge) named by their account in the log.
STAFF = "staff"


@dataclass(frozen=True)
class Pairing:
    """One round's pairing as the log last gave it: its tables (table number, player A,
    player B), its bye and seed, and the seq of the entry that paired it."""

    number: int
    stage: str
    tables: tuple[tuple[int, int, int], ...]
    bye: int | None
    seed: int | None
    seq: int


@dataclass(frozen=True)
class TournamentState:
    """The fold of an event's tournament log up to `seq`. The mappings are never changed once
    a state holds them (each handler makes new ones)."""

    seq: int = 0
    dropped: Mapping[int, int] = field(default_factory=dict)  # player -> last round played
    rounds: Mapping[int, Pairing] = field(default_factory=dict)
    swiss_rounds: int | None = None  # the organiser's override
    cut_size: int | None = None
    public: bool = False
    repairs: int = 0
    check_in: bool = False  # only checked-in players are paired
    checked_in: Mapping[int, int] = field(default_factory=dict)  # player -> first round
    # Who last registered each player's deck list: (`by`, the actor's name).
    decklists: Mapping[int, tuple[str, str]] = field(default_factory=dict)


EMPTY = TournamentState()

Handler = Callable[[TournamentState, Event], TournamentState]

TOURNAMENT_EVENTS: dict[str, EventDeclaration] = {}
TOURNAMENT_HANDLERS: dict[str, Handler] = {}


def handler(event_type: str, data: Mapping[str, str]) -> Callable[[Handler], Handler]:
    """Declare tournament event `event_type` with its data fields (name -> a type of
    `FIELD_TYPES`, "?" allowing null) and the one function that folds it."""
    for kind in data.values():
        if kind.rstrip("?") not in FIELD_TYPES:
            raise ValueError(f"{event_type}: unknown field type {kind!r}")
    TOURNAMENT_EVENTS[event_type] = EventDeclaration(event_type, dict(data))

    def register(fn: Handler) -> Handler:
        TOURNAMENT_HANDLERS[event_type] = fn
        return fn

    return register


def actor_of(event_type: str, data: Mapping[str, Any], name: str) -> Actor:
    """The structured actor of an entry made by `name`: a deck list's registrar (the player,
    the organiser's account, the table's code) in the role it registered in, else a member
    of the event's staff by their account."""
    if event_type == "player.decklist" and data.get("by") in DECK_REGISTRARS:
        return Actor(role=str(data["by"]), name=name)
    return Actor(role=STAFF, name=name)


def apply(state: TournamentState, seq: int, event: Event) -> TournamentState:
    """`state` with entry `seq` folded in. A type without a handler changes only the seq."""
    moved = replace(state, seq=seq)
    fold = TOURNAMENT_HANDLERS.get(event.type)
    return fold(moved, event) if fold is not None else moved


def replay(entries: Iterable[tuple[int, Event]], state: TournamentState = EMPTY) -> TournamentState:
    """The fold of `(seq, event)` entries, in order, from `state`."""
    for seq, event in entries:
        state = apply(state, seq, event)
    return state


# -- handlers -----------------------------------------------------------------------------------


@handler("player.registered", {"player": "int", "name": "str", "player_id": "str", "round": "int"})
def _registered(s: TournamentState, e: Event) -> TournamentState:
    return s  # the player's row holds them


@handler("players.imported", {"first": "int", "last": "int", "round": "int"})
def _imported(s: TournamentState, e: Event) -> TournamentState:
    return s  # the players' rows hold them


@handler("player.decklist", {"player": "int", "by": "str"})
def _decklist(s: TournamentState, e: Event) -> TournamentState:
    by = str(e.data["by"])
    return replace(s, decklists={**s.decklists, int(e.data["player"]): (by, e.actor.name)})


@handler("player.dropped", {"player": "int", "after_round": "int"})
def _dropped(s: TournamentState, e: Event) -> TournamentState:
    return replace(s, dropped={**s.dropped, int(e.data["player"]): int(e.data["after_round"])})


@handler("player.checked_in", {"player": "int", "round": "int"})
def _checked_in(s: TournamentState, e: Event) -> TournamentState:
    player, first = int(e.data["player"]), int(e.data["round"])
    return replace(s, checked_in={**s.checked_in, player: first})


@handler("player.checked_out", {"player": "int"})
def _checked_out(s: TournamentState, e: Event) -> TournamentState:
    player = int(e.data["player"])
    return replace(s, checked_in={n: r for n, r in s.checked_in.items() if n != player})


@handler(
    "round.paired",
    {
        "round": "int",
        "stage": "str",
        "tables": "list",
        "seed": "int?",
        "bye": "int?",
        "replaces": "int?",
        "restarted": "bool",
        "size": "int?",
    },
)
def _paired(s: TournamentState, e: Event) -> TournamentState:
    """A round's pairing; a later one of the same round replaces it (a re-pairing)."""
    d = e.data
    number = int(d["round"])
    tables = tuple((int(t[0]), int(t[1]), int(t[2])) for t in d["tables"])
    pairing = Pairing(number, str(d["stage"]), tables, d.get("bye"), d.get("seed"), s.seq)
    repairs = s.repairs + 1 if number in s.rounds else s.repairs
    return replace(s, rounds={**s.rounds, number: pairing}, repairs=repairs)


@handler("settings", {"rounds": "int?", "cut": "int?", "public": "bool", "check_in": "bool"})
def _settings(s: TournamentState, e: Event) -> TournamentState:
    """The organiser's settings: only the fields given change."""
    d = e.data
    return replace(
        s,
        swiss_rounds=d.get("rounds", s.swiss_rounds),
        cut_size=d.get("cut", s.cut_size),
        public=bool(d.get("public", s.public)),
        check_in=bool(d.get("check_in", s.check_in)),
    )
