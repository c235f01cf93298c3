"""Seat claims and moves: an event seat is taken at once only with the table card's claim;
otherwise the phone waits for a judge. A judge releases or moves a seat; at a casual table the
other seat confirms a new phone. The old token stops at once, its sockets close, and each step
is an event in the log."""

from __future__ import annotations

import json
from typing import Any

import pytest
from access_world import World, make_world
from flask import Flask

from server import services
from server.api.access import seat_grant
from server.api.grants import Grants
from server.store.events import hash_token

AWAY_MS = 60_000  # SEAT_AWAY_SECONDS' default


@pytest.fixture
def world(app: Flask, clock) -> World:
    return make_world(app, clock())


def types(app: Flask, code: str) -> list[str]:
    with app.app_context():
        return [e["type"] for e in services().tables.store.log(code)]


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def state(app: Flask, code: str) -> Any:
    with app.app_context():
        return services().tables.store.snapshot(code).state


def seat_works(app: Flask, code: str, token: str) -> bool:
    with app.app_context():
        return services().tables.store.seat_actor(code, token) is not None


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
        from server.api.claims import claim_for

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
        assert world.request(role, "POST", url, json={}).status_code in (401, 403), role
    assert world.request("judge", "POST", url).status_code == 200
    assert seat_works(app, world.code, token)
    status = client.get(f"/api/tables/{world.code}/seat-requests/{ref}", headers=bearer(token))
    assert status.get_json()["status"] == "approved"
    with app.app_context():
        [joined] = [
            e for e in services().tables.store.log(world.code) if e["type"] == "seat.joined"
        ][1:]
    assert joined["data"]["seat"] == "B" and joined["data"]["by"] == "judge judge1"


def test_a_lost_phone_gets_its_seat_back_and_the_old_token_dies_with_its_sockets(
    app: Flask, world: World
):
    old = world.tokens["seat"]
    closed: list[bool] = []
    forget = grants(app).add(seat_grant(hash_token(old)), lambda: closed.append(True))
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
        assert world.request(role, "POST", url, json={}).status_code in (401, 403), role
    closed: list[bool] = []
    forget = grants(app).add(seat_grant(hash_token(old)), lambda: closed.append(True))
    try:
        assert world.request("judge", "POST", url).status_code == 200
    finally:
        forget()
    assert closed == [True]
    assert not state(app, world.code).seats["A"].joined
    assert not seat_works(app, world.code, old)
    assert types(app, world.code)[-1] == "seat.released"
    assert world.request("judge", "POST", url).get_json()["code"] == "seat_free"


def test_at_a_casual_table_the_other_seat_confirms_a_new_phone(app: Flask, clock):
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
    # B's own phone answers first (it would give the seat away itself): the other seat only
    # once B's phone has been away for SEAT_AWAY_SECONDS.
    assert client.post(url, headers=bearer(a)).status_code == 409
    assert seat_works(app, code, b)
    clock.advance(AWAY_MS)
    assert client.post(url, headers=bearer(a)).status_code == 200
    assert not seat_works(app, code, b) and seat_works(app, code, new["token"])
    moved = [e for e in client.get(f"/api/tables/{code}/log").get_json()["events"]][-1]
    assert moved["type"] == "seat.moved" and moved["data"]["by"] == "seat A"


