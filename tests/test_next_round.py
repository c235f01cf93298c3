"""Phones follow the round: a seat's phone at a finished table asks where its player sits in the
event's next round (`GET /api/tables/<code>/next`) and gets that table, seat, opponent and the
table card's claim, so one tap takes the new seat. Only the seat's own phone asks, and the new
seat still wants the pairing's player ID."""

from __future__ import annotations

from typing import Any

from flask import Flask
from flask.testing import FlaskClient

from tests.test_round_cycle import current_tables
from tests.test_swiss_api import Org, finish_round, register


def _claims(org: Org, ev: int) -> dict[str, dict[str, str]]:
    return {t["code"]: t["claims"] for t in org.call("GET", f"/api/events/{ev}").json["tables"]}


def _sit(client: FlaskClient, code: str, seat: str, pairing: dict[str, str], claim: str) -> str:
    body = {"seat": seat, "name": pairing["name"], "player_id": pairing["player_id"]}
    r = client.post(f"/api/tables/{code}/join", json={**body, "claim": claim})
    assert r.status_code == 201, r.json
    return str(r.json["token"])


def _next(client: FlaskClient, code: str, token: str | None) -> Any:
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    return client.get(f"/api/tables/{code}/next", headers=headers)


def test_a_seat_learns_its_next_table_and_takes_it_with_the_cards_claim(app: Flask) -> None:
    org = Org(app, app.test_client())
    ev = org.event(tables=2)
    register(org, ev, 4)
    org.call("POST", f"/api/events/{ev}/swiss/pair")
    org.call("POST", f"/api/events/{ev}/round/start")
    round1 = current_tables(org, ev)
    claims = _claims(org, ev)
    phone = app.test_client()  # one player's phone, seat A of table 1
    first = round1[0]
    pairing = org.call("GET", f"/api/events/{ev}").json["tables"][0]["pairing"]
    token = _sit(phone, first["code"], "A", pairing["A"], claims[first["code"]]["A"])
    # Round 1 still running: nothing to follow yet
    assert _next(phone, first["code"], token).json == {"next": None}
    finish_round(org, ev)
    assert org.call("POST", f"/api/events/{ev}/round/end").status_code == 200
    assert org.call("POST", f"/api/events/{ev}/swiss/pair").status_code == 200
    detail = org.call("GET", f"/api/events/{ev}").json
    me = pairing["A"]
    where = next(
        (t, side)
        for t in detail["tables"]
        for side in "AB"
        if t["pairing"][side]["player_id"] == me["player_id"]
    )
    table, side = where
    other = "B" if side == "A" else "A"
    answer = _next(phone, first["code"], token)
    assert answer.status_code == 200, answer.json
    assert answer.json["next"] == {
        "round": 2,
        "number": table["number"],
        "seat": side,
        "opponent": table["pairing"][other]["name"],
        "code": table["code"],
        "claim": table["claims"][side],
    }
    # The one tap: the card's claim and the player's own ID seat them at once
    nxt = answer.json["next"]
    body = {"seat": side, "name": me["name"], "player_id": me["player_id"]}
    r = phone.post(f"/api/tables/{nxt['code']}/join", json={**body, "claim": nxt["claim"]})
    assert r.status_code == 201, r.json
    # Without the player's ID the claim alone does not seat anyone
    stranger = app.test_client()
    r = stranger.post(
        f"/api/tables/{nxt['code']}/join",
        json={"seat": other, "name": "x", "player_id": "", "claim": table["claims"][other]},
    )
    assert r.status_code == 400 and r.json["code"] == "player_id_required"


def test_only_the_seats_own_phone_asks_where_it_goes_next(app: Flask) -> None:
    org = Org(app, app.test_client())
    ev = org.event(tables=2)
    register(org, ev, 4)
    org.call("POST", f"/api/events/{ev}/swiss/pair")
    code = current_tables(org, ev)[0]["code"]
    spectator = app.test_client()
    r = _next(spectator, code, None)
    assert r.status_code == 401 and r.json["code"] == "bad_token"
    r = _next(spectator, code, "not-a-token")
    assert r.status_code in (401, 403)
    casual = spectator.post("/api/tables", json={}).json["code"]
    joined = spectator.post(f"/api/tables/{casual}/join", json={"name": "Yugi"}).json
    r = _next(spectator, casual, joined["token"])
    assert r.status_code == 404 and r.json["code"] == "not_event_table"
