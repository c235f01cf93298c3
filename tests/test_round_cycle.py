"""One round cycle at an event, with no dead end: pair, start, play, results in, next.

Each test reproduces a way the event day broke: a round started before its pairing (the event
could never be paired again), matches played before their round started, a judge's result that
left the table open, a next round opened with tables unfinished, a disqualified player paired
again, the unused tables of a top cut counted, a tie-breaker number that overflowed."""

from __future__ import annotations

import csv
import io
import uuid
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient

from server.rules import Actor, view
from server.rules.swiss import Match, Player, standings
from tests.rules_helpers import Table
from tests.tables import tables_of
from tests.test_swiss_api import PASSWORD, Org, register

JUDGE = Actor("judge", name="j")


@pytest.fixture
def org(app: Flask, client: FlaskClient) -> Org:
    return Org(app, client)


def judge_login(org: Org, ev: int) -> Org:
    """A judge of the event, logged in on a client of their own."""
    name = f"judge-{uuid.uuid4().hex[:8]}"
    r = org.call("POST", f"/api/events/{ev}/judges", {"username": name, "password": PASSWORD})
    assert r.status_code == 201, r.json
    judge = Org.__new__(Org)
    judge.app, judge.client = org.app, org.app.test_client()
    r = judge.client.post("/api/auth/login", json={"username": name, "password": PASSWORD})
    assert r.status_code == 200, r.json
    judge.csrf = r.json["csrf"]
    return judge


def state_of(org: Org, code: str) -> Any:
    return org.app.extensions["duel_table"].tables.store.snapshot(code).state


def current_tables(org: Org, ev: int) -> list[dict[str, Any]]:
    return list(org.summary(ev)["rounds"][-1]["tables"])


def results_rows(org: Org, ev: int) -> list[dict[str, str]]:
    r = org.call("GET", f"/api/events/{ev}/results.csv")
    assert r.status_code == 200
    text = r.get_data(as_text=True)
    assert text.startswith("\ufeff"), "UTF-8 with a byte order mark, for spreadsheets"
    return list(csv.DictReader(io.StringIO(text.removeprefix("\ufeff"))))


# -- 1. one round cycle --------------------------------------------------------------------


def test_a_round_cannot_start_before_its_pairing_and_the_event_never_locks(org: Org):
    ev = org.event(tables=2)
    register(org, ev, 4)
    r = org.call("POST", f"/api/events/{ev}/round/start")
    assert r.status_code == 409 and r.json["code"] == "round_not_paired"
    assert "Pair round 1" in r.json["message"]  # says what to do instead
    # nothing started: the pairing is still possible, then the start
    assert org.call("GET", f"/api/events/{ev}").json["rounds"][0]["started_ms"] is None
    assert org.call("POST", f"/api/events/{ev}/swiss/pair").status_code == 200
    r = org.call("POST", f"/api/events/{ev}/round/start")
    assert r.status_code == 200 and r.json["started"] == 2, r.json


def test_pairing_again_after_the_start_needs_a_judges_confirmed_repair(org: Org):
    ev = org.event(tables=2)
    register(org, ev, 4)
    assert org.call("POST", f"/api/events/{ev}/swiss/pair").status_code == 200
    assert org.call("POST", f"/api/events/{ev}/round/start").status_code == 200
    before = {t["code"] for t in current_tables(org, ev)}
    # the organiser alone cannot, and is told who can
    r = org.call("POST", f"/api/events/{ev}/swiss/repair", {})
    assert r.status_code == 409 and r.json["code"] == "repair_needs_judge"
    assert "judge" in r.json["message"]
    judge = judge_login(org, ev)
    r = judge.call("POST", f"/api/events/{ev}/swiss/repair", {})
    assert r.status_code == 409 and r.json["code"] == "repair_needs_judge"
    # a judge's explicit re-pair: fresh tables, the round to start again
    r = judge.call("POST", f"/api/events/{ev}/swiss/repair", {"confirm": True})
    assert r.status_code == 200, r.json
    after = current_tables(org, ev)
    assert {t["code"] for t in after}.isdisjoint(before)
    detail = org.call("GET", f"/api/events/{ev}").json
    assert detail["rounds"][0]["started_ms"] is None
    assert {t["code"] for t in detail["tables"]} == {t["code"] for t in after}
    for code in before:  # the old tables' clocks are no longer running
        assert state_of(org, code).clock.status != "running"
    r = org.call("POST", f"/api/events/{ev}/round/start")
    assert r.status_code == 200 and r.json["started"] == 2 and r.json["refused"] == []