def test_the_card_carries_the_claim_and_the_pairing_goes_to_its_holder(app: Flask, world: World):
    t = world.tournament()
    with app.app_context():
        from server.service.tournament import parse_pairings

        t.set_pairings(world.event_id, parse_pairings("1,Yugi Muto,0001,Seto Kaiba,0002\n"))
    page = world.request("organiser", "GET", f"/organiser/events/{world.event_id}/cards")
    assert page.status_code == 200
    with app.app_context():
        from server.api.claims import claim_for

        claim_b = claim_for(world.slug, 1, "B")
    link = app.test_client().get(f"/s/{world.slug}/1/B?c={claim_b}")
    assert f"claim={claim_b}" in link.headers["Location"]
    url = f"/api/tables/{world.code}/event"
    mine = app.test_client().get(f"{url}?seat=B&claim={claim_b}").get_json()
    assert mine["pairing"] == {"B": {"name": "Seto Kaiba", "id_needed": True}}  # never the ID
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
    # The typed ID is the staff's to read (docs/security.md); the public view shows "".
    assert [(r["request"], r["seat"], r["name"], r["player_id"], r["why"]) for r in shown] == [
        (new["request"], "B", "Kaiba", "", "takeover")
    ]
    [ask] = state(app, code).seat_requests
    assert ask.request == new["request"] and ask.player_id == "0002"


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
        assert world.request(role, "POST", url, json={}).status_code in (401, 403), role
    assert state(app, world.code).seat_requests
    assert world.request("judge", "POST", url).status_code == 200
    assert state(app, world.code).seat_requests == ()
    assert not seat_works(app, world.code, token)
    with app.app_context():
        refused = services().tables.store.log(world.code)[-1]
    assert refused["type"] == "seat.refused" and refused["data"]["by"] == "judge judge1"
    approve = f"/api/staff/tables/{world.code}/seat-requests/{ref}/approve"
    assert world.request("judge", "POST", approve).status_code == 404


# -- who moves a seat: its own phone, a judge, or (owner gone) the other seat ------------------


def casual(client) -> tuple[str, str, str]:
    """A casual table with both seats taken: (code, token A, token B)."""
    code = client.post("/api/tables", json={}).get_json()["code"]
    a = client.post(f"/api/tables/{code}/join", json={"name": "Yugi"}).get_json()["token"]
    b = client.post(f"/api/tables/{code}/join", json={"name": "Kaiba"}).get_json()["token"]
    return code, a, b


def ask(client, code: str, seat: str = "B", name: str = "Bob", headers=None, **extra: Any) -> Any:
    body = {"name": name, "seat": seat, "takeover": True, **extra}
    return client.post(f"/api/tables/{code}/join", json=body, headers=headers or {})


def test_a_seat_never_asks_for_the_other_seat_nor_confirms_its_own_takeover(app: Flask, clock):
    """The attack: seat A's phone asks for seat B, then confirms that request with A's token."""
    client = app.test_client()
    code, a, b = casual(client)
    asked = ask(client, code, headers=bearer(a))
    assert asked.status_code == 409 and asked.get_json()["code"] == "already_seated"
    assert state(app, code).seat_requests == ()
    # Asked without its token, it is a stranger: B's own phone must agree while it is around.
    new = ask(client, code).get_json()
    url = f"/api/tables/{code}/seat-requests/{new['request']}/confirm"
    refused = client.post(url, headers=bearer(a))
    assert refused.status_code == 409 and refused.get_json()["code"] == "owner_online"
    assert seat_works(app, code, b) and not seat_works(app, code, new["token"])
    assert [r.request for r in state(app, code).seat_requests] == [new["request"]]


def test_the_owner_refuses_a_strangers_request(app: Flask):
    client = app.test_client()
    code, a, b = casual(client)
    new = ask(client, code, name="Bandit").get_json()
    url = f"/api/tables/{code}/seat-requests/{new['request']}/refuse"
    answered = client.post(url, headers=bearer(b))  # seat B's own phone says no
    assert answered.status_code == 200 and answered.get_json()["status"] == "refused"
    assert seat_works(app, code, b) and not seat_works(app, code, new["token"])
    with app.app_context():
        refused = services().tables.store.log(code)[-1]
    assert refused["type"] == "seat.refused" and refused["data"]["by"] == "seat B"


def test_the_owner_gives_its_seat_to_its_new_phone(app: Flask):
    client = app.test_client()
    code, a, b = casual(client)
    new = ask(client, code, name="Kaiba").get_json()
    url = f"/api/tables/{code}/seat-requests/{new['request']}/confirm"
    assert client.post(url, headers=bearer(b)).status_code == 200
    assert not seat_works(app, code, b) and seat_works(app, code, new["token"])
    moved = [e for e in client.get(f"/api/tables/{code}/log").get_json()["events"]][-1]
    assert moved["type"] == "seat.moved" and moved["data"]["by"] == "seat B"


