"""A disagreement holds the table until it is settled (R1.4, R5.5, R7.1, R7.4, R7.5).

The seed: players follow the judge's ruling when they disagree (「應向在場的裁判員查詢，並且
遵從裁判員的指示」) and every action is taken with mutual confirmation (「必須於互相確認中進行」).
So while an LP entry is disputed no entry queued behind it in the same duel applies, and no
turn or duel ends by the players' entries; at an event table a judge settles it in one step
(apply, void, or correct to an amount), at a casual table the two players do."""

from __future__ import annotations

import pytest

from server.projections.floor import summarise
from server.rules import view
from tests.rules_helpers import Table
from tests.test_rules_clock import time_up


def event_duel() -> Table:
    return Table(staff_start=True).register().start_duel(first="A")


def casual_duel() -> Table:
    return Table().register().start_duel(first="A")


def lethal_then_rejected(t: Table) -> tuple[int, int]:
    """The issue's scenario: A proposes 8000 damage to B (lethal); B proposes 8000 damage to A
    and A confirms it; then B rejects A's earlier entry."""
    e1 = t.propose("A", ("B", "damage", 8000))
    e2 = t.propose("B", ("A", "damage", 8000))
    t.confirm("A", e2)
    events = t.do("B", "lp.reject", entry=e1, reason="it was negated")
    assert "lp.applied" not in t.types(events)
    return e1, e2


def assert_held(t: Table, e1: int, e2: int) -> None:
    """Nothing behind the dispute applied, the duel goes on, and no turn can end."""
    assert t.state.phase == "duel"
    assert t.state.lp == {"A": 8000, "B": 8000}
    assert [p.entry for p in t.state.pending] == [e2]  # confirmed, waiting behind e1
    assert all(r.entry not in (e1, e2) for r in t.state.ledger)
    err = t.refuse("A", "turn.end", "entries_pending", turn=1)
    assert err.details["first"] == e1 and err.details["disputes"] == [e1]


# --- an event table: the judge settles it ---------------------------------------------------


def test_r7_1_r1_4_a_rejected_entry_holds_the_later_one_at_an_event() -> None:
    t = event_duel()
    e1, e2 = lethal_then_rejected(t)
    assert_held(t, e1, e2)
    # The judge's `apply` is still possible: the duel is not over.
    events = t.do("judge", "dispute.settle", entry=e1, action="apply")
    assert t.state.lp["B"] == 0 and t.state.result is not None
    assert (t.state.result.winner, t.state.result.reason) == ("A", "lp_zero")
    assert "lp.cancelled" in t.types(events)  # B's later entry came after the duel's end
    assert t.replayed() == t.state


def test_r7_1_voiding_the_earlier_entry_lets_the_queue_apply_in_order() -> None:
    t = event_duel()
    e1, e2 = lethal_then_rejected(t)
    events = t.do("judge", "dispute.settle", entry=e1, action="void")
    assert t.types(events)[:3] == ["dispute.settled", "judge.closed", "lp.applied"]
    assert t.state.lp["A"] == 0 and t.state.result is not None
    assert t.state.result.winner == "B"
    assert [r.entry for r in t.state.ledger][-1] == e2


def test_r5_5_sudden_death_is_not_decided_past_a_dispute() -> None:
    t = Table(staff_start=True).register().start_clock().start_duel(first="A")
    time_up(t)
    t.end_turns(4)
    assert t.state.time.stage == "sudden_death"
    e1 = t.propose("A", ("A", "cost", 1000))  # A pays a cost: that would decide it for B
    e2 = t.propose("B", ("B", "cost", 500))
    t.confirm("A", e2)
    t.do("B", "lp.reject", entry=e1, reason="no cost was paid")
    assert t.state.phase == "duel" and t.state.lp == {"A": 8000, "B": 8000}
    t.do("judge", "dispute.settle", entry=e1, action="void")
    assert t.state.result is not None
    assert (t.state.result.winner, t.state.result.reason) == ("A", "sudden_death")


