"""The event's front desk: a player list imported at once (errors named by line, nothing
imported on error), check-in before round 1, late entries, pairings printed by name, the
whole event's results in one export, and one deck list per player per event (R2.6, R1.6)."""

from __future__ import annotations

import csv
import io
import re
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient

from server.api.presteps import before
from server.rules import DECLARATIONS, RuleError
from tests.conftest import FixedClock
from tests.test_event_rounds import card_claim
from tests.test_swiss_api import Org, finish_round

FILLER = [f"3 Card {i}" for i in range(13)] + ["1 Card 13"]  # 40 cards
LIST_ONE = "\n".join(["Main Deck", *FILLER, "Side Deck", "2 Mirror Force"])
LIST_TWO = "\n".join(["Main Deck", *FILLER, "Side Deck", "3 Raigeki"])
# The same deck as LIST_ONE, typed another way (width, case, count after the name).
AGAIN = [f"CARD {i} x3" for i in range(13)]
LIST_ONE_AGAIN = "\n".join(["main", *AGAIN, "card 13", "side", "Mirror Force x2"])


@pytest.fixture(name="org")
def organiser(app: Flask, client: FlaskClient) -> Org:
    return Org(app, client)


def imported(org: Org, ev: int, text: str) -> Any:
    return org.call("POST", f"/api/events/{ev}/swiss/players/import", {"text": text})


def names(org: Org, ev: int) -> list[tuple[str, str]]:
    return [(p["name"], p["player_id"]) for p in org.summary(ev)["players"]]


# --- "The organiser types every player one at a time": the import ---------------------------


def test_a_spreadsheets_player_list_registers_everyone_at_once(org: Org):
    ev = org.event(tables=2)
    text = (
        '\ufeffName;Player ID\r\n"Chen, Wei";0100000001\r\nAoi;0100000002\r\n'
        '"陳 ""小明""";0100000003\r\n'
    )
    r = imported(org, ev, text)
    assert r.status_code == 201, r.json
    assert r.json["imported"] == 3
    assert names(org, ev) == [
        ("Chen, Wei", "0100000001"),
        ("Aoi", "0100000002"),
        ('陳 "小明"', "0100000003"),
    ]


def test_an_imported_list_with_a_problem_names_its_line_and_imports_nothing(org: Org):
    ev = org.event(tables=2)
    r = imported(org, ev, "Chen,0001\nAoi,0002\nBea,\n")
    assert r.status_code == 400 and r.json["code"] == "import_no_id"
    assert r.json["details"]["line"] == 3
    r = imported(org, ev, "Chen,0001\nAoi,0002\nBea,0001\n")
    assert r.json["code"] == "import_duplicate" and r.json["details"]["line"] == 3
    assert names(org, ev) == []
    assert imported(org, ev, "Chen,0001\n").status_code == 201
    r = imported(org, ev, "Aoi,0002\nChen again,0001\n")
    assert r.json["code"] == "import_registered" and r.json["details"]["line"] == 2
    assert names(org, ev) == [("Chen", "0001")]


# --- check-in and late entries ----------------------------------------------------------------


def test_with_check_in_a_player_not_checked_in_is_not_paired(org: Org):
    ev = org.event(tables=2)
    imported(org, ev, "\n".join(f"P{i},{i:04}" for i in range(1, 6)))
    assert org.call("PATCH", f"/api/events/{ev}/swiss", {"check_in": True}).status_code == 200
    for n in (1, 2, 3, 4):
        r = org.call("POST", f"/api/events/{ev}/swiss/players/{n}/checkin", {"present": True})
        assert r.status_code == 200 and r.json["round"] == 1
    r = org.call("POST", f"/api/events/{ev}/swiss/pair")
    assert r.status_code == 200 and r.json["tables"] == 2 and r.json["bye"] is None
    s = org.summary(ev)
    paired = {x for t in s["rounds"][0]["tables"] for x in (t["a"]["player"], t["b"]["player"])}
    assert paired == {1, 2, 3, 4}
    assert [r["player"] for r in s["standings"]] and 5 not in {r["player"] for r in s["standings"]}
    # P5 arrives during round 1, and a late entry registers: both play from round 2.
    org.call("POST", f"/api/events/{ev}/swiss/players/5/checkin", {"present": True})
    late = org.call("POST", f"/api/events/{ev}/swiss/players", {"name": "P6", "player_id": "0006"})
    assert late.status_code == 201
    assert org.call("POST", f"/api/events/{ev}/round/start").status_code == 200
    finish_round(org, ev)
    assert org.call("POST", f"/api/events/{ev}/swiss/pair").status_code == 200
    s = org.summary(ev)
    paired = {x for t in s["rounds"][1]["tables"] for x in (t["a"]["player"], t["b"]["player"])}
    assert paired == {1, 2, 3, 4, 5, 6}
    by_no = {p["number"]: p for p in s["players"]}
    assert by_no[5]["entered_round"] == 2 and by_no[6]["entered_round"] == 2