def test_the_other_seat_confirms_once_the_owners_phone_has_been_away(app: Flask, clock):
    client = app.test_client()
    code, a, b = casual(client)
    new = ask(client, code, name="Kaiba").get_json()
    url = f"/api/tables/{code}/seat-requests/{new['request']}/confirm"
    clock.advance(AWAY_MS - 1000)
    early = client.post(url, headers=bearer(a))
    assert early.status_code == 409 and early.get_json()["details"]["seconds"] == 1
    clock.advance(1000)
    assert client.post(url, headers=bearer(a)).status_code == 200
    assert not seat_works(app, code, b) and seat_works(app, code, new["token"])


def test_a_phone_that_is_not_its_owners_any_more_lets_the_other_seat_confirm(app: Flask):
    client = app.test_client()
    code, a, b = casual(client)
    said = client.post(f"/api/tables/{code}/seat/disown", headers=bearer(b))
    assert said.status_code == 200
    assert state(app, code).seats["B"].disowned
    assert types(app, code)[-1] == "seat.disowned"
    new = ask(client, code, name="Kaiba").get_json()
    url = f"/api/tables/{code}/seat-requests/{new['request']}/confirm"
    assert client.post(url, headers=bearer(a)).status_code == 200
    assert seat_works(app, code, new["token"]) and not seat_works(app, code, b)
    assert not state(app, code).seats["B"].disowned  # the new phone is its owner's
    assert client.post(f"/api/tables/{code}/seat/disown").status_code == 401  # nobody's key


def test_seat_requests_are_capped_per_asker_and_per_table(app: Flask):
    client = app.test_client()
    code, a, b = casual(client)
    first = ask(client, code)
    assert first.status_code == 202
    again = ask(client, code, name="Bob")
    assert again.status_code == 409 and again.get_json()["code"] == "request_waiting"
    # Other phones (other addresses) up to the table's cap: then refused, and nothing shown.
    for n in range(2):
        other = app.test_client()
        extra = {"environ_base": {"REMOTE_ADDR": f"10.0.0.{n + 2}"}}
        assert (
            other.post(
                f"/api/tables/{code}/join",
                json={"name": f"Bob{n}", "seat": "A", "takeover": True},
                **extra,
            ).status_code
            == 202
        )
    full = app.test_client().post(
        f"/api/tables/{code}/join",
        json={"name": "Bob9", "seat": "A", "takeover": True},
        environ_base={"REMOTE_ADDR": "10.0.0.9"},
    )
    assert full.status_code == 429 and full.get_json()["code"] == "too_many_requests"
    assert len(state(app, code).seat_requests) == 3
    assert types(app, code).count("seat.requested") == 3
    # An answered request frees its asker to ask again.
    ref = first.get_json()["request"]
    client.post(f"/api/tables/{code}/seat-requests/{ref}/refuse", headers=bearer(b))
    assert ask(client, code).status_code == 202


def test_event_seat_requests_are_capped_too(app: Flask, world: World):
    codes = []
    for n in range(6):
        answer = app.test_client().post(
            f"/api/tables/{world.code}/join",
            json={"name": "Bob", "seat": "B"},
            environ_base={"REMOTE_ADDR": f"10.1.0.{n}"},
        )
        codes.append(answer.status_code)
    assert codes == [202, 202, 202, 429, 429, 429]
    with app.app_context():
        from server.projections.floor import alerts_of
        from server.rules.view import view

        v = view(services().tables.store.snapshot(world.code).state, privileged=True)
    assert len([a for a in alerts_of(v) if a["kind"] == "seat_request"]) == 3


# -- claims: one round, one player; the /s/ link reveals nothing without one -------------------


