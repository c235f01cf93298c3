"""The LP ledger: the score sheet both seats confirm (R1.4, R3.2, R3.3, R7.4)."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest

from server.rules import Actor, replay, view
from tests.rules_helpers import Table


@pytest.fixture
def t() -> Table:
    """A duel in progress, A's turn 1, both at 8000."""
    return Table().register().start_duel(first="A")


def test_r3_2_duel_starts_at_8000(t: Table) -> None:
    assert t.state.lp == {"A": 8000, "B": 8000}


def test_r7_4_proposal_waits_for_the_other_seat(t: Table) -> None:
    entry = t.propose("A", ("B", "damage", 1200), note="battle")
    assert t.state.lp == {"A": 8000, "B": 8000}
    assert [p.entry for p in t.state.pending] == [entry]
    events = t.confirm("B", entry)
    assert t.types(events) == ["lp.confirmed", "lp.applied"]
    assert t.state.lp == {"A": 8000, "B": 6800}
    row = t.state.ledger[-1]
    assert (row.entry, row.by, row.confirmed_by, row.note) == (entry, "A", "B", "battle")
    assert row.duel == 1 and row.turn == 1 and row.lp == {"A": 8000, "B": 6800}
    assert t.state.pending == ()


def test_r7_4_a_seat_may_propose_its_own_loss(t: Table) -> None:
    t.lp("A", "cost", 1000, by="A")
    assert t.state.lp["A"] == 7000
    assert t.state.ledger[-1].confirmed_by == "B"


def test_r7_1_reject_makes_a_dispute_and_calls_a_judge() -> None:
    t = Table(staff_start=True).register().start_duel(first="A")
    entry = t.propose("A", ("B", "damage", 3000))
    events = t.do("B", "lp.reject", entry=entry, reason="it was 2000")
    assert t.types(events) == ["lp.rejected", "judge.called"]
    assert t.state.lp["B"] == 8000 and t.state.pending == ()
    (d,) = t.state.disputes
    assert (d.entry, d.rejected_by, d.reason, d.status) == (entry, "B", "it was 2000", "open")
    (call,) = t.state.calls
    # The call names its entry by code and field (each screen words it); the reason is the
    # rejecting player's words, as written.
    assert call.seat == "B" and call.status == "open"
    assert (call.code, call.entry, call.reason) == ("lp_disputed", entry, "it was 2000")


def test_r7_1_judge_settles_dispute_apply_or_void() -> None:
    t = Table(staff_start=True).register().start_duel(first="A")
    e1 = t.propose("A", ("B", "damage", 3000))
    t.do("B", "lp.reject", entry=e1)
    t.do("judge", "dispute.settle", entry=e1, action="apply", note="replayed the battle")
    assert t.state.lp["B"] == 5000
    assert t.state.ledger[-1].confirmed_by == "judge:Kaiba"
    assert t.state.disputes[0].status == "applied"
    t.refuse("judge", "dispute.settle", "already_settled", entry=e1, action="void")
    e2 = t.propose("B", ("A", "damage", 100))
    t.do("A", "lp.reject", entry=e2)
    t.do("judge", "dispute.settle", entry=e2, action="void")
    assert t.state.lp["A"] == 8000 and t.state.disputes[1].status == "void"
    t.refuse("judge", "dispute.settle", "not_found", entry=99, action="void")
    e3 = t.propose("B", ("A", "damage", 100))
    t.do("A", "lp.reject", entry=e3)
    t.refuse("judge", "dispute.settle", "invalid", entry=e3, action="maybe")


