"""The one confirmation flow (server/rules/twokey.py): who may propose, confirm, reject and
withdraw, for every two-key action, from one table (R7.4 and the rules of each flow: R1.4 LP
entries, R7.1 rejected entries, R6.2 deck counts, R6.5 a reported rock-paper-scissors, R7.3
duel results, R3.1 the match result, R4.1 the casual clock, R2.7 a new match).

The table's commands come from `twokey.FLOWS`, so a flow added there without a row here fails
`test_every_flow_and_action_has_a_row`. The scripted match of `tests/twokey_script.py` checks
that the flow changed nothing that leaves the rules: the events, the refusals and the views
phones receive are the ones recorded from the release before it."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

import server.rules as rules
from server.rules.twokey import FLOWS, Offer, agreed, confirmed_by, status
from tests.rules_helpers import Table
from tests.twokey_script import SCRIPTS, SHAPE, play

FIXTURE = Path(__file__).parent / "data" / "twokey_views.json"

Setup = Callable[[], Table]
# (who, action, args, expected refusal code or None for accepted)
Step = tuple[str, str, dict[str, Any], str | None]


def _lp(seat: str, amount: int) -> dict[str, Any]:
    return {"changes": [{"seat": seat, "kind": "damage", "amount": amount}]}


def duel(**rules_args: Any) -> Table:
    return Table(**rules_args).register().start_duel(first="A")


def lp_open() -> Table:
    t = duel()
    t.propose("A", ("B", "damage", 1000))  # entry 1
    return t


def lp_behind() -> Table:
    t = duel()
    t.propose("B", ("A", "damage", 500))  # entry 1, still waiting
    t.propose("A", ("B", "damage", 1000))  # entry 2
    return t


def lp_rejected(**rules_args: Any) -> Callable[[], Table]:
    def setup() -> Table:
        t = duel(**rules_args)
        t.propose("A", ("B", "damage", 1000))
        t.do("B", "lp.reject", entry=1, reason="it was 800")
        return t

    return setup


def joined() -> Table:
    return Table().join()


def declared() -> Table:
    t = Table().join()
    t.declare("A")
    return t


def pregame() -> Table:
    return Table().register().checklist()


def reported() -> Table:
    t = pregame()
    t.do("A", "rps.report", winner="B")
    return t


def duel_over() -> Table:
    t = duel()
    t.hit("B", 8000)
    return t


def deck_failed(**rules_args: Any) -> Callable[[], Table]:
    def setup() -> Table:
        t = Table(**rules_args).register().win_duel("A")
        t.do("B", "deck.check", ok=False, note="39 cards")
        return t

    return setup


def match_decided() -> Table:
    t = Table().register()
    t.win_duel("A").between().win_duel("A", first="B")
    assert t.state.phase == "match_result"
    return t


def match_over() -> Table:
    t = match_decided()
    t.do("A", "match.confirm")
    t.do("B", "match.confirm")
    return t


E1, E2 = {"entry": 1}, {"entry": 2}
ROWS: list[tuple[str, str, str, Setup, list[Step]]] = [
    # (id, rule, flow, setup, steps)
    (
        "lp-open",
        "R7.4",
        "lp",
        lp_open,
        [
            ("A", "confirm", E1, "own_entry"),
            ("A", "reject", E1, "own_entry"),
            ("B", "withdraw", E1, "not_yours"),
            ("B", "confirm", E1, None),
            ("B", "confirm", E1, "already_confirmed"),
            ("B", "reject", E1, "already_confirmed"),
            ("A", "withdraw", E1, "already_confirmed"),
        ],
    ),
    (
        "lp-confirmed-behind-an-earlier-entry",
        "R1.4",
        "lp",
        lp_behind,
        [
            ("B", "confirm", E2, None),
            ("B", "confirm", E2, "already_confirmed"),
            ("B", "reject", E2, "already_confirmed"),
            ("A", "withdraw", E2, "already_confirmed"),
            ("A", "confirm", E1, None),
        ],
    ),
    (
        "lp-withdrawn",
        "R7.4",
        "lp",
        lp_open,
        [
            ("A", "withdraw", E1, None),
            ("B", "confirm", E1, "not_pending"),
            ("B", "reject", E1, "not_pending"),
            ("A", "withdraw", E1, "not_pending"),
        ],
    ),
    (
        "lp-rejected",
        "R7.1",
        "lp",
        lp_open,
        [
            ("B", "reject", {**E1, "reason": "no"}, None),
            ("B", "confirm", E1, "not_pending"),
            ("A", "withdraw", E1, "not_pending"),
        ],
    ),
    (
        "lp-limit-per-seat",
        "R1.4",
        "lp",
        duel,
        [
            ("A", "propose", _lp("B", 100), None),
            ("A", "propose", _lp("B", 100), None),
            ("A", "propose", _lp("B", 100), None),
            ("A", "propose", _lp("B", 100), "too_many_pending"),
            ("B", "propose", _lp("A", 100), None),
        ],
    ),
    (
        "lp-dispute-casual",
        "R7.1",
        "lp.dispute",
        lp_rejected(),
        [
            ("B", "withdraw", E1, "not_yours"),
            ("B", "propose", {**E1, **_lp("B", 800)}, "not_yours"),
            ("A", "withdraw", E1, None),
            ("A", "withdraw", E1, "already_settled"),
        ],
    ),
    (
        "lp-dispute-corrected",
        "R7.1",
        "lp.dispute",
        lp_rejected(),
        [
            ("A", "propose", {**E1, **_lp("B", 800)}, None),
            ("A", "propose", {**E1, **_lp("B", 800)}, "already_settled"),
        ],
    ),
    (
        "lp-dispute-event-table",
        "R7.1",
        "lp.dispute",
        lp_rejected(staff_start=True),
        [
            ("A", "withdraw", E1, "judge_settles"),
            ("B", "withdraw", E1, "not_yours"),
        ],
    ),
    (
        "deck-undeclared",
        "R6.2",
        "deck",
        joined,
        [
            ("B", "confirm", {"seat": "A"}, "not_declared"),
            ("A", "confirm", {"seat": "A"}, "own_entry"),
        ],
    ),
    (
        "deck-declared",
        "R6.2",
        "deck",
        declared,
        [
            ("A", "confirm", {"seat": "A"}, "own_entry"),
            ("A", "confirm", {"seat": "C"}, "own_entry"),
            ("A", "confirm", {"seat": "B"}, "not_declared"),
            ("B", "confirm", {"seat": "A"}, None),
            ("B", "confirm", {}, "already_confirmed"),
            ("A", "propose", {"main": 41, "extra": 0, "side": 0}, None),  # needs a new yes
            ("B", "confirm", {"seat": "A"}, None),
        ],
    ),
    (
        "rps-report",
        "R6.5",
        "rps",
        pregame,
        [
            ("A", "confirm", {}, "not_pending"),
            ("A", "propose", {"winner": "B"}, None),
            ("A", "confirm", {}, "own_entry"),
            ("B", "propose", {"winner": "A"}, None),  # a new report replaces it
            ("B", "confirm", {}, "own_entry"),
            ("A", "confirm", {}, None),
        ],
    ),
    (
        "rps-reported",
        "R6.5",
        "rps",
        reported,
        [("B", "confirm", {}, None), ("A", "confirm", {}, "not_needed")],
    ),
    (
        "result",
        "R7.3",
        "result",
        duel_over,
        [
            ("A", "confirm", {}, None),
            ("A", "confirm", {}, "already_confirmed"),
            ("A", "reject", {"reason": "no"}, "already_confirmed"),
            ("B", "reject", {"reason": "wait"}, None),
            ("B", "confirm", {"duel": 2}, "stale_result"),
            ("B", "confirm", {}, None),
            ("B", "confirm", {}, "wrong_phase"),
        ],
    ),
    (
        "match",
        "R3.1",
        "match",
        match_decided,
        [
            ("A", "confirm", {}, None),
            ("A", "confirm", {}, "already_confirmed"),
            ("B", "confirm", {}, None),
            ("B", "confirm", {}, "wrong_phase"),
        ],
    ),
    (
        "clock-start",
        "R4.1",
        "clock.start",
        joined,
        [
            ("A", "propose", {}, None),
            ("A", "confirm", {}, "already_done"),
            ("B", "confirm", {}, None),
            ("B", "confirm", {}, "clock_started"),
        ],
    ),
    (
        "clock-start-event-table",
        "R4.1",
        "clock.start",
        lambda: Table(staff_start=True).join(),
        [("A", "propose", {}, "staff_start")],
    ),
    (
        "deck-fix",
        "R7.5",
        "deck.fix",
        deck_failed(),
        [
            ("B", "propose", {"seat": "B"}, None),
            ("B", "confirm", {"seat": "B"}, "already_done"),
            ("A", "confirm", {"seat": "B"}, None),
            ("A", "confirm", {"seat": "B"}, "not_failed"),
        ],
    ),
    (
        "deck-fix-event-table",
        "R7.5",
        "deck.fix",
        deck_failed(staff_start=True),
        [("B", "propose", {"seat": "B"}, "judge_settles")],
    ),
    (
        "new-match",
        "R2.7",
        "match.new",
        match_over,
        [
            ("A", "propose", {}, None),
            ("A", "confirm", {}, "already_done"),
            ("B", "confirm", {}, None),
        ],
    ),
]


@pytest.mark.parametrize(
    ("rule", "flow", "setup", "steps"),
    [
        pytest.param(rule, flow, setup, steps, id=f"{rule}-{name}")
        for name, rule, flow, setup, steps in ROWS
    ],
)
def test_r7_4_who_may_propose_confirm_reject_withdraw(
    rule: str, flow: str, setup: Setup, steps: list[Step]
) -> None:
    """One table for every two-key action: only the other seat confirms or rejects, only the
    proposer withdraws, a seat never confirms its own; each refusal keeps its code."""
    t = setup()
    for who, action, args, refusal in steps:
        cmd = FLOWS[flow].commands[action]
        if refusal is None:
            assert t.do(who, cmd, **args), (who, cmd)
        else:
            t.refuse(who, cmd, refusal, **args)
    assert t.replayed() == t.state


def test_every_flow_and_action_has_a_row() -> None:
    covered = {(flow, action) for _, _, flow, _, steps in ROWS for _, action, _, _ in steps}
    assert covered == {(f.what, a) for f in FLOWS.values() for a in f.commands}
    assert {cmd for f in FLOWS.values() for cmd in f.commands.values()} <= set(rules.COMMANDS)


def test_r7_4_every_proposal_in_the_state_has_one_shape() -> None:
    """Each waiting proposal says who proposed it and who said yes; agreed takes both seats."""
    t = lp_behind()
    first, second = t.state.pending
    assert (second.by, second.yes, status(second)) == ("A", frozenset("A"), "open")
    t.do("B", "lp.confirm", entry=2)
    second = t.state.pending[1]
    assert (status(second), second.confirmed_by, confirmed_by(first)) == ("agreed", "B", None)
    t = reported()
    assert t.state.pregame.report == Offer("rps", "A", t.now, frozenset("A"), "B")
    t = duel_over()
    assert t.state.result is not None and t.state.result.by is None
    t.do("B", "result.confirm")
    assert t.state.result.yes == frozenset("B") and not agreed(t.state.result)
    t = joined()
    t.do("B", "clock.start")
    assert t.state.clock.start == Offer("clock.start", "B", t.now, frozenset("B"))
    t = declared()
    assert (t.state.decks["A"].by, t.state.decks["A"].yes, t.state.decks["A"].confirmed) == (
        "A",
        frozenset("A"),
        False,
    )


@pytest.mark.parametrize("script", sorted(SCRIPTS))
def test_r1_4_r7_4_events_refusals_and_views_are_those_of_the_earlier_release(
    script: str,
) -> None:
    """The scripted match gives, step by step, the same events (types and data), the same
    refusals (code, message, details) and byte for byte the same views for both seats, a
    spectator and a judge as the release before the flow was unified (the fixture), read on the
    fixture's recorded keys (`tests/golden.py`)."""
    fixture = json.loads(FIXTURE.read_text(encoding="utf-8"))
    want = fixture[script]
    got = json.loads(json.dumps(play(rules, script, shape=fixture[SHAPE])[0]))
    assert len(got) == len(want)
    for step, (g, w) in enumerate(zip(got, want, strict=True)):
        assert g == w, (step, w["who"], w["cmd"], w["args"])


