"""Rounds at an event: only staff start an event table's clock, "Start round" names the tables
it could not start, and "End round" names the tables still playing and tells their phones."""

from __future__ import annotations

from typing import Any

from flask.testing import FlaskClient

from server.core import addresses
from server.rules import view
from server.rules.base import DECLARATIONS, RuleError
from tests.rules_helpers import Table
from tests.tables import tables_of

PASSWORD = "correct horse battery"


# --- the rules core -----------------------------------------------------------------------------


def test_a_seat_cannot_start_an_event_tables_clock() -> None:
    t = Table(staff_start=True).register()
    t.refuse("A", "clock.start", "staff_start")
    t.refuse("B", "clock.start", "staff_start")
    assert t.types(t.do("organiser", "clock.start")) == ["clock.started"]


def _event_match_over() -> Table:
    """An event table whose match A won 2-0, confirmed by both seats."""
    t = Table(staff_start=True).register()
    t.win_duel("A").between().win_duel("A")
    t.do("A", "match.confirm")
    t.do("B", "match.confirm")
    assert t.state.phase == "match_over"
    return t


def test_r7_4_an_event_tables_seats_cannot_start_a_new_match() -> None:
    t = _event_match_over()
    recorded = (t.state.match, t.state.duels, t.state.wins, t.state.match_no)
    t.refuse("A", "match.new", "event_table")
    t.refuse("B", "match.new", "event_table")
    assert (t.state.match, t.state.duels, t.state.wins, t.state.match_no) == recorded


def test_r7_4_no_seat_command_replaces_an_event_tables_recorded_match() -> None:
    """Every command a seat may send, with its protocol sample, from either seat: refused, or
    the recorded 2-0 and its duels stay as they were."""
    t = _event_match_over()
    recorded = (t.state.match, t.state.duels, t.state.wins, t.state.match_no, t.state.phase)
    for name, declared in sorted(DECLARATIONS.items()):
        if "seat" not in declared.roles or declared.args is None:
            continue
        for seat in "AB":
            try:
                t.do(seat, name, **declared.sample)
            except RuleError:
                continue
            now = (t.state.match, t.state.duels, t.state.wins, t.state.match_no, t.state.phase)
            assert now == recorded, (name, seat)


def test_a_judge_still_corrects_an_event_tables_result_keeping_its_duels() -> None:
    t = _event_match_over()
    duels = t.state.duels
    t.do("judge", "result.set", match_winner="B", correct=True, note="wrong slip")
    assert t.state.match.winner == "B" and t.state.duels == duels  # the duel record kept


def test_a_casual_table_still_starts_on_both_votes() -> None:
    t = Table().register()
    assert t.types(t.do("A", "clock.start")) == ["clock.start_voted"]


def test_round_end_is_a_flag_the_phones_see_once() -> None:
    t = Table(staff_start=True).register()
    t.do("organiser", "clock.start")
    t.refuse("A", "round.end", "forbidden")
    t.refuse("judge", "round.end", "forbidden")
    t.do("organiser", "round.end", round=1)
    flags = view(t.state, "A")["flags"]
    assert [(f["kind"], f["detail"]) for f in flags] == [("round_ended", "1")]
    t.refuse("organiser", "round.end", "already_done", round=1)


# --- over HTTP ----------------------------------------------------------------------------------


class Org:
    def __init__(self, client: FlaskClient, app: Any) -> None:
        tournament = app.extensions["duel_table"].tournament
        tournament.create_account("org1", PASSWORD, "organiser", 0)
        r = client.post("/api/auth/login", json={"username": "org1", "password": PASSWORD})
        assert r.status_code == 200, r.json
        self.client, self.csrf = client, r.json["csrf"]

    def post(self, path: str, body: Any = None) -> Any:
        return self.client.post(path, json=body or {}, headers={"X-CSRF-Token": self.csrf})


def event(org: Org, tables: int = 3, **settings: Any) -> dict[str, Any]:
    """An event; unsanctioned (no player ID asked, R1.1) unless ``settings`` say otherwise."""
    body = {"name": "Cup", "date": "2026-12-01", "tables": tables, "match_minutes": 40}
    r = org.post("/api/events", {**body, "require_player_id": False, **settings})
    assert r.status_code == 201, r.json
    return r.json


def card_claim(client: FlaskClient, code: str, seat: str) -> str:
    """The claim the table card's QR carries for `seat` (the organiser's event detail has it)."""
    for ev in client.get("/api/events").json["events"]:
        for table in client.get(f"/api/events/{ev['id']}").json["tables"]:
            if table["code"] == code:
                return str(table["claims"][seat])
    raise AssertionError(f"no event table {code}")


