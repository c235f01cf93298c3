"""Input schemas: every client command has one (its declaration's compiled validator); bounds,
text cleaning and strictness."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from marshmallow import ValidationError

from server.api.arguments import LOADERS, load_args
from server.api.schemas import MESSAGE_SCHEMAS, clean_text, load_command_message, load_ping
from server.rules import COMMANDS, DECLARATIONS
from tests.arg_schemas import REFERENCE

# A marshmallow schema of each command's declared fields: what the compiled validator must do.
COMMAND_SCHEMAS = REFERENCE


def test_every_command_a_client_may_send_has_a_schema():
    client_commands = {cmd for cmd, roles in COMMANDS.items() if roles - {"system"}}
    assert client_commands == set(COMMAND_SCHEMAS)
    assert client_commands == set(LOADERS)  # each one's validator, compiled from its declaration


def test_every_declared_sample_is_valid():
    """The sample each declaration gives (the permission tests and the fuzzer send it) loads."""
    for name, declared in DECLARATIONS.items():
        if declared.args is not None:
            assert load_args(name, dict(declared.sample)) == COMMAND_SCHEMAS[name].load(
                dict(declared.sample)
            ), name


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
        (
            "dispute.settle",
            {"entry": 4, "action": "correct", "amount": 2500},
            {"entry": 4, "action": "correct", "amount": 2500},
        ),
        ("dispute.settle", {"entry": 4, "action": "void"}, {"entry": 4, "action": "void"}),
        ("deck.fix", {"seat": "B"}, {"seat": "B"}),
    ],
)
def test_valid_arguments(cmd, args, loaded):
    assert COMMAND_SCHEMAS[cmd].load(args) == loaded
    assert load_args(cmd, args) == loaded  # the compiled validator, the one the socket uses


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
        ("dispute.repropose", {"entry": 1, "changes": []}),
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
        # R7.1: a correction gives an amount (or the changes), exactly one; nothing else does.
        ("dispute.settle", {"entry": 4, "action": "correct"}),
        ("dispute.settle", {"entry": 4, "action": "correct", "amount": -1}),
        ("dispute.settle", {"entry": 4, "action": "correct", "amount": 1_000_001}),
        ("dispute.settle", {"entry": 4, "action": "correct", "amount": "2500"}),
        ("dispute.settle", {"entry": 4, "action": "apply", "amount": 2500}),
        (
            "dispute.settle",
            {
                "entry": 4,
                "action": "correct",
                "amount": 1,
                "changes": [{"seat": "A", "kind": "gain"}],
            },
        ),
        ("dispute.settle", {"entry": 4, "action": "edit"}),
        ("deck.fix", {}),
        ("deck.fix", {"seat": "C"}),
    ],
)
def test_invalid_arguments(cmd, args):
    with pytest.raises(ValidationError):
        COMMAND_SCHEMAS[cmd].load(args)
    with pytest.raises(ValidationError):
        load_args(cmd, args)


# R1.4: an entry changes one or both seats' LP, each at most once, by a known kind and a
# whole amount in range; the edge refuses anything else before the rules see it (moved here
# from the rules' tests when the rules stopped checking the arguments again).
BAD_CHANGES: list[Any] = [
    [{"seat": "C", "kind": "damage", "amount": 100}],
    [{"seat": None, "kind": "damage", "amount": 100}],
    [{"seat": "B", "kind": "poison", "amount": 100}],
    [{"seat": "B", "kind": "damage", "amount": "100"}],
    [{"seat": "B", "kind": "damage", "amount": 100.0}],
    [{"seat": "B", "kind": "damage", "amount": True}],
    [{"seat": "B", "kind": "damage", "amount": None}],
    [{"seat": "B", "kind": "damage", "amount": -1}],
    [{"seat": "B", "kind": "damage", "amount": 1_000_001}],
    [{"seat": "B", "kind": "set", "amount": 10**30}],
    [],
    None,
    "damage",
    12,
    ["B"],
    [None],
    [{"seat": "B", "kind": "damage", "amount": 1}] * 3,
    [{"seat": "B", "kind": "damage", "amount": 1}, {"seat": "B", "kind": "gain"}],
]


@pytest.mark.parametrize("changes", BAD_CHANGES)
@pytest.mark.parametrize(
    ("cmd", "other_args"),
    [
        ("lp.propose", {}),
        ("lp.correct", {}),
        ("dispute.repropose", {"entry": 1}),
        ("dispute.settle", {"entry": 1, "action": "correct"}),
    ],
)
def test_r1_4_invalid_entries_are_refused_at_the_edge(cmd, other_args, changes):
    args = {**other_args, "changes": changes}
    with pytest.raises(ValidationError) as info:
        COMMAND_SCHEMAS[cmd].load(args)
    assert "changes" in info.value.messages
    with pytest.raises(ValidationError) as info:
        load_args(cmd, args)
    assert "changes" in info.value.messages


def test_command_message_needs_an_id_and_refuses_extras():
    schema = MESSAGE_SCHEMAS["command"]
    with pytest.raises(ValidationError):
        schema.load({"type": "command", "cmd": "duel.draw"})
    with pytest.raises(ValidationError):
        schema.load({"type": "command", "id": "1", "cmd": "duel.draw", "seat": "A"})
    assert schema.load({"type": "command", "id": "1", "cmd": "duel.draw"})["args"] == {}


# The compiled validators (server/api/arguments.py) must agree with marshmallow schemas of the
# same fields on everything: the same result for what they accept, the same errors otherwise.
_values = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-2_000_000, 2_000_000),
    st.sampled_from([0, 1, 2, 3, 4, -1, 1_000_000, 1_000_001, -1_000_001, 2**53]),
    st.floats(allow_nan=False),
    st.sampled_from(["A", "B", "C", "a", " A", "A ", "", "1"]),
    st.text(max_size=5),
    st.lists(st.integers(), max_size=2),
    st.dictionaries(st.text(max_size=3), st.integers(), max_size=2),
)
_keys = st.sampled_from(["seat", "delta", "entry", "count", "note", "changes", "x"])


def _outcome(load: Any, *args: Any) -> Any:
    try:
        return ("ok", load(*args))
    except ValidationError as exc:
        return ("invalid", exc.messages)


_HOT = ["lp.propose", "lp.confirm", "lp.withdraw", "coin.toss", "die.roll", "duel.draw"]
_any_keys = st.sampled_from(
    sorted({k for d in DECLARATIONS.values() if d.args for k in d.args.fields} | {"x"})
)
_nested = st.recursive(
    _values,
    lambda inner: st.one_of(
        st.lists(inner, max_size=3),
        st.dictionaries(st.sampled_from(["seat", "kind", "amount", "in", "out", "x"]), inner),
    ),
    max_leaves=6,
)


@settings(max_examples=400, deadline=None)
@given(cmd=st.sampled_from(_HOT), args=st.dictionaries(_keys, _values, max_size=3))
def test_fast_argument_loaders_agree_with_the_schemas(cmd, args):
    expected = _outcome(COMMAND_SCHEMAS[cmd].load, args)
    assert _outcome(load_args, cmd, args) == expected


@settings(max_examples=1500, deadline=None)
@given(
    cmd=st.sampled_from(sorted(LOADERS)),
    args=st.one_of(st.dictionaries(_any_keys, _nested, max_size=4), _nested),
    on_sample=st.booleans(),
)
def test_every_validator_agrees_with_a_schema_of_its_fields(cmd, args, on_sample):
    if on_sample and isinstance(args, dict):  # near a valid command: one field bent
        args = {**DECLARATIONS[cmd].sample, **args}
    assert _outcome(load_args, cmd, args) == _outcome(COMMAND_SCHEMAS[cmd].load, args)


_ids = st.one_of(
    st.text(max_size=4),
    st.sampled_from(["c1", "A-1", "x" * 100, "x" * 101, "lp.confirm", "a b", " a", "a\n", "ａ"]),
    st.integers(),
    st.none(),
)


@settings(max_examples=400, deadline=None)
@given(
    message=st.fixed_dictionaries(
        {},
        optional={
            "type": st.sampled_from(["command", "hello", 1]),
            "id": _ids,
            "cmd": _ids,
            "args": st.one_of(st.dictionaries(st.text(max_size=3), _values, max_size=2), _values),
            "note": st.text(max_size=3),
        },
    )
)
def test_the_fast_command_message_loader_agrees_with_the_schema(message):
    fast = load_command_message(message)
    expected = _outcome(MESSAGE_SCHEMAS["command"].load, message)
    assert fast is None or ("ok", fast) == expected


@settings(max_examples=400, deadline=None)
@given(
    message=st.fixed_dictionaries(
        {},
        optional={
            "type": st.sampled_from(["ping", "command", 1, None]),
            "t": st.one_of(
                st.integers(),
                st.sampled_from([2**53, 2**53 + 1, -(2**53), -(2**53) - 1, True, 1.0, "1"]),
                st.none(),
            ),
            "x": st.integers(),
        },
    )
)
def test_the_fast_ping_loader_agrees_with_the_schema(message):
    fast = load_ping(message)
    expected = _outcome(MESSAGE_SCHEMAS["ping"].load, message)
    assert fast is None or ("ok", fast) == expected


def test_a_plain_ping_takes_the_fast_path():
    assert load_ping({"type": "ping", "t": 1764484800000}) == {"type": "ping", "t": 1764484800000}
    assert load_ping({"type": "ping", "t": 2**53 + 1}) is None  # the schema refuses it


def test_the_plain_forms_of_the_hot_commands_take_the_fast_path():
    assert load_args("lp.propose", {"seat": "B", "delta": -10}) is not None
    assert load_args("lp.confirm", {"entry": 7}) is not None
    assert load_args("coin.toss", {"count": 1}) is not None
    assert load_args("duel.draw", {}) is not None
    message = {"type": "command", "id": "T1-5", "cmd": "lp.confirm", "args": {"entry": 7}}
    assert load_command_message(message) == MESSAGE_SCHEMAS["command"].load(message)
