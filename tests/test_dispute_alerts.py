"""A rejected LP entry is one alert on the floor (its dispute, not also its judge call), and
settling the dispute closes its call: the alert goes."""

from __future__ import annotations

from server.projections.floor import summarise
from server.rules import view
from tests.rules_helpers import Table


def floor(t: Table) -> dict:
    return summarise(view(t.state, privileged=True), number=1, seq=len(t.log))


def disputed() -> tuple[Table, int]:
    t = Table(staff_start=True).register().start_duel()  # an event table: a judge is called
    entry = t.propose("A", ("B", "damage", 1800))
    t.do("B", "lp.reject", entry=entry, reason="it was 800")
    return t, entry


def test_a_dispute_is_one_alert_with_what_was_proposed_and_by_whom() -> None:
    t, entry = disputed()
    alerts = floor(t)["alerts"]
    assert [a["kind"] for a in alerts] == ["dispute"]
    a = alerts[0]
    assert (a["entry"], a["by"], a["seat"], a["detail"]) == (entry, "A", "B", "it was 800")
    assert a["changes"] == [{"seat": "B", "kind": "damage", "amount": 1800}]
    assert a["call"] == 1 and a["status"] == "open"
    t.do("judge", "judge.ack", call=1)
    assert floor(t)["alerts"][0]["judge"] == "Kaiba"  # the judge who took it


def test_settling_the_dispute_closes_its_call_and_the_alert() -> None:
    for action in ("apply", "void"):
        t, entry = disputed()
        t.do("judge", "dispute.settle", entry=entry, action=action, note="")
        assert floor(t)["alerts"] == []
        assert [c.status for c in t.state.calls] == ["closed"]


def test_a_players_own_call_stays_its_own_alert() -> None:
    t, entry = disputed()
    t.do("A", "judge.call", reason="slow play")
    assert sorted(a["kind"] for a in floor(t)["alerts"]) == ["dispute", "judge_call"]


def test_a_players_call_worded_like_the_disputes_is_not_taken_for_it() -> None:
    """The floor links a dispute to the call its rejection made by the entry number the call
    carries, not by the call's wording (R7.1)."""
    t, entry = disputed()
    t.do("B", "judge.call", reason=f"LP entry #{entry} disputed: it was 800")
    alerts = {a["kind"]: a for a in floor(t)["alerts"]}
    assert sorted(alerts) == ["dispute", "judge_call"]
    assert alerts["dispute"]["call"] == 1
    assert alerts["judge_call"]["call"] == 2
    t.do("judge", "dispute.settle", entry=entry, action="void", note="")
    assert [a["call"] for a in floor(t)["alerts"]] == [2]
