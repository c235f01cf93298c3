"""The table socket as JSON Schema, generated from the declarations: every message each way,
each command's arguments (`server.rules.DECLARATIONS`), each event's data
(`server.rules.EVENTS`) and the state view (`server.rules.view.VIEW_FIELDS`).

`GET /api/protocol/schema.json` serves it (docs/protocol.md is the guide to it). The socket
tests check every message the server sends against it (tests/conftest.py), so the schema and
the server cannot drift apart unseen.
"""

from __future__ import annotations

from typing import Any

from flask import Blueprint, Flask, Response, jsonify

from server.rules import DECLARATIONS, EVENTS
from server.rules.args import Args, Field
from server.rules.view import VIEW_FIELDS

from .schemas import ID_MAX

bp = Blueprint("protocol_schema", __name__)

# The protocol versions the server speaks; a hello's `v` above the newest is served the newest,
# and the welcome's `v` says which (docs/protocol.md, "Versions").
PROTOCOL_VERSION = 3
SCHEMA_URL = "/api/protocol/schema.json"
SEAT = {"enum": ["A", "B"]}
_TYPES: dict[str, dict[str, Any]] = {
    "int": {"type": "integer"},
    "str": {"type": "string"},
    "bool": {"type": "boolean"},
    "seat": SEAT,
    "list": {"type": "array"},
    "object": {"type": "object"},
}


def _nullable(schema: dict[str, Any]) -> dict[str, Any]:
    return {"anyOf": [schema, {"type": "null"}]}


def field_type(kind: str) -> dict[str, Any]:
    """The JSON Schema of a declared type (`server.rules.base.FIELD_TYPES`, "?" for null)."""
    base = _TYPES[kind.rstrip("?")]
    return _nullable(base) if kind.endswith("?") else dict(base)


def argument(f: Field) -> dict[str, Any]:
    """The JSON Schema of one command argument (`server.rules.args.Field`). Text lengths are
    counted after the server's cleaning (invisible characters dropped, blanks collapsed)."""
    out: dict[str, Any]
    if f.kind == "int":
        out = {"type": "integer", "minimum": f.low, "maximum": f.high}
    elif f.kind == "bool":
        out = {"type": "boolean"}
    elif f.kind == "choice":
        out = {"enum": list(f.options)}
    elif f.kind in ("text", "lines"):
        out = {"type": "string", "maxLength": f.max_len}
    elif f.kind == "list":
        assert f.item is not None
        out = {"type": "array", "items": argument(f.item)}
        if f.min_len is not None:
            out["minItems"] = f.min_len
        if f.max_len is not None:
            out["maxItems"] = f.max_len
    elif f.kind == "object":
        assert f.spec is not None
        out = arguments(f.spec)
    elif f.kind == "map":
        assert f.item is not None and f.key is not None
        out = {"type": "object", "additionalProperties": argument(f.item)}
        out["propertyNames"] = argument(f.key)
        if f.max_len is not None:
            out["maxProperties"] = f.max_len
    else:  # pragma: no cover - a new kind must be described here
        raise ValueError(f"no schema for argument kind {f.kind!r}")
    return _nullable(out) if f.allow_none else out


def arguments(spec: Args) -> dict[str, Any]:
    """The JSON Schema of a command's arguments: its fields and no others."""
    required = sorted(k for k, f in spec.fields.items() if f.required)
    out: dict[str, Any] = {
        "type": "object",
        "properties": {k: argument(f) for k, f in spec.fields.items()},
        "additionalProperties": False,
    }
    if required:
        out["required"] = required
    return out


def event_data(event_type: str) -> dict[str, Any]:
    """The JSON Schema of an event's data as a reader is sent it: every declared field may be
    absent (a log written before it, a field hidden from this reader); a secret field may also
    be null (another seat's pick before it is disclosed), and carries its salt."""
    declared = EVENTS[event_type]
    props = {k: field_type(v) for k, v in declared.data.items()}
    for name in declared.secret:
        props[name] = _nullable(props[name])
    if declared.secret:
        props["salt"] = {"type": "string"}
    return {"type": "object", "properties": props, "additionalProperties": False}


PER_SEAT_INT = {
    "type": "object",
    "properties": {"A": {"type": "integer"}, "B": {"type": "integer"}},
    "required": ["A", "B"],
    "additionalProperties": False,
}


