"""Match flow: decks (R2), best of three (R3), order of play (R6), during and after play (R7),
penalties and judges' results (PENALTIES.md)."""

from __future__ import annotations

from typing import Any

import pytest

from server.rules import event_for, view
from server.rules.match import FORMS
from tests.rules_helpers import CHECKLIST, Table


@pytest.fixture
def t() -> Table:
    """Both seats joined, decks declared and confirmed: duel 1's checklist is open."""
    return Table().register()


# --- R1.1 seats ---------------------------------------------------------------------------


def test_r1_1_player_id_is_recorded_per_seat() -> None:
    t = Table().join()
    assert t.state.seats["A"].player_id == "0001"
    # The ID is its own seat's and the staff's: a spectator or the opponent reads "" (an event's
    # card tells one round's player from the next by it, docs/security.md).
    assert view(t.state)["seats"]["B"] == {"name": "Kaiba", "player_id": "", "joined": True}
    assert view(t.state, "A")["seats"]["B"]["player_id"] == ""
    assert view(t.state, "B")["seats"]["B"]["player_id"] == "0002"
    assert view(t.state, privileged=True)["seats"]["B"]["player_id"] == "0002"


@pytest.mark.parametrize(
    ("args", "code"),
    [
        ({"seat": "C", "name": "X"}, "unknown_seat"),
        ({"seat": "A", "name": ""}, "invalid"),
        ({"seat": "A", "name": "x" * 41}, "invalid"),
        ({"seat": "A", "name": "X", "player_id": "9" * 41}, "invalid"),
    ],
)
def test_r1_1_join_refusals(args: dict[str, Any], code: str) -> None:
    Table().refuse("system", "seat.join", code, **args)


def test_r1_1_seat_taken() -> None:
    t = Table().join()
    t.refuse("system", "seat.join", "seat_taken", seat="A", name="Joey")


# --- R2 decks -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("counts", "deck", "rule"),
    [
        ({"main": 39, "extra": 0, "side": 0}, "main", "R2.1"),
        ({"main": 61, "extra": 0, "side": 0}, "main", "R2.1"),
        ({"main": 40, "extra": 16, "side": 0}, "extra", "R2.2"),
        ({"main": 40, "extra": -1, "side": 0}, "extra", "R2.2"),
        ({"main": 40, "extra": 0, "side": 16}, "side", "R2.3"),
        ({"main": 40, "extra": 0, "side": -1}, "side", "R2.3"),
    ],
)
def test_r2_1_r2_3_declared_counts_out_of_range_quote_the_rule(
    counts: dict[str, int], deck: str, rule: str
) -> None:
    t = Table().join()
    err = t.refuse("A", "deck.declare", "deck_size", **counts)
    assert err.message.startswith(rule)
    assert err.details["deck"] == deck and err.details["count"] == counts[deck]


@pytest.mark.parametrize("counts", [(40, 0, 0), (60, 15, 15), (45, 7, 3)])
def test_r2_1_r2_3_declared_counts_in_range(counts: tuple[int, int, int]) -> None:
    t = Table().join()
    main, extra, side = counts
    t.declare("A", main=main, extra=extra, side=side)
    assert view(t.state)["decks"]["A"]["declared"] == {"main": main, "extra": extra, "side": side}


def test_r2_1_r2_3_the_sizes_the_phones_offer_are_the_ones_the_rules_accept() -> None:
    """The view's `forms` are what the deck form offers (no copy on the phone): each bound is
    accepted, one past it refused with the rule quoted."""
    t = Table().join()
    sizes = view(t.state, "A")["forms"]["deck_sizes"]
    assert sizes == {"main": [40, 60], "extra": [0, 15], "side": [0, 15]}
    smallest = {part: low for part, (low, _) in sizes.items()}
    for part, (low, high) in sizes.items():
        for n in (low, high):
            t.declare("A", **{**smallest, part: n})
            assert view(t.state)["decks"]["A"]["declared"][part] == n
        for n in (low - 1, high + 1):
            t.refuse("A", "deck.declare", "deck_size", **{**smallest, part: n})
    forms = view(t.state, "B")["forms"]
    assert forms["checklist"] == ["handshake", "side_shown", "shuffled", "cut"]  # R6.1-R6.4
    assert forms["hands"] == ["rock", "paper", "scissors"]  # R6.5


@pytest.mark.parametrize("bad", [None, "40", 40.0, True])
def test_r2_1_counts_must_be_whole_numbers(bad: Any) -> None:
    t = Table().join()
    t.refuse("A", "deck.declare", "invalid_count", main=bad, extra=0, side=0)