def test_r7_1_settling_a_dispute_closes_its_own_call_not_one_worded_like_it() -> None:
    """The call a rejection makes is the dispute's by its entry number, not by its wording: a
    player's own call that reads like it stays open when the dispute is settled (R7.1)."""
    t = Table(staff_start=True).register().start_duel(first="A")
    entry = t.propose("A", ("B", "damage", 3000))
    t.do("A", "judge.call", reason=f"LP entry #{entry} disputed before it is even rejected")
    t.do("B", "lp.reject", entry=entry, reason="it was 2000")
    t.do("A", "judge.call", reason=f"LP entry #{entry} disputed: please hurry")
    t.do("judge", "dispute.settle", entry=entry, action="void")
    assert [c.status for c in t.state.calls] == ["open", "closed", "open"]
    assert [c.entry for c in t.state.calls] == [None, entry, None]
    assert t.replayed() == t.state


def test_r7_1_a_log_whose_calls_name_no_entry_still_links_the_disputes_call() -> None:
    """A log written before judge calls named their LP entry replays with the rejection's call
    linked to its dispute (written in the same step) and a player's call, worded alike, not."""
    t = Table(staff_start=True).register().start_duel(first="A")
    entry = t.propose("A", ("B", "damage", 3000))
    t.do("B", "lp.reject", entry=entry, reason="it was 2000")
    t.do("B", "judge.call", reason=f"LP entry #{entry} disputed: please hurry")
    old = [
        replace(e, data={k: v for k, v in e.data.items() if k != "entry"})
        if e.type == "judge.called"
        else e
        for e in t.log
    ]
    assert old != t.log  # the rejection's call named its entry
    assert [c.entry for c in replay(old).calls] == [entry, None]
    assert replay(old) == t.state


def test_r1_4_withdraw_removes_pending_entry(t: Table) -> None:
    entry = t.propose("A", ("B", "damage", 500))
    assert t.types(t.do("A", "lp.withdraw", entry=entry)) == ["lp.withdrawn"]
    assert t.state.pending == () and t.state.lp["B"] == 8000
    t.refuse("B", "lp.confirm", "not_pending", entry=entry)


def test_r1_4_later_entry_confirmed_first_waits_for_the_earlier(t: Table) -> None:
    e1 = t.propose("A", ("B", "damage", 1000))
    e2 = t.propose("A", ("B", "halve", 0))
    events = t.confirm("B", e2)
    assert t.types(events) == ["lp.confirmed"]  # waits behind e1
    assert t.state.lp["B"] == 8000
    t.refuse("B", "lp.confirm", "already_confirmed", entry=e2)
    events = t.confirm("B", e1)
    assert t.types(events) == ["lp.confirmed", "lp.applied", "lp.applied"]
    # order of proposal: 8000 - 1000 = 7000, then halved = 3500 (not 4000 - 1000 = 3000)
    assert [r.entry for r in t.state.ledger] == [e1, e2]
    assert t.state.lp["B"] == 3500


def test_r1_4_withdrawing_the_earlier_entry_releases_the_later(t: Table) -> None:
    e1 = t.propose("A", ("B", "damage", 1000))
    e2 = t.propose("A", ("B", "damage", 200))
    t.confirm("B", e2)
    events = t.do("A", "lp.withdraw", entry=e1)
    assert t.types(events) == ["lp.withdrawn", "lp.applied"]
    assert t.state.lp["B"] == 7800


def test_r1_4_rejecting_the_earlier_entry_holds_the_later_until_it_is_settled(t: Table) -> None:
    """R1.4, R7.1: a rejected entry is a dispute, and what is queued behind it waits for its
    settlement (here the proposer's withdrawal at a casual table), then applies."""
    e1 = t.propose("A", ("B", "damage", 1000))
    e2 = t.propose("A", ("B", "damage", 200))
    t.confirm("B", e2)
    events = t.do("B", "lp.reject", entry=e1)
    assert t.types(events) == ["lp.rejected"]
    assert t.state.lp["B"] == 8000
    events = t.do("A", "dispute.withdraw", entry=e1)
    assert t.types(events) == ["dispute.closed", "lp.applied"]
    assert t.state.lp["B"] == 7800