def test_a_paired_player_cannot_be_checked_out(org: Org):
    ev = org.event(tables=1)
    imported(org, ev, "A,1\nB,2\n")
    org.call("PATCH", f"/api/events/{ev}/swiss", {"check_in": True})
    for n in (1, 2):
        org.call("POST", f"/api/events/{ev}/swiss/players/{n}/checkin", {"present": True})
    org.call("POST", f"/api/events/{ev}/swiss/pair")
    r = org.call("POST", f"/api/events/{ev}/swiss/players/1/checkin", {"present": False})
    assert r.status_code == 409 and r.json["code"] == "already_paired_player"


def test_check_in_is_chosen_before_round_1_is_paired(org: Org):
    """Turned on once round 1 is paired, check-in would leave out of the next round everyone
    who never checked in (the whole field): refused, and the event keeps pairing everyone."""
    ev = org.event(tables=1)
    imported(org, ev, "A,1\nB,2\n")
    assert org.call("POST", f"/api/events/{ev}/swiss/pair").status_code == 200
    r = org.call("PATCH", f"/api/events/{ev}/swiss", {"check_in": True})
    assert r.status_code == 409 and r.json["code"] == "check_in_fixed"
    assert org.summary(ev)["check_in"] is False


# --- printed pairings by name -----------------------------------------------------------------


def test_the_printed_pairings_list_every_player_by_name_a_to_z(org: Org):
    ev = org.event(tables=2)
    imported(org, ev, "zoe,1\nAdam,2\nmia,3\nBen,4\nCarl,5\n")
    org.call("POST", f"/api/events/{ev}/swiss/pair")
    page = org.call("GET", f"/organiser/events/{ev}/pairings?by=name").get_data(as_text=True)
    first = re.findall(r"<tr><td>([^<]*)</td>", page)
    assert first == ["Adam", "Ben", "Carl", "mia", "zoe"]
    assert "Bye" in page  # five players: one has the bye, and is listed with it
    assert "data-testid='pairings-by-name'" in page


# --- "The results export loses round 1": the whole event in one export ---------------------------


def test_the_whole_event_export_holds_every_round_ids_as_text_and_worded_reasons(
    org: Org, app: Flask
):
    ev = org.event(tables=2)
    imported(org, ev, "Chen,0100000001\nAoi,0100000002\nBea,0100000003\nDan,0100000004\n")
    for _ in range(2):
        assert org.call("POST", f"/api/events/{ev}/swiss/pair").status_code == 200
        assert org.call("POST", f"/api/events/{ev}/round/start").status_code == 200
        finish_round(org, ev)
    # Round 2 has started: the export still holds round 1.
    r = org.client.get(f"/api/events/{ev}/event-results.csv?lang=ja")
    assert r.status_code == 200
    text = r.get_data(as_text=True)
    rows = list(csv.DictReader(io.StringIO(text.removeprefix("\ufeff"))))
    assert len(rows) == 4
    assert {"round_1", "round_1_opponent", "round_2", "round_2_reason"} <= set(rows[0])
    assert all(row["round_1"] and row["round_2"] for row in rows)
    assert rows[0]["player_id"].startswith('="0100') and rows[0]["player_id"].endswith('"')
    # The 2-0 player met a 1-1 one in round 2, and in round 1 a 0-2 one (floored at 1/3):
    # (1/3 + 1/2) / 2 = 5/12, or another 1-1 one: 1/2.
    first = org.summary(ev)["standings"][0]
    assert rows[0]["record"] == "2-0-0"
    assert rows[0]["omw"] == {417: "41.67%", 500: "50.00%"}[first["omw"]]
    # A judge set these results: the code, and the words of the reader's language beside it.
    assert rows[0]["round_1_reason"] == "judge (ジャッジの裁定)"
    assert rows[0]["round_1"].startswith("W ")


# --- "One deck per tournament does not hold across rounds" (R2.6, R1.6) -------------------------


def register_at_table(app: Flask, client: FlaskClient, code: str, token: str, text: str) -> Any:
    """A seat's `deck.register`, through the pre-steps its declaration names (as the socket)."""
    with app.app_context():
        services = app.extensions["duel_table"]
        actor = services.tables.store.seat_actor(code, token)
        args = before(DECLARATIONS["deck.register"], code, {"text": text}, actor, 1)
        return services.tables.command(code, "deck.register", args, actor, None, 1)


def join(client: FlaskClient, code: str, seat: str, name: str, player_id: str) -> str:
    """Take `seat` as the player scanning the table card, typing their player ID."""
    body = {"seat": seat, "name": name, "claim": card_claim(client, code, seat)}
    r = client.post(f"/api/tables/{code}/join", json={**body, "player_id": player_id})
    assert r.status_code == 201, r.json
    return str(r.json["token"])


def seat_of(org: Org, ev: int, round_no: int, number: int) -> tuple[str, str]:
    for t in org.summary(ev)["rounds"][round_no - 1]["tables"]:
        for seat in ("A", "B"):
            if t[seat.lower()]["player"] == number:
                return t["code"], seat
    raise AssertionError("not paired")


