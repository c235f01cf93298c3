"""Seat claims and moves: an event seat is taken at once only with the table card's claim;
otherwise the phone waits for a judge. A judge releases or moves a seat; at a casual table the
other seat confirms a new phone. The old token stops at once, its sockets close, and each step
is an event in the log."""

from __future__ import annotations

from typing import Any

import pytest
from access_world import World, make_world
from flask import Flask

from server import services
from server.api.access import GRANTS, seat_grant
from server.store.events import hash_token


@pytest.fixture
def world(app: Flask, clock) -> World:
    return make_world(app, clock())


def types(app: Flask, code: str) -> list[str]:
    with app.app_context():
        return [e["type"] for e in services().store.log(code)]


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def state(app: Flask, code: str) -> Any:
    with app.app_context():
        return services().store.snapshot(code).state


def seat_works(app: Flask, code: str, token: str) -> bool:
    with app.app_context():
        return services().store.seat_actor(code, token) is not None


def test_without_the_cards_claim_an_event_seat_waits_for_a_judge(app: Flask, world: World):
    client = app.test_client()
    squat = client.post(f"/api/tables/{world.code}/join", json={"name": "Yugi", "seat": "B"})
    assert squat.status_code == 202
    body = squat.get_json()
    assert body["status"] == "waiting" and body["why"] == "no_claim"
    assert not state(app, world.code).seats["B"].joined
    assert not seat_works(app, world.code, body["token"])
    assert "seat.requested" in types(app, world.code)
    # The real player, with the card's claim, is not blocked by the squatter.
    with app.app_context():
        from server.api.seats import claim_for

        claim = claim_for(world.slug, 1, "B")
    real = client.post(
        f"/api/tables/{world.code}/join", json={"name": "Kaiba", "seat": "B", "claim": claim}
    )
    assert real.status_code == 201 and state(app, world.code).seats["B"].name == "Kaiba"
    wrong = client.post(
        f"/api/tables/{world.code}/join", json={"name": "X", "seat": "A", "claim": claim}
    )
    assert wrong.status_code == 202  # B's claim does not open seat A


def test_a_judge_approves_a_waiting_phone(app: Flask, world: World):
    client = app.test_client()
    asked = client.post(f"/api/tables/{world.code}/join", json={"name": "Joey", "seat": "B"})
    ref, token = asked.get_json()["request"], asked.get_json()["token"]
    status = client.get(f"/api/tables/{world.code}/seat-requests/{ref}", headers=bearer(token))
    assert status.get_json()["status"] == "waiting"
    url = f"/api/staff/tables/{world.code}/seat-requests/{ref}/approve"
    for role in ("spectator", "seat", "other_judge"):
        assert world.request(role, "POST", url).status_code in (401, 403), role
    assert world.request("judge", "POST", url).status_code == 200
    assert seat_works(app, world.code, token)
    status = client.get(f"/api/tables/{world.code}/seat-requests/{ref}", headers=bearer(token))
    assert status.get_json()["status"] == "approved"
    with app.app_context():
        [joined] = [e for e in services().store.log(world.code) if e["type"] == "seat.joined"][1:]
    assert joined["data"]["seat"] == "B" and joined["data"]["by"] == "judge judge1"


def test_a_lost_phone_gets_its_seat_back_and_the_old_token_dies_with_its_sockets(
    app: Flask, world: World
):
    old = world.tokens["seat"]
    closed: list[bool] = []
    forget = GRANTS.add(seat_grant(hash_token(old)), lambda: closed.append(True))
    try:
        client = app.test_client()
        new = client.post(
            f"/api/tables/{world.code}/join",
            json={"name": "Yugi", "seat": "A", "claim": world.claims["seat"]},
        ).get_json()
        assert new["status"] == "waiting" and new["why"] == "taken"
        url = f"/api/staff/tables/{world.code}/seat-requests/{new['request']}/approve"
        assert world.request("judge", "POST", url).status_code == 200
        assert closed == [True]
        assert not seat_works(app, world.code, old)
        assert seat_works(app, world.code, new["token"])
        assert "seat.moved" in types(app, world.code)
        check = client.post(
            f"/api/tables/{world.code}/decklist/check", json={"text": "x"}, headers=bearer(old)
        )
        assert check.status_code == 401
    finally:
        forget()


def test_a_judge_releases_a_seat(app: Flask, world: World):
    old = world.tokens["seat"]
    url = f"/api/staff/tables/{world.code}/seats/A/release"
    for role in ("spectator", "seat", "other_seat", "other_judge"):
        assert world.request(role, "POST", url).status_code in (401, 403), role
    closed: list[bool] = []
    forget = GRANTS.add(seat_grant(hash_token(old)), lambda: closed.append(True))
    try:
        assert world.request("judge", "POST", url).status_code == 200
    finally:
        forget()
    assert closed == [True]
    assert not state(app, world.code).seats["A"].joined
    assert not seat_works(app, world.code, old)
    assert types(app, world.code)[-1] == "seat.released"
    assert world.request("judge", "POST", url).get_json()["code"] == "seat_free"


def test_at_a_casual_table_the_other_seat_confirms_a_new_phone(app: Flask):
    client = app.test_client()
    code = client.post("/api/tables", json={}).get_json()["code"]
    a = client.post(f"/api/tables/{code}/join", json={"name": "Yugi"}).get_json()["token"]
    b = client.post(f"/api/tables/{code}/join", json={"name": "Kaiba"}).get_json()["token"]
    taken = client.post(f"/api/tables/{code}/join", json={"name": "Kaiba", "seat": "B"})
    assert taken.status_code == 409  # without asking to take over: as before
    new = client.post(
        f"/api/tables/{code}/join", json={"name": "Kaiba", "seat": "B", "takeover": True}
    ).get_json()
    assert new["status"] == "waiting"
    url = f"/api/tables/{code}/seat-requests/{new['request']}/confirm"
    assert client.post(url).status_code == 401  # nobody's key
    assert client.post(url, headers=bearer(b)).status_code == 403  # not the seat itself
    assert seat_works(app, code, b)
    assert client.post(url, headers=bearer(a)).status_code == 200
    assert not seat_works(app, code, b) and seat_works(app, code, new["token"])
    moved = [e for e in client.get(f"/api/tables/{code}/log").get_json()["events"]][-1]
    assert moved["type"] == "seat.moved" and moved["data"]["by"] == "seat A"