def test_r6_2_declaration_is_confirmed_by_the_opponent_only() -> None:
    t = Table().join()
    t.refuse("A", "deck.confirm", "not_declared", seat="B")
    t.declare("A")
    t.refuse("A", "deck.confirm", "own_entry", seat="A")
    t.do("B", "deck.confirm", seat="A")
    t.refuse("B", "deck.confirm", "already_confirmed", seat="A")
    assert t.state.phase == "registration"
    t.declare("B")
    events = t.do("A", "deck.confirm")
    assert t.types(events) == ["deck.confirmed", "pregame.opened"]
    assert t.state.phase == "pregame"


def test_r2_8_redeclaring_needs_a_new_confirmation() -> None:
    t = Table().join().declare("A")
    t.do("B", "deck.confirm", seat="A")
    t.declare("A", main=41)
    assert not t.state.decks["A"].confirmed


def test_r2_8_no_declaration_once_the_match_is_under_way(t: Table) -> None:
    t.refuse("A", "deck.declare", "wrong_phase", main=41, extra=0, side=0)
    t.start_duel()
    t.refuse("A", "deck.declare", "wrong_phase", main=41, extra=0, side=0)
    t.refuse("A", "deck.confirm", "wrong_phase", seat="B")


# --- R6 order of play ---------------------------------------------------------------------


def test_r6_1_r6_4_checklist(t: Table) -> None:
    t.do("A", "pregame.check", items=["handshake", "side_shown"])
    t.refuse("A", "pregame.check", "already_done", items=["handshake"])
    t.refuse("A", "pregame.check", "invalid", items=["peek"])
    t.refuse("A", "pregame.check", "invalid", items="handshake")
    t.do("A", "pregame.check", items=["shuffled", "cut"])
    assert t.state.pregame.checks["A"] == set(CHECKLIST)
    t.do("B", "pregame.check")  # no items: the whole list
    assert t.state.pregame.checks["B"] == set(CHECKLIST)


def test_r6_1_checklist_only_before_the_duel(t: Table) -> None:
    t.start_duel()
    t.refuse("A", "pregame.check", "wrong_phase", items=["handshake"])


@pytest.mark.parametrize(
    ("a", "b", "winner"),
    [
        ("rock", "scissors", "A"),
        ("scissors", "paper", "A"),
        ("paper", "rock", "A"),
        ("scissors", "rock", "B"),
        ("paper", "scissors", "B"),
        ("rock", "paper", "B"),
    ],
)
def test_r6_5_rps_in_the_app(t: Table, a: str, b: str, winner: str) -> None:
    t.do("A", "rps.pick", hand=a)
    events = t.do("B", "rps.pick", hand=b)
    assert t.types(events) == ["rps.picked", "rps.thrown", "rps.decided"]
    assert t.state.pregame.rps_winner == winner == t.state.pregame.chooser


def test_r6_5_rps_tie_is_thrown_again(t: Table) -> None:
    t.do("A", "rps.pick", hand="rock")
    events = t.do("B", "rps.pick", hand="rock")
    assert t.types(events) == ["rps.picked", "rps.thrown"]
    assert t.state.pregame.chooser is None
    assert t.state.pregame.picks == {"A": None, "B": None}
    t.rps("B")
    assert t.state.pregame.chooser == "B"
    assert len(t.state.pregame.throws) == 2


def test_r6_5_rps_pick_is_secret_until_both_are_in(t: Table) -> None:
    (event,) = t.do("A", "rps.pick", hand="paper")
    assert view(t.state, "A")["pregame"]["my_pick"] == "paper"
    for viewer in ("B", None):
        seen = view(t.state, viewer)
        assert seen["pregame"]["my_pick"] is None
        assert seen["pregame"]["picked"] == {"A": True, "B": False}
        # Every view carries the hands a form offers (`forms`, the same for every table and
        # reader); nothing else in it may name the picked hand.
        assert seen["forms"] == FORMS
        assert "paper" not in repr({k: v for k, v in seen.items() if k != "forms"})
    envelope = {"seq": 9, **event.to_dict()}
    assert event_for(envelope, "A")["data"]["hand"] == "paper"
    assert event_for(envelope, "B")["data"]["hand"] is None
    assert event_for(envelope, None)["data"]["hand"] is None
    assert envelope["data"]["hand"] == "paper"  # the stored envelope is not altered
    other = {"seq": 10, "type": "lp.proposed", "data": {"seat": "A"}}
    assert event_for(other, "B") is other


