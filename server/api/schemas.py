"""Every inbound message, HTTP body and command's arguments, as marshmallow schemas.

Input is loaded here and nowhere else: numbers are whole and bounded, text is trimmed, stripped
of control characters and capped, and unknown fields are refused (marshmallow's default).
"""

from __future__ import annotations

import datetime
import re
from collections.abc import Callable
from typing import Any

from marshmallow import Schema, ValidationError, fields, validate

from server.core.names import clean, invisible
from server.rules import RULESETS
from server.rules import swiss as core
from server.rules.registration import MAX_TEXT
from server.rules.ruleset import MATCH_MINUTES
from server.service.lists import MAX_LIST_NAME
from server.service.tournament import MAX_HALL_MESSAGE

MAX_INT = 1_000_000
NAME_MAX = 40
NOTE_MAX = 200
ID_MAX = 100
SEATS = ("A", "B")

# C0/C1 controls, and the bidirectional overrides that could disguise a name or a note.
_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f\u200e\u200f\u202a-\u202e\u2066-\u2069]")


def clean_text(value: str) -> str:
    """NFKC, without control, format and blank filler characters, blanks collapsed, trimmed
    (`server.core.names.clean`): a name of only invisible characters is empty, and refused."""
    return clean(_CONTROL.sub("", value))


class Text(fields.String):
    """A string with control characters removed, trimmed, and at most `max_length` long."""

    def __init__(self, max_length: int = NOTE_MAX, min_length: int = 0, **kwargs: Any) -> None:
        validators = [validate.Length(min=min_length, max=max_length)]
        super().__init__(validate=validators, **kwargs)

    def _deserialize(self, value: Any, attr: str | None, data: Any, **kwargs: Any) -> str:
        return clean_text(super()._deserialize(value, attr, data, **kwargs))


class Int(fields.Integer):
    """A whole number (never a bool, a float or a string) within [low, high]."""

    def __init__(self, low: int = -MAX_INT, high: int = MAX_INT, **kwargs: Any) -> None:
        super().__init__(strict=True, validate=validate.Range(min=low, max=high), **kwargs)

    def _deserialize(self, value: Any, attr: str | None, data: Any, **kwargs: Any) -> int:
        if isinstance(value, bool):
            raise self.make_error("invalid")
        return super()._deserialize(value, attr, data, **kwargs)


class Minutes(fields.Float):
    """Minutes of a match clock: a JSON number within [low, high], a fraction allowed (the rule
    sets accept 0.05 minutes, for short side events and tests); never a bool or a string."""

    def __init__(self, low: float, high: float, **kwargs: Any) -> None:
        super().__init__(allow_nan=False, validate=validate.Range(min=low, max=high), **kwargs)

    def _deserialize(self, value: Any, attr: str | None, data: Any, **kwargs: Any) -> float | int:
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise self.make_error("invalid")
        number = super()._deserialize(value, attr, data, **kwargs)
        return int(number) if float(number).is_integer() else number


class Bool(fields.Boolean):
    """Only JSON true or false."""

    def _deserialize(self, value: Any, attr: str | None, data: Any, **kwargs: Any) -> bool:
        if not isinstance(value, bool):
            raise self.make_error("invalid")
        return value


def Seat(**kwargs: Any) -> fields.String:  # noqa: N802 - reads like the other field classes
    """ "A" or "B"."""
    return fields.String(validate=validate.OneOf(SEATS), **kwargs)


def Choice(*options: str, **kwargs: Any) -> fields.String:  # noqa: N802
    """One of the given strings."""
    return fields.String(validate=validate.OneOf(options), **kwargs)


def Note() -> Text:  # noqa: N802
    return Text(NOTE_MAX)


# -- websocket messages --------------------------------------------------------------------


class ErrorSchema(Schema):
    """The one error shape of every answer that is not a success."""

    code = fields.String(required=True)
    message = fields.String(required=True)
    details = fields.Dict()


class HelloSchema(Schema):
    type = fields.Constant("hello")
    token = Text(ID_MAX, allow_none=True)
    since = Int(0, 2**53, allow_none=True)
    # The protocol version the client speaks: 2 takes updates as deltas; absent means 1.
    v = Int(1, 1000, allow_none=True)