def next_round(app: Flask, world: World, now_ms: int) -> str:
    from server.rules import Actor

    t = world.tournament()
    judge = Actor("judge", name="j")
    with app.app_context():
        from server.service.tournament import parse_pairings

        t.set_pairings(world.event_id, parse_pairings("1,Yugi Muto,,Seto Kaiba,\n"))
        t.start_round(world.event_id, judge, now_ms)
        t.end_round(world.event_id, judge, now_ms + 1)
        # Round 2's tables (the results of round 1 are not this test's matter).
        t.make_round(t.event(world.event_id), 2, now_ms + 2)
        return str(t.tables(world.event_id)[0]["code"])


def test_a_round_1_claim_is_refused_in_round_2(app: Flask, world: World, clock):
    """The cards are printed once: the photo of a round-1 card is the round-2 card too. What
    stops an impostor is the round-2 pairing's player ID, which no public page shows."""
    from server.api.claims import claim_for
    from server.service.tournament import parse_pairings

    with app.app_context():
        old = claim_for(world.slug, 1, "B")
    code = next_round(app, world, clock())
    with app.app_context():
        world.tournament().set_pairings(
            world.event_id, parse_pairings("1,Yugi Muto,0001,Seto Kaiba,0002\n")
        )
    # Round 1's player at table 1 seat B, with the photo of the card but not round 2's ID.
    impostor = app.test_client().post(
        f"/api/tables/{code}/join",
        json={"name": "Seto Kaiba", "player_id": "0009", "seat": "B", "claim": old},
    )
    assert impostor.status_code == 202 and impostor.get_json()["why"] == "id_mismatch"
    assert not state(app, code).seats["B"].joined
    # The card's link leads to the join screen, and the join screen shows no player ID.
    link = app.test_client().get(f"/s/{world.slug}/1/B?c={old}")
    assert link.status_code == 302 and f"/t/{code}?" in link.headers["Location"]
    shown = app.test_client().get(f"/api/tables/{code}/event?seat=B&claim={old}").get_json()
    assert shown["pairing"] == {"B": {"name": "Seto Kaiba", "id_needed": True}}
    assert "0002" not in json.dumps(shown)
    real = app.test_client().post(
        f"/api/tables/{code}/join",
        json={"name": "Kaiba", "player_id": " ０００２ ", "seat": "B", "claim": old},
        environ_base={"REMOTE_ADDR": "10.2.0.2"},
    )
    assert real.status_code == 201
    seat = state(app, code).seats["B"]
    assert (seat.name, seat.player_id) == ("Seto Kaiba", "0002")
    with app.app_context():
        from server.projections.floor import alerts_of
        from server.rules.view import view

        v = view(services().tables.store.snapshot(code).state, privileged=True)
    # The pairing's player sat with the right ID: the wrong ID's request is answered by that,
    # and no stale alert stays on the floor (the log keeps both).
    assert [a for a in alerts_of(v) if a["kind"] == "seat_request"] == []
    assert "seat.requested" in types(app, code) and "seat.refused" in types(app, code)


def _mistyped(app: Flask, world: World) -> tuple[str, Any]:
    """Table 1's seat B paired with ID 0002; a phone with the card types 0020."""
    from server.api.claims import claim_for
    from server.service.tournament import parse_pairings

    with app.app_context():
        world.tournament().set_pairings(
            world.event_id, parse_pairings("1,Yugi Muto,0001,Seto Kaiba,0002\n")
        )
        claim = claim_for(world.slug, 1, "B")
    body = {"name": "Seto Kaiba", "player_id": "0020", "seat": "B", "claim": claim}
    wrong = app.test_client().post(f"/api/tables/{world.code}/join", json=body)
    assert wrong.status_code == 202 and wrong.get_json()["why"] == "id_mismatch"
    return claim, wrong.get_json()


def test_a_mistyped_id_corrected_closes_its_own_request(app: Flask, world: World):
    claim, asked = _mistyped(app, world)
    assert [r.why for r in state(app, world.code).seat_requests] == ["id_mismatch"]
    body = {"name": "Seto Kaiba", "player_id": "0002", "seat": "B", "claim": claim}
    right = app.test_client().post(f"/api/tables/{world.code}/join", json=body)
    assert right.status_code == 201, right.get_json()
    assert state(app, world.code).seat_requests == ()  # nothing left for the floor
    status = app.test_client().get(
        f"/api/tables/{world.code}/seat-requests/{asked['request']}", headers=bearer(asked["token"])
    )
    assert status.get_json()["status"] == "refused"  # the waiting phone stops waiting