def test_r6_5_rps_refusals(t: Table) -> None:
    t.refuse("A", "rps.pick", "invalid", hand="lizard")
    t.do("A", "rps.pick", hand="rock")
    t.refuse("A", "rps.pick", "already_picked", hand="paper")
    t.refuse("A", "rps.confirm", "not_pending")
    t.refuse("A", "rps.report", "unknown_seat", winner="C")
    t.do("B", "rps.pick", hand="paper")
    t.refuse("A", "rps.pick", "not_needed", hand="rock")
    t.refuse("A", "rps.report", "not_needed", winner="A")


def test_r6_5_physical_rps_reported_and_confirmed(t: Table) -> None:
    t.do("A", "rps.report", winner="B")
    t.refuse("A", "rps.confirm", "own_entry")
    assert t.state.pregame.chooser is None
    events = t.do("B", "rps.confirm")
    assert t.types(events) == ["rps.decided"] and events[0].data["how"] == "reported"
    assert t.state.pregame.chooser == "B"


@pytest.mark.parametrize(("order", "first"), [("first", "A"), ("second", "B")])
def test_r6_5_winner_chooses_first_or_second(t: Table, order: str, first: str) -> None:
    t.rps("A")
    t.refuse("B", "duel.choose", "not_your_choice", order="first")
    t.refuse("A", "duel.choose", "invalid", order="last")
    t.do("A", "duel.choose", order=order)
    assert t.state.pregame.first == first
    t.checklist().draw()
    assert t.state.turn is not None and (t.state.turn.no, t.state.turn.player) == (1, first)


def test_r6_5_choose_before_rps_is_refused(t: Table) -> None:
    t.refuse("A", "duel.choose", "not_decided", order="first")


def test_r6_6_choosing_twice_or_after_drawing_is_refused(t: Table) -> None:
    t.checklist().rps("A")
    t.do("A", "duel.choose", order="first")
    t.refuse("A", "duel.choose", "already_chosen", order="second")
    t.do("A", "duel.draw")
    t.refuse("A", "duel.choose", "already_chosen", order="second")
    t.refuse("A", "duel.draw", "already_done")


def test_r6_6_drawing_before_the_choice_is_refused(t: Table) -> None:
    t.checklist()
    t.refuse("A", "duel.draw", "not_chosen")
    t.rps("A")
    t.refuse("A", "duel.draw", "not_chosen")


def test_r6_1_drawing_before_the_checklist_is_refused(t: Table) -> None:
    t.rps("A").choose("A")
    t.do("A", "pregame.check", items=["handshake"])
    err = t.refuse("A", "duel.draw", "checklist")
    assert err.details["missing"] == ["cut", "shuffled", "side_shown"]


def test_r6_7_duel_starts_with_the_first_players_turn(t: Table) -> None:
    t.checklist().rps("B").choose("B")
    assert t.types(t.do("A", "duel.draw")) == ["duel.drawn"]
    drawn = ["duel.drawn", "duel.started", "clock.started", "turn.started"]  # R4.1: a casual clock
    assert t.types(t.do("B", "duel.draw")) == drawn
    assert t.state.phase == "duel" and t.state.turn is not None
    assert t.state.turn.player == "B"


def test_r6_6_loser_of_previous_duel_chooses(t: Table) -> None:
    t.win_duel("A")
    t.between()
    assert t.state.phase == "pregame" and t.state.pregame.chooser == "B"
    t.refuse("A", "rps.pick", "not_needed", hand="rock")
    t.refuse("A", "duel.choose", "not_your_choice", order="first")
    t.checklist()
    t.do("B", "duel.choose", order="second")
    t.draw()
    assert t.state.turn is not None and t.state.turn.player == "A"


def test_r6_6_after_a_drawn_duel_rps_decides_again(t: Table) -> None:
    t.start_duel()
    t.do("judge", "result.set", winner=None)
    assert t.state.duels[-1].winner is None
    t.between()
    assert t.state.pregame.chooser is None


# --- turns --------------------------------------------------------------------------------


def test_r6_7_turns_alternate_and_only_the_turn_player_ends_the_turn(t: Table) -> None:
    t.start_duel(first="A")
    t.refuse("B", "turn.end", "not_your_turn", turn=1)
    t.do("A", "turn.end", turn=1)
    assert t.state.turn is not None and (t.state.turn.no, t.state.turn.player) == (2, "B")
    t.refuse("B", "turn.end", "stale_turn", turn=1)
    t.do("B", "turn.end")  # no turn number: the current one
    assert t.state.turn.no == 3


def test_r6_7_no_turn_outside_a_duel(t: Table) -> None:
    t.refuse("A", "turn.end", "wrong_phase")
    t.refuse("A", "duel.concede", "wrong_phase")