def _state_details(commands: list[str]) -> dict[str, Any]:
    """The parts of the view a bot or an overlay reads first, described field by field (the
    others by their type, `VIEW_FIELDS`)."""
    nullable_int = _nullable({"type": "integer"})
    seat = {
        "type": "object",
        "properties": {
            "name": {"type": "string"},
            "player_id": {"type": "string"},
            "joined": {"type": "boolean"},
            "disowned": {"const": True},
        },
        "required": ["name", "player_id", "joined"],
        "additionalProperties": False,
    }
    return {
        "phase": {
            "enum": [
                "registration",
                "pregame",
                "duel",
                "duel_result",
                "between",
                "match_result",
                "match_over",
            ]
        },  # fmt: skip
        "lp": PER_SEAT_INT,
        "wins": PER_SEAT_INT,
        "tokens": PER_SEAT_INT,
        "seats": {
            "type": "object",
            "properties": {"A": seat, "B": seat},
            "required": ["A", "B"],
            "additionalProperties": False,
        },
        "may_send": {"type": "array", "items": {"enum": commands}, "uniqueItems": True},
        "turn": _nullable(
            _object({"no": {"type": "integer"}, "player": SEAT, "started_ms": {"type": "integer"}})
        ),
        "clock": _object(
            {
                "status": {"enum": ["idle", "running", "paused", "expired", "stopped"]},
                "started_ms": nullable_int,
                "duration_ms": {"type": "integer"},
                "deadline_ms": nullable_int,
                "remaining_ms": nullable_int,
                "start_votes": {"type": "array", "items": SEAT},
            }
        ),
        "time": _object(
            {
                "called": {"type": "boolean"},
                "called_ms": nullable_int,
                "during": _nullable({"type": "string"}),
                "stage": _nullable({"type": "string"}),
                "extra_turn": {"type": "integer"},
                "extra_turns": {"type": "integer"},
                "extra_duel_turns": {"type": "integer"},
            }
        ),
    }


def _object(props: dict[str, Any], required: list[str] | None = None) -> dict[str, Any]:
    return {
        "type": "object",
        "properties": props,
        "required": sorted(props) if required is None else required,
        "additionalProperties": False,
    }


