"""Shared pieces of the pure rules core: actors, events, errors and the command registry.

Nothing in ``server.rules`` imports Flask, peewee, marshmallow, json, time or random: the
caller passes in the current server time and a random source, so every rule can be tested
with a fixed clock and a seeded die.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from .args import Args

SEATS: tuple[str, str] = ("A", "B")
JUDGES: frozenset[str] = frozenset({"judge", "organiser"})
SEAT: frozenset[str] = frozenset({"seat"})
SYSTEM: frozenset[str] = frozenset({"system"})

RandBelow = Callable[[int], int]


def other(seat: str) -> str:
    """The opponent of ``seat``."""
    return "B" if seat == "A" else "A"


class RuleError(Exception):
    """A command the rules refuse; ``code`` is stable and sent to the client."""

    def __init__(self, code: str, message: str, **details: Any) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.details = details

    def to_dict(self) -> dict[str, Any]:
        """The one error shape used on every wire."""
        return {"code": self.code, "message": self.message, "details": dict(self.details)}


@dataclass(frozen=True)
class Actor:
    """Who sent a command: a seat's phone, a judge, an organiser, the server itself."""

    role: str
    seat: str | None = None
    name: str = ""

    def to_dict(self) -> dict[str, Any]:
        """A JSON-able form for the event log."""
        return {"role": self.role, "seat": self.seat, "name": self.name}

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> Actor:
        """Inverse of ``to_dict``."""
        return cls(role=str(d.get("role", "")), seat=d.get("seat"), name=str(d.get("name", "")))

    @property
    def label(self) -> str:
        """How the score sheet names this actor: a seat, or ``judge:<name>``."""
        if self.role == "seat" and self.seat:
            return self.seat
        return f"{self.role}:{self.name}" if self.name else self.role


SYSTEM_ACTOR = Actor("system")


@dataclass(frozen=True)
class Event:
    """One fact in a table's log. ``data`` holds only JSON-able values."""

    type: str
    data: Mapping[str, Any]
    at_ms: int
    actor: Actor = field(default=SYSTEM_ACTOR)

    def to_dict(self) -> dict[str, Any]:
        """A JSON-able form for the store and the wire."""
        return {
            "type": self.type,
            "data": dict(self.data),
            "at_ms": self.at_ms,
            "actor": self.actor.to_dict(),
        }

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> Event:
        """Inverse of ``to_dict``."""
        return cls(
            type=str(d["type"]),
            data=dict(d.get("data") or {}),
            at_ms=int(d.get("at_ms") or 0),
            actor=Actor.from_dict(d.get("actor") or {}),
        )


# --- registries --------------------------------------------------------------------------

Decider = Callable[["Tx", Mapping[str, Any]], None]
Handler = Callable[[Any, Event], Any]


@dataclass(frozen=True)
class Declaration:
    """Everything about one command, written once beside its decider: who may send it
    (`roles`), its arguments (`args`, a field spec the edge compiles into the one validator;
    None for a command only the server sends), a `sample` of valid arguments (the permission
    tests and the fuzzer send it), its row of the protocol's command table (`who`, `form`,
    `what`: docs/protocol.md is checked against it), and the edge's `pre`-steps, by name
    (`server/api/presteps.py`), run before the rules decide."""

    name: str
    roles: frozenset[str]
    decide: Decider
    args: Args | None = None
    sample: Mapping[str, Any] = field(default_factory=dict)
    who: str = ""
    form: str = ""
    what: str = ""
    pre: tuple[str, ...] = ()

    def admits(self, actor: Actor) -> bool:
        """Whether `actor`'s role may send this command (checked once, at the edge)."""
        return actor.role in self.roles

    @property
    def from_clients(self) -> bool:
        """Whether a client may send it (a role other than the server's own)."""
        return bool(self.roles - SYSTEM) and self.args is not None


DECLARATIONS: dict[str, Declaration] = {}
# Views of the declarations, by command: the roles, and the decide functions.
COMMANDS: dict[str, frozenset[str]] = {}
DECIDERS: dict[str, Decider] = {}
HANDLERS: dict[str, Handler] = {}