def test_r1_4_lp_entries_record_the_turn(t: Table) -> None:
    t.start_duel(first="A").end_turns(2)
    t.hit("A", 100)
    assert t.state.ledger[-1].turn == 3


def test_r3_1_concede(t: Table) -> None:
    t.start_duel()
    events = t.do("B", "duel.concede")
    assert t.types(events) == ["duel.ended"]
    assert t.state.result is not None
    assert (t.state.result.winner, t.state.result.reason) == ("A", "concede")


# --- R7 results ---------------------------------------------------------------------------


def test_r7_3_result_is_final_when_both_confirm(t: Table) -> None:
    t.start_duel().hit("B", 8000)
    t.refuse("A", "result.confirm", "stale_result", duel=2)
    t.do("A", "result.confirm", duel=1)
    t.refuse("A", "result.confirm", "already_confirmed")
    assert t.state.wins == {"A": 0, "B": 0}
    events = t.do("B", "result.confirm")
    assert t.types(events) == ["result.confirmed", "duel.final", "window.opened"]
    assert t.state.wins == {"A": 1, "B": 0} and t.state.phase == "between"
    # R7.3: no appeal after the duel ended
    t.refuse("B", "result.confirm", "wrong_phase")
    t.refuse("B", "result.dispute", "wrong_phase")
    t.refuse("A", "lp.propose", "wrong_phase", changes=[{"seat": "B", "kind": "gain"}])


def test_r7_1_result_dispute_calls_a_judge(t: Table) -> None:
    t.start_duel().hit("B", 8000)
    events = t.do("B", "result.dispute", reason="misread")
    assert t.types(events) == ["judge.called"]
    # Which duel, by code and field (each screen words it); the reason is the player's words.
    assert (t.state.calls[-1].code, t.state.calls[-1].duel) == ("result_disputed", 1)
    assert t.state.calls[-1].reason == "misread"
    # What the call is about is a field, not the words: a player's call that copies them is
    # about nothing.
    assert events[0].data["duel"] == 1 and t.state.calls[-1].duel == 1
    copied = t.do("A", "judge.call", reason="Result of duel 1 disputed")
    assert t.state.calls[-1].duel is None and t.state.calls[-1].entry is None
    # A new call names both, null when none: only a log written before they were has neither,
    # and only such a log links a call to a dispute by when it was written (judge.py).
    assert (copied[0].data["entry"], copied[0].data["duel"]) == (None, None)
    assert events[0].data["entry"] is None


def test_r7_5_deck_check_after_the_duel(t: Table) -> None:
    t.refuse("A", "deck.check", "wrong_phase")
    t.win_duel("A")
    t.refuse("A", "between.ready", "deck_not_checked")
    t.do("A", "deck.check")
    t.refuse("A", "deck.check", "already_done")
    events = t.do("B", "deck.check", ok=False, note="41 cards")
    assert t.types(events) == ["deck.checked", "judge.called"]
    # A deck problem's call (R7.5) by code, its seat by field; the note as written.
    call = t.state.calls[-1]
    assert (call.code, call.deck, call.reason) == ("deck_problem", "B", "41 cards")
    t.do("A", "between.ready")
    t.refuse("A", "between.ready", "already_done")


def test_r6_8_side_exchange_keeps_the_counts(t: Table) -> None:
    t.win_duel("A")
    events = t.do("A", "side.exchange", main={"in": 3, "out": 3}, extra={"in": 1, "out": 1})
    assert t.types(events) == ["side.exchanged"]
    assert t.state.decks["A"].current == t.state.decks["A"].registered


@pytest.mark.parametrize(
    ("args", "deck", "by"),
    [
        ({"main": {"in": 3, "out": 2}}, "main", 1),
        ({"main": {"in": 0, "out": 1}}, "main", -1),
        ({"extra": {"in": 2, "out": 0}}, "extra", 2),
    ],
)
def test_r6_8_exchange_that_changes_the_count_is_refused(
    t: Table, args: dict[str, Any], deck: str, by: int
) -> None:
    t.win_duel("A")
    err = t.refuse("A", "side.exchange", "count_changed", **args)
    assert err.message.startswith("R6.8")
    assert err.details == {"deck": deck, "by": by}


