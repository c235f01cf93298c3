"""Names and IDs are normalised and stripped of invisible characters; the pairings parser
takes a byte order mark and any digits, and never drops a line silently."""

from __future__ import annotations

import pytest
from access_world import World, make_world
from flask import Flask
from flask.testing import FlaskClient

from server import services
from server.core.errors import DomainError
from server.service.tournament import parse_pairings


def join(client: FlaskClient, code: str, **body):
    return client.post(f"/api/tables/{code}/join", json=body)


@pytest.mark.parametrize("name", ["\u200b", "\u3164", "\ufeff", "\u200b\u3164\ufeff \u2060"])
def test_a_name_of_invisible_characters_is_refused(client: FlaskClient, name: str):
    code = client.post("/api/tables", json={}).get_json()["code"]
    answer = join(client, code, name=name)
    assert answer.status_code == 400
    assert answer.get_json()["code"] == "invalid"
    assert "name" in answer.get_json()["details"]
    state = client.get(f"/api/tables/{code}").get_json()["state"]
    assert not state["seats"]["A"]["joined"]


def test_names_and_ids_are_nfkc_and_lose_format_characters(client: FlaskClient):
    code = client.post("/api/tables", json={}).get_json()["code"]
    answer = join(client, code, name="Ｙｕ\u200bgi\ufeff  Muto", player_id="００\u20600１")
    assert answer.status_code == 201
    with client.application.app_context():  # the seat as stored (a public view has no ID)
        seat = services().tables.store.snapshot(code).state.seats["A"]
    assert (seat.name, seat.player_id) == ("Yugi Muto", "0001")


def test_a_bom_and_no_header_keeps_table_one():
    pairings = parse_pairings("\ufeff1,Yugi,0001,Kaiba,0002\n2,Joey,0003,Mai,0004\n")
    assert [p.table for p in pairings] == [1, 2]


def test_superscript_and_full_width_digits_are_table_numbers_or_a_coded_error():
    with pytest.raises(DomainError) as refused:
        parse_pairings("table,a,ida,b,idb\n²,Yugi,1,Kaiba,2\n")
    assert refused.value.code == "invalid" and "Line 2" in refused.value.message
    assert [p.table for p in parse_pairings("１２,Yugi,1,Kaiba,2\n")] == [12]
    with pytest.raises(DomainError) as refused:
        parse_pairings("1,Yugi,1,Kaiba,2\n3a,Joey,3,Mai,4\n")
    assert refused.value.code == "invalid" and "Line 2" in refused.value.message


def test_a_first_line_with_a_broken_number_is_not_dropped_as_a_header():
    with pytest.raises(DomainError) as refused:
        parse_pairings("1½,Yugi,1,Kaiba,2\n2,Joey,3,Mai,4\n")
    assert "Line 1" in refused.value.message


def test_pairing_names_lose_invisible_characters():
    [p] = parse_pairings("1,Yu\u200bgi,0001,Ｋａｉｂａ,0002\n")
    assert (p.a_name, p.b_name) == ("Yugi", "Kaiba")
    with pytest.raises(DomainError) as refused:
        parse_pairings("1,\u3164,0001,Kaiba,0002\n")
    assert "Line 1" in refused.value.message


def test_a_superscript_table_number_over_http_is_a_coded_400(app: Flask, clock):
    w: World = make_world(app, clock())
    answer = w.request(
        "organiser", "POST", f"/api/events/{w.event_id}/pairings", json={"csv": "x\n²,Yugi,1,K,2"}
    )
    assert answer.status_code == 400
    assert answer.get_json()["code"] == "invalid" and "Line 2" in answer.get_json()["message"]


# Not text: a password is taken as typed; a claim and a recovery code are opaque codes,
# compared, never shown.
OPAQUE = {"password", "claim", "recovery"}
HOSTILE = "a\x00b\u202ec\u2066d\u061ce\u200bf"  # NUL, RLO, an isolate, a letter mark, a ZWSP


def free_text_fields(schema) -> list[tuple[list[str], object]]:
    """Every free-text string field of `schema` (not a choice or a pattern, not a password),
    with its path through nested schemas and lists."""
    from marshmallow import fields, validate

    found: list[tuple[list[str], object]] = []

    def walk(s, path: list[str]) -> None:
        for name, field in s.fields.items():
            inner = field.inner if isinstance(field, fields.List) else field
            if isinstance(inner, fields.Nested):
                walk(inner.schema, [*path, name])
            elif isinstance(inner, fields.String) and name not in OPAQUE:
                fixed = (validate.OneOf, validate.Regexp)
                if not any(isinstance(v, fixed) for v in inner.validators):
                    found.append(([*path, name], inner))

    walk(schema, [])
    return found


def spec_text_fields(spec, path: list[str]) -> list[tuple[list[str], object]]:
    """Every free-text field of a command's declared arguments (server/rules/args.py), nested
    objects, list items and map keys included."""
    found: list[tuple[list[str], object]] = []

    def walk(f, where: list[str]) -> None:
        if f.kind in ("text", "lines"):
            found.append((where, f))
        for part in (f.item, f.key):
            if part is not None:
                walk(part, where)
        if f.spec is not None:
            found.extend(spec_text_fields(f.spec, where))

    for name, f in spec.fields.items():
        walk(f, [*path, name])
    return found


def test_no_text_the_server_takes_keeps_nul_or_direction_overrides():
    # Every free-text field of every HTTP body and websocket command: a NUL or a right-to-left
    # override can disguise a note on the sheet or break what stores and prints it.
    from server.api.arguments import compile_field
    from server.api.schemas import BODIES
    from server.rules import DECLARATIONS

    schemas = {f"body {k}": v for k, v in BODIES.items()}
    kept = []
    checked = 0
    for label, schema in schemas.items():
        schema = schema() if isinstance(schema, type) else schema
        for path, field in free_text_fields(schema):
            checked += 1
            value = field.deserialize(HOSTILE)
            if any(ch in value for ch in "\x00\u202e\u2066\u061c\u200b"):
                kept.append(f"{label}: {'.'.join(path)} -> {value!r}")
    # The commands' arguments, through the validator the socket runs (compiled from the spec).
    for cmd, declared in DECLARATIONS.items():
        if declared.args is None:
            continue
        for path, spec_field in spec_text_fields(declared.args, []):
            checked += 1
            value = compile_field(spec_field)(HOSTILE)
            if any(ch in value for ch in "\x00\u202e\u2066\u061c\u200b"):
                kept.append(f"command {cmd}: {'.'.join(path)} -> {value!r}")
    assert checked > 20
    assert kept == []
