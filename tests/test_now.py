"""What a seat may send now (`server.rules.now`, the view's `may_send`), checked against the
deciders themselves along whole matches: the recorded match of tests/test_replay.py (an event
table: three duels, time called, penalties, rulings) and the two-key scripts (a casual table and
an event table, every confirmation flow accepted and refused). At every state, for each seat:
a listed command is accepted with arguments fitted to the state (or refused only for its
arguments), and a command not listed is refused whatever those arguments."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest

import server.rules as rules
from server.api.arguments import load_args
from server.rules import DECLARATIONS, SEATS, Actor, Event, RuleError, TableState, decision
from server.rules.now import may_send
from server.rules.view import view
from tests import twokey_script

DATA = Path(__file__).resolve().parent / "data" / "replay_match.json"
SEAT_COMMANDS = sorted(n for n, d in DECLARATIONS.items() if "seat" in d.roles)
# Refusals about a command's arguments (or a rate that moves with time), not about the state.
ARGUMENT_CODES = {"invalid", "deck_illegal", "rate_limited", "not_in_side", "not_in_deck",
                  "count_changed", "by_card", "invalid_count"}  # fmt: skip
CHANGE = [{"seat": "B", "kind": "damage", "amount": 100}]


def fitted(s: TableState, cmd: str) -> list[dict[str, Any]]:
    """Arguments a phone would send for `cmd` at `s` (each that could apply)."""
    if cmd in ("lp.confirm", "lp.withdraw"):
        return [{"entry": p.entry} for p in s.pending] or [{"entry": 1}]
    if cmd == "lp.reject":
        return [{"entry": p.entry, "reason": ""} for p in s.pending] or [{"entry": 1}]
    if cmd == "dispute.withdraw":
        return [{"entry": d.entry} for d in s.disputes] or [{"entry": 1}]
    if cmd == "dispute.repropose":
        return [{"entry": d.entry, "changes": CHANGE} for d in s.disputes] or [
            {"entry": 1, "changes": CHANGE}
        ]
    if cmd in ("deck.confirm", "deck.fix"):
        return [{"seat": "A"}, {"seat": "B"}]
    if cmd == "turn.end":
        return [{"turn": s.turn.no if s.turn else 1}]
    if cmd == "result.confirm":
        return [{"duel": s.result.duel if s.result else 1}]
    if cmd == "counter.clear":
        return [{}]
    if cmd == "counter.change":
        return [{"name": "Spell Counter", "delta": 1}]
    if cmd == "rps.report":
        return [{"winner": "A"}, {"winner": "B"}]
    if cmd == "duel.choose":
        return [{"order": "first"}]
    if cmd == "side.exchange":
        return [{"main": {"in": 1, "out": 1}}]
    return [dict(DECLARATIONS[cmd].sample)]


def outcomes(s: TableState, seat: str, cmd: str, now_ms: int) -> list[str | None]:
    """None for each fitted try the rules accept, else the refusal's code."""
    actor = Actor("seat", seat, "x")
    found: list[str | None] = []
    for args in fitted(s, cmd):
        try:
            decision(s, cmd, load_args(cmd, args), actor, now_ms, random.Random(1).randrange)
        except RuleError as err:
            found.append(err.code)
        else:
            found.append(None)
    return found


def check_states(log: list[Event]) -> int:
    """Check every state a client can see: after a command's last event (the events of one
    command share their time and actor), never between them."""
    state, checked = rules.replay(log[:1]), 0
    for i, event in enumerate(log[1:], 1):
        state = rules.apply(state, event)
        after = log[i + 1] if i + 1 < len(log) else None
        if after is not None and (after.at_ms, after.actor) == (event.at_ms, event.actor):
            continue
        for seat in SEATS:
            listed = may_send(state, seat)
            assert view(state, seat)["may_send"] == listed
            for cmd in SEAT_COMMANDS:
                got = outcomes(state, seat, cmd, event.at_ms + 1)
                where = f"seq after {event.type}, phase {state.phase}, seat {seat}: {cmd} {got}"
                if cmd in listed:
                    assert any(c is None or c in ARGUMENT_CODES for c in got), where
                else:
                    assert all(c is not None and c not in ARGUMENT_CODES for c in got), where
                checked += 1
    return checked


def test_may_send_agrees_with_the_rules_along_the_recorded_match():
    recorded = json.loads(DATA.read_text(encoding="utf-8"))["events"]
    log = [Event.from_dict(e) for e in recorded]
    assert check_states(log) > 5_000


@pytest.mark.parametrize("script", sorted(twokey_script.SCRIPTS))
def test_may_send_agrees_with_the_rules_along_every_two_key_flow(script: str):
    _, log = twokey_script.play(rules, script, views=False)
    assert check_states(log) > 1_000


def test_only_a_seat_is_told_what_it_may_send():
    recorded = json.loads(DATA.read_text(encoding="utf-8"))["events"]
    state = rules.replay(Event.from_dict(e) for e in recorded[:40])
    assert view(state, None)["may_send"] == []
    assert view(state, None, privileged=True)["may_send"] == []
    assert "coin.toss" in view(state, "A")["may_send"]