@pytest.mark.parametrize(
    ("args", "code"),
    [
        ({}, "invalid"),
        ({"main": {"in": 0, "out": 0}}, "invalid"),
        ({"main": {"in": 16, "out": 16}}, "invalid_count"),  # side deck holds 15
        ({"main": {"in": -1, "out": -1}}, "invalid_count"),
        ({"main": {"in": "2", "out": "2"}}, "invalid_count"),
        ({"main": {"in": True, "out": True}}, "invalid_count"),
        ({"main": 3}, "invalid"),
        ({"main": [1, 1]}, "invalid"),
        ({"extra": {"in": 15, "out": 16}}, "count_changed"),
    ],
)
def test_r6_8_invalid_exchanges(t: Table, args: dict[str, Any], code: str) -> None:
    t.win_duel("A")
    t.refuse("A", "side.exchange", code, **args)


def test_r6_8_exchange_only_between_duels(t: Table) -> None:
    t.refuse("A", "side.exchange", "wrong_phase", main={"in": 1, "out": 1})
    t.start_duel()
    t.refuse("A", "side.exchange", "wrong_phase", main={"in": 1, "out": 1})


def test_r6_8_exchange_limited_by_deck_size() -> None:
    t = Table().register(main=40, extra=0, side=5)
    t.win_duel("A")
    t.refuse("A", "side.exchange", "invalid_count", extra={"in": 1, "out": 1})
    t.refuse("A", "side.exchange", "invalid_count", main={"in": 6, "out": 6})
    t.do("A", "side.exchange", main={"in": 5, "out": 5})


# --- R3.1 a full match ----------------------------------------------------------------------


def test_r3_1_two_nil_ends_the_match(t: Table) -> None:
    t.win_duel("A").between().win_duel("A", first="B")
    assert t.state.wins == {"A": 2, "B": 0}
    assert t.state.phase == "match_result" and t.state.match.winner == "A"
    assert t.state.match.reason == "wins"


def test_r3_1_full_match_into_duel_three(t: Table) -> None:
    t.win_duel("A", first="A")
    t.between("B")
    t.win_duel("B", first="B")  # B lost duel 1, so B chose
    assert t.state.wins == {"A": 1, "B": 1} and t.state.duel_no == 3
    t.between()
    assert t.state.pregame.chooser == "A"  # A lost duel 2 (R6.6)
    t.win_duel("B", first="A")
    assert t.state.wins == {"A": 1, "B": 2}
    assert [d.winner for d in t.state.duels] == ["A", "B", "B"]
    assert t.state.phase == "match_result"
    t.refuse("A", "between.ready", "wrong_phase")
    # match result confirmed by both (R7.4)
    t.do("A", "match.confirm")
    t.refuse("A", "match.confirm", "already_confirmed")
    t.do("B", "match.confirm")
    assert t.state.phase == "match_over"
    t.refuse("B", "match.confirm", "wrong_phase")
    assert t.replayed() == t.state


def test_r2_7_new_match_reverts_decks_and_needs_both_seats(t: Table) -> None:
    t.win_duel("A").between("A").win_duel("A")
    t.refuse("A", "match.new", "wrong_phase")
    t.do("A", "match.confirm")
    t.do("B", "match.confirm")
    t.do("A", "match.new")
    t.refuse("A", "match.new", "already_done")
    events = t.do("B", "match.new")
    assert t.types(events) == ["match.new_voted", "match.started"]
    s = t.state
    assert s.match_no == 2 and s.phase == "pregame" and s.duel_no == 1
    assert s.wins == {"A": 0, "B": 0} and s.duels == () and s.lp == {"A": 8000, "B": 8000}
    assert s.decks["A"].current == s.decks["A"].registered
    assert s.pregame.chooser is None  # rock-paper-scissors again
    assert s.clock.status == "idle"
    t.refuse("A", "deck.declare", "wrong_phase", main=40, extra=0, side=0)  # R2.8
    t.start_duel()
    assert t.propose("A", ("B", "damage", 1)) == 3  # entry numbers continue on the sheet


def test_r2_7_new_match_with_unconfirmed_decks_goes_back_to_registration() -> None:
    t = Table().join()
    t.do("judge", "result.set", match_winner="A")
    t.do("A", "match.new")
    t.do("B", "match.new")
    assert t.state.phase == "registration"


# --- penalties and judges' results --------------------------------------------------------


def test_r8_duel_loss_penalty_during_a_duel(t: Table) -> None:
    t.start_duel()
    events = t.do("judge", "penalty.record", seat="A", level="duel_loss", infraction="deck_problem")
    assert t.types(events) == ["penalty.recorded", "duel.ended", "duel.final", "window.opened"]
    assert t.state.wins == {"A": 0, "B": 1}
    assert t.state.duels[-1].reason == "penalty"
    p = t.state.penalties[-1]
    assert (p.seat, p.level, p.infraction, p.judge, p.duel) == (
        "A",
        "duel_loss",
        "deck_problem",
        "Kaiba",
        1,
    )