class ResyncSchema(Schema):
    type = fields.Constant("resync")


class CommandSchema(Schema):
    type = fields.Constant("command")
    id = Text(ID_MAX, min_length=1, required=True)
    cmd = Text(NAME_MAX, min_length=1, required=True)
    # Keys of a JSON object are strings already; each command's own schema loads the values.
    args = fields.Dict(load_default=dict)


PING_T_MAX = 2**53  # a ping's "t": what the phone's clock reads, echoed in the pong


class PingSchema(Schema):
    type = fields.Constant("ping")
    t = Int(-PING_T_MAX, PING_T_MAX, required=True)


MESSAGE_SCHEMAS: dict[str, Schema] = {
    "hello": HelloSchema(),
    "command": CommandSchema(),
    "ping": PingSchema(),
    "resync": ResyncSchema(),
}


_LINE_BREAKS = frozenset("\n\r\t")


class ListText(fields.String):
    """A pasted text of lines (a deck list, a ban list, a pairings CSV): lines and tabs kept,
    every other control, format and blank filler character (`server.core.names.invisible`: NUL,
    the direction overrides and isolates, zero-width characters) dropped, capped."""

    def __init__(self, max_length: int, min_length: int = 0, **kwargs: Any) -> None:
        super().__init__(validate=validate.Length(min=min_length, max=max_length), **kwargs)

    def _deserialize(self, value: Any, attr: str | None, data: Any, **kwargs: Any) -> str:
        text = super()._deserialize(value, attr, data, **kwargs)
        return "".join(ch for ch in text if ch in _LINE_BREAKS or not invisible(ch))


# -- HTTP bodies ---------------------------------------------------------------------------


LEDGER_PAGE_MAX = 50  # rows of the ledger one range request returns at most
_DIGITS = re.compile("[0-9]{1,9}")


class QueryInt(fields.Integer):
    """A whole number in a query string: plain ASCII digits only (no sign, blank or exponent),
    within [low, high]."""

    def __init__(self, low: int = 0, high: int = MAX_INT, **kwargs: Any) -> None:
        super().__init__(validate=validate.Range(min=low, max=high), **kwargs)

    def _deserialize(self, value: Any, attr: str | None, data: Any, **kwargs: Any) -> int:
        if not isinstance(value, str) or not _DIGITS.fullmatch(value):
            raise self.make_error("invalid")
        return super()._deserialize(value, attr, data, **kwargs)


class FindPlayerSchema(Schema):
    """The query of `GET /api/e/<slug>/find`: a name (or part of it) or a player ID."""

    q = fields.String(required=True, validate=validate.Length(min=1, max=64))


class LedgerRangeSchema(Schema):
    """The query of `GET /api/tables/<code>/ledger`: the rows from position `from` (0 is the
    first row; absent: the last page), at most `limit` of them (capped at LEDGER_PAGE_MAX)."""

    start = QueryInt(0, MAX_INT, data_key="from")
    limit = QueryInt(1, MAX_INT, load_default=LEDGER_PAGE_MAX)


class CreateTableSchema(Schema):
    ruleset = Text(NAME_MAX, min_length=1)
    match_minutes = Minutes(*MATCH_MINUTES)


class OverlaySchema(Schema):
    on = Bool(required=True)


class JoinSchema(Schema):
    seat = Seat(allow_none=True)
    name = Text(NAME_MAX, min_length=1, required=True)
    player_id = Text(NAME_MAX, load_default="")
    # The table card's per-seat claim (its QR's `c`), and a request for a taken seat.
    claim = fields.String(load_default="", validate=validate.Length(max=64))
    takeover = Bool(load_default=False)
    # One phone for both seats (table mode): the same opaque id on both joins.
    device = fields.String(load_default="", validate=validate.Regexp(r"^[A-Za-z0-9_-]{0,40}$"))


class RecoverSchema(Schema):
    # A one-phone table's recovery code as typed (any case, spaces or dashes).
    recovery = fields.String(required=True, validate=validate.Regexp(r"^[A-Za-z0-9 -]{1,40}$"))
    device = fields.String(load_default="", validate=validate.Regexp(r"^[A-Za-z0-9_-]{0,40}$"))