# -- 2. event tables wait for their round --------------------------------------------------


def test_an_event_table_registers_decks_but_waits_for_the_round_to_play() -> None:
    t = Table(staff_start=True).register()  # deck registration is open before the round
    t.checklist()
    t.refuse("A", "rps.pick", "round_not_started", hand="rock")
    t.refuse("A", "rps.report", "round_not_started", winner="A")
    t.do("organiser", "clock.start")
    t.do("A", "rps.pick", hand="rock")  # the round has started: play on


def test_a_casual_table_plays_without_a_round() -> None:
    t = Table().register()
    t.checklist()
    t.do("A", "rps.pick", hand="rock")


# -- 3. one result per match ---------------------------------------------------------------


def test_a_judges_result_closes_the_table_and_every_view_reads_it(org: Org):
    ev = org.event(tables=2)
    register(org, ev, 4)
    org.call("POST", f"/api/events/{ev}/swiss/pair")
    assert org.call("POST", f"/api/events/{ev}/round/start").status_code == 200
    t1, t2 = current_tables(org, ev)
    # a no-show at table 1: B never came, A wins
    r = org.call("POST", f"/api/events/{ev}/swiss/result", {"round": 1, "table": 1, "result": "A"})
    assert r.status_code == 200, r.json
    state = state_of(org, t1["code"])
    assert state.phase == "match_over" and state.clock.status == "stopped"
    # End round, the hall and the Swiss standings agree: table 1 is done, table 2 playing
    unfinished = org.call("GET", f"/api/events/{ev}/round/unfinished").json["tables"]
    assert [t["number"] for t in unfinished] == [2]
    slug = org.call("GET", f"/api/events/{ev}").json["slug"]
    assert org.client.get(f"/api/hall/{slug}").json["tables"]["playing"] == 1
    s = org.summary(ev)
    assert s["open_tables"] == [2]
    assert s["rounds"][0]["tables"][0]["result"] == "A"
    assert s["rounds"][0]["tables"][0]["judged"] is True
    rows = results_rows(org, ev)
    assert (rows[0]["match_winner"], rows[0]["match_confirmed"]) == ("A", "yes")
    assert rows[1]["match_confirmed"] == "no"
    # a double loss is one result on the table too; both lose in the standings
    r = org.call("POST", f"/api/events/{ev}/tables/2/result", {"result": "loss"})
    assert r.status_code == 200, r.json
    assert state_of(org, t2["code"]).phase == "match_over"
    s = org.summary(ev)
    assert s["rounds"][0]["tables"][1]["result"] == "loss"
    losers = {t2["a"]["player"], t2["b"]["player"]}
    assert {row["points"] for row in s["standings"] if row["player"] in losers} == {0}
    assert results_rows(org, ev)[1]["match_reason"] == "double_loss"


def test_a_judge_corrects_a_result_on_the_same_table(org: Org):
    ev = org.event(tables=2)
    register(org, ev, 4)
    org.call("POST", f"/api/events/{ev}/swiss/pair")
    org.call("POST", f"/api/events/{ev}/round/start")
    t1 = current_tables(org, ev)[0]
    org.table_result(t1["code"], "A")  # the seats' result
    r = org.call("POST", f"/api/events/{ev}/swiss/result", {"round": 1, "table": 1, "result": "B"})
    assert r.status_code == 200, r.json
    assert org.summary(ev)["rounds"][0]["tables"][0]["result"] == "B"
    assert view(state_of(org, t1["code"]))["match"]["winner"] == "B"
    assert results_rows(org, ev)[0]["match_winner"] == "B"


