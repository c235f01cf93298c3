"""The round clock (R4) and the time-over procedure (R5), with an injected clock."""

from __future__ import annotations

from typing import Any

import pytest

from server.rules import next_due_ms, view
from tests.rules_helpers import MIN, SEC, T0, Table

LIMIT = 40 * MIN


def timed(ruleset: str = "ocg-2008", **overrides: Any) -> Table:
    """A registered table whose clock a judge started at T0."""
    return Table(ruleset, **overrides).register().start_clock()


def time_up(t: Table) -> list[str]:
    """Let the clock run out and the server tick."""
    t.at(LIMIT if t.state.ruleset.match_minutes == 40 else t.state.ruleset.match_ms)
    return t.types(t.tick())


# --- R4.1 the clock -----------------------------------------------------------------------


def test_r4_1_both_seats_start_a_casual_clock() -> None:
    t = Table().register()
    assert t.types(t.do("A", "clock.start")) == ["clock.start_voted"]
    assert t.state.clock.status == "idle"
    t.refuse("A", "clock.start", "already_done")
    t.advance(5 * SEC)
    assert t.types(t.do("B", "clock.start")) == ["clock.start_voted", "clock.started"]
    c = t.state.clock
    assert (c.status, c.started_ms, c.duration_ms) == ("running", T0 + 5 * SEC, LIMIT)
    t.refuse("judge", "clock.start", "clock_started")


def test_r4_1_a_judge_starts_the_clock_at_once() -> None:
    t = Table().register()
    assert t.types(t.do("judge", "clock.start")) == ["clock.started"]
    assert t.state.clock.deadline_ms == T0 + LIMIT
    assert next_due_ms(t.state) == T0 + LIMIT
    t.refuse("system", "clock.start", "forbidden")


def test_r4_1_pause_resume_extend_math() -> None:
    t = timed()
    t.at(10 * MIN)
    assert t.state.clock.remaining(t.now) == 30 * MIN
    t.do("judge", "clock.pause")
    t.refuse("judge", "clock.pause", "clock_not_running")
    t.at(15 * MIN)
    assert t.state.clock.remaining(t.now) == 30 * MIN  # a paused clock does not run
    assert t.state.clock.deadline_ms is None and next_due_ms(t.state) is None
    assert view(t.state)["clock"]["remaining_ms"] == 30 * MIN
    assert t.tick() == []
    t.do("judge", "clock.resume")
    t.refuse("judge", "clock.resume", "clock_not_paused")
    assert t.state.clock.deadline_ms == T0 + 45 * MIN
    t.do("judge", "clock.extend", minutes=2, reason="ruling")
    t.do("judge", "clock.extend", seconds=30)
    assert t.state.clock.deadline_ms == T0 + 47 * MIN + 30 * SEC
    assert next_due_ms(t.state) == T0 + 47 * MIN + 30 * SEC
    assert t.state.clock.remaining(T0 + 47 * MIN) == 30 * SEC
    assert t.tick(at=47 * MIN + 30 * SEC - 1) == []
    assert "time.called" in t.types(t.tick(at=47 * MIN + 30 * SEC))


def test_r4_1_extension_before_the_start_is_kept() -> None:
    t = Table().register()
    t.do("judge", "clock.extend", minutes=5)
    t.start_clock()
    assert t.state.clock.deadline_ms == T0 + 45 * MIN


@pytest.mark.parametrize(
    "args",
    [{}, {"minutes": 0}, {"minutes": 61}, {"minutes": -1}, {"minutes": "2"}, {"seconds": 1.5}],
)
def test_r4_1_invalid_extensions(args: dict[str, Any]) -> None:
    timed().refuse("judge", "clock.extend", "invalid", **args)


def test_r4_1_clock_refusals_for_seats() -> None:
    t = timed()
    t.refuse("A", "clock.pause", "forbidden")
    t.refuse("A", "clock.extend", "forbidden", minutes=1)


def test_r4_1_between_duel_time_counts_inside_the_match() -> None:
    t = timed()
    t.at(30 * MIN).win_duel("A")
    t.at(39 * MIN)
    assert t.state.phase == "between" and t.state.clock.remaining(t.now) == MIN