def test_r2_6_a_list_registered_once_binds_the_players_table_in_every_round(
    org: Org, app: Flask, client: FlaskClient, clock: FixedClock
):
    ev = org.event(tables=1)
    imported(org, ev, "Chen,0001\nAoi,0002\n")
    slug = org.call("GET", f"/api/events/{ev}").json["slug"]
    # The player registers from their phone, once, before round 1.
    phone = app.test_client()
    r = phone.post(f"/api/e/{slug}/decklist", json={"player_id": "0001", "text": LIST_ONE})
    assert r.status_code == 201, r.json
    again = phone.post(f"/api/e/{slug}/decklist", json={"player_id": "0001", "text": LIST_TWO})
    assert again.status_code == 409 and again.json["code"] == "deck_registered"
    for round_no in (1, 2):
        if round_no == 2:
            finish_round(org, ev)
        assert org.call("POST", f"/api/events/{ev}/swiss/pair").status_code == 200
        code, seat = seat_of(org, ev, round_no, 1)
        token = join(client, code, seat, "Chen", "0001")
        seen = client.get(
            f"/api/tables/{code}/decklist/event", headers={"Authorization": f"Bearer {token}"}
        )
        assert seen.json["text"] == LIST_ONE
        try:
            register_at_table(app, client, code, token, LIST_TWO)
        except RuleError as exc:
            assert exc.code == "deck_not_event_list"
        else:
            raise AssertionError("a different list was taken")
        register_at_table(app, client, code, token, LIST_ONE_AGAIN)
        # A judge's deck check there compares the table's list with the event's.
        lists = org.call("GET", f"/api/staff/tables/{code}").json["event_lists"]
        assert lists[seat]["same"] is True and lists[seat]["differences"] == []
        assert org.call("POST", f"/api/events/{ev}/round/start").status_code == 200


def test_r2_6_the_first_list_a_table_takes_binds_the_next_rounds(
    org: Org, app: Flask, client: FlaskClient
):
    ev = org.event(tables=1)
    imported(org, ev, "Chen,0001\nAoi,0002\n")
    org.call("POST", f"/api/events/{ev}/swiss/pair")
    code, seat = seat_of(org, ev, 1, 2)
    token = join(client, code, seat, "Aoi", "0002")
    register_at_table(app, client, code, token, LIST_TWO)
    listed = org.call("GET", f"/api/events/{ev}/swiss/players/2/decklist").json
    assert listed["counts"] == {"main": 40, "extra": 0, "side": 3}
    # The same table corrects it before its first duel (R2.8): the corrected one is the event's.
    register_at_table(app, client, code, token, LIST_ONE)
    listed = org.call("GET", f"/api/events/{ev}/swiss/players/2/decklist").json
    assert listed["counts"] == {"main": 40, "extra": 0, "side": 2}
    org.call("POST", f"/api/events/{ev}/round/start")
    finish_round(org, ev)
    org.call("POST", f"/api/events/{ev}/swiss/pair")
    code, seat = seat_of(org, ev, 2, 2)
    token = join(client, code, seat, "Aoi", "0002")
    try:
        register_at_table(app, client, code, token, LIST_TWO)
    except RuleError as exc:
        assert exc.code == "deck_not_event_list"
        assert exc.details["differences"]
    else:
        raise AssertionError("a different list was taken in round 2")
    register_at_table(app, client, code, token, LIST_ONE_AGAIN)


def test_r1_6_the_organiser_registers_the_sheet_and_may_replace_it_until_the_first_round(
    org: Org, app: Flask
):
    ev = org.event(tables=1)
    imported(org, ev, "Chen,0001\nAoi,0002\n")
    path = f"/api/events/{ev}/swiss/players/1/decklist"
    short = "\n".join(FILLER[:-1])  # 39 cards: R2.1
    r = org.call("PUT", path, {"text": short})
    assert r.status_code == 400 and r.json["code"] == "deck_illegal"
    assert org.call("GET", path).json["text"] is None
    assert org.call("PUT", path, {"text": LIST_ONE}).status_code == 200
    assert org.call("PUT", path, {"text": LIST_TWO}).json["counts"]["side"] == 3
    slug = org.call("GET", f"/api/events/{ev}").json["slug"]
    phone = app.test_client()
    mine = phone.post(f"/api/e/{slug}/decklist", json={"player_id": "0001", "text": LIST_ONE})
    assert mine.status_code == 409 and mine.json["code"] == "deck_registered"
    org.call("POST", f"/api/events/{ev}/swiss/pair")
    org.call("POST", f"/api/events/{ev}/round/start")
    late = phone.post(f"/api/e/{slug}/decklist", json={"player_id": "0002", "text": LIST_ONE})
    assert late.status_code == 409 and late.json["code"] == "deck_registration_closed"
    r = org.call("PUT", path, {"text": LIST_ONE})
    assert r.status_code == 409 and r.json["code"] == "deck_registered"
    assert org.call("GET", path).json["counts"]["side"] == 3
