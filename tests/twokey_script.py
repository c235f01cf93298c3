"""A scripted match that goes through every two-key flow of the rules core, accepted and refused:
deck counts (R6.2), the reported rock-paper-scissors (R6.5), the casual clock's start (R4.1), LP
entries confirmed, rejected, withdrawn, corrected and confirmed out of order (R1.4, R7.1, R7.4),
duel results confirmed and disputed (R7.3), the match result and a new match (R2.7), three
duels and a judge's settlement at an event table.

`play(rules)` runs it against a rules package (the current one, or an older copy for timing) and
returns, step by step, what each command gave: its events, or its refusal, and the views every
kind of viewer receives. `tests/test_rules_twokey.py` compares those with the ones recorded
from the release before the confirmation flow was unified (`tests/data/twokey_views.json`; recorded
again when a player's ID left the other viewers' views, and when each seat's view gained
`may_send`: each time the new views put back in the old shape gave every earlier digest exactly;
then recorded once more with its shape, `_shape`, giving the same digests: a field added since is
left out of the digests, `tests/golden.py`);
`tests/twokey_timing.py` times the replay of its log."""

from __future__ import annotations

import hashlib
import json
import random
from collections.abc import Iterator
from types import ModuleType
from typing import Any

from tests.golden import merge, project, shape_of

T0 = 1_764_484_800_000
SHAPE = "_shape"  # the fixture's key for the recorded shape
CHECKLIST = ["handshake", "side_shown", "shuffled", "cut"]

Step = tuple[str, str, dict[str, Any]]


def _lp(seat: str, amount: int, kind: str = "damage") -> dict[str, Any]:
    return {"changes": [{"seat": seat, "kind": kind, "amount": amount}]}