def command(
    name: str,
    roles: frozenset[str],
    args: Args | None = None,
    sample: Mapping[str, Any] | None = None,
    *,
    pre: tuple[str, ...] = (),
) -> Callable[[Decider], Decider]:
    """Declare command ``name`` (see `Declaration`) with its decide function; its protocol
    row comes from the `row` decorator just below."""

    def register(fn: Decider) -> Decider:
        who, form, what = getattr(fn, "protocol_row", ("", "", ""))
        declared = Declaration(name, roles, fn, args, dict(sample or {}), who, form, what, pre)
        DECLARATIONS[name] = declared
        COMMANDS[name] = roles
        DECIDERS[name] = fn
        return fn

    return register


def row(who: str, form: str, what: str) -> Callable[[Decider], Decider]:
    """A command's row of docs/protocol.md's command table: who sends it, its arguments as
    written there, what it does. Placed under `@command`, which reads it."""

    def mark(fn: Decider) -> Decider:
        fn.protocol_row = (who, form, what)  # type: ignore[attr-defined]
        return fn

    return mark


def admit(cmd: str, actor: Actor) -> Declaration:
    """The declaration of `cmd` if `actor` may send it, else the refusal the edge sends."""
    declared = DECLARATIONS.get(cmd)
    if declared is None:
        raise RuleError("unknown_command", f"Unknown command {cmd!r}.")
    if not declared.admits(actor):
        raise RuleError("forbidden", "You may not do that at this table.", command=cmd)
    return declared


# The types an event's data field may be declared with (`EventDeclaration.data`); a trailing
# "?" also allows null. `seat` is "A" or "B". The socket's schema is generated from them.
FIELD_TYPES = frozenset({"int", "str", "bool", "seat", "list", "object"})


# How a declaration says a value in words (`Words.params`, `SheetLine.params`): a data field's
# name (a dotted path reads into an object: "lp.A"), or [format, field] / [format, field,
# argument] with a format of `FORMATS`. Each reader has the same formats: the sheet
# (`server/projections/sheet.py: FORMATS`) and the phones (`web/js/words.js: FORMATS`).
FORMATS = frozenset(
    {
        "who",  # a seat, or a staff label (judge:<name>) in words; the actor's when empty
        "name",  # the value as written; the actor in words when empty
        "key",  # the catalogue's text of argument + value ("rps." + "rock"); blank when none
        "key?",  # the same, or the value as written when the catalogue has no such key
        "count",  # how many items a list or an object holds
        "changes",  # a list of LP changes: "B -1000, A +500"
        "minutes",  # milliseconds as m:ss
        "results",  # a roll's results: a coin's faces in words, a die's numbers
        "stage",  # a time-over stage (`time.stage.<code>`) with its extra turn and its count
        "side",  # a side exchange's counts in and out, per part
        "call",  # a judge call's reason beside what the call is about (`call.<code>`)
        "num",  # a number, or "?" when a log written before the field lacks it
        "about",  # what a judge call is about: `call.<code>` with its entry, duel, deck, params
    }
)

Param = str | tuple[str, ...]


@dataclass(frozen=True)
class Words:
    """How the judges' log words an event: the catalogue `code` (default `event.<type>`), a
    code chosen instead by the first of `variants` whose field has the value (`(field, value,
    code)`; the value "*" matches any non-empty one, None an empty one), its parameters (every
    data field as written, then `params`: placeholder -> a field or a format, see `FORMATS`)
    and the field holding a person's own words, shown apart as written (`note`)."""

    code: str = ""
    params: Mapping[str, Param] = field(default_factory=dict)
    variants: tuple[tuple[str, Any, str], ...] = ()
    note: Param = ""

    def to_dict(self, event_type: str) -> dict[str, Any]:
        """The JSON the phones read (`/api/protocol/events.json`)."""
        return {
            "code": self.code or f"event.{event_type}",
            "params": {k: list(v) if isinstance(v, tuple) else v for k, v in self.params.items()},
            "variants": [list(v) for v in self.variants],
            "note": list(self.note) if isinstance(self.note, tuple) else self.note,
        }


# The score sheet's sections a line goes to (`SheetLine.section`).
SHEET_SECTIONS = frozenset({"rulings", "penalties", "clock", "decks_log"})