class HallMessageSchema(Schema):
    text = Text(MAX_HALL_MESSAGE, required=True)


class CheckSchema(Schema):
    text = ListText(MAX_TEXT, required=True)


class CardSuggestSchema(Schema):
    """The query of `GET /api/cards/suggest`: the name typed so far (`lang` picks the names)."""

    q = fields.String(required=True, validate=validate.Length(min=1, max=80))
    lang = fields.String(validate=validate.Length(max=16))


class CardNamesSchema(Schema):
    """The query of `GET /api/cards/names`: up to 200 passcodes, comma separated."""

    codes = fields.String(
        required=True,
        validate=validate.Regexp(
            r"^\d{1,10}(,\d{1,10}){0,199}$", error="Passcodes, comma separated."
        ),
    )
    lang = fields.String(validate=validate.Length(max=16))


class PickSchema(Schema):
    name = Text(MAX_LIST_NAME, load_default="")


class PlayerSchema(Schema):
    # As long as a join's (NAME_MAX): a longer name was registered, then its player's join
    # refused.
    name = Text(NAME_MAX, min_length=1, required=True)
    player_id = Text(NAME_MAX, min_length=1, required=True)
    decklist = ListText(20_000, load_default="")


class ImportPlayersSchema(Schema):
    """A player list (name, player ID a line), pasted or read from a spreadsheet's CSV."""

    text = ListText(400_000, min_length=1, required=True)


class CheckInSchema(Schema):
    present = Bool(required=True)


class OwnDeckSchema(Schema):
    """A player's deck list for the event, sent from the players' page with their ID."""

    player_id = Text(40, min_length=1, required=True)
    text = ListText(MAX_TEXT, min_length=1, required=True)


class EventDeckSchema(Schema):
    text = ListText(MAX_TEXT, min_length=1, required=True)


class ResultSchema(Schema):
    round = Int(1, 100, required=True)
    table = Int(1, 10_000, required=True)
    result = fields.String(required=True, validate=validate.OneOf(core.RESULTS))


class RepairSchema(Schema):
    """Pair the current round again; after its start a judge confirms (`confirm`)."""

    confirm = Bool(load_default=False)


class TableResultSchema(Schema):
    """A judge's or the organiser's result for one table of the current round."""

    result = fields.String(required=True, validate=validate.OneOf(core.RESULTS))


class SettingsSchema(Schema):
    rounds = Int(1, 20, allow_none=True)
    cut = fields.Integer(allow_none=True, validate=validate.OneOf([*core.CUT_SIZES, None]))
    public = Bool()
    check_in = Bool()


class CutSchema(Schema):
    size = fields.Integer(required=True, validate=validate.OneOf(core.CUT_SIZES))


class LoginSchema(Schema):
    username = Text(40, min_length=1, required=True)
    password = fields.String(required=True, validate=validate.Length(min=1, max=200))


def real_date(text: str) -> None:
    """A day of the calendar (2026-99-99 has the shape, not the day)."""
    try:
        datetime.date.fromisoformat(text)
    except ValueError:
        raise ValidationError("Not a day of the calendar.") from None


class EventSchema(Schema):
    name = Text(80, min_length=1, required=True)
    date = fields.String(
        required=True, validate=[validate.Regexp(r"^\d{4}-\d{2}-\d{2}$"), real_date]
    )
    ruleset = fields.String(load_default="ocg-2008", validate=validate.OneOf(sorted(RULESETS)))
    match_minutes = Int(1, MATCH_MINUTES[1], load_default=40)
    tables = Int(1, 1000, required=True)
    # R1.1: absent, the rule set's default (the seed's requires a player ID); false waives it
    # for an unsanctioned event.
    require_player_id = Bool()


class EventPatchSchema(Schema):
    # Each setting is optional: a PATCH changes the ones it names.
    spectators = Bool()
    require_player_id = Bool()


class JudgeSchema(Schema):
    username = Text(40, min_length=3, required=True)
    password = fields.String(load_default="", validate=validate.Length(max=200))


class PairingsSchema(Schema):
    csv = ListText(200_000, min_length=1, required=True)