def test_r7_4_simultaneous_damage_confirmed_as_one(t: Table) -> None:
    entry = t.propose("A", ("A", "damage", 800), ("B", "damage", 800), note="Ring of Destruction")
    t.confirm("B", entry)
    assert t.state.lp == {"A": 7200, "B": 7200}
    assert len(t.state.ledger) == 1 and len(t.state.ledger[0].changes) == 2


@pytest.mark.parametrize(
    ("start", "kind", "amount", "after"),
    [
        (8000, "halve", 0, 4000),
        (7999, "halve", 0, 4000),  # halving rounds up
        (1, "halve", 0, 1),
        (8000, "set", 1234, 1234),
        (8000, "gain", 500, 8500),
        (8000, "cost", 1000, 7000),
        (1000, "damage", 5000, 0),  # never below 0
        (1000, "cost", 1000, 0),
    ],
)
def test_r1_4_kinds_of_change(t: Table, start: int, kind: str, amount: int, after: int) -> None:
    if start != 8000:
        t.do("judge", "lp.correct", changes=[{"seat": "B", "kind": "set", "amount": start}])
    t.lp("B", kind, amount)
    assert t.state.lp["B"] == after
    assert min(t.state.lp.values()) >= 0


def test_r1_4_halve_ignores_the_amount(t: Table) -> None:
    t.lp("B", "halve", 999)
    assert t.state.lp["B"] == 4000
    assert t.state.ledger[-1].changes[0].amount == 0


def test_r3_1_lp_zero_ends_the_duel(t: Table) -> None:
    lethal = t.propose("A", ("B", "damage", 9000))
    waiting = t.propose("B", ("A", "damage", 100))
    events = t.confirm("B", lethal)
    assert t.types(events) == ["lp.confirmed", "lp.applied", "lp.cancelled", "duel.ended"]
    assert t.state.lp["B"] == 0 and t.state.phase == "duel_result"
    assert t.state.result is not None and t.state.result.winner == "A"
    assert t.state.result.reason == "lp_zero"
    assert t.state.pending == ()
    t.refuse("B", "lp.confirm", "not_pending", entry=waiting)


def test_r3_3_both_at_zero_is_a_drawn_duel(t: Table) -> None:
    t.do("judge", "lp.correct", changes=[{"seat": "A", "kind": "set", "amount": 500}])
    entry = t.propose("B", ("A", "damage", 500), ("B", "damage", 8000))
    t.confirm("A", entry)
    assert t.state.lp == {"A": 0, "B": 0}
    assert t.state.result is not None and t.state.result.winner is None
    t.confirm_result()
    assert t.state.wins == {"A": 0, "B": 0}  # counts for neither
    assert t.state.duels[-1].winner is None
    assert t.state.phase == "between" and t.state.duel_no == 2


def test_r7_2_judge_correction_is_a_new_entry_applied_at_once(t: Table) -> None:
    t.hit("B", 1000)
    events = t.do(
        "judge", "lp.correct", changes=[{"seat": "B", "kind": "gain", "amount": 1000}], note="fix"
    )
    assert t.types(events) == ["lp.applied"]
    assert t.state.lp["B"] == 8000
    assert [r.entry for r in t.state.ledger] == [1, 2]
    assert t.state.ledger[-1].by == "judge:Kaiba"


def test_r1_4_entry_numbers_keep_counting_across_duels(t: Table) -> None:
    t.win_duel("A")
    t.between().start_duel(first="B")
    entry = t.propose("A", ("B", "damage", 10))
    assert entry == 2  # entry 1 ended duel 1; numbers are never reused
    assert entry > max(r.entry for r in t.state.ledger)


# --- refusals ----------------------------------------------------------------------------

DAMAGE = [{"seat": "B", "kind": "damage", "amount": 100}]


