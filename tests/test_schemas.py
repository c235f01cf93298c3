"""Input schemas: every client command has one; bounds, text cleaning and strictness."""

from __future__ import annotations

import pytest
from marshmallow import ValidationError

from server.api.schemas import COMMAND_SCHEMAS, MESSAGE_SCHEMAS, clean_text
from server.rules import COMMANDS


def test_every_command_a_client_may_send_has_a_schema():
    client_commands = {cmd for cmd, roles in COMMANDS.items() if roles - {"system"}}
    assert client_commands == set(COMMAND_SCHEMAS)


def test_clean_text_drops_controls_and_direction_overrides():
    assert clean_text(" \u202eYu\x00gi\u2066\r\n ") == "Yugi"
    assert clean_text("遊戯 ゆうぎ") == "遊戯 ゆうぎ"


@pytest.mark.parametrize(
    ("cmd", "args", "loaded"),
    [
        (
            "lp.propose",
            {"seat": "B", "delta": -1200},
            {"changes": [{"seat": "B", "kind": "damage", "amount": 1200}]},
        ),
        (
            "lp.propose",
            {"seat": "A", "delta": 500, "note": " gain "},
            {"changes": [{"seat": "A", "kind": "gain", "amount": 500}], "note": "gain"},
        ),
        ("side.exchange", {"main": {"in": 2, "out": 2}}, {"main": {"in": 2, "out": 2}}),
        ("result.set", {"match_winner": None}, {"match_winner": None}),
        ("result.set", {"duel": 2, "winner": "A"}, {"duel": 2, "winner": "A"}),
        ("clock.extend", {"minutes": 2}, {"minutes": 2}),
        ("coin.toss", {}, {}),
    ],
)
def test_valid_arguments(cmd, args, loaded):
    assert COMMAND_SCHEMAS[cmd].load(args) == loaded


@pytest.mark.parametrize(
    ("cmd", "args"),
    [
        ("lp.propose", {}),
        ("lp.propose", {"seat": "B"}),
        ("lp.propose", {"seat": "B", "delta": 0}),
        ("lp.propose", {"seat": "B", "delta": -100, "changes": []}),
        ("lp.propose", {"changes": [{"seat": "A", "kind": "damage", "amount": 1_000_001}]}),
        ("lp.propose", {"changes": [{"seat": "A", "kind": "steal", "amount": 1}]}),
        ("lp.propose", {"changes": [{"seat": "A", "kind": "damage", "amount": 1}] * 3}),
        ("lp.confirm", {"entry": 1.5}),
        ("lp.confirm", {"entry": True}),
        ("lp.confirm", {"entry": "3"}),
        ("lp.reject", {"entry": 3, "reason": "x" * 201}),
        ("deck.check", {"ok": 1}),
        ("clock.extend", {}),
        ("clock.extend", {"minutes": 1, "seconds": 30}),
        ("result.set", {"duel": 1}),
        ("result.set", {"winner": "A", "match_winner": "A"}),
        ("coin.toss", {"count": 4}),
        ("counter.change", {"name": "", "delta": 1}),
        ("turn.end", {"turn": 3, "extra": True}),
        ("rps.pick", {"hand": "lizard"}),
    ],
)
def test_invalid_arguments(cmd, args):
    with pytest.raises(ValidationError):
        COMMAND_SCHEMAS[cmd].load(args)


def test_command_message_needs_an_id_and_refuses_extras():
    schema = MESSAGE_SCHEMAS["command"]
    with pytest.raises(ValidationError):
        schema.load({"type": "command", "cmd": "duel.draw"})
    with pytest.raises(ValidationError):
        schema.load({"type": "command", "id": "1", "cmd": "duel.draw", "seat": "A"})
    assert schema.load({"type": "command", "id": "1", "cmd": "duel.draw"})["args"] == {}