def test_r8_duel_loss_penalty_between_duels_applies_to_the_next_duel(t: Table) -> None:
    t.win_duel("A")
    assert t.state.duel_no == 2
    t.do("judge", "penalty.record", seat="A", level="duel_loss", infraction="tardiness")
    assert t.state.wins == {"A": 1, "B": 1}
    assert t.state.duels[-1].no == 2 and t.state.duel_no == 3
    t.between()
    assert t.state.pregame.chooser == "A"  # the loser of duel 2 chooses


def test_r2_8_duel_loss_before_declaring_leaves_declaration_open() -> None:
    t = Table().join()
    t.do("judge", "penalty.record", seat="A", level="duel_loss", infraction="tardiness")
    assert t.state.phase == "between" and t.state.wins == {"A": 0, "B": 1}
    t.do("A", "deck.check")
    t.refuse("A", "between.ready", "not_declared")
    t.declare("A").declare("B")
    t.do("A", "deck.confirm")
    t.do("B", "deck.confirm")
    t.do("A", "deck.check")
    t.do("B", "deck.check")
    assert t.state.phase == "between"
    t.do("A", "between.ready")
    t.do("B", "between.ready")
    assert t.state.phase == "pregame" and t.state.pregame.chooser == "A"
    t.refuse("A", "deck.declare", "wrong_phase", main=40, extra=0, side=0)


def test_r8_duel_loss_penalty_on_result_pending(t: Table) -> None:
    t.start_duel().hit("B", 8000)
    t.do("judge", "penalty.record", seat="A", level="duel_loss", infraction="cheating")
    assert t.state.wins == {"A": 0, "B": 1}


def test_r8_duel_loss_penalty_deciding_the_match(t: Table) -> None:
    t.win_duel("B")
    t.do("judge", "penalty.record", seat="A", level="duel_loss", infraction="slow_play")
    assert t.state.phase == "match_result" and t.state.match.winner == "B"


@pytest.mark.parametrize("level", ["match_loss", "disqualification", "disqualification_total"])
def test_r8_match_loss_penalties_end_the_match(t: Table, level: str) -> None:
    t.start_duel()
    t.do("judge", "penalty.record", seat="B", level=level, infraction="cheating")
    assert t.state.phase == "match_over"
    assert (t.state.match.winner, t.state.match.reason) == ("A", level)
    t.refuse("judge", "penalty.record", "wrong_phase", seat="A", level=level, infraction="other")
    t.refuse(
        "judge", "penalty.record", "wrong_phase", seat="A", level="duel_loss", infraction="other"
    )


@pytest.mark.parametrize("level", ["caution", "warning"])
def test_r8_cautions_and_warnings_are_recorded_only(t: Table, level: str) -> None:
    t.start_duel()
    events = t.do("judge", "penalty.record", seat="A", level=level, infraction="slow_play")
    assert t.types(events) == ["penalty.recorded"]
    assert t.state.phase == "duel"


@pytest.mark.parametrize(
    ("args", "code"),
    [
        ({"seat": "C", "level": "warning", "infraction": "other"}, "unknown_seat"),
        ({"seat": "A", "level": "ban", "infraction": "other"}, "invalid"),
        ({"seat": "A", "level": "warning", "infraction": "rudeness"}, "invalid"),
    ],
)
def test_r8_penalty_refusals(t: Table, args: dict[str, Any], code: str) -> None:
    t.refuse("judge", "penalty.record", code, **args)
    t.refuse("A", "penalty.record", "forbidden", **args)


def test_r7_1_judge_result_set_during_a_duel(t: Table) -> None:
    t.start_duel()
    t.refuse("judge", "result.set", "stale_result", winner="B", duel=2)
    t.refuse("judge", "result.set", "unknown_seat", winner="C")
    events = t.do("judge", "result.set", winner="B")
    assert t.types(events)[-3:] == ["duel.ended", "duel.final", "window.opened"]
    assert t.state.wins == {"A": 0, "B": 1}


def test_r7_1_judge_result_set_overrides_a_pending_result(t: Table) -> None:
    t.start_duel().hit("B", 8000)
    t.do("A", "result.confirm")
    t.do("judge", "result.set", winner="B", duel=1)
    assert t.state.wins == {"A": 0, "B": 1}
    t.refuse("judge", "result.set", "stale_result", winner="A", duel=1)  # duel 1 is recorded


def test_r7_1_judge_sets_the_match_result(t: Table) -> None:
    t.start_duel()
    t.refuse("judge", "result.set", "unknown_seat", match_winner="C")
    t.do("judge", "result.set", match_winner=None)
    assert t.state.phase == "match_over" and t.state.match.winner is None
    assert t.state.match.decided
    t.refuse("judge", "result.set", "wrong_phase", match_winner="A")


