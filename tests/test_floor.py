"""The floor view's projection of a table (projections/floor.py): pure, from the table's view."""

from __future__ import annotations

from server.projections.floor import alerts_of, sort_key, summarise
from server.rules import view
from tests.rules_helpers import T0, Table


def floor(t: Table, number: int = 1, since: int | None = None) -> dict:
    return summarise(
        view(t.state, privileged=True), number=number, seq=len(t.log), phase_since_ms=since
    )


def kinds(summary: dict) -> list[str]:
    return [a["kind"] for a in summary["alerts"]]


def test_a_quiet_table_has_names_score_lp_phase_and_no_alerts():
    t = Table().join()
    s = floor(t, number=7)
    assert s["number"] == 7
    assert s["names"] == {"A": "Yugi", "B": "Kaiba"}
    assert s["wins"] == {"A": 0, "B": 0} and s["lp"] == {"A": 8000, "B": 8000}
    assert s["phase"]["kind"] == "registration"
    assert s["clock"]["status"] == "idle"
    assert s["alerts"] == []


def test_a_judge_call_is_an_alert_until_closed_and_shows_who_took_it():
    t = Table().join()
    t.advance(5000).do("A", "judge.call", reason="ruling")
    s = floor(t)
    assert kinds(s) == ["judge_call"]
    assert s["alerts"][0]["since_ms"] == T0 + 5000
    assert s["alerts"][0]["detail"] == "ruling"
    t.do("judge", "judge.ack", call=1)
    assert floor(t)["alerts"][0]["status"] == "acknowledged"
    t.do("judge", "judge.close", call=1, note="")
    assert kinds(floor(t)) == []


def test_a_rejected_lp_entry_is_a_dispute_alert():
    t = Table(staff_start=True).register().start_duel()
    entry = t.propose("A", ("B", "damage", 1000))
    t.do("B", "lp.reject", entry=entry, reason="it was 800")
    assert "dispute" in kinds(floor(t))


def test_a_turn_over_three_minutes_is_flagged_by_the_timer():
    t = Table().register().start_duel()
    t.tick(at=t.now - T0 + 181_000)
    s = floor(t)
    assert "turn_over" in kinds(s)
    assert s["phase"]["kind"] == "duel" and s["phase"]["duel"] == 1


def test_the_turn_flag_is_found_by_its_fields_not_its_wording():
    t = Table().register().start_duel()
    t.tick(at=t.now - T0 + 181_000)
    v = view(t.state)
    for f in v["flags"]:
        f["detail"] = "3 minutes over in turn one"  # any wording, any language
    assert "turn_over" in kinds(summarise(v, number=1, seq=len(t.log), phase_since_ms=None))


def test_the_last_turns_flag_is_not_this_turns():
    t = Table().register().start_duel()
    t.tick(at=t.now - T0 + 181_000)
    t.end_turn()
    assert "turn_over" not in kinds(floor(t))


def test_time_called_and_an_unconfirmed_result():
    t = Table(match_minutes=1).join().start_clock()
    t.tick(at=61_000)
    assert "time_called" in kinds(floor(t))
    u = Table().register().start_duel()
    u.do("B", "duel.concede")
    s = floor(u, since=T0 + 1)
    assert "unconfirmed_result" in kinds(s)
    assert s["phase"]["kind"] == "duel_result"


def test_alert_order_and_table_order():
    t = Table().join()
    t.advance(1000).do("B", "judge.call", reason="")
    quiet = floor(Table().join(), number=1)
    loud = floor(t, number=9)
    assert sorted([quiet, loud], key=sort_key)[0]["number"] == 9
    assert alerts_of(view(t.state, privileged=True))[0]["kind"] == "judge_call"
