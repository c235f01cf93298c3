"""R1.1: an organiser can require a player ID at an event's tables; a join without one (after
cleaning) is refused with `player_id_required`, at once and before any seat request waits."""

from __future__ import annotations

from flask.testing import FlaskClient

from tests.test_event_rounds import Org, card_claim, event


def patch(org: Org, event_id: int, body: dict[str, bool]) -> tuple[int, dict]:
    r = org.client.patch(f"/api/events/{event_id}", json=body, headers={"X-CSRF-Token": org.csrf})
    return r.status_code, r.json


def join(client: FlaskClient, code: str, seat: str, player_id: str, claim: str = "") -> tuple:
    body = {"seat": seat, "name": "Yugi", "player_id": player_id, "claim": claim}
    r = client.post(f"/api/tables/{code}/join", json=body)
    return r.status_code, r.json


def test_r1_1_event_requires_a_player_id_to_join(app, client) -> None:
    org = Org(client, app)
    ev = event(org, tables=2)
    code = ev["tables"][0]["code"]
    claim = card_claim(client, code, "A")
    assert ev["require_player_id"] is False
    status, body = patch(org, ev["id"], {"require_player_id": True})
    assert status == 200, body
    assert body["require_player_id"] is True
    assert body["spectators"] is True  # a PATCH changes only the settings it names
    # The join screen learns the table needs a player ID.
    info = client.get(f"/api/tables/{code}/event").json
    assert info["require_player_id"] is True
    store = app.extensions["duel_table"].tables.store
    # No player ID, or one that cleans to nothing: refused, and no seat taken, no request made.
    for pid in ("", "   ", "\u200b"):
        status, body = join(client, code, "A", pid, claim)
        assert (status, body["code"]) == (400, "player_id_required"), body
    status, body = join(client, code, "B", "")  # no claim: would wait for a judge
    assert (status, body["code"]) == (400, "player_id_required"), body
    assert not store.snapshot(code).state.seats["A"].joined
    # With a player ID the card's claim takes the seat.
    status, body = join(client, code, "A", "0123456789", claim)
    assert status == 201, body
    assert store.snapshot(code).state.seats["A"].player_id == "0123456789"


def test_r1_1_player_id_stays_optional_when_waived_and_at_casual_tables(app, client) -> None:
    org = Org(client, app)
    ev = event(org, tables=1)
    code = ev["tables"][0]["code"]
    assert client.get(f"/api/tables/{code}/event").json["require_player_id"] is False
    status, body = join(client, code, "A", "", card_claim(client, code, "A"))
    assert status == 201, body
    # Turning it off again works too.
    assert patch(org, ev["id"], {"require_player_id": True})[1]["require_player_id"] is True
    assert patch(org, ev["id"], {"require_player_id": False})[1]["require_player_id"] is False
    assert patch(org, ev["id"], {})[0] == 400
    casual = client.post("/api/tables", json={}).json["code"]
    assert join(client, casual, "A", "")[0] == 201


def test_r1_1_the_seeds_rule_set_requires_a_player_id_by_default(app, client) -> None:
    """R1.1 (「必須攜帶已註冊的5D's Duelist ID」): a new event under the seed's rule set asks every
    player for a player ID unless its organiser waives it; other rule sets leave it off."""
    org = Org(client, app)
    body = {"name": "Cup", "date": "2026-12-01", "tables": 1}
    seed = org.post("/api/events", body).json
    assert seed["require_player_id"] is True
    code = seed["tables"][0]["code"]
    assert client.get(f"/api/tables/{code}/event").json["require_player_id"] is True
    status, refused = join(client, code, "A", "", card_claim(client, code, "A"))
    assert (status, refused["code"]) == (400, "player_id_required"), refused
    other = org.post("/api/events", {**body, "ruleset": "tcg-2018-swiss"}).json
    assert other["require_player_id"] is False
    waived = org.post("/api/events", {**body, "require_player_id": False}).json
    assert waived["require_player_id"] is False
    code = waived["tables"][0]["code"]
    assert join(client, code, "A", "", card_claim(client, code, "A"))[0] == 201
    # The organiser may waive it later too (an unsanctioned event), and ask for it again.
    assert patch(org, seed["id"], {"require_player_id": False})[1]["require_player_id"] is False
    assert org.post("/api/events", {**body, "require_player_id": "yes"}).status_code == 400