@dataclass(frozen=True)
class SheetLine:
    """What an event writes on the score sheet. A dated line of one of a match's
    `SHEET_SECTIONS` with a catalogue `code` (a `sheet.row.*` key, or one chosen by `variants`
    as in `Words`), its `params` (as in `Words`: only those named) and the field of a person's
    words (`note`; blank on the public sheet when the event gives that field to its staff only),
    written by the sheet from this alone; or, with `step` instead of a code,
    the part of the sheet the event fills that is more than a line (`table`, `seat_joined`,
    `seat_left`, `match`, `deck_counts`, `duel`, `ledger`, `result`, `rolls`,
    `time_called`, `time_stage`, `flag`): the sheet builder's own step for the
    event (`server/projections/sheet.py: STEPS`) fills it from the event's fields and the
    replayed state."""

    section: str = ""
    code: str = ""
    params: Mapping[str, Param] = field(default_factory=dict)
    variants: tuple[tuple[str, Any, str], ...] = ()
    note: Param = ""
    step: str = ""
    # Written only when this field has this value (matched as a variant is); None: always.
    only: tuple[str, Any] | None = None
    # The line belongs to the duel just played (an after-duel check), not the next one.
    last_duel: bool = False


Upgrade = Callable[[Any, "Event"], Mapping[str, Any]]


@dataclass(frozen=True)
class EventDeclaration:
    """One event type, declared once beside its handler: its data fields (name -> type from
    `FIELD_TYPES`; a field may be absent, as in a log written before it, but no undeclared
    field is written), the `secret` fields (only their own seat reads them before they are
    disclosed; salted in the log), the `staff_only` fields (the event's staff, and for some
    their own seat, read them; others read them blank or not at all), its `words` in the judges'
    log, its line on the score sheet (`sheet`, None: it writes none) and `upgrade`: given the
    state before it and the event, its data with the fields a log written before them lacks
    filled in from that state (never read from words), so every reader reads the fields."""

    type: str
    data: Mapping[str, str]
    secret: tuple[str, ...] = ()
    staff_only: tuple[str, ...] = ()
    words: Words = field(default_factory=Words)
    sheet: SheetLine | None = None
    upgrade: Upgrade | None = None


EVENTS: dict[str, EventDeclaration] = {}


def _check_param(event_type: str, data: Mapping[str, str], param: Param) -> None:
    if not param:
        return
    name = param if isinstance(param, str) else param[1]
    if isinstance(param, tuple) and param[0] not in FORMATS:
        raise ValueError(f"{event_type}: unknown format {param[0]!r}")
    if name and name.split(".")[0] not in data:
        raise ValueError(f"{event_type}: words read the undeclared field {name!r}")


def handler(
    event_type: str,
    data: Mapping[str, str],
    *,
    secret: tuple[str, ...] = (),
    staff_only: tuple[str, ...] = (),
    words: Words | None = None,
    sheet: SheetLine | None = None,
    upgrade: Upgrade | None = None,
) -> Callable[[Handler], Handler]:
    """Declare event ``event_type`` (see `EventDeclaration`) with the one function that
    applies it."""
    for kind in data.values():
        if kind.rstrip("?") not in FIELD_TYPES:
            raise ValueError(f"{event_type}: unknown field type {kind!r}")
    words = words or Words()
    for said in (words, sheet):
        if said is None:
            continue
        for param in (*said.params.values(), said.note):
            _check_param(event_type, data, param)
        for name, _value, _code in said.variants:
            _check_param(event_type, data, name)
    if sheet is not None and sheet.only is not None:
        _check_param(event_type, data, sheet.only[0])
    if sheet is not None and sheet.step == "" and sheet.section not in SHEET_SECTIONS:
        raise ValueError(f"{event_type}: unknown sheet section {sheet.section!r}")
    EVENTS[event_type] = EventDeclaration(
        event_type, dict(data), secret, staff_only, words, sheet, upgrade
    )

    def register(fn: Handler) -> Handler:
        HANDLERS[event_type] = fn
        return fn

    return register


def event_words() -> dict[str, dict[str, Any]]:
    """Every event's `Words` as the phones read them (the judges' table page words its log
    from these, `web/js/words.js`)."""
    return {t: d.words.to_dict(t) for t, d in sorted(EVENTS.items())}


def upgraded(state: Any, event: Event) -> Event:
    """`event` with the fields its declaration fills for a log written before them (from
    `state`, the state before it); the event itself when none is missing."""
    declared = EVENTS.get(event.type)
    if declared is None or declared.upgrade is None:
        return event
    data = declared.upgrade(state, event)
    return event if data is event.data else Event(event.type, data, event.at_ms, event.actor)