def test_r4_1_clock_stops_when_the_match_is_decided() -> None:
    t = timed()
    t.at(10 * MIN).win_duel("A").between().win_duel("A")
    assert t.state.clock.status == "stopped"
    assert view(t.state)["clock"]["remaining_ms"] == 30 * MIN
    assert next_due_ms(t.state) is None
    assert t.tick(at=LIMIT) == []
    t.refuse("judge", "clock.start", "clock_started")


# --- R4.2 / R4.3 flags ----------------------------------------------------------------------


def test_r4_3_turn_overtime_flag_raised_once_per_turn() -> None:
    t = Table().register().start_duel(first="A")
    assert next_due_ms(t.state) == t.state.turn.started_ms + 180 * SEC  # type: ignore[union-attr]
    assert t.tick(at=179 * SEC) == []
    events = t.tick(at=180 * SEC)
    assert t.types(events) == ["flag.raised"]
    assert events[0].data == {"kind": "turn_overtime", "seat": None, "detail": "turn 1", "turn": 1}
    assert t.tick(at=400 * SEC) == []
    # Only the match clock, which duel 1 started (R4.1), is due next.
    assert next_due_ms(t.state) == t.state.clock.deadline_ms
    t.end_turn()  # turn 2 starts at 400 s
    assert t.tick(at=579 * SEC) == []
    assert t.types(t.tick(at=580 * SEC)) == ["flag.raised"]
    assert [(f.kind, f.seat, f.detail) for f in t.state.flags] == [
        ("turn_overtime", None, "turn 1"),
        ("turn_overtime", None, "turn 2"),
    ]


def test_r4_3_the_long_turn_flag_is_charged_to_nobody() -> None:
    """R4.3 (reading): the app cannot see who is thinking; the flag names the turn, not a
    seat, and the score sheet writes it with the clock, not as an infraction."""
    from server.projections.sheet import build_sheet

    t = Table().register().start_duel(first="A")
    t.tick(at=180 * SEC)
    (flag,) = t.state.flags
    assert (flag.kind, flag.seat) == ("turn_overtime", None)
    assert view(t.state)["flags"][0]["seat"] is None
    envelopes = [dict(e.to_dict(), seq=i + 1) for i, e in enumerate(t.log)]
    sheet = build_sheet(envelopes).matches[0]
    assert sheet.penalties == []
    (line,) = [x for x in sheet.clock if "passed" in x.text]
    assert line.text == "turn 1 passed 3 minutes (a flag for judges, charged to nobody)"
    assert "A" not in line.text.split("(")[0] and line.note == ""


def test_r4_2_window_overtime_flag_raised_once() -> None:
    t = Table().register().at(MIN).win_duel("A")
    assert t.state.window is not None and t.state.window.started_ms == T0 + MIN
    assert next_due_ms(t.state) == T0 + MIN + 180 * SEC
    assert t.tick(at=MIN + 179 * SEC) == []
    events = t.tick(at=MIN + 180 * SEC)
    assert t.types(events) == ["flag.raised"] and events[0].data["kind"] == "window_overtime"
    assert t.tick(at=10 * MIN) == []
    assert view(t.state)["window"]["flagged"] is True


def test_r4_2_window_runs_through_the_next_checklist() -> None:
    t = Table().register().win_duel("A").between()
    assert t.state.phase == "pregame"
    assert t.types(t.tick(at=180 * SEC)) == ["flag.raised"]
    t.start_duel(first="B")
    assert t.state.window is None


def test_r4_flags_follow_the_rule_set() -> None:
    t = Table(think_seconds=60, window_seconds=90).register().start_duel()
    assert t.types(t.tick(at=60 * SEC)) == ["flag.raised"]
    t.hit("B", 8000)
    t.confirm_result()
    assert t.tick(at=60 * SEC + 89 * SEC) == []
    assert t.types(t.tick(at=150 * SEC)) == ["flag.raised"]


# --- R5.1 time during a duel ----------------------------------------------------------------