def test_r7_1_a_judge_corrects_a_disputed_entry_in_one_step() -> None:
    """ "It was 2500, not 3000": one settlement applies the entry at the judge's amount, in
    its place, then the entries behind it."""
    t = event_duel()
    e1 = t.propose("A", ("B", "damage", 3000), note="Summoned Skull")
    e2 = t.propose("B", ("A", "damage", 1000))
    t.confirm("A", e2)
    t.do("B", "lp.reject", entry=e1, reason="it was 2500")
    # a correction with no amount, or one out of range, is the edge's refusal (test_schemas.py)
    events = t.do("judge", "dispute.settle", entry=e1, action="correct", amount=2500, note="")
    assert t.types(events) == ["dispute.settled", "judge.closed", "lp.applied", "lp.applied"]
    rows = t.state.ledger[-2:]
    assert [r.entry for r in rows] == [e1, e2]
    assert rows[0].changes[0].amount == 2500 and rows[0].confirmed_by == "judge:Kaiba"
    assert rows[0].note == "Summoned Skull"
    assert t.state.lp == {"A": 7000, "B": 5500}
    (d,) = t.state.disputes
    assert d.status == "corrected" and d.judge == "Kaiba"
    assert all(c.status == "closed" for c in t.state.calls)
    t.refuse("judge", "dispute.settle", "already_settled", entry=e1, action="void")
    assert t.replayed() == t.state


def test_r7_1_a_judge_corrects_a_two_seat_entry_by_its_changes() -> None:
    t = event_duel()
    e1 = t.propose("A", ("A", "damage", 500), ("B", "damage", 500))
    t.do("B", "lp.reject", entry=e1)
    changes = [{"seat": "A", "kind": "damage", "amount": 300}]
    t.do("judge", "dispute.settle", entry=e1, action="correct", changes=changes)
    assert t.state.lp == {"A": 7700, "B": 8000}
    # A halving has no amount to correct: the judge gives the changes instead.
    e2 = t.propose("A", ("B", "halve", 0))
    t.do("B", "lp.reject", entry=e2)
    t.refuse("judge", "dispute.settle", "invalid", entry=e2, action="correct", amount=100)


def test_r7_3_no_duel_result_is_confirmed_past_an_open_dispute_at_an_event() -> None:
    """A concession ends the duel (the conceding player gives up the point in dispute), but
    the result waits for the judge's ruling on the open entry before the match moves on."""
    t = event_duel()
    e1 = t.propose("A", ("B", "damage", 1000))
    t.do("B", "lp.reject", entry=e1)
    t.do("B", "duel.concede")
    assert t.state.phase == "duel_result"
    err = t.refuse("A", "result.confirm", "entries_pending")
    assert err.details["first"] == e1 and err.details["disputes"] == [e1]
    t.do("judge", "dispute.settle", entry=e1, action="void")
    t.confirm_result()
    assert t.state.wins["A"] == 1


# --- a casual table: the two players settle it ----------------------------------------------


def test_r7_1_casual_a_rejected_entry_holds_the_later_one_until_withdrawn() -> None:
    t = casual_duel()
    e1, e2 = lethal_then_rejected(t)
    assert t.state.calls == ()
    assert_held(t, e1, e2)
    events = t.do("A", "dispute.withdraw", entry=e1)
    assert t.types(events)[:2] == ["dispute.closed", "lp.applied"]
    assert t.state.result is not None and t.state.result.winner == "B"


def test_r7_4_casual_a_corrected_entry_takes_the_rejected_ones_place() -> None:
    t = casual_duel()
    e1, e2 = lethal_then_rejected(t)
    events = t.do(
        "A",
        "dispute.repropose",
        entry=e1,
        changes=[{"seat": "B", "kind": "damage", "amount": 2000}],
    )
    new = events[-1].data["entry"]
    assert t.state.lp == {"A": 8000, "B": 8000}
    assert [p.entry for p in t.state.pending] == [new, e2]  # in e1's place, before e2
    err = t.refuse("A", "turn.end", "entries_pending", turn=1)
    assert err.details["first"] == new
    events = t.confirm("B", new)
    assert t.types(events) == ["lp.confirmed", "lp.applied", "lp.applied", "duel.ended"]
    assert [r.entry for r in t.state.ledger][-2:] == [new, e2]
    assert t.state.lp == {"A": 0, "B": 6000}
    assert t.state.result is not None and t.state.result.winner == "B"
    assert t.replayed() == t.state