def test_r7_1_r4_4_judge_calls_ack_and_close(t: Table) -> None:
    t.do("A", "judge.call", reason="R4.4 stalling?")
    t.do("A", "judge.call")
    t.do("A", "judge.call")
    t.refuse("A", "judge.call", "too_many")
    t.do("judge", "judge.ack", call=1)
    t.refuse("judge", "judge.ack", "already_done", call=1)
    t.do("judge", "judge.close", call=1, note="no stalling")
    t.refuse("judge", "judge.close", "already_done", call=1)
    t.refuse("judge", "judge.ack", "not_found", call=9)
    assert t.state.calls[0].status == "closed" and t.state.calls[0].note == "no stalling"
    t.do("A", "judge.call")  # a closed call frees a slot


def test_evolve_copies_the_state_with_the_changes_and_refuses_an_unknown_field():
    import pytest

    from server.rules import EMPTY

    moved = EMPTY.evolve(phase="duel", duel_no=2)
    assert (moved.phase, moved.duel_no, EMPTY.phase, EMPTY.duel_no) == (
        "duel",
        2,
        "registration",
        1,
    )
    assert moved == EMPTY.__class__(**{**EMPTY.__dict__, "phase": "duel", "duel_no": 2})
    with pytest.raises(TypeError, match="no field 'phse'"):
        EMPTY.evolve(phse="duel")


# --- R3.1 / R3.3 at most three duels --------------------------------------------------------


def draw_duel(t: Table, first: str = "A") -> Table:
    """A duel in which both players reach 0 together (R3.3), result confirmed."""
    if t.state.phase != "duel":
        t.start_duel(first)
    entry = t.propose("A", ("A", "damage", 8000), ("B", "damage", 8000))
    t.confirm("B", entry)
    t.confirm_result()
    return t


def test_r3_3_drawn_third_duel_at_one_all_goes_to_the_extra_duel(t: Table) -> None:
    t.win_duel("A").between().win_duel("B", first="B").between()
    draw_duel(t)
    assert len(t.state.duels) == 3 and t.state.wins == {"A": 1, "B": 1}
    assert t.state.phase == "between" and t.state.extra_duel
    assert t.state.time.stage == "extra_duel" and not t.state.match.decided
    play = t.between()
    assert play.state.pregame.chooser is None  # rock-paper-scissors for the Extra Duel
    t.start_duel(first="B")
    assert t.state.duel_no == 4 and t.state.extra_duel
    t.hit("A", 1000)
    t.end_turns(4)
    t.confirm_result()
    assert (t.state.match.winner, t.state.match.reason) == ("B", "extra_duel")


def test_r3_3_after_three_duels_more_wins_takes_the_match(t: Table) -> None:
    draw_duel(t).between()
    t.win_duel("A", first="A").between()
    draw_duel(t, first="B")
    assert t.state.wins == {"A": 1, "B": 0} and len(t.state.duels) == 3
    assert t.state.phase == "match_result"
    assert (t.state.match.winner, t.state.match.reason) == ("A", "most_wins")


def test_r3_1_three_drawn_duels_go_to_the_extra_duel_not_a_fourth(t: Table) -> None:
    draw_duel(t).between()
    draw_duel(t).between()
    draw_duel(t)
    assert t.state.wins == {"A": 0, "B": 0} and t.state.extra_duel
    assert t.state.phase == "between"


def test_r3_3_level_after_three_duels_is_a_drawn_match_where_the_rule_set_draws() -> None:
    t = Table("ocg-2011-swiss").register()
    t.win_duel("A").between().win_duel("B", first="B").between()
    draw_duel(t)
    assert t.state.phase == "match_result"
    assert (t.state.match.decided, t.state.match.winner) == (True, None)


# --- R7.5 (reading) a failed deck check stops the table until a judge clears it -------------


def test_r7_5_failed_deck_check_blocks_the_next_duel_until_a_judge_clears_it(t: Table) -> None:
    t.win_duel("A")
    t.do("A", "deck.check", ok=True)
    events = t.do("B", "deck.check", ok=False, note="39 cards")
    assert t.types(events) == ["deck.checked", "judge.called"]
    assert view(t.state)["decks"]["B"]["check_failed"] is True
    t.refuse("B", "between.ready", "deck_check_failed")
    t.do("A", "between.ready")
    assert t.state.phase == "between"
    t.refuse("A", "deck.clear", "forbidden", seat="B")
    t.refuse("judge", "deck.clear", "not_failed", seat="A")
    t.refuse("judge", "deck.clear", "unknown_seat", seat="C")
    events = t.do("judge", "deck.clear", seat="B", note="found the 40th card")
    # The ruling answers the call the failed check made (R7.1).
    assert t.types(events) == ["deck.cleared", "judge.closed"]
    assert t.state.calls[-1].status == "closed" and t.state.calls[-1].deck == "B"
    assert view(t.state)["decks"]["B"]["check_failed"] is False
    t.refuse("judge", "deck.clear", "not_failed", seat="B")
    t.do("B", "between.ready")
    assert t.state.phase == "pregame"
    assert t.replayed() == t.state