def test_r5_time_is_called_exactly_once() -> None:
    t = timed().start_duel()
    assert "time.called" not in t.types(t.tick(at=LIMIT - 1))  # a turn flag may be due
    assert not t.state.time.called
    types = time_up(t)
    assert types.count("time.called") == 1 and "time.stage" in types
    assert t.state.time.called and t.state.time.called_ms == T0 + LIMIT
    assert t.state.clock.status == "expired"
    assert t.tick(at=LIMIT + 1) == []  # a second tick writes nothing
    assert t.tick(at=LIMIT + 10 * MIN) == []
    assert next_due_ms(t.state) is None
    t.refuse("judge", "clock.extend", "time_called", minutes=1)


def test_r5_1_1_current_turn_is_finished_then_3_extra_turns_opponent_first() -> None:
    t = timed().start_duel(first="A").end_turns(2)  # A's turn 3
    time_up(t)
    assert t.state.time.stage == "finish_turn" and t.state.phase == "duel"
    t.hit("B", 500)  # play goes on: LP still change during the current turn
    t.end_turn()  # turn 3 (A) ends
    seen = []
    for _ in range(3):
        turn = t.state.turn
        assert turn is not None
        seen.append((t.state.time.stage, t.state.time.extra_turn, turn.player))
        t.end_turn()
    # R5.1.3: starting with the opponent of the player whose turn was current
    assert seen == [("extra_turns", 1, "B"), ("extra_turns", 2, "A"), ("extra_turns", 3, "B")]
    # R5.1.4: after the 3rd extra turn the player with more LP wins
    assert t.state.phase == "duel_result"
    assert t.state.result is not None
    assert (t.state.result.winner, t.state.result.reason) == ("A", "time_lp")


def test_r5_the_turns_of_each_stage_are_counted_once_and_in_the_view() -> None:
    """The view's `stage_turns` is the count the stage's event carries (`time_over.stage_turns`):
    the Extra Turns' for the duel's stages, the Extra Duel's for its own."""
    t = timed().start_duel(first="A")
    assert view(t.state)["stage_turns"] == 0  # no stage yet
    time_up(t)
    t.end_turn()
    staged = [e for e in t.log if e.type == "time.stage"]
    assert t.state.time.stage == "extra_turns"
    assert view(t.state)["stage_turns"] == staged[-1].data["of"] == 3
    e = extra_duel()
    assert e.state.time.stage == "extra_duel"
    staged = [x for x in e.log if x.type == "time.stage"]
    assert view(e.state, "A")["stage_turns"] == staged[-1].data["of"] == 4


def test_r5_1_even_with_different_lp_the_extra_turns_are_played() -> None:
    t = timed().start_duel(first="A")
    t.hit("B", 3000)
    time_up(t)
    t.end_turn()
    assert t.state.phase == "duel" and t.state.time.stage == "extra_turns"


def test_r5_1_4_extra_turns_decided_on_lp_for_the_other_seat() -> None:
    t = timed().start_duel(first="B")
    time_up(t)
    t.end_turn()  # B's turn 1 finished; A first in the extra turns
    assert t.state.turn is not None and t.state.turn.player == "A"
    t.hit("A", 1000)
    t.end_turns(3)
    assert t.state.result is not None and t.state.result.winner == "B"


def test_r5_1_duel_ending_by_lp_zero_during_the_extra_turns() -> None:
    t = timed().start_duel(first="A")
    time_up(t)
    t.end_turns(2)
    assert (t.state.time.stage, t.state.time.extra_turn) == ("extra_turns", 2)
    t.hit("A", 8000)
    assert t.state.result is not None
    assert (t.state.result.winner, t.state.result.reason) == ("B", "lp_zero")
    # It ends the match (R5.4), but by time, not by wins (R3.1): the phones show the match's
    # own result to confirm, with its reason, instead of confirming it with the duel's.
    result = view(t.state, "A")["result"]
    assert (result["ends_match"], result["wins_match"]) == (True, False)
    t.confirm_result()
    # R5.4: the duel decided after time puts B ahead: B wins the match
    assert t.state.phase == "match_result"
    assert (t.state.match.winner, t.state.match.reason) == ("B", "time_lead")


def sudden_death() -> Table:
    t = timed().start_duel(first="A")
    time_up(t)
    t.end_turns(4)
    return t


def test_r5_1_5_equal_lp_after_extra_turns_is_sudden_death() -> None:
    t = sudden_death()
    assert t.state.phase == "duel" and t.state.time.stage == "sudden_death"
    t.end_turns(3)  # no end to sudden death by turns
    assert t.state.phase == "duel"


