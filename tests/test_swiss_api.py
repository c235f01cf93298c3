"""The tournament over HTTP: registration, pairing, results from the tables, judges' entries,
drops, re-pairing (recorded), standings, CSV, public page, the top cut to a winner."""

from __future__ import annotations

import uuid
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient

from server.rules import Actor
from tests.conftest import FixedClock
from tests.tables import tables_of

PASSWORD = "correct horse battery"


class Org:
    def __init__(self, app: Flask, client: FlaskClient, username: str = "org1") -> None:
        self.app, self.client = app, client
        t = app.extensions["duel_table"].tournament
        username = f"{username}-{uuid.uuid4().hex[:8]}"  # one PostgreSQL database per session
        with app.app_context():
            t.create_account(username, PASSWORD, "organiser", 1)
        r = client.post("/api/auth/login", json={"username": username, "password": PASSWORD})
        assert r.status_code == 200
        self.csrf = r.json["csrf"]

    def call(self, method: str, path: str, body: Any = None) -> Any:
        return self.client.open(path, method=method, json=body, headers={"X-CSRF-Token": self.csrf})

    def event(self, tables: int = 2) -> int:
        r = self.call(
            "POST", "/api/events", {"name": "Cup", "date": "2026-12-01", "tables": tables}
        )
        assert r.status_code == 201
        return r.json["id"]

    def summary(self, ev: int) -> dict[str, Any]:
        r = self.call("GET", f"/api/events/{ev}/swiss")
        assert r.status_code == 200
        return r.json

    def table_result(self, code: str, winner: str | None) -> None:
        """The match at a live table decided by a judge there (as a confirmed result would)."""
        store = self.app.extensions["duel_table"].tables.store
        tables_of(store).append(
            code, "result.set", {"match_winner": winner}, Actor(role="judge", name="j"), None, 1
        )


@pytest.fixture
def org(app: Flask, client: FlaskClient) -> Org:
    return Org(app, client)


def register(org: Org, ev: int, n: int) -> None:
    for i in range(1, n + 1):
        r = org.call(
            "POST", f"/api/events/{ev}/swiss/players", {"name": f"P{i}", "player_id": f"{i:04}"}
        )
        assert r.status_code == 201, r.json


def finish_round(org: Org, ev: int) -> None:
    s = org.summary(ev)
    for t in s["rounds"][-1]["tables"]:
        org.table_result(t["code"], "A")


def test_a_whole_event_from_registration_to_the_winner(org: Org, clock: FixedClock):
    ev = org.event(tables=2)
    register(org, ev, 7)
    r = org.call("POST", f"/api/events/{ev}/swiss/pair")
    assert r.status_code == 200 and r.json["tables"] == 3 and r.json["bye"] is not None
    s = org.summary(ev)
    assert s["swiss_rounds"] == 3
    assert s["open_tables"] == [1, 2, 3]
    # the event had 2 tables: a third was added for the pairing, names on the tables
    detail = org.call("GET", f"/api/events/{ev}").json
    assert len(detail["tables"]) == 3
    assert all(t["pairing"]["A"]["name"].startswith("P") for t in detail["tables"])
    # no next round while a result is open
    r = org.call("POST", f"/api/events/{ev}/swiss/pair")
    assert r.status_code == 409 and r.json["code"] == "results_missing"
    # results flow in from the tables; one is a judge's entry (a no-show: B loses)
    tables = s["rounds"][0]["tables"]
    org.table_result(tables[0]["code"], "A")
    org.table_result(tables[1]["code"], "B")
    r = org.call("POST", f"/api/events/{ev}/swiss/result", {"round": 1, "table": 3, "result": "A"})
    assert r.status_code == 200
    s = org.summary(ev)
    assert s["open_tables"] == []
    assert [t["result"] for t in s["rounds"][0]["tables"]] == ["A", "B", "A"]
    assert s["rounds"][0]["tables"][2]["judged"] is True
    assert sum(row["points"] for row in s["standings"]) == 4 * 3  # 3 wins + the bye
    # a drop: not paired again
    dropped = s["rounds"][0]["tables"][0]["b"]["player"]
    assert org.call("POST", f"/api/events/{ev}/swiss/players/{dropped}/drop").status_code == 200
    # round 2
    r = org.call("POST", f"/api/events/{ev}/swiss/pair")
    assert r.status_code == 200 and r.json["round"] == 2 and r.json["bye"] is None
    s = org.summary(ev)
    paired = {x for t in s["rounds"][1]["tables"] for x in (t["a"]["player"], t["b"]["player"])}
    assert dropped not in paired and len(paired) == 6
    # re-pairing before the round starts is recorded, not overwritten
    r = org.call("POST", f"/api/events/{ev}/swiss/repair")
    assert r.status_code == 200
    log = org.app.extensions["duel_table"].swiss.log(ev)
    paired_log = [e for e in log if e["type"] == "round.paired"]
    assert [e["data"]["round"] for e in paired_log] == [1, 2, 2]
    assert paired_log[2]["data"]["replaces"] == paired_log[1]["seq"]
    assert org.summary(ev)["repairs"] == 1
    finish_round(org, ev)
    assert org.call("POST", f"/api/events/{ev}/swiss/pair").status_code == 200
    finish_round(org, ev)
    # 7 players: 3 Swiss rounds, unless the organiser raises the number
    r = org.call("POST", f"/api/events/{ev}/swiss/pair")
    assert r.status_code == 409 and r.json["code"] == "swiss_over"
    # a late entry after round 3 would play from round 4
    assert org.summary(ev)["swiss_played"] == 3
    # standings: CSV, printable page
    csv_text = org.call("GET", f"/api/events/{ev}/standings.csv").get_data(as_text=True)
    assert csv_text.startswith("\ufeffrank,name,player_id,points")  # UTF-8 with its BOM
    assert len(csv_text.splitlines()) == 8
    assert org.call("GET", f"/organiser/events/{ev}/standings").status_code == 200
    # the public page only once published
    slug = org.call("GET", f"/api/events/{ev}").json["slug"]
    assert org.client.get(f"/e/{slug}/standings").status_code == 404
    assert org.call("PATCH", f"/api/events/{ev}/swiss", {"public": True}).status_code == 200
    page = org.client.get(f"/e/{slug}/standings")
    assert page.status_code == 200 and "P1" in page.get_data(as_text=True)
    # top 4 to the winner
    r = org.call("POST", f"/api/events/{ev}/swiss/cut", {"size": 4})
    assert r.status_code == 200 and r.json["round"] == 4
    s = org.summary(ev)
    top = [row["player"] for row in s["standings"] if not row["dropped"]][:4]
    cut = s["rounds"][-1]["tables"]
    assert [(t["a"]["player"], t["b"]["player"]) for t in cut] == [
        (top[0], top[3]),
        (top[1], top[2]),
    ]
    # a draw at a cut table is no result; the judge decides
    org.table_result(cut[0]["code"], None)
    org.table_result(cut[1]["code"], "B")
    r = org.call("POST", f"/api/events/{ev}/swiss/cut/next")
    assert r.status_code == 409
    org.call("POST", f"/api/events/{ev}/swiss/result", {"round": 4, "table": 1, "result": "A"})
    assert org.call("POST", f"/api/events/{ev}/swiss/cut/next").status_code == 200
    final = org.summary(ev)["rounds"][-1]["tables"]
    assert [(t["a"]["player"], t["b"]["player"]) for t in final] == [(top[0], top[2])]
    org.table_result(final[0]["code"], "B")
    s = org.summary(ev)
    assert s["champion"]["player"] == top[2]
    assert "bracket" in org.client.get(f"/e/{slug}/standings").get_data(as_text=True)