def test_r7_4_casual_a_correction_rejected_again_still_holds_the_queue() -> None:
    t = casual_duel()
    e1 = t.propose("A", ("B", "damage", 3000))
    e2 = t.propose("B", ("A", "damage", 100))
    t.confirm("A", e2)
    t.do("B", "lp.reject", entry=e1)
    new = t.do(
        "A",
        "dispute.repropose",
        entry=e1,
        changes=[{"seat": "B", "kind": "damage", "amount": 2000}],
    )[-1].data["entry"]
    t.do("B", "lp.reject", entry=new, reason="still wrong")
    assert t.state.lp == {"A": 8000, "B": 8000}
    final = t.do(
        "A",
        "dispute.repropose",
        entry=new,
        changes=[{"seat": "B", "kind": "damage", "amount": 1500}],
    )[-1].data["entry"]
    assert [p.entry for p in t.state.pending] == [final, e2]
    t.confirm("B", final)
    assert t.state.lp == {"A": 7900, "B": 6500}
    assert [r.entry for r in t.state.ledger][-2:] == [final, e2]


def test_r5_5_casual_sudden_death_waits_for_the_players_to_settle() -> None:
    t = Table().register()
    t.do("A", "clock.start")
    t.do("B", "clock.start")
    t.start_duel(first="A")
    time_up(t)
    t.end_turns(4)
    assert t.state.time.stage == "sudden_death"
    e1 = t.propose("B", ("A", "damage", 100))
    e2 = t.propose("A", ("B", "damage", 200))
    t.confirm("B", e2)
    t.do("A", "lp.reject", entry=e1)
    assert t.state.phase == "duel" and t.state.lp == {"A": 8000, "B": 8000}
    t.refuse("A", "turn.end", "entries_pending", turn=t.state.turn.no if t.state.turn else 0)
    t.do("B", "dispute.withdraw", entry=e1)
    assert t.state.result is not None
    assert (t.state.result.winner, t.state.result.reason) == ("A", "sudden_death")


def test_r1_4_an_entry_before_the_dispute_still_applies() -> None:
    """Only what is queued behind a dispute waits: an earlier entry confirmed later applies."""
    t = casual_duel()
    e1 = t.propose("A", ("B", "damage", 1000))
    e2 = t.propose("A", ("B", "damage", 500))
    t.do("B", "lp.reject", entry=e2)
    t.confirm("B", e1)
    assert t.state.lp["B"] == 7000


# --- R7.5: a failed deck check ---------------------------------------------------------------


def test_r7_5_casual_failed_deck_check_is_settled_by_both_players() -> None:
    t = Table().register().win_duel("A")
    t.do("A", "deck.check", ok=True)
    events = t.do("B", "deck.check", ok=False, note="39 cards")
    assert t.types(events) == ["deck.checked", "judge.called"]
    v = view(t.state, seat="B")["decks"]
    assert (v["B"]["checked"], v["B"]["check_failed"], v["B"]["fixed_by"]) == (True, True, [])
    assert "fixed_by" not in v["A"]
    t.refuse("B", "between.ready", "deck_check_failed")
    t.refuse("A", "deck.fix", "not_failed", seat="A")
    events = t.do("B", "deck.fix", seat="B")
    assert t.types(events) == ["deck.fix_voted"]
    assert view(t.state, seat="A")["decks"]["B"]["fixed_by"] == ["B"]
    t.refuse("B", "deck.fix", "already_done", seat="B")
    t.refuse("B", "between.ready", "deck_check_failed")  # one key is not enough
    events = t.do("A", "deck.fix", seat="B")
    assert t.types(events) == ["deck.fix_voted", "deck.cleared", "judge.closed"]
    assert view(t.state)["decks"]["B"]["check_failed"] is False
    assert "fixed_by" not in view(t.state)["decks"]["B"]
    assert all(c.status == "closed" for c in t.state.calls)
    t.do("A", "between.ready")
    t.do("B", "between.ready")
    assert t.state.phase == "pregame"
    assert t.replayed() == t.state


def test_r7_5_an_event_table_still_waits_for_the_judge() -> None:
    t = Table(staff_start=True).register().win_duel("A")
    t.do("B", "deck.check", ok=False, note="41 cards")
    t.refuse("B", "deck.fix", "judge_settles", seat="B")
    t.refuse("A", "deck.fix", "judge_settles", seat="B")
    assert t.state.decks["B"].check_failed