# -- 4. no next round while a table has no result -------------------------------------------


def test_the_next_round_waits_for_every_result_and_names_the_tables(org: Org):
    ev = org.event(tables=2)
    register(org, ev, 4)
    org.call("POST", f"/api/events/{ev}/swiss/pair")
    org.call("POST", f"/api/events/{ev}/round/start")
    t1, t2 = current_tables(org, ev)
    org.table_result(t1["code"], "A")
    # End round with table 2 still playing (extra turns), then "Open round 2": refused
    assert org.call("POST", f"/api/events/{ev}/round/end").status_code == 200
    r = org.call("POST", f"/api/events/{ev}/round/next")
    assert r.status_code == 409 and r.json["code"] == "results_missing"
    assert r.json["details"]["tables"] == [2] and "table 2" in r.json["message"]
    r = org.call("POST", f"/api/events/{ev}/swiss/pair")
    assert r.status_code == 409 and r.json["details"]["tables"] == [2]
    # the table never left the floor: still in the current round
    codes = {t["code"] for t in org.call("GET", f"/api/events/{ev}").json["tables"]}
    assert t2["code"] in codes
    # the organiser ends it with a judge's result: the next round pairs
    r = org.call("POST", f"/api/events/{ev}/tables/2/result", {"result": "draw"})
    assert r.status_code == 200, r.json
    r = org.call("POST", f"/api/events/{ev}/swiss/pair")
    assert r.status_code == 200 and r.json["round"] == 2, r.json


# -- 5. a disqualification ------------------------------------------------------------------


@pytest.mark.parametrize("level", ["disqualification", "disqualification_total"])
def test_a_disqualified_player_is_not_paired_again(org: Org, level: str):
    """Either disqualification (with or without the prize, PENALTIES.md) takes the player out
    of every later pairing, and the standings and their CSV say disqualified, not dropped."""
    ev = org.event(tables=2)
    register(org, ev, 4)
    org.call("POST", f"/api/events/{ev}/swiss/pair")
    org.call("POST", f"/api/events/{ev}/round/start")
    t1, t2 = current_tables(org, ev)
    store = org.app.extensions["duel_table"].tables.store
    dq = {"seat": "A", "level": level, "infraction": "cheating", "note": ""}
    tables_of(store).append(t1["code"], "penalty.record", dq, JUDGE, "dq", 2)
    org.table_result(t2["code"], "A")
    cheat = t1["a"]["player"]
    s = org.summary(ev)
    assert s["rounds"][0]["tables"][0]["result"] == "B"  # the match is lost
    assert next(p for p in s["players"] if p["number"] == cheat)["dropped_after"] == 1
    row = next(row for row in s["standings"] if row["player"] == cheat)
    assert row["dropped"] is True and row["disqualified"] is True
    assert [r["disqualified"] for r in s["standings"]].count(True) == 1
    csv_text = org.call("GET", f"/api/events/{ev}/standings.csv").get_data(as_text=True)
    lines = csv_text.lstrip("\ufeff").splitlines()
    assert lines[0].endswith(",dropped,disqualified")
    assert sum(line.endswith(",yes,yes") for line in lines[1:]) == 1
    r = org.call("POST", f"/api/events/{ev}/swiss/pair")
    assert r.status_code == 200, r.json
    s = org.summary(ev)
    seen = {x for t in s["rounds"][1]["tables"] for x in (t["a"]["player"], t["b"]["player"])}
    assert cheat not in seen and cheat != (s["rounds"][1]["bye"] or {}).get("player")


# -- 6. the top cut --------------------------------------------------------------------------