class BanListUploadSchema(Schema):
    name = Text(80, min_length=1, required=True)
    text = ListText(500_000, min_length=1, required=True)
    filename = Text(200, load_default="")
    # An lflist.conf's list, by its header (none: the list whose header is the name).
    list = Text(80, load_default="")


# Every JSON body an HTTP route reads, by endpoint: `load_body()` (server/api/http.py) loads the
# request's body with the schema of its endpoint, and the OpenAPI document (server/api/openapi.py)
# describes the same schemas, so a route's body and its documentation cannot drift apart.
BODIES: dict[str, type[Schema]] = {
    "api.create_table": CreateTableSchema,
    "api.join_table": JoinSchema,
    "api.recover_table": RecoverSchema,
    "decklists.check_list": CheckSchema,
    "decklists.pick_banlist": PickSchema,
    "running.hall_message": HallMessageSchema,
    "overlay.set_overlay": OverlaySchema,
    "staff.login": LoginSchema,
    "staff.create_event": EventSchema,
    "staff.upload_banlist": BanListUploadSchema,
    "staff.patch_event": EventPatchSchema,
    "staff.add_judge": JudgeSchema,
    "staff.set_pairings": PairingsSchema,
    "swiss.register_player": PlayerSchema,
    "swiss.import_players": ImportPlayersSchema,
    "swiss.check_in": CheckInSchema,
    "event_decks.register_own": OwnDeckSchema,
    "event_decks.organiser_sets": EventDeckSchema,
    "swiss.enter_result": ResultSchema,
    "swiss.repair": RepairSchema,
    "staff.table_result": TableResultSchema,
    "swiss.settings": SettingsSchema,
    "swiss.start_cut": CutSchema,
}

# Every query string a route reads, by endpoint (`load_query()`; the OpenAPI parameters).
QUERIES: dict[str, type[Schema]] = {
    "decklists.suggest_cards": CardSuggestSchema,
    "decklists.card_names": CardNamesSchema,
    "api.table_ledger": LedgerRangeSchema,
    "event_page.find": FindPlayerSchema,
}


# -- the hot path ----------------------------------------------------------------------------
# A command message in its plain form is checked here without marshmallow (a third of a
# command's CPU in the worker went to marshmallow's `load`s). The fast loader only ever
# accepts: it returns exactly what the schema's `load` would, or None for anything else, which
# then goes through the schema (and its errors), so nothing the schema refuses gets in
# (tests/test_schemas.py checks both agree). A command's arguments are loaded by its
# declaration's compiled validator (`server/api/arguments.py`).

# ASCII letters, digits and punctuation: what `clean_text` leaves as it is.
_PLAIN = re.compile("[!-~]+")


def _plain(value: Any, max_length: int) -> bool:
    return type(value) is str and len(value) <= max_length and _PLAIN.fullmatch(value) is not None


def load_ping(message: dict[str, Any]) -> dict[str, Any] | None:
    """`MESSAGE_SCHEMAS["ping"].load(message)` for a plain ping, or None. A phone pings every
    few seconds (`web/js/conn.js`, `PING_MS`): over twice a hall's commands, and the schema
    was half of a ping's cost in the worker."""
    t = message.get("t")
    if len(message) != 2 or message.get("type") != "ping" or type(t) is not int:
        return None
    return {"type": "ping", "t": t} if -PING_T_MAX <= t <= PING_T_MAX else None


def load_command_message(message: dict[str, Any]) -> dict[str, Any] | None:
    """`MESSAGE_SCHEMAS["command"].load(message)` for a plain message, or None."""
    args = message.get("args", {})
    if (
        len(message) != (4 if "args" in message else 3)
        or message.get("type") != "command"
        or not _plain(message.get("id"), ID_MAX)
        or not _plain(message.get("cmd"), NAME_MAX)
        or type(args) is not dict
    ):
        return None
    return {"type": "command", "id": message["id"], "cmd": message["cmd"], "args": dict(args)}


# The plain forms of the messages a phone sends most, loaded without the schema (each returns
# exactly what its schema's `load` does, or None: then the schema loads it, errors and all).
FAST_LOADERS: dict[str, Callable[[dict[str, Any]], dict[str, Any] | None]] = {
    "command": load_command_message,
    "ping": load_ping,
}