def test_r5_1_5_sudden_death_by_damage() -> None:
    t = sudden_death()
    events = t.hit("A", 100)
    assert t.types(events)[-1] == "duel.ended"
    assert t.state.result is not None
    assert (t.state.result.winner, t.state.result.reason) == ("B", "sudden_death")


def test_r5_1_5_sudden_death_by_a_paid_cost() -> None:
    t = sudden_death()
    t.lp("B", "cost", 1000, by="B")
    assert t.state.result is not None and t.state.result.winner == "A"


def test_r5_1_5_sudden_death_by_a_gain() -> None:
    t = sudden_death()
    t.lp("B", "gain", 500)
    assert t.state.result is not None and t.state.result.winner == "B"


def test_r5_1_5_equal_change_to_both_decides_nothing() -> None:
    t = sudden_death()
    entry = t.propose("A", ("A", "damage", 500), ("B", "damage", 500))
    t.confirm("B", entry)
    assert t.state.phase == "duel"
    t.hit("B", 1)
    assert t.state.result is not None and t.state.result.winner == "A"


def test_r5_4_duel_1_decided_by_judgement_1_wins_the_match() -> None:
    t = timed().start_duel(first="A")
    t.hit("B", 100)
    time_up(t)
    t.end_turns(4)
    t.confirm_result()
    assert t.state.wins == {"A": 1, "B": 0}
    assert (t.state.match.winner, t.state.match.reason) == ("A", "time_lead")


def test_r5_time_during_duel_2_level_wins_go_to_the_extra_duel() -> None:
    t = timed()
    t.win_duel("A").between()
    t.start_duel(first="B")
    time_up(t)
    t.hit("A", 100)
    t.end_turns(4)
    t.confirm_result()
    assert t.state.wins == {"A": 1, "B": 1}
    assert t.state.phase == "between" and t.state.extra_duel
    assert t.state.time.stage == "extra_duel"


def test_r5_time_during_duel_3_winner_takes_the_match() -> None:
    t = timed()
    t.win_duel("A").between().win_duel("B", first="B").between()
    t.start_duel(first="A")
    time_up(t)
    t.hit("B", 100)
    t.end_turns(4)
    t.confirm_result()
    assert t.state.wins == {"A": 2, "B": 1}
    assert (t.state.match.winner, t.state.match.reason) == ("A", "wins")


def test_r5_time_while_a_result_awaits_confirmation() -> None:
    t = timed().start_duel()
    t.hit("B", 8000)
    types = time_up(t)
    assert "time.called" in types and t.state.phase == "duel_result"
    t.confirm_result()
    assert (t.state.match.winner, t.state.match.reason) == ("A", "time_lead")


# --- R5.2 / R5.3 time between duels -----------------------------------------------------------


def test_r5_3_leader_wins_when_time_runs_out_between_duels() -> None:
    t = timed().win_duel("B")
    assert time_up(t)[:2] == ["time.called", "match.decided"]
    assert t.state.phase == "match_result"
    assert (t.state.match.winner, t.state.match.reason) == ("B", "time_lead")
    assert t.state.duel_no == 2 and len(t.state.duels) == 1


def test_r5_3_leader_wins_when_time_runs_out_in_the_next_checklist() -> None:
    t = timed().win_duel("B").between()
    time_up(t)
    assert (t.state.match.winner, t.state.match.reason) == ("B", "time_lead")


def play_extra_duel(t: Table) -> Table:
    """After 1-1 at time: side decking, then rock-paper-scissors for the Extra Duel."""
    if t.state.phase == "between":
        t.between()
    assert t.state.pregame.chooser is None  # R5.2: first player by rock-paper-scissors
    t.start_duel(first="A")
    return t


def extra_duel() -> Table:
    t = timed()
    t.win_duel("A").between().win_duel("B", first="B")
    time_up(t)
    return play_extra_duel(t)


def test_r5_2_level_wins_at_time_between_duels_go_to_an_extra_duel() -> None:
    t = timed()
    t.win_duel("A").between().win_duel("B", first="B")
    types = time_up(t)
    assert types[:2] == ["time.called", "time.stage"]
    assert t.state.extra_duel and t.state.phase == "between"