def test_a_waiting_phone_takes_its_own_request_back(app: Flask, world: World):
    _claim, asked = _mistyped(app, world)
    url = f"/api/tables/{world.code}/seat-requests/{asked['request']}/cancel"
    stranger = app.test_client().post(url, headers=bearer("not-its-token"))
    assert stranger.status_code == 404 and stranger.get_json()["code"] == "no_such_request"
    assert len(state(app, world.code).seat_requests) == 1
    mine = app.test_client().post(url, headers=bearer(asked["token"]))
    assert mine.status_code == 200 and mine.get_json()["status"] == "refused"
    assert state(app, world.code).seat_requests == ()
    again = app.test_client().post(url, headers=bearer(asked["token"]))
    assert again.status_code == 404


def test_guessing_player_ids_spends_the_miss_budget(app: Flask, world: World):
    from server.api.claims import claim_for
    from server.service.tournament import parse_pairings

    with app.app_context():
        world.tournament().set_pairings(
            world.event_id, parse_pairings("1,Yugi Muto,0001,Seto Kaiba,0002\n")
        )
        claim = claim_for(world.slug, 1, "B")
    client = app.test_client()
    url = f"/api/tables/{world.code}/join"
    answers = [
        client.post(
            url, json={"name": "X", "player_id": f"9{n:03}", "seat": "B", "claim": claim}
        ).status_code
        for n in range(60)
    ]
    assert 429 in answers and not state(app, world.code).seats["B"].joined
    # No ID typed at a seat paired with one: the join screen asks for it, nothing changes.
    other = app.test_client().post(
        url,
        json={"name": "X", "seat": "B", "claim": claim},
        environ_base={"REMOTE_ADDR": "10.2.0.3"},
    )
    assert other.status_code == 400 and other.get_json()["code"] == "player_id_required"


def test_past_a_few_wrong_ids_the_right_one_waits_for_a_judge(app: Flask, world: World):
    """Wrong IDs at a seat, from addresses enough to never run out of budget: after five, even
    the pairing's own ID waits for a judge (202 id_mismatch) instead of seating the phone, so a
    guess that hits looks like one that misses. (Before: past the budget a miss was 429 and a
    hit 201, so guessing went on at the HTTP rate; with a round-1 card the seat was taken.)"""
    from server.api.claims import claim_for
    from server.service.tournament import parse_pairings

    with app.app_context():
        world.tournament().set_pairings(
            world.event_id, parse_pairings("1,Yugi Muto,0001,Seto Kaiba,0002\n")
        )
        claim = claim_for(world.slug, 1, "B")
    app.config["SEAT_REQUESTS_PER_TABLE"] = 0  # every guess's request waits: none refused
    url = f"/api/tables/{world.code}/join"

    def join(player_id: str, address: str) -> Any:
        body = {"name": "X", "player_id": player_id, "seat": "B", "claim": claim}
        return app.test_client().post(url, json=body, environ_base={"REMOTE_ADDR": address})

    for n in range(5):
        assert join(f"9{n:03}", f"10.5.0.{n}").status_code == 202
    right = join("0002", "10.5.1.1")
    assert right.status_code == 202 and right.get_json()["why"] == "id_mismatch"
    assert not state(app, world.code).seats["B"].joined