def casual_steps() -> Iterator[Step]:
    """A casual table (the players start their own clock and settle their own disputes)."""
    yield ("system", "seat.join", {"seat": "A", "name": "Yugi", "player_id": "0001"})
    yield ("A", "deck.confirm", {"seat": "B"})  # not declared
    yield ("system", "seat.join", {"seat": "B", "name": "Kaiba", "player_id": "0002"})
    # The clock: both seats vote (R4.1); a second vote from the same seat is refused.
    yield ("A", "clock.start", {})
    yield ("A", "clock.start", {})
    yield ("B", "clock.start", {})
    yield ("B", "clock.start", {})
    # Deck counts (R6.2): only the opponent confirms.
    yield ("A", "deck.declare", {"main": 40, "extra": 15, "side": 15})
    yield ("A", "deck.confirm", {"seat": "A"})
    yield ("A", "deck.confirm", {"seat": "C"})
    yield ("B", "deck.confirm", {"seat": "B"})
    yield ("B", "deck.confirm", {})
    yield ("B", "deck.confirm", {"seat": "A"})
    yield ("A", "deck.declare", {"main": 41, "extra": 15, "side": 15})  # needs a new yes
    yield ("B", "deck.declare", {"main": 40, "extra": 10, "side": 15})
    yield ("B", "deck.confirm", {"seat": "A"})
    yield ("A", "deck.confirm", {"seat": "B"})
    # Duel 1: a reported rock-paper-scissors (R6.5).
    yield ("A", "rps.confirm", {})
    yield ("A", "rps.report", {"winner": "B"})
    yield ("A", "rps.confirm", {})
    yield ("B", "rps.report", {"winner": "A"})  # a new report replaces it
    yield ("B", "rps.confirm", {})
    yield ("A", "rps.confirm", {})
    yield ("A", "pregame.check", {"items": CHECKLIST})
    yield ("B", "pregame.check", {"items": CHECKLIST})
    yield ("A", "duel.choose", {"order": "first"})
    yield ("A", "duel.draw", {})
    yield ("B", "duel.draw", {})
    # LP entries (R1.4, R7.4).
    yield ("A", "lp.propose", _lp("B", 1000))  # 1
    yield ("A", "lp.confirm", {"entry": 1})
    yield ("A", "lp.reject", {"entry": 1})
    yield ("B", "lp.withdraw", {"entry": 1})
    yield ("A", "lp.propose", _lp("B", 500))  # 2
    yield ("B", "lp.confirm", {"entry": 2})  # waits behind 1
    yield ("B", "lp.confirm", {"entry": 2})
    yield ("B", "lp.reject", {"entry": 2})
    yield ("A", "lp.withdraw", {"entry": 2})
    yield ("A", "turn.end", {"turn": 1})  # R5.5
    yield ("B", "lp.confirm", {"entry": 1})  # both applied, in order
    yield ("B", "lp.confirm", {"entry": 1})
    yield ("B", "lp.confirm", {"entry": 99})
    yield ("A", "lp.propose", {**_lp("A", 800, "cost"), "note": "cost"})  # 3
    yield ("A", "lp.withdraw", {"entry": 3})
    yield ("A", "lp.withdraw", {"entry": 3})
    yield ("B", "lp.confirm", {"entry": 3})
    yield ("B", "lp.propose", _lp("A", 2000))  # 4
    yield ("A", "lp.reject", {"entry": 4, "reason": "it was 1000"})  # a casual dispute
    yield ("A", "lp.confirm", {"entry": 4})
    yield ("A", "dispute.withdraw", {"entry": 4})
    yield ("B", "dispute.repropose", {"entry": 4, **_lp("A", 1000)})  # 5
    yield ("B", "dispute.withdraw", {"entry": 4})
    yield ("A", "lp.confirm", {"entry": 5})
    yield ("A", "lp.propose", _lp("B", 300))  # 6
    yield ("B", "lp.reject", {"entry": 6, "reason": "no"})
    yield ("A", "dispute.withdraw", {"entry": 6})
    yield ("A", "lp.propose", _lp("B", 100))  # 7
    yield ("A", "lp.propose", _lp("B", 100))  # 8
    yield ("A", "lp.propose", _lp("B", 100))  # 9
    yield ("A", "lp.propose", _lp("B", 100))  # too many
    yield ("B", "lp.confirm", {"entry": 9})
    yield ("B", "lp.confirm", {"entry": 8})
    yield ("B", "lp.confirm", {"entry": 7})
    yield ("A", "turn.end", {"turn": 1})
    yield ("B", "lp.propose", {"changes": [{"seat": "A", "kind": "halve"}]})  # 10
    yield ("A", "lp.confirm", {"entry": 10})
    yield ("B", "lp.propose", _lp("A", 99_999))  # 11: LP 0
    yield ("A", "lp.propose", _lp("B", 1))  # 12: cancelled by the duel's end
    yield ("A", "lp.confirm", {"entry": 11})
    yield ("B", "lp.confirm", {"entry": 12})
    # The duel's result (R7.3): confirmed by each seat; a seat that confirmed cannot dispute.
    yield ("A", "result.confirm", {"duel": 2})
    yield ("A", "result.confirm", {})
    yield ("A", "result.confirm", {})
    yield ("A", "result.dispute", {"reason": "changed my mind"})
    yield ("B", "result.dispute", {"reason": "wait"})
    yield ("B", "result.confirm", {"duel": 1})
    # Between duels, then duel 2: the loser chooses (R6.6).
    yield ("A", "deck.check", {"ok": True})
    yield ("B", "deck.check", {"ok": True})
    yield ("A", "side.exchange", {"main": {"in": 2, "out": 2}})
    yield ("A", "between.ready", {})
    yield ("B", "between.ready", {})
    yield ("A", "rps.report", {"winner": "A"})
    yield ("A", "pregame.check", {"items": CHECKLIST})
    yield ("B", "pregame.check", {"items": CHECKLIST})
    yield ("A", "duel.choose", {"order": "first"})
    yield ("A", "duel.choose", {"order": "second"})
    yield ("A", "duel.draw", {})
    yield ("B", "duel.draw", {})
    yield ("B", "lp.propose", _lp("B", 8000, "cost"))
    yield ("A", "lp.confirm", {"entry": 13})
    yield ("B", "result.confirm", {})
    yield ("A", "result.confirm", {})
    yield ("A", "deck.check", {"ok": True})
    yield ("B", "deck.check", {"ok": True})
    yield ("A", "between.ready", {})
    yield ("B", "between.ready", {})
    # Duel 3: the loser of duel 2 chooses (no rock-paper-scissors); the duel is conceded.
    yield ("A", "rps.pick", {"hand": "rock"})
    yield ("A", "pregame.check", {"items": CHECKLIST})
    yield ("B", "pregame.check", {"items": CHECKLIST})
    yield ("A", "duel.choose", {"order": "second"})
    yield ("B", "duel.choose", {"order": "second"})
    yield ("A", "duel.draw", {})
    yield ("B", "duel.draw", {})
    yield ("A", "lp.propose", {"changes": [{"seat": "A", "kind": "gain", "amount": 500}]})
    yield ("A", "duel.concede", {})
    # The match result (R3.1): each seat confirms once.
    yield ("B", "result.confirm", {})
    yield ("A", "result.confirm", {})
    yield ("A", "match.confirm", {})
    yield ("A", "match.confirm", {})
    yield ("A", "match.new", {})
    yield ("B", "match.confirm", {})
    # A new match (R2.7): both seats agree.
    yield ("A", "match.new", {})
    yield ("A", "match.new", {})
    yield ("B", "match.new", {})
    yield ("B", "clock.start", {})
    yield ("A", "clock.start", {})