def test_r5_2_1_extra_duel_of_4_turns_from_8000() -> None:
    t = extra_duel()
    assert t.state.lp == {"A": 8000, "B": 8000} and t.state.duel_no == 3
    t.hit("B", 2000)
    t.end_turns(3)
    assert t.state.phase == "duel"
    t.end_turn()  # the 4th turn
    assert t.state.result is not None
    assert (t.state.result.winner, t.state.result.reason) == ("A", "time_lp")
    t.confirm_result()
    assert (t.state.match.winner, t.state.match.reason) == ("A", "extra_duel")
    assert t.state.wins == {"A": 1, "B": 1}  # an Extra Duel win is not a duel win
    assert t.state.duels[-1].extra


def test_r5_2_2_extra_duel_sudden_death() -> None:
    t = extra_duel()
    t.end_turns(4)
    assert t.state.phase == "duel" and t.state.time.stage == "extra_duel_sudden_death"
    assert view(t.state)["time"]["stage"] == "extra_duel_sudden_death"
    t.lp("A", "cost", 500, by="A")
    assert t.state.result is not None
    assert (t.state.result.winner, t.state.result.reason) == ("B", "sudden_death")
    t.confirm_result()
    assert t.state.match.winner == "B"


def test_r5_2_drawn_extra_duel_is_played_again() -> None:
    t = extra_duel()
    entry = t.propose("A", ("A", "damage", 8000), ("B", "damage", 8000))
    t.confirm("B", entry)
    t.confirm_result()
    assert t.state.phase == "between" and t.state.extra_duel
    play_extra_duel(t)
    assert t.state.duel_no == 4 and t.state.time.stage == "extra_duel"
    t.end_turns(3)
    assert t.state.phase == "duel"


def test_r5_2_time_in_the_checklist_of_duel_3_starts_the_extra_duel_afresh() -> None:
    t = timed()
    t.win_duel("A").between().win_duel("B", first="B").between()
    t.checklist()
    time_up(t)
    assert t.state.phase == "pregame" and t.state.extra_duel
    assert t.state.pregame.chooser is None  # rock-paper-scissors for the Extra Duel


def test_r5_4_level_at_zero_after_a_drawn_duel_goes_to_the_extra_duel() -> None:
    t = timed().start_duel()
    t.do("judge", "result.set", winner=None)
    time_up(t)
    assert t.state.extra_duel and t.state.phase == "between"


# --- other rule sets (RULESETS.md) ------------------------------------------------------------


def test_r5_ocg_2011_swiss_equal_lp_after_extra_turns_is_a_drawn_duel_and_match() -> None:
    t = timed("ocg-2011-swiss").start_duel()
    time_up(t)
    t.end_turns(4)
    assert t.state.result is not None
    assert (t.state.result.winner, t.state.result.reason) == (None, "time_draw")
    t.confirm_result()
    assert t.state.phase == "match_result"
    assert (t.state.match.winner, t.state.match.reason) == (None, "time_draw")


def test_r5_ocg_2011_swiss_level_wins_between_duels_is_a_drawn_match() -> None:
    t = timed("ocg-2011-swiss").win_duel("A").between().win_duel("B", first="B")
    time_up(t)
    assert (t.state.match.decided, t.state.match.winner) == (True, None)


def test_r5_ocg_2011_swiss_leader_still_wins_between_duels() -> None:
    t = timed("ocg-2011-swiss").win_duel("A")
    time_up(t)
    assert t.state.match.winner == "A"


def test_r5_tcg_2010_swiss_five_extra_turns() -> None:
    t = timed("tcg-2010-swiss").start_duel()
    time_up(t)
    t.end_turns(5)
    assert t.state.time.extra_turn == 5 and t.state.phase == "duel"
    t.end_turn()
    assert t.state.result is not None and t.state.result.winner is None


def test_r5_tcg_2018_swiss_no_extra_turns() -> None:
    t = Table("tcg-2018-swiss").register().start_clock().start_duel()
    assert t.state.clock.duration_ms == 45 * MIN
    t.hit("A", 100)
    t.at(45 * MIN).tick()
    assert t.state.time.stage == "finish_turn"
    t.end_turn()
    assert t.state.result is not None
    assert (t.state.result.winner, t.state.result.reason) == ("B", "time_lp")