@pytest.mark.parametrize(
    ("who", "cmd", "args", "code"),
    [
        ("A", "lp.confirm", {"entry": 1}, "own_entry"),  # confirm own entry
        ("A", "lp.reject", {"entry": 1}, "own_entry"),  # reject own entry
        ("B", "lp.withdraw", {"entry": 1}, "not_yours"),
        ("B", "lp.confirm", {"entry": 42}, "not_pending"),
        ("B", "lp.confirm", {"entry": "1"}, "not_pending"),
        ("judge", "lp.confirm", {"entry": 1}, "forbidden"),
        ("system", "lp.propose", {"changes": DAMAGE}, "forbidden"),
        ("A", "lp.correct", {"changes": DAMAGE}, "forbidden"),
        ("A", "no.such", {}, "unknown_command"),
    ],
)
def test_r7_4_refused_confirmations(
    t: Table, who: str, cmd: str, args: dict[str, Any], code: str
) -> None:
    t.propose("A", ("B", "damage", 100))
    t.refuse(who, cmd, code, **args)


def test_r7_4_confirm_twice_is_refused(t: Table) -> None:
    entry = t.propose("A", ("B", "damage", 100))
    t.confirm("B", entry)
    t.refuse("B", "lp.confirm", "already_confirmed", entry=entry)
    t.refuse("B", "lp.reject", "already_confirmed", entry=entry)
    t.refuse("A", "lp.withdraw", "already_confirmed", entry=entry)


def test_r7_4_confirm_or_withdraw_after_withdrawal_is_refused(t: Table) -> None:
    entry = t.propose("A", ("B", "damage", 100))
    t.do("A", "lp.withdraw", entry=entry)
    t.refuse("B", "lp.confirm", "not_pending", entry=entry)
    t.refuse("A", "lp.withdraw", "not_pending", entry=entry)


def test_r7_4_confirm_after_rejection_is_refused(t: Table) -> None:
    entry = t.propose("A", ("B", "damage", 100))
    t.do("B", "lp.reject", entry=entry)
    t.refuse("B", "lp.confirm", "not_pending", entry=entry)


def test_r7_4_waiting_entry_cannot_be_withdrawn_or_rejected(t: Table) -> None:
    t.propose("A", ("B", "damage", 100))
    e2 = t.propose("A", ("B", "damage", 100))
    t.confirm("B", e2)
    t.refuse("A", "lp.withdraw", "already_confirmed", entry=e2)
    t.refuse("B", "lp.reject", "already_confirmed", entry=e2)


# An entry's shape (1-2 changes, a known seat and kind, an amount in range, one change per
# seat: R1.4) is checked once, at the edge: tests/test_schemas.py, test_r1_4_invalid_entries_
# are_refused_at_the_edge.


@pytest.mark.parametrize("amount", [0, 1, 1_000_000])
def test_r1_4_amount_bounds_are_accepted(t: Table, amount: int) -> None:
    t.propose("A", ("B", "damage", amount))


def test_r1_4_no_lp_entry_outside_a_duel() -> None:
    t = Table().register()
    t.refuse("A", "lp.propose", "wrong_phase", changes=DAMAGE)
    t.refuse("judge", "lp.correct", "wrong_phase", changes=DAMAGE)
    t.start_duel().hit("B", 8000)
    t.refuse("A", "lp.propose", "wrong_phase", changes=DAMAGE)


def test_r7_4_unknown_seat_actor_is_refused(t: Table) -> None:
    t.refuse(Actor("seat", "C"), "lp.propose", "forbidden", changes=DAMAGE)


def test_r1_1_seat_must_have_joined() -> None:
    t = Table()
    t.do("system", "seat.join", seat="A", name="Yugi")
    t.refuse("B", "judge.call", "forbidden")


def test_r1_4_log_replays_to_the_same_state(t: Table) -> None:
    e1 = t.propose("A", ("B", "damage", 1000))
    e2 = t.propose("B", ("A", "gain", 300))
    t.confirm("A", e2)
    t.do("B", "lp.reject", entry=e1)
    t.hit("A", 8300)
    assert t.replayed() == t.state