def test_only_the_cuts_tables_are_started_and_counted(org: Org):
    ev = org.event(tables=4)
    register(org, ev, 8)
    org.call("PATCH", f"/api/events/{ev}/swiss", {"rounds": 1})
    org.call("POST", f"/api/events/{ev}/swiss/pair")
    org.call("POST", f"/api/events/{ev}/round/start")
    for t in current_tables(org, ev):
        org.table_result(t["code"], "A")
    assert org.summary(ev)["swiss_played"] == 1
    r = org.call("POST", f"/api/events/{ev}/swiss/cut", {"size": 4})
    assert r.status_code == 200, r.json
    r = org.call("POST", f"/api/events/{ev}/round/start")
    assert r.status_code == 200 and r.json["started"] == 2, r.json
    slug = org.call("GET", f"/api/events/{ev}").json["slug"]
    assert org.client.get(f"/api/hall/{slug}").json["tables"]["playing"] == 2
    unfinished = org.call("GET", f"/api/events/{ev}/round/unfinished").json["tables"]
    assert [t["number"] for t in unfinished] == [1, 2]
    t = org.app.extensions["duel_table"].tournament
    assert sorted(t.codes(ev).values()) == [1, 2]  # the floor shows the cut's tables only


# -- 7. tie-breakers, "Swiss rounds played" --------------------------------------------------


def test_the_tiebreak_number_never_overflows_into_the_points() -> None:
    # P2 lost to P1, who won every match: P2's OMW% is 100%, and P2 has 0 points.
    players = [Player(1), Player(2), Player(3), Player(4)]
    matches = [Match(1, 1, 2, "A", 1), Match(1, 3, 4, "A", 2)]
    matches += [Match(2, 1, 3, "A", 1), Match(2, 2, 4, "A", 2)]
    rows = {st.player.id: st.to_dict() for st in standings(players, matches)}
    p4 = rows[4]  # 0 points; lost to P3 (1-1) and P2 (1-1)
    p2 = rows[2]  # 3 points; opponents P1 (2-0: 100%) and P4 (0-2: floored)
    assert p2["omw"] == 667 and p4["points"] == 0
    one = {st.player.id: st for st in standings(players, matches[:2])}
    loser = one[2].to_dict()  # round 1 only: P2 lost to P1 (100%)
    assert loser["omw"] == 1000  # its own column keeps the exact value
    assert loser["points"] == 0 and loser["tiebreak"] < 1_000_000  # no point from nowhere
    assert loser["tiebreak"] == 999 * 1000 + 333


def test_swiss_rounds_played_counts_rounds_with_every_result(org: Org):
    ev = org.event(tables=2)
    register(org, ev, 4)
    org.call("POST", f"/api/events/{ev}/swiss/pair")
    assert org.summary(ev)["swiss_played"] == 0
    org.call("POST", f"/api/events/{ev}/round/start")
    for t in current_tables(org, ev):
        org.table_result(t["code"], "A")
    assert org.summary(ev)["swiss_played"] == 1


def test_exports_carry_a_byte_order_mark(org: Org):
    ev = org.event(tables=1)
    r = org.call("POST", f"/api/events/{ev}/swiss/players", {"name": "遊戯", "player_id": "1"})
    assert r.status_code == 201
    for path in (f"/api/events/{ev}/results.csv", f"/api/events/{ev}/standings.csv"):
        r = org.call("GET", path)
        assert r.data.startswith(b"\xef\xbb\xbf"), path
        assert r.headers["Content-Type"] == "text/csv; charset=utf-8"


def test_results_csv_lists_the_tables_of_the_round_only(org: Org):
    """A round over fewer tables than the event has (an odd count's bye, a top cut): the unused
    tables are not matches without a result in the export, as they are not on the floor, the
    hall or End round."""
    ev = org.event(tables=4)
    register(org, ev, 5)
    assert org.call("POST", f"/api/events/{ev}/swiss/pair").status_code == 200
    assert org.call("POST", f"/api/events/{ev}/round/start").status_code == 200
    unfinished = org.call("GET", f"/api/events/{ev}/round/unfinished").json["tables"]
    assert [t["number"] for t in unfinished] == [1, 2]
    assert [int(row["table"]) for row in results_rows(org, ev)] == [1, 2]


# -- 8. an event seat carries its pairing's name and ID ----------------------------------------