def test_r4_1_shorter_match_by_override() -> None:
    t = Table(match_minutes=1).register().start_clock()
    assert t.state.clock.deadline_ms == T0 + MIN
    assert "time.called" in t.types(t.tick(at=MIN))


# --- R5.5 the LP that decide a duel at the end of a turn are settled LP ---------------------


def extra_turn_3(a: int = 8000, b: int = 7500) -> Table:
    """Time called in duel 1, A's turn; the 3rd extra turn (B's) is under way, LP a and b."""
    t = timed().start_duel(first="A")
    if a < 8000:
        t.hit("A", 8000 - a)
    if b < 8000:
        t.hit("B", 8000 - b)
    time_up(t)
    t.end_turns(3)
    assert (t.state.time.stage, t.state.time.extra_turn) == ("extra_turns", 3)
    assert t.state.turn is not None and t.state.turn.player == "B"
    return t


def test_r5_5_a_held_back_confirmation_does_not_decide_the_duel() -> None:
    """A 8000, B 7500; in extra turn 3 B proposes 1000 damage to A and ends the turn: the
    turn cannot end while the entry waits (before: A won on 8000 to 7500)."""
    t = extra_turn_3()
    entry = t.propose("B", ("A", "damage", 1000))
    err = t.refuse("B", "turn.end", "entries_pending", turn=t.state.turn.no)  # type: ignore[union-attr]
    assert err.details["entries"] == [entry]
    assert t.state.phase == "duel" and t.state.result is None
    t.confirm("A", entry)
    t.end_turn()
    assert t.state.result is not None
    assert (t.state.result.winner, t.state.result.reason) == ("B", "time_lp")
    assert t.state.lp == {"A": 7000, "B": 7500}


def test_r5_5_an_entry_confirmed_behind_a_pending_one_still_waits() -> None:
    t = extra_turn_3()
    first = t.propose("B", ("A", "damage", 1000))
    second = t.propose("A", ("B", "damage", 100))
    t.confirm("B", second)  # waits for the first (R1.4)
    err = t.refuse("B", "turn.end", "entries_pending")
    assert err.details["entries"] == [first, second]
    t.do("B", "lp.withdraw", entry=first)
    t.end_turn()
    assert t.state.result is not None and t.state.result.winner == "A"


def test_r5_5_a_rejected_entry_waits_for_the_judge() -> None:
    """Rejecting instead of holding back does not decide the duel either: the dispute is
    settled by the judge before the turn ends."""
    t = extra_turn_3()
    entry = t.propose("B", ("A", "damage", 1000))
    t.do("A", "lp.reject", entry=entry, reason="no")
    err = t.refuse("B", "turn.end", "entries_pending")
    assert err.details["disputes"] == [entry]
    t.do("judge", "dispute.settle", entry=entry, action="apply")
    t.end_turn()
    assert t.state.result is not None and t.state.result.winner == "B"


def test_r5_5_a_dispute_of_an_earlier_duel_does_not_block_the_turn() -> None:
    t = timed().start_duel(first="A")
    entry = t.propose("B", ("A", "damage", 1000))
    t.do("A", "lp.reject", entry=entry)
    t.do("judge", "result.set", winner="A")
    t.between()
    t.start_duel(first="B")
    t.end_turn()
    assert t.state.turn is not None and t.state.turn.no == 2


def test_r5_5_extra_duel_4th_turn_waits_for_the_entry() -> None:
    t = extra_duel()
    t.hit("B", 500)
    t.end_turns(3)
    entry = t.propose("B", ("A", "damage", 1000))
    t.refuse("B", "turn.end", "entries_pending")
    t.confirm("A", entry)
    t.end_turn()
    assert t.state.result is not None
    assert (t.state.result.winner, t.state.result.reason) == ("B", "time_lp")


def test_r5_5_sudden_death_turn_waits_for_the_entry() -> None:
    t = sudden_death()
    player = t.state.turn.player  # type: ignore[union-attr]
    entry = t.propose(player, (other_seat(player), "damage", 100))
    t.refuse(player, "turn.end", "entries_pending")
    t.confirm(other_seat(player), entry)
    assert t.state.result is not None and t.state.result.winner == player