def build_schema() -> dict[str, Any]:
    """The whole document (JSON Schema 2020-12)."""
    ref = "#/$defs/"
    events = sorted(EVENTS)
    commands = sorted(n for n, d in DECLARATIONS.items() if d.from_clients)
    defs: dict[str, Any] = {}
    for t in events:
        defs[f"event.{t}"] = event_data(t)
    for name in commands:
        spec = DECLARATIONS[name].args
        assert spec is not None
        defs[f"args.{name}"] = arguments(spec)
    defs["actor"] = _object(
        {
            "role": {"enum": ["seat", "judge", "organiser", "system", "spectator"]},
            "seat": _nullable(SEAT),
            "name": {"type": "string"},
        },
        [],
    )
    defs["envelope"] = {
        **_object(
            {
                "seq": {"type": "integer", "minimum": 1},
                "type": {"enum": events},
                "data": {"type": "object"},
                "actor": {"$ref": ref + "actor"},
                "at_ms": {"type": "integer"},
            }
        ),
        "allOf": [
            {
                "if": {"properties": {"type": {"const": t}}},
                "then": {"properties": {"data": {"$ref": f"{ref}event.{t}"}}},
            }
            for t in events
        ],
    }
    state_props = {k: field_type(v) for k, v in VIEW_FIELDS.items()}
    state_props.update(_state_details(commands))
    state_props["seq"] = {"type": "integer"}
    state_props["ledger"] = {"type": "array", "items": {"$ref": ref + "ledger_row"}}
    defs["change"] = _object(
        {
            "seat": SEAT,
            "kind": {"enum": ["damage", "gain", "cost", "halve", "set"]},
            "amount": {"type": "integer"},
        },
        ["seat", "kind"],
    )
    defs["ledger_row"] = _object(
        {
            "entry": {"type": "integer"},
            "duel": {"type": "integer"},
            "turn": {"type": "integer"},
            "by": {"type": "string"},
            "confirmed_by": {"type": "string"},
            "changes": {"type": "array", "items": {"$ref": ref + "change"}},
            "note": {"type": "string"},
            "lp": PER_SEAT_INT,
            "at_ms": {"type": "integer"},
        }
    )
    defs["state"] = _object(state_props)
    defs["delta"] = {**_object(state_props, []), "description": "the state's changed keys"}
    defs["error"] = _object(
        {
            "code": {"type": "string", "pattern": "^[a-z][a-z0-9_]*$"},
            "message": {"type": "string"},
            "details": {"type": "object"},
        },
        ["code", "message"],
    )
    events_list = {"type": "array", "items": {"$ref": ref + "envelope"}}
    defs["server.welcome"] = _object(
        {
            "type": {"const": "welcome"},
            "v": {"type": "integer", "minimum": 1, "maximum": PROTOCOL_VERSION},
            "role": {"enum": ["seat", "judge", "organiser", "spectator"]},
            "seat": _nullable(SEAT),
            "now_ms": {"type": "integer"},
            "seq": {"type": "integer"},
            "events": events_list,
            "state": {"$ref": ref + "state"},
            # a seat's socket pass: its next open spends the seat's own budget (docs/protocol.md)
            "pass": {"type": "string", "maxLength": 200},
        },
        ["type", "v", "role", "seat", "now_ms", "seq", "events", "state"],
    )
    defs["server.update"] = {
        **_object(
            {
                "type": {"const": "update"},
                "seq": {"type": "integer"},
                "events": events_list,
                "state": {"$ref": ref + "state"},
                "delta": {"$ref": ref + "delta"},
                "ledger": _object(
                    {
                        "from": {"type": "integer", "minimum": 0},
                        "rows": {"type": "array", "items": {"type": "object"}},
                    }
                ),
            },
            ["type", "seq", "events"],
        ),
        "description": "version 1: the whole state; versions 2 and 3: delta and ledger",
        "oneOf": [{"required": ["state"]}, {"not": {"required": ["state"]}}],
    }
    defs["server.reply"] = {
        "oneOf": [
            _object(
                {
                    "type": {"const": "reply"},
                    "re": {"type": "string"},
                    "ok": {"const": True},
                    "seq": {"type": "integer"},
                    "duplicate": {"const": True},
                    # version 3: the sender's own update, when its socket had not been sent it
                    "update": {"$ref": ref + "server.update"},
                },
                ["type", "re", "ok", "seq"],
            ),
            _object(
                {
                    "type": {"const": "reply"},
                    "re": {"type": "string"},
                    "ok": {"const": False},
                    "error": {"$ref": ref + "error"},
                }
            ),
        ]
    }
    defs["server.error"] = _object({"type": {"const": "error"}, "error": {"$ref": ref + "error"}})
    defs["server.pong"] = _object(
        {"type": {"const": "pong"}, "t": {"type": "integer"}, "now_ms": {"type": "integer"}}
    )
    server_kinds = ["welcome", "update", "reply", "error", "pong"]
    defs["server"] = {"oneOf": [{"$ref": f"{ref}server.{k}"} for k in server_kinds]}
    defs["client.hello"] = _object(
        {
            "type": {"const": "hello"},
            "token": _nullable({"type": "string", "maxLength": ID_MAX}),
            "since": _nullable({"type": "integer", "minimum": 0, "maximum": 2**53}),
            "v": _nullable({"type": "integer", "minimum": 1, "maximum": 1000}),
        },
        ["type"],
    )
    defs["client.command"] = {
        **_object(
            {
                "type": {"const": "command"},
                "id": {"type": "string", "minLength": 1, "maxLength": ID_MAX},
                "cmd": {"enum": commands},
                "args": {"type": "object"},
            },
            ["type", "id", "cmd"],
        ),
        "allOf": [
            {
                "if": {"properties": {"cmd": {"const": n}}},
                "then": {"properties": {"args": {"$ref": f"{ref}args.{n}"}}},
            }
            for n in commands
        ],
    }
    defs["client.ping"] = _object({"type": {"const": "ping"}, "t": {"type": "integer"}})
    defs["client.resync"] = _object({"type": {"const": "resync"}})
    client_kinds = ["hello", "command", "ping", "resync"]
    defs["client"] = {"oneOf": [{"$ref": f"{ref}client.{k}"} for k in client_kinds]}
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": SCHEMA_URL,
        "title": "Duel Table: the table socket (/ws/table/<code>)",
        "description": (
            "Every message of the table socket, each way: `#/$defs/server` (server to client), "
            "`#/$defs/client` (client to server); each command's arguments (`args.<cmd>`), each "
            "event's data (`event.<type>`) and the state view (`state`). docs/protocol.md is "
            "the guide."
        ),
        "version": PROTOCOL_VERSION,
        "$defs": defs,
        "oneOf": [{"$ref": ref + "server"}, {"$ref": ref + "client"}],
    }


_BUILT: dict[str, Any] = {}


@bp.get(SCHEMA_URL)
def schema() -> Response:
    """The table socket's messages as JSON Schema (built once: no per-address budget, as
    `/api/time`)."""
    document = _BUILT.get("schema")
    if document is None:
        document = _BUILT["schema"] = build_schema()
    return jsonify(document)


def init_app(app: Flask) -> None:
    """Serve the schema from `app`."""
    app.register_blueprint(bp)