def test_r7_5_failed_check_after_the_last_duel_holds_the_new_match(t: Table) -> None:
    """No check is asked after the duel that ends the match; a failed one reported then
    still waits for the judge before the next match."""
    t.win_duel("A").between().win_duel("A", first="B")
    assert t.state.phase == "match_result"
    t.do("B", "deck.check", ok=False, note="41 cards")
    t.do("A", "match.confirm")
    t.do("B", "match.confirm")
    assert t.state.phase == "match_over"
    t.refuse("A", "match.new", "deck_check_failed")
    t.do("judge", "deck.clear", seat="B")
    t.do("A", "match.new")
    t.do("B", "match.new")
    assert t.state.match_no == 2 and t.state.phase == "pregame"


# --- R7.3 (reading) a seat that confirmed the result cannot dispute it -----------------------


def test_r7_3_a_seat_that_confirmed_the_result_cannot_dispute_it(t: Table) -> None:
    t.start_duel().hit("B", 8000)
    t.do("A", "result.confirm")
    t.refuse("A", "result.dispute", "already_confirmed", reason="changed my mind")
    events = t.do("B", "result.dispute", reason="misread")
    assert t.types(events) == ["judge.called"]


def test_r7_1_judge_sets_a_duel_result_between_duels(t: Table) -> None:
    t.win_duel("A")
    assert t.state.phase == "between"
    t.refuse("judge", "result.set", "stale_result", winner="B", duel=1)
    events = t.do("judge", "result.set", winner="B", duel=t.state.duel_no)
    assert "duel.final" in t.types(events)
    assert t.state.wins == {"A": 1, "B": 1}
    assert t.state.duels[-1].reason == "judge"


def test_r7_1_judge_sets_duel_one_before_it_begins(t: Table) -> None:
    t.do("judge", "result.set", winner="A", duel=1)
    assert t.state.wins == {"A": 1, "B": 0}
    t.do("judge", "result.set", match_winner="A")
    t.refuse("judge", "result.set", "wrong_phase", winner="A", duel=t.state.duel_no)


def test_r3_1_the_view_says_whether_the_waiting_result_ends_the_match(t: Table) -> None:
    """The phones read it (the deciding duel's one-tap confirmation); they do not count."""
    t.start_duel().hit("B", 8000)
    result = view(t.state, "A")["result"]
    assert (result["ends_match"], result["wins_after"]) == (False, {"A": 1, "B": 0})
    assert result["wins_match"] is False
    t.confirm_result().between()
    t.start_duel(first="B").hit("B", 8000)
    result = view(t.state, "B")["result"]
    assert (result["ends_match"], result["wins_after"]) == (True, {"A": 2, "B": 0})
    assert result["wins_match"] is True  # A's second win: one tap may confirm the match too
    t.confirm_result()
    assert t.state.phase == "match_result" and t.state.wins == {"A": 2, "B": 0}


def test_r8_the_judges_view_offers_the_penalties_the_rules_allow(t: Table) -> None:
    from server.rules.judge import INFRACTIONS, LEVELS

    t.start_duel()
    choices = view(t.state, None, privileged=True)["penalty_choices"]
    assert choices == {
        "levels": list(LEVELS),
        "infractions": list(INFRACTIONS),
        "decide_match": ["match_loss", "disqualification", "disqualification_total"],
    }
    assert view(t.state, "A")["penalty_choices"] is None  # a phone is offered none
    assert view(t.state, None)["penalty_choices"] is None
    t.do("judge", "penalty.record", seat="B", level="match_loss", infraction="cheating")
    offered = view(t.state, None, privileged=True)["penalty_choices"]["levels"]
    assert offered == ["caution", "warning"]
    for level in LEVELS:  # what is offered is accepted, what is not is refused
        if level in offered:
            t.decide("judge", "penalty.record", seat="A", level=level, infraction="other")
        else:
            t.refuse("judge", "penalty.record", "wrong_phase", seat="A", level=level,
                     infraction="other")  # fmt: skip