def test_refusals_are_coded_and_change_nothing(org: Org, client: FlaskClient):
    ev = org.event()
    bad = org.call("POST", f"/api/events/{ev}/swiss/players", {"name": "", "player_id": "1"})
    assert bad.status_code == 400 and "code" in bad.json
    register(org, ev, 2)
    dup = org.call("POST", f"/api/events/{ev}/swiss/players", {"name": "X", "player_id": "0001"})
    assert dup.status_code == 409
    r = org.call("POST", f"/api/events/{ev}/swiss/result", {"round": 1, "table": 1, "result": "A"})
    assert r.status_code == 404
    r = org.call("POST", f"/api/events/{ev}/swiss/cut", {"size": 6})
    assert r.status_code == 400
    assert org.call("POST", f"/api/events/{ev}/swiss/cut", {"size": 4}).status_code == 409
    assert len(org.summary(ev)["players"]) == 2
    # no CSRF token: refused
    r = client.post(f"/api/events/{ev}/swiss/pair")
    assert r.status_code == 403
    # another organiser sees nothing of this event
    other = client.application.test_client()
    Org(client.application, other, "org2")
    assert other.get(f"/api/events/{ev}/swiss").status_code == 403
    assert org.summary(ev)["rounds"] == []


def test_names_are_escaped_on_the_pages(org: Org):
    ev = org.event()
    evil = "<img src=x onerror=alert(1)>"
    r = org.call("POST", f"/api/events/{ev}/swiss/players", {"name": evil, "player_id": "=1+1"})
    assert r.status_code == 201
    org.call("PATCH", f"/api/events/{ev}/swiss", {"public": True})
    slug = org.call("GET", f"/api/events/{ev}").json["slug"]
    for path in (f"/e/{slug}/standings", f"/organiser/events/{ev}/standings"):
        text = org.call("GET", path).get_data(as_text=True)
        assert evil not in text and "&lt;img src=x" in text
    csv_text = org.call("GET", f"/api/events/{ev}/standings.csv").get_data(as_text=True)
    assert "'=1+1" in csv_text  # not a formula to a spreadsheet


def test_a_late_entry_plays_from_the_next_round(org: Org):
    ev = org.event()
    register(org, ev, 4)
    assert org.call("POST", f"/api/events/{ev}/swiss/pair").status_code == 200
    r = org.call("POST", f"/api/events/{ev}/swiss/players", {"name": "Late", "player_id": "9999"})
    assert r.status_code == 201
    late = r.json["number"]
    s = org.summary(ev)
    assert next(p for p in s["players"] if p["number"] == late)["entered_round"] == 2
    assert late not in {
        x for t in s["rounds"][0]["tables"] for x in (t["a"]["player"], t["b"]["player"])
    }
    finish_round(org, ev)
    assert org.call("POST", f"/api/events/{ev}/swiss/pair").status_code == 200
    s = org.summary(ev)
    r2 = s["rounds"][1]
    seen = {x for t in r2["tables"] for x in (t["a"]["player"], t["b"]["player"])}
    assert late in seen | {r2["bye"]["player"]}
    assert len(seen) == 4 and r2["bye"] is not None