# --- a ruling closes the calls it answers ----------------------------------------------------


@pytest.mark.parametrize("staff", [True, False])
def test_r7_5_deck_clear_closes_the_failed_checks_call_only(staff: bool) -> None:
    t = Table(staff_start=staff).register().win_duel("A")
    t.do("A", "judge.call", reason="Deck count problem after the duel (R7.5)")
    t.do("B", "deck.check", ok=False, note="41 cards")
    t.do("A", "deck.check", ok=False, note="39 cards")
    t.do("judge", "deck.clear", seat="B", note="found it")
    assert [c.status for c in t.state.calls] == ["open", "closed", "open"]
    assert t.replayed() == t.state


def test_r7_1_result_set_closes_the_result_dispute_call_only() -> None:
    t = Table(staff_start=True).register().start_duel(first="A")
    t.hit("B", 8000)
    t.do("A", "judge.call", reason="Result of duel 1 disputed")
    t.do("B", "result.dispute", reason="misread")
    t.do("judge", "result.set", duel=1, winner="A")
    assert [c.status for c in t.state.calls] == ["open", "closed"]
    assert t.state.wins["A"] == 1


def test_r1_4_a_judge_settles_disputes_in_their_order() -> None:
    """A later disputed entry is not applied before an earlier one is settled: the judge is
    told which to settle first; voiding the later one is always possible."""
    t = event_duel()
    e1 = t.propose("A", ("B", "damage", 1000))
    e2 = t.propose("A", ("B", "damage", 500))
    t.do("B", "lp.reject", entry=e1)
    t.do("B", "lp.reject", entry=e2)
    err = t.refuse("judge", "dispute.settle", "entries_pending", entry=e2, action="apply")
    assert err.details["first"] == e1
    t.refuse("judge", "dispute.settle", "entries_pending", entry=e2, action="correct", amount=1)
    t.do("judge", "dispute.settle", entry=e1, action="apply")
    t.do("judge", "dispute.settle", entry=e2, action="correct", amount=400)
    assert t.state.lp["B"] == 6600
    assert [r.entry for r in t.state.ledger][-2:] == [e1, e2]


@pytest.mark.parametrize(
    "ruling",
    [
        {"cmd": "result.set", "match_winner": "B"},  # a judge's result, or a no-show's
        {"cmd": "result.set", "match_winner": None, "double_loss": True},
        {"cmd": "penalty.record", "seat": "A", "level": "match_loss", "infraction": "slow_play"},
    ],
)
def test_r7_1_a_judges_match_result_closes_the_table(ruling: dict) -> None:
    """One result per match (R7.1): whatever a judge rules for the match, the table closes,
    so nothing on it still waits for a judge: a player's own call, a dispute and its call."""
    t = event_duel()
    t.do("B", "judge.call", reason="ruling on a chain")
    e1 = t.propose("A", ("B", "damage", 3000))
    t.do("B", "lp.reject", entry=e1, reason="it was negated")
    assert [c.status for c in t.state.calls] == ["open", "open"]
    cmd = ruling.pop("cmd")
    t.do("judge", cmd, **ruling)
    assert t.state.phase == "match_over"
    assert [c.status for c in t.state.calls] == ["closed", "closed"]
    assert [d.status for d in t.state.disputes] == ["dropped"]
    board = summarise(view(t.state, privileged=True), number=1, seq=1)
    assert board["alerts"] == []


def test_r7_1_the_view_says_which_disputed_entries_a_judge_corrects_by_amount() -> None:
    """A halving has no amount (`ledger.by_amount`): the judges' page offers the amount by it."""
    t = event_duel()
    e1 = t.propose("A", ("B", "damage", 3000))
    t.do("B", "lp.reject", entry=e1, reason="it was 2500")
    e2 = t.propose("B", ("A", "halve", 0))
    t.do("A", "lp.reject", entry=e2, reason="no")
    seen = {d["entry"]: d["by_amount"] for d in view(t.state, None, privileged=True)["disputes"]}
    assert seen == {e1: True, e2: False}
    t.refuse("judge", "dispute.settle", "invalid", entry=e2, action="correct", amount=100)
