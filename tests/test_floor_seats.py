"""No-shows and seats on the floor: a paired table not joined N minutes after the round's
start is a tardiness alert; a seat taken under another name than the pairing's is a mismatch."""

from __future__ import annotations

from server.projections.floor import summarise
from server.rules import view
from tests.rules_helpers import MIN, T0, Table

PAIRING = {"A": {"name": "Yugi", "player_id": "0001"}, "B": {"name": "Kaiba", "player_id": "0002"}}


def floor(t: Table, pairing=PAIRING) -> dict:
    return summarise(
        view(t.state, privileged=True),
        number=3,
        seq=len(t.log),
        pairing=pairing,
        no_show_ms=5 * MIN,
    )


def alerts(t: Table, kind: str, pairing=PAIRING) -> list[dict]:
    return [a for a in floor(t, pairing)["alerts"] if a["kind"] == kind]


def test_a_paired_table_not_joined_after_the_start_is_a_no_show_alert() -> None:
    t = Table(staff_start=True)
    assert alerts(t, "no_show") == []  # the round has not started
    t.do("organiser", "clock.start")
    (a,) = alerts(t, "no_show")
    assert a["since_ms"] == T0 + 5 * MIN  # shown from then on (the screen hides it before)
    assert a["seat"] is None and a["detail"] == "A,B"
    t.do("system", "seat.join", seat="A", name="Yugi", player_id="0001")
    (a,) = alerts(t, "no_show")
    assert a["seat"] == "B" and a["detail"] == "B"
    t.do("system", "seat.join", seat="B", name="Kaiba", player_id="0002")
    assert alerts(t, "no_show") == []
    # The floor shows the paired names until the players sit.
    assert floor(t)["pairing"] == {"A": "Yugi", "B": "Kaiba"}


def test_an_unpaired_table_is_no_no_show() -> None:
    t = Table(staff_start=True)
    t.do("organiser", "clock.start")
    assert alerts(t, "no_show", pairing=None) == []
    empty = {"A": {"name": "", "player_id": ""}, "B": {"name": "", "player_id": ""}}
    assert alerts(t, "no_show", pairing=empty) == []


def test_a_seat_under_another_name_is_a_mismatch() -> None:
    t = Table(staff_start=True)
    t.do("system", "seat.join", seat="A", name="Kaiba", player_id="0002")
    (a,) = alerts(t, "seat_mismatch")
    assert a["seat"] == "A" and a["detail"] == "Kaiba / Yugi"
    t2 = Table(staff_start=True)
    t2.do("system", "seat.join", seat="A", name=" yugi ", player_id="0001")
    assert alerts(t2, "seat_mismatch") == []  # case and spaces do not matter


def test_a_waiting_seat_request_is_an_alert_until_it_is_answered() -> None:
    from server.rules.base import SYSTEM_ACTOR, Event
    from server.rules.table import apply

    t = Table(staff_start=True)
    t.do("system", "seat.join", seat="B", name="Kaiba", player_id="0002")
    data = {"request": "r1", "seat": "B", "name": "Seto", "player_id": "0002", "why": "taken"}
    t.state = apply(t.state, Event("seat.requested", data, T0 + MIN, SYSTEM_ACTOR))
    (a,) = alerts(t, "seat_request")
    assert (a["seat"], a["detail"], a["request"], a["taken_by"]) == (
        "B",
        "Seto 0002",
        "r1",
        "Kaiba",
    )
    assert a["since_ms"] == T0 + MIN
    answer = {"request": "r1", "seat": "B", "by": "judge j"}
    t.state = apply(t.state, Event("seat.refused", answer, T0 + 2 * MIN, SYSTEM_ACTOR))
    assert alerts(t, "seat_request") == []