def test_a_new_field_in_the_views_passes_the_fixture_and_a_changed_value_fails(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A field added to every view (or to every event) since the recording leaves every digest
    as recorded; a recorded value that changes does not."""
    fixture = json.loads(FIXTURE.read_text(encoding="utf-8"))
    real_view, real_decide = rules.view, rules.decide

    def grown_view(state: Any, seat: Any, privileged: bool = False) -> dict[str, Any]:
        v = dict(real_view(state, seat, privileged))
        v["new_field"] = {"n": 1}
        return v

    def grown_decide(*args: Any) -> list[Any]:
        return [replace(e, data={**e.data, "new_field": 1}) for e in real_decide(*args)]

    monkeypatch.setattr(rules, "view", grown_view)
    monkeypatch.setattr(rules, "decide", grown_decide)
    got = json.loads(json.dumps(play(rules, "casual", shape=fixture[SHAPE])[0]))
    assert got == fixture["casual"]

    def changed_view(state: Any, seat: Any, privileged: bool = False) -> dict[str, Any]:
        v = dict(real_view(state, seat, privileged))
        v["lp"] = {**v["lp"], "A": v["lp"]["A"] + 1}
        return v

    monkeypatch.setattr(rules, "view", changed_view)
    got = json.loads(json.dumps(play(rules, "casual", shape=fixture[SHAPE])[0]))
    assert [s["views"] for s in got] != [s["views"] for s in fixture["casual"]]
    assert all(g["views"] != w["views"] for g, w in zip(got, fixture["casual"], strict=True))