def join(client: FlaskClient, code: str, seat: str, name: str) -> str:
    """Take `seat` as a player scanning the table card (with the seat's claim)."""
    claim = card_claim(client, code, seat)
    r = client.post(f"/api/tables/{code}/join", json={"seat": seat, "name": name, "claim": claim})
    assert r.status_code == 201, r.json
    return r.json["token"]


def test_start_round_reports_the_tables_it_could_not_start(app, client) -> None:
    org = Org(client, app)
    ev = event(org)
    store = app.extensions["duel_table"].tables.store
    table1 = ev["tables"][0]["code"]
    from server.rules import Actor

    # The round has its pairing (a round starts only then).
    pairings = "1,Yugi,,Kaiba,\n2,Mai,,Joey,\n3,Rex,,Weevil,"
    assert org.post(f"/api/events/{ev['id']}/pairings", {"csv": pairings}).status_code == 200
    # A judge started table 1 early: the round cannot start it again, and says so.
    tables_of(store).append(table1, "clock.start", {}, Actor("judge", name="j"), "early", 1)
    r = org.post(f"/api/events/{ev['id']}/round/start")
    assert r.status_code == 200, r.json
    assert r.json["started"] == 2
    assert r.json["refused"] == [
        {"table": 1, "code": "clock_started", "message": "The clock has already been started."}
    ]


def test_end_round_names_the_tables_still_playing_and_tells_them(app, client) -> None:
    org = Org(client, app)
    ev = event(org)
    store = app.extensions["duel_table"].tables.store
    codes = [t["code"] for t in ev["tables"]]
    for code in codes[:2]:
        join(client, code, "A", "Yugi")
        join(client, code, "B", "Kaiba")
    org.post(f"/api/events/{ev['id']}/pairings", {"csv": "3,Mai,,Joey,"})
    assert org.post(f"/api/events/{ev['id']}/round/start").status_code == 200
    # Table 2's match is over (a disqualification): it is not "still playing".
    from server.rules import Actor

    judge = Actor("judge", name="j")
    args = {"seat": "A", "level": "disqualification", "infraction": "cheating", "note": ""}
    tables_of(store).append(codes[1], "penalty.record", args, judge, "dq", 2)
    assert store.snapshot(codes[1]).state.phase == "match_over"
    # The preview lists the tables whose match is not over (the confirmation dialog's list),
    # with the players' names (the pairing's until they sit).
    r = client.get(f"/api/events/{ev['id']}/round/unfinished")
    assert r.status_code == 200, r.json
    assert [(t["number"], t["names"]) for t in r.json["tables"]] == [
        (1, {"A": "Yugi", "B": "Kaiba"}),
        (3, {"A": "Mai", "B": "Joey"}),
    ]
    r = org.post(f"/api/events/{ev['id']}/round/end")
    assert r.status_code == 200, r.json
    assert r.json["unfinished"] == [1, 3]
    for code, told in zip(codes, (True, False, True), strict=True):
        flags = view(store.snapshot(code).state, "A")["flags"]
        assert [f["kind"] for f in flags] == (["round_ended"] if told else [])


def test_table_cards_stay_right_in_every_round_and_pairings_carry_the_names(
    app, client, monkeypatch
) -> None:
    # No LAN here: the cards carry the page's own address (tests/test_public_addresses.py has
    # the LAN address a phone opens).
    monkeypatch.setattr(addresses, "lan_addresses", lambda: [])
    org = Org(client, app)
    ev = event(org, tables=2)
    org.post(f"/api/events/{ev['id']}/pairings", {"csv": "1,Yugi <b>,0001,Kaiba,0002"})
    with client.get(f"/organiser/events/{ev['id']}/cards") as r:
        page = r.get_data(as_text=True)
    assert r.status_code == 200
    for t in ev["tables"]:
        # no round's code or names on a card: its number, stable link and short address
        assert t["code"] not in page
        # typed when a QR won't scan: it leads to the event's page (the round's codes are on
        # the printed pairings), never to a table by itself
        assert f"localhost/s/{ev['slug']}/{t['number']}<" in page
    assert "Yugi" not in page and "Kaiba" not in page
    assert client.get(f"/s/{ev['slug']}/1").headers["Location"] == f"/e/{ev['slug']}"
    # the round's names and codes are on the printed pairings, escaped
    with client.get(f"/organiser/events/{ev['id']}/pairings") as r:
        printed = r.get_data(as_text=True)
    assert r.status_code == 200
    assert "Yugi &lt;b&gt;" in printed and "Kaiba" in printed and "<b>" not in printed
    assert ev["tables"][0]["code"] in printed