def test_r1_4_at_most_three_pending_entries_per_seat(t: Table) -> None:
    entries = [t.propose("A", ("B", "damage", 100)) for _ in range(3)]
    t.refuse("A", "lp.propose", "too_many_pending", changes=[{"seat": "B", "kind": "damage"}])
    t.propose("B", ("A", "damage", 100))  # the other seat's own count
    t.confirm("B", entries[0])
    t.propose("A", ("B", "damage", 100))  # one applied: room for one more


# --- casual tables: the players settle a rejection between them (R7.1, R7.4) -------------


def test_r7_1_casual_reject_tells_the_proposer_and_calls_no_judge(t: Table) -> None:
    entry = t.propose("A", ("B", "damage", 1800))
    events = t.do("B", "lp.reject", entry=entry, reason="it was 1600")
    assert t.types(events) == ["lp.rejected"]
    assert t.state.calls == ()
    (d,) = t.state.disputes
    assert (d.proposal.by, d.reason, d.status) == ("A", "it was 1600", "open")
    # The proposer sees the reason in the view's disputes.
    (row,) = view(t.state, seat="A")["disputes"]
    assert (row["by"], row["reason"], row["status"]) == ("A", "it was 1600", "open")


def test_r7_1_casual_proposer_withdraws_a_rejected_entry(t: Table) -> None:
    entry = t.propose("A", ("B", "damage", 1800))
    t.do("B", "lp.reject", entry=entry, reason="no")
    t.refuse("B", "dispute.withdraw", "not_yours", entry=entry)
    t.refuse("judge", "dispute.withdraw", "forbidden", entry=entry)
    t.refuse("A", "dispute.withdraw", "not_found", entry=99)
    assert t.types(t.do("A", "dispute.withdraw", entry=entry)) == ["dispute.closed"]
    assert t.state.disputes[0].status == "withdrawn"
    assert t.state.lp == {"A": 8000, "B": 8000}
    t.refuse("A", "dispute.withdraw", "already_settled", entry=entry)
    t.end_turn()  # nothing left open holds the turn (R5.5)
    assert t.state.turn is not None and t.state.turn.no == 2


def test_r7_4_casual_proposer_reproposes_a_corrected_entry(t: Table) -> None:
    entry = t.propose("A", ("B", "damage", 1800), note="Dark Magician")
    t.do("B", "lp.reject", entry=entry, reason="it was 1600")
    # an empty correction is the edge's refusal (tests/test_schemas.py: test_invalid_arguments)
    events = t.do(
        "A",
        "dispute.repropose",
        entry=entry,
        changes=[{"seat": "B", "kind": "damage", "amount": 1600}],
    )
    assert t.types(events) == ["dispute.closed", "lp.proposed"]
    assert t.state.disputes[0].status == "corrected"
    (p,) = t.state.pending
    assert p.entry != entry and p.by == "A" and p.note == "Dark Magician"
    assert t.state.lp["B"] == 8000  # the corrected entry waits for B's yes like any other
    t.confirm("B", p.entry)
    assert t.state.lp["B"] == 6400
    t.refuse("A", "dispute.repropose", "already_settled", entry=entry, changes=[])


def test_r7_1_event_table_dispute_stays_with_the_judge() -> None:
    t = Table(staff_start=True).register().start_duel(first="A")
    entry = t.propose("A", ("B", "damage", 1800))
    t.do("B", "lp.reject", entry=entry, reason="it was 1600")
    t.refuse("A", "dispute.withdraw", "judge_settles", entry=entry)
    change = [{"seat": "B", "kind": "damage", "amount": 1600}]
    t.refuse("A", "dispute.repropose", "judge_settles", entry=entry, changes=change)
    assert t.state.disputes[0].status == "open"


def test_r7_1_casual_dispute_does_not_outlive_its_duel(t: Table) -> None:
    entry = t.propose("A", ("B", "damage", 1800))
    t.do("B", "lp.reject", entry=entry, reason="no")
    t.do("A", "duel.concede")
    assert t.state.disputes[0].status == "dropped"
    assert t.state.calls == ()