def test_r5_5_no_turn_ends_with_an_entry_pending_outside_time_either() -> None:
    t = Table().register().start_duel(first="A")
    entry = t.propose("A", ("B", "damage", 1000))
    t.refuse("A", "turn.end", "entries_pending")
    t.confirm("B", entry)
    t.end_turn()
    assert t.state.turn is not None and t.state.turn.player == "B"


def other_seat(seat: str) -> str:
    return "B" if seat == "A" else "A"


# --- R4.2 (reading) the window runs from the duel's end --------------------------------------


def test_r4_2_window_runs_from_the_duels_end_not_the_confirmation() -> None:
    t = Table().register().start_duel(first="A")
    t.at(MIN)
    t.hit("B", 8000)  # duel 1 ends at 1:00; nobody confirms
    assert t.state.phase == "duel_result"
    assert next_due_ms(t.state) == T0 + MIN + 180 * SEC
    assert t.tick(at=MIN + 179 * SEC) == []
    events = t.tick(at=MIN + 180 * SEC)  # 4:00, still unconfirmed
    assert t.types(events) == ["flag.raised"]
    assert events[0].data["kind"] == "window_overtime"
    t.at(5 * MIN).confirm_result()
    assert t.state.window is not None
    assert (t.state.window.started_ms, t.state.window.flagged) == (T0 + MIN, True)
    assert t.tick(at=6 * MIN) == []  # flagged once


def test_r4_2_no_window_flag_after_the_duel_that_decides_the_match() -> None:
    t = Table().register().win_duel("A").between()
    t.start_duel(first="B").hit("B", 8000)  # A's second win, not yet confirmed
    assert t.tick(at=10 * MIN) == []
    assert next_due_ms(t.state) == t.state.clock.deadline_ms  # the match clock only


# --- R5 the time-over stage ends with its duel ------------------------------------------------


def test_r5_the_time_stage_is_cleared_when_the_duel_ends() -> None:
    """After the extra turns decide duel 1 the result shows no "Extra Turn 3 of 3"."""
    t = extra_turn_3()
    t.end_turn()
    assert t.state.phase == "duel_result"
    assert (t.state.time.stage, t.state.time.extra_turn) == (None, 0)
    assert view(t.state)["time"]["stage"] is None and t.state.time.called
    t.confirm_result()
    assert t.state.phase == "match_result" and t.state.time.stage is None


def test_r5_1_5_sudden_death_stage_is_cleared_when_it_decides() -> None:
    t = sudden_death()
    t.hit("A", 100)
    assert t.state.phase == "duel_result" and t.state.time.stage is None


def test_r5_2_the_extra_duel_stage_is_kept_for_the_next_duel_only() -> None:
    t = extra_duel()
    assert t.state.time.stage == "extra_duel"
    entry = t.propose("A", ("A", "damage", 8000), ("B", "damage", 8000))
    t.confirm("B", entry)
    assert t.state.phase == "duel_result" and t.state.time.stage is None
    t.confirm_result()  # a drawn Extra Duel is played again
    assert t.state.phase == "between" and t.state.time.stage == "extra_duel"


def test_r4_1_a_casual_tables_clock_starts_with_duel_1() -> None:
    """No separate step: both players' "drawn 5" of duel 1 starts the match clock."""
    t = Table().register().checklist().rps("A").choose("A")
    t.do("A", "duel.draw")
    assert t.state.clock.status == "idle"
    t.at(2 * MIN).do("B", "duel.draw")
    assert t.state.clock.status == "running"
    assert t.state.clock.deadline_ms == T0 + 2 * MIN + 40 * MIN
    # Duel 2 leaves the running clock alone (R4.1: the time between duels counts).
    t.at(10 * MIN).hit("B", 8000)
    t.confirm_result().between().start_duel(first="B")
    assert t.state.clock.deadline_ms == T0 + 42 * MIN


def test_r4_1_an_event_tables_clock_runs_from_the_rounds_start() -> None:
    t = Table(staff_start=True).register()
    t.do("organiser", "clock.start")
    t.at(2 * MIN).start_duel(first="A")
    assert t.state.clock.deadline_ms == T0 + 40 * MIN  # duel 1 did not start it again