def test_an_event_seat_takes_the_pairings_name_and_id_not_a_typed_one(org: Org):
    from tests.test_event_rounds import card_claim

    ev = org.event(tables=1)
    r = org.call("POST", f"/api/events/{ev}/pairings", {"csv": "1,遊戯,0001,海馬,0002"})
    assert r.status_code == 200, r.json
    code = org.call("GET", f"/api/events/{ev}").json["tables"][0]["code"]
    claim = card_claim(org.client, code, "A")
    # The card is the same in every round: a wrong typed ID does not seat the phone; it waits
    # for a judge, and the floor names the mismatch.
    body = {"seat": "A", "name": "Someone Else", "player_id": "9999", "claim": claim}
    r = org.client.post(f"/api/tables/{code}/join", json=body)
    assert r.status_code == 202 and r.json["why"] == "id_mismatch", r.json
    assert not state_of(org, code).seats["A"].joined
    asks = state_of(org, code).seat_requests
    assert [(a.seat, a.why, a.player_id) for a in asks] == [("A", "id_mismatch", "9999")]
    # The right ID under a different typed name: seated under the pairing's name and ID.
    body = {"seat": "A", "name": "Someone Else", "player_id": "0001", "claim": claim}
    r = org.client.post(
        f"/api/tables/{code}/join", json=body, environ_base={"REMOTE_ADDR": "10.9.0.1"}
    )
    assert r.status_code == 201, r.json
    seat = state_of(org, code).seats["A"]
    assert (seat.name, seat.player_id) == ("遊戯", "0001")
    row = results_rows(org, ev)[0]
    assert (row["player_a"], row["player_a_id"]) == ("遊戯", "0001")


def test_a_seat_a_judge_gives_carries_the_pairings_name_and_id(org: Org):
    """A phone that waits for a judge (no card, or a typed ID that is not the pairing's) shows
    the judge what it typed; the seat it is given carries the pairing's name and ID, and so
    does results.csv."""
    ev = org.event(tables=1)
    r = org.call("POST", f"/api/events/{ev}/pairings", {"csv": "1,遊戯,0001,海馬,0002"})
    assert r.status_code == 200, r.json
    code = org.call("GET", f"/api/events/{ev}").json["tables"][0]["code"]
    for seat, typed, why in (("A", "Someone Else", "no_claim"), ("B", "Kaiba-kun", "no_claim")):
        body = {"seat": seat, "name": typed, "player_id": "9999"}
        r = org.client.post(f"/api/tables/{code}/join", json=body)
        assert r.status_code == 202 and r.json["why"] == why, r.json
        ref = r.json["request"]
        asks = state_of(org, code).seat_requests
        assert [(a.name, a.player_id) for a in asks if a.seat == seat] == [(typed, "9999")]
        r = org.call("POST", f"/api/staff/tables/{code}/seat-requests/{ref}/approve")
        assert r.status_code == 200, r.json
    seats = state_of(org, code).seats
    assert (seats["A"].name, seats["A"].player_id) == ("遊戯", "0001")
    assert (seats["B"].name, seats["B"].player_id) == ("海馬", "0002")
    row = results_rows(org, ev)[0]
    assert (row["player_a"], row["player_a_id"], row["player_b"]) == ("遊戯", "0001", "海馬")


# -- 10. no-shows on the organiser's page -----------------------------------------------------


def test_a_no_show_is_listed_for_the_organiser_until_its_table_has_a_result(org: Org, clock):
    ev = org.event(tables=2)
    register(org, ev, 4)
    org.call("POST", f"/api/events/{ev}/swiss/pair")
    org.call("POST", f"/api/events/{ev}/round/start")
    assert org.summary(ev)["cycle"]["no_shows"] == []  # not yet due
    clock.advance(5 * 60_000)
    assert org.summary(ev)["cycle"]["no_shows"] == [1, 2]
    org.call("POST", f"/api/events/{ev}/tables/1/result", {"result": "B"})
    assert org.summary(ev)["cycle"]["no_shows"] == [2]