def plain(value: Any) -> Any:
    """`value` as JSON gives it back: mappings with text keys (in their order), sequences as
    lists. An event's data is made plain when it is emitted, so the state its handler builds
    is the one a replay of the stored log builds: the store keeps that state, never applying
    the event again."""
    kind = type(value)
    if kind in _SCALARS:
        return value
    if kind is dict or isinstance(value, Mapping):
        return {
            k if type(k) is str else str(k): v if type(v) in _SCALARS else plain(v)
            for k, v in value.items()
        }
    if kind is list or kind is tuple:
        return [v if type(v) in _SCALARS else plain(v) for v in value]
    return value


_SCALARS = frozenset({str, int, float, bool, type(None)})


class Tx:
    """A decision in progress: each emitted event is applied at once, so later checks in the
    same command see its effect (an LP entry that reaches 0 then ends the duel). `state` is
    then the state after every event: the one the store keeps."""

    def __init__(self, state: Any, actor: Actor, now_ms: int, randbelow: RandBelow) -> None:
        self.state = state
        self.actor = actor
        self.now_ms = now_ms
        self.randbelow = randbelow
        self.events: list[Event] = []

    def emit(self, event_type: str, **data: Any) -> None:
        """Record an event and apply it to the working state."""
        event = Event(event_type, plain(data), self.now_ms, self.actor)
        self.state = HANDLERS[event_type](self.state, event)
        self.events.append(event)

    def call_judge(
        self,
        seat: str,
        code: str | None,
        detail: str = "",
        entry: int | None = None,
        duel: int | None = None,
        deck: str | None = None,
    ) -> None:
        """Record a judge call (R7.1), numbered in order. `code` says what a call the rules
        make is about (`lp_disputed`, `result_disputed`, `deck_problem`; None for a player's own
        call), each screen words it; `detail` is what the player wrote, kept as written (the
        call's `reason`). `entry` is the LP entry whose rejection makes the call (what links it
        to its dispute), `duel` the duel whose disputed result makes it and `deck` the seat whose
        failed deck check makes it: what the call is about is in these fields, never read from
        the reason. The ruling that answers it (the dispute's settlement, the duel's result, the
        deck's clearing) closes it by them."""
        data = judge_called(self.state, seat, detail, entry, duel, code=code)
        if deck is not None:
            data["deck"] = deck
        self.emit("judge.called", **data)

    def close_calls(self, code: str, answers: Callable[[Any], bool], note: str = "") -> None:
        """A judge's ruling closes the open calls it answers (R7.1), chosen by what each call
        is about (its `entry`, `duel` or `deck`), never by its words. `code` says which ruling
        (`dispute_void`, `deck_cleared`, `result_set`, ...: each screen words it), `note` is the
        judge's own words, if any. A log written before codes has the ruling in English in the
        note ("dispute void")."""
        for c in self.state.calls:
            if c.status != "closed" and answers(c):
                self.emit("judge.closed", call=c.call, judge=self.actor.name, note=note, code=code)

    @property
    def seat(self) -> str:
        """The acting seat; only for commands restricted to seats."""
        if self.actor.seat not in SEATS:
            raise RuleError("forbidden", "Only a player at this table can do that.")
        return str(self.actor.seat)


def judge_called(
    state: Any,  # a TableState (base sits below state.py, as Tx does)
    seat: str | None,
    reason: str,
    entry: int | None = None,
    duel: int | None = None,
    code: str | None = None,
    params: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """The data of the `judge.called` event of a table's next call (R7.1). `entry` and `duel`
    are always named, null when none: a log written before they were has neither (judge.py).
    `code` too (null for a player's own call): what a call the server made is about, worded by
    each screen with `params`; `reason` is then only a person's words. A log written before
    codes has no `code`, and its server-made calls' reasons are English sentences."""
    data: dict[str, Any] = {
        "call": len(state.calls) + 1,
        "seat": seat,
        "code": code,
        "reason": reason,
        "entry": entry,
        "duel": duel,
    }
    if params:
        data["params"] = params
    return data


def require(condition: bool, code: str, message: str, **details: Any) -> None:
    """Refuse the command unless ``condition`` holds."""
    if not condition:
        raise RuleError(code, message, **details)


def whole(value: Any, code: str, message: str, **details: Any) -> int:
    """``value`` if it is a whole number (not a bool, not a float), else a refusal."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise RuleError(code, message, **details)
    return value