def test_reissued_cards_void_the_old_ones(app: Flask, world: World):
    from server.api.claims import claim_for

    with app.app_context():
        old = claim_for(world.slug, 1, "B")
    r = world.request("organiser", "POST", f"/api/events/{world.event_id}/cards/reissue", json={})
    assert r.status_code == 200 and r.get_json()["cards_issue"] == 2, r.get_json()
    for role in ("judge", "spectator", "seat"):
        url = f"/api/events/{world.event_id}/cards/reissue"
        assert world.request(role, "POST", url, json={}).status_code in (401, 403), role
    joined = app.test_client().post(
        f"/api/tables/{world.code}/join", json={"name": "Kaiba", "seat": "B", "claim": old}
    )
    assert joined.status_code == 202 and joined.get_json()["why"] == "old_claim"
    with app.app_context():
        new = claim_for(world.slug, 1, "B", issue=2)
    link = app.test_client().get(f"/s/{world.slug}/1/B?c={new}")
    assert link.status_code == 302 and f"/t/{world.code}?" in link.headers["Location"]


def test_a_request_under_the_holders_own_name_alerts_the_floor(app: Flask, world: World):
    """A pairing without player IDs (the organiser waived them): the card seats the round's
    first phone, so the photo of the card used first by an impostor makes the real player's
    join a request the floor marks (`twin`), not a second identical name without an alert."""
    from server.api.claims import claim_for
    from server.service.tournament import parse_pairings

    t = world.tournament()
    with app.app_context():
        t.set_pairings(world.event_id, parse_pairings("1,Yugi Muto,,Seto Kaiba,\n"))
        claim = claim_for(world.slug, 1, "B")
    url = f"/api/tables/{world.code}/join"
    first = app.test_client().post(url, json={"name": "X", "seat": "B", "claim": claim})
    assert first.status_code == 201
    second = app.test_client().post(
        url,
        json={"name": "Seto Kaiba", "player_id": "0002", "seat": "B", "claim": claim},
        environ_base={"REMOTE_ADDR": "10.2.0.1"},
    )
    assert second.status_code == 202 and second.get_json()["why"] == "taken"
    with app.app_context():
        from server.projections.floor import alerts_of
        from server.rules.view import view

        v = view(services().tables.store.snapshot(world.code).state, privileged=True)
    [alert] = [a for a in alerts_of(v) if a["kind"] == "seat_request"]
    assert alert["twin"] and alert["taken_by"] == "Seto Kaiba"


def test_the_seat_link_reveals_no_code_without_a_valid_claim(app: Flask, world: World):
    client = app.test_client()
    for query in ("", "?c=", "?c=abc", f"?c={world.claims['other_seat']}"):
        link = client.get(f"/s/{world.slug}/1/A{query}")
        assert link.status_code in (302, 403, 404), query
        assert world.code not in link.headers.get("Location", ""), query
        assert world.code not in link.get_data(as_text=True), query
    # Nor does guessing: an address that keeps sending bad claims is held back (429).
    answers = [client.get(f"/s/{world.slug}/1/A?c=bad{n}").status_code for n in range(60)]
    assert 429 in answers
    # The card's claim does lead to the table.
    good = app.test_client().get(
        f"/s/{world.slug}/1/A?c={world.claims['seat']}", environ_base={"REMOTE_ADDR": "10.3.0.1"}
    )
    assert good.status_code == 302 and f"/t/{world.code}?" in good.headers["Location"]


def test_the_short_address_reveals_no_code(app: Flask, world: World):
    """The card's typed address (`/s/<slug>/<n>`, no claim) leads to the event's page, never to
    a table: before, one address walked it for 338 codes of 400 tables in 3.9 s."""
    client = app.test_client()
    for number in (1, 2):
        link = client.get(f"/s/{world.slug}/{number}")
        assert link.status_code == 302
        assert link.headers["Location"] == f"/e/{world.slug}"
        assert world.code not in link.get_data(as_text=True)


# -- a one-phone table recovered on a new phone ------------------------------------------------