def test_the_card_carries_the_claim_and_the_pairing_goes_to_its_holder(app: Flask, world: World):
    t = world.tournament()
    with app.app_context():
        from server.store.tournament import parse_pairings

        t.set_pairings(world.event_id, parse_pairings("1,Yugi Muto,0001,Seto Kaiba,0002\n"))
    page = world.request("organiser", "GET", f"/organiser/events/{world.event_id}/cards")
    assert page.status_code == 200
    link = app.test_client().get(f"/s/{world.slug}/1/B?c={world.claims['seat'][:0]}abc")
    assert "claim=abc" in link.headers["Location"]
    with app.app_context():
        from server.api.seats import claim_for

        claim_b = claim_for(world.slug, 1, "B")
    url = f"/api/tables/{world.code}/event"
    mine = app.test_client().get(f"{url}?seat=B&claim={claim_b}").get_json()
    assert mine["pairing"] == {"B": {"name": "Seto Kaiba", "player_id": "0002"}}
    assert app.test_client().get(f"{url}?seat=A&claim={claim_b}").get_json()["pairing"] is None


def test_a_waiting_request_is_in_the_state_until_it_is_answered(app: Flask):
    client = app.test_client()
    code = client.post("/api/tables", json={}).get_json()["code"]
    client.post(f"/api/tables/{code}/join", json={"name": "Yugi"})
    client.post(f"/api/tables/{code}/join", json={"name": "Kaiba"})
    new = client.post(
        f"/api/tables/{code}/join",
        json={"name": "Kaiba", "player_id": "0002", "seat": "B", "takeover": True},
    ).get_json()
    shown = client.get(f"/api/tables/{code}").get_json()["state"]["seat_requests"]
    assert [(r["request"], r["seat"], r["name"], r["player_id"], r["why"]) for r in shown] == [
        (new["request"], "B", "Kaiba", "0002", "takeover")
    ]
    [ask] = state(app, code).seat_requests
    assert ask.request == new["request"]


def test_at_a_casual_table_the_other_seat_refuses_a_new_phone(app: Flask):
    client = app.test_client()
    code = client.post("/api/tables", json={}).get_json()["code"]
    a = client.post(f"/api/tables/{code}/join", json={"name": "Yugi"}).get_json()["token"]
    b = client.post(f"/api/tables/{code}/join", json={"name": "Kaiba"}).get_json()["token"]
    new = client.post(
        f"/api/tables/{code}/join", json={"name": "Thief", "seat": "B", "takeover": True}
    ).get_json()
    url = f"/api/tables/{code}/seat-requests/{new['request']}/refuse"
    assert client.post(url).status_code in (401, 403)  # nobody's key
    assert client.post(url, headers=bearer(b)).status_code == 403  # not the seat itself
    assert state(app, code).seat_requests
    refused = client.post(url, headers=bearer(a))
    assert refused.status_code == 200 and refused.get_json()["status"] == "refused"
    assert state(app, code).seat_requests == ()
    assert seat_works(app, code, b) and not seat_works(app, code, new["token"])
    status = client.get(
        f"/api/tables/{code}/seat-requests/{new['request']}", headers=bearer(new["token"])
    )
    assert status.get_json()["status"] == "refused"
    assert types(app, code)[-1] == "seat.refused"
    # answered once: neither confirm nor refuse works again
    again = client.post(
        f"/api/tables/{code}/seat-requests/{new['request']}/confirm", headers=bearer(a)
    )
    assert again.status_code == 404
    assert client.post(url, headers=bearer(a)).status_code == 404


def test_an_approved_request_leaves_the_state(app: Flask, world: World):
    client = app.test_client()
    asked = client.post(f"/api/tables/{world.code}/join", json={"name": "Joey", "seat": "B"})
    ref = asked.get_json()["request"]
    assert [r.request for r in state(app, world.code).seat_requests] == [ref]
    url = f"/api/staff/tables/{world.code}/seat-requests/{ref}/approve"
    assert world.request("judge", "POST", url).status_code == 200
    assert state(app, world.code).seat_requests == ()


def test_a_judge_refuses_a_waiting_phone(app: Flask, world: World):
    client = app.test_client()
    asked = client.post(f"/api/tables/{world.code}/join", json={"name": "Bandit", "seat": "B"})
    ref, token = asked.get_json()["request"], asked.get_json()["token"]
    url = f"/api/staff/tables/{world.code}/seat-requests/{ref}/refuse"
    for role in ("spectator", "seat", "other_seat", "other_judge"):
        assert world.request(role, "POST", url).status_code in (401, 403), role
    assert state(app, world.code).seat_requests
    assert world.request("judge", "POST", url).status_code == 200
    assert state(app, world.code).seat_requests == ()
    assert not seat_works(app, world.code, token)
    with app.app_context():
        refused = services().store.log(world.code)[-1]
    assert refused["type"] == "seat.refused" and refused["data"]["by"] == "judge judge1"
    approve = f"/api/staff/tables/{world.code}/seat-requests/{ref}/approve"
    assert world.request("judge", "POST", approve).status_code == 404