def event_steps() -> Iterator[Step]:
    """An event table: a judge starts the clock and settles a rejected entry."""
    yield ("system", "seat.join", {"seat": "A", "name": "Jaden", "player_id": "0003"})
    yield ("system", "seat.join", {"seat": "B", "name": "Chazz", "player_id": "0004"})
    yield ("A", "clock.start", {})
    yield ("judge", "clock.start", {})
    yield ("A", "deck.declare", {"main": 40, "extra": 0, "side": 0})
    yield ("B", "deck.declare", {"main": 40, "extra": 0, "side": 0})
    yield ("B", "deck.confirm", {"seat": "A"})
    yield ("A", "deck.confirm", {"seat": "B"})
    yield ("B", "rps.report", {"winner": "B"})
    yield ("A", "rps.confirm", {})
    yield ("A", "pregame.check", {"items": CHECKLIST})
    yield ("B", "pregame.check", {"items": CHECKLIST})
    yield ("B", "duel.choose", {"order": "second"})
    yield ("A", "duel.draw", {})
    yield ("B", "duel.draw", {})
    yield ("A", "lp.propose", _lp("B", 1200))  # 1
    yield ("B", "lp.reject", {"entry": 1, "reason": "1000"})  # a judge is called
    yield ("A", "dispute.withdraw", {"entry": 1})  # the judge settles (R7.1)
    yield ("judge", "dispute.settle", {"entry": 1, "action": "apply", "note": "seen"})
    yield ("A", "lp.propose", _lp("B", 6800))  # 2
    yield ("B", "lp.confirm", {"entry": 2})
    yield ("A", "result.dispute", {"reason": "?"})
    yield ("judge", "result.set", {"winner": "A"})
    yield ("judge", "result.set", {"match_winner": "A"})
    yield ("A", "match.confirm", {})


SCRIPTS = {
    "casual": ("ocg-2008", {}, casual_steps),
    "event": ("ocg-2008", {"staff_start": True}, event_steps),
}

VIEWERS: tuple[tuple[str | None, bool], ...] = (
    ("A", False),
    ("B", False),
    (None, False),
    (None, True),
)


def _actor(rules: ModuleType, who: str) -> Any:
    if who in ("A", "B"):
        return rules.Actor("seat", who, f"Player {who}")
    if who == "judge":
        return rules.Actor("judge", name="Kaiba")
    return rules.Actor("system")


def _digest(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=False, separators=(",", ":"))  # key order kept
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def play(
    rules: ModuleType, script: str, views: bool = True, shape: dict[str, Any] | None = None
) -> tuple[list[dict[str, Any]], list[Any]]:
    """Run one script; each step's outcome (refusal or event types, a digest of its events and,
    with ``views``, of every viewer's view) and the log (the rules' own Event objects). The
    digests are of the events and views projected on the recorded `shape` (`tests/golden.py`:
    a key added since is left out), or whole without one."""
    ruleset_name, overrides, steps = SCRIPTS[script]
    shape = shape or {}
    rng = random.Random(7)
    now = T0
    log = list(rules.create_events("K7QF2M", rules.get_ruleset(ruleset_name, **overrides), now))
    state = rules.replay(log)
    out: list[dict[str, Any]] = []
    for who, cmd, args in steps():
        now += 1500
        step: dict[str, Any] = {"who": who, "cmd": cmd, "args": args}
        try:
            if hasattr(rules, "admit"):  # the edge's role check (the rules' own, before it)
                rules.admit(cmd, _actor(rules, who))
            events = rules.decide(state, cmd, args, _actor(rules, who), now, rng.randrange)
        except rules.RuleError as err:
            step["refused"] = [err.code, err.message, err.details]
        else:
            for e in events:
                state = rules.apply(state, e)
            log.extend(events)
            step["events"] = [e.type for e in events]
            if views:
                step["events_digest"] = _digest(
                    project([e.to_dict() for e in events], shape.get("events"))
                )
        if views:
            step["views"] = [
                _digest(project(rules.view(state, seat, privileged), shape.get("view")))
                for seat, privileged in VIEWERS
            ]
        out.append(step)
    assert rules.replay(log) == state
    return out, log


def shape_of_scripts(rules: ModuleType) -> dict[str, Any]:
    """The shape (`tests/golden.py`) of every event list and view the scripts give."""
    seen: dict[str, Any] = {"events": None, "view": None}
    for name in SCRIPTS:
        _, log = play(rules, name, views=False)
        seen["events"] = merge(seen["events"], shape_of([e.to_dict() for e in log]))
        state = rules.replay([])
        for e in log:
            state = rules.apply(state, e)
            for seat, privileged in VIEWERS:
                seen["view"] = merge(seen["view"], shape_of(rules.view(state, seat, privileged)))
    return seen


def record(path: str) -> None:
    """Write the outcomes of every script (run once, with the code the fixture is taken from)."""
    import server.rules as rules

    shape = json.loads(json.dumps(shape_of_scripts(rules)))
    data: dict[str, Any] = {SHAPE: shape}
    data.update({name: play(rules, name, shape=shape)[0] for name in SCRIPTS})
    with open(path, "w", encoding="utf-8") as f:
        json.dump(data, f, ensure_ascii=False, indent=1)
        f.write("\n")


if __name__ == "__main__":
    import sys

    record(sys.argv[1])