def test_a_one_phone_table_is_recovered_on_a_new_phone(app: Flask):
    client = app.test_client()
    code = client.post("/api/tables", json={}).get_json()["code"]
    url = f"/api/tables/{code}/join"
    first = client.post(url, json={"name": "Yugi", "seat": "A", "device": "duo-old"}).get_json()
    assert "recovery" not in first
    second = client.post(url, json={"name": "Kaiba", "seat": "B", "device": "duo-old"}).get_json()
    recovery = second["recovery"]
    assert len(recovery.replace("-", "")) == 12
    old = {"A": first["token"], "B": second["token"]}
    closed: list[str] = []
    forgets = [
        grants(app).add(seat_grant(hash_token(tok)), lambda s=s: closed.append(s))
        for s, tok in old.items()
    ]
    try:
        wrong = client.post(f"/api/tables/{code}/recover", json={"recovery": "AAAA-AAAA-AAAA"})
        assert wrong.status_code == 403 and wrong.get_json()["code"] == "bad_recovery"
        assert seat_works(app, code, old["A"]) and seat_works(app, code, old["B"])
        typed = recovery.lower().replace("-", " ")
        got = client.post(
            f"/api/tables/{code}/recover", json={"recovery": typed, "device": "duo-new"}
        )
        assert got.status_code == 200, got.get_json()
        body = got.get_json()
    finally:
        for forget in forgets:
            forget()
    assert sorted(closed) == ["A", "B"]
    assert not seat_works(app, code, old["A"]) and not seat_works(app, code, old["B"])
    assert seat_works(app, code, body["seats"]["A"]) and seat_works(app, code, body["seats"]["B"])
    assert body["recovery"] != recovery  # the old code is spent, a new one shown once
    again = client.post(f"/api/tables/{code}/recover", json={"recovery": recovery})
    assert again.status_code == 403
    moved = [e for e in types(app, code) if e == "seat.moved"]
    assert moved == ["seat.moved", "seat.moved"]


def test_a_recovery_code_dies_when_the_table_becomes_two_phones(app: Flask):
    """Seat B moves from the one phone to its player's own: the code of the one-phone days no
    longer moves anything (before: it moved both seats to a third phone and revoked B's)."""
    client = app.test_client()
    code = client.post("/api/tables", json={}).get_json()["code"]
    url = f"/api/tables/{code}/join"
    a = client.post(url, json={"name": "Yugi", "seat": "A", "device": "duo"}).get_json()
    b = client.post(url, json={"name": "Kaiba", "seat": "B", "device": "duo"}).get_json()
    recovery = b["recovery"]
    asked = client.post(
        url, json={"name": "Kaiba", "seat": "B", "takeover": True, "device": "kaiba-own"}
    ).get_json()
    confirm = f"/api/tables/{code}/seat-requests/{asked['request']}/confirm"
    assert client.post(confirm, headers=bearer(b["token"])).status_code == 200
    got = client.post(f"/api/tables/{code}/recover", json={"recovery": recovery, "device": "x"})
    assert got.status_code == 403 and got.get_json()["code"] == "bad_recovery"
    assert seat_works(app, code, asked["token"]) and seat_works(app, code, a["token"])


def test_a_recovery_code_dies_when_a_seat_is_released(app: Flask):
    """A seat freed (a judge's release) ends the one-phone table: its code dies with it."""
    client = app.test_client()
    code = client.post("/api/tables", json={}).get_json()["code"]
    url = f"/api/tables/{code}/join"
    client.post(url, json={"name": "Yugi", "seat": "A", "device": "duo"})
    recovery = client.post(url, json={"name": "Kaiba", "seat": "B", "device": "duo"}).get_json()[
        "recovery"
    ]
    with app.app_context():
        found = services()
        found.tables.release_seat(code, "B", "judge", found.clock())
    client.post(url, json={"name": "Kaiba", "seat": "B", "device": "duo"})
    got = client.post(f"/api/tables/{code}/recover", json={"recovery": recovery, "device": "x"})
    assert got.status_code == 403 and got.get_json()["code"] == "bad_recovery"


def test_a_two_phone_table_has_no_recovery_code(app: Flask):
    client = app.test_client()
    code, a, b = casual(client)
    got = client.post(f"/api/tables/{code}/recover", json={"recovery": "AAAA-AAAA-AAAA"})
    assert got.status_code == 403 and got.get_json()["code"] == "bad_recovery"


def grants(app: Flask) -> Grants:
    """The app's open sockets by grant (`Services.grants`)."""
    found: Grants = app.extensions["duel_table"].grants
    return found


def test_a_players_id_is_read_by_its_seat_and_the_staff_only(app: Flask, world: World):
    """An event's card tells one round's player from the next by the pairing's player ID, so
    no other reader of the table may learn it: not the table's public state, its log, its
    export or its public score sheet (docs/security.md). Its own seat and the staff read it."""
    player_id = "1"  # seat A's, as make_world seats it
    code = world.code
    public = [
        world.request("spectator", "GET", f"/api/tables/{code}").get_json()["state"]["seats"],
        world.request("spectator", "GET", f"/api/tables/{code}/log").get_json()["events"],
        world.request("spectator", "GET", f"/api/tables/{code}/export.json").get_json()["events"],
    ]
    for seen in public:
        assert '"player_id": "1"' not in json.dumps(seen), seen
    assert public[0]["A"] == {"name": "Yugi", "player_id": "", "joined": True}
    joined = next(e for e in public[1] if e["type"] == "seat.joined")
    assert joined["data"]["player_id"] == ""
    sheet = world.request("spectator", "GET", f"/t/{code}/sheet").get_data(as_text=True)
    staff_sheet = world.request("judge", "GET", f"/t/{code}/sheet").get_data(as_text=True)
    id_cell = f'data-testid="sheet-id-A">{player_id}</td>'
    assert id_cell not in sheet and id_cell in staff_sheet
    export = world.request("judge", "GET", f"/api/tables/{code}/export.json").get_json()
    staff_joined = next(e for e in export["events"] if e["type"] == "seat.joined")
    assert staff_joined["data"]["player_id"] == player_id
    with app.app_context():
        from server.rules import event_for, view

        snap = services().tables.store.snapshot(code)
        assert view(snap.state, "A")["seats"]["A"]["player_id"] == player_id
        assert view(snap.state, "B")["seats"]["A"]["player_id"] == ""
        assert view(snap.state, privileged=True)["seats"]["A"]["player_id"] == player_id
        envelope = next(e for e in services().tables.store.log(code) if e["type"] == "seat.joined")
        assert event_for(envelope, "A")["data"]["player_id"] == player_id
        assert event_for(envelope, "B")["data"]["player_id"] == ""


def test_a_halls_shared_address_never_refuses_a_card_holders_request(app: Flask, world: World):
    """Phones behind a hall's one address, each with its own table card but a mistyped ID: each
    request is charged to its card's seat, not to the address, so the address's spent budget
    refuses none of them (before: the hall's few requests a minute, then 429 for everyone)."""
    from server.api.buckets import KeyedLimiter
    from server.api.claims import claim_for
    from server.service.tournament import parse_pairings

    app.extensions["duel_table"].seat_asks = KeyedLimiter(1 / 60, 1)  # one a minute, to see it
    lines = "1,Yugi,0101,Kaiba,0102\n2,Joey,0201,Mai,0202\n"
    with app.app_context():
        world.tournament().set_pairings(world.event_id, parse_pairings(lines))
        tables = sorted(world.tournament().tables(world.event_id), key=lambda t: t["number"])
    answers = []
    for t in tables:
        for seat in "AB":
            with app.app_context():
                claim = claim_for(world.slug, t["number"], seat)
            body = {"name": "Someone", "player_id": "9999", "seat": seat, "claim": claim}
            got = app.test_client().post(f"/api/tables/{t['code']}/join", json=body)
            answers.append((got.status_code, (got.get_json() or {}).get("why")))
    assert answers == [(202, "id_mismatch")] * 4
    # Without a card, the address's own budget holds: one, then 429.
    no_card = {"name": "Someone", "seat": "A", "device": "other-phone"}
    first = app.test_client().post(f"/api/tables/{tables[0]['code']}/join", json=no_card)
    again = app.test_client().post(
        f"/api/tables/{tables[1]['code']}/join", json={**no_card, "device": "third-phone"}
    )
    assert first.status_code == 202 and again.status_code == 429
