"""One access decision for every route: who is asking (seat, staff, spectator) and what each
may read. The URL map is walked: a route without a decision fails the test."""

from __future__ import annotations

import re
from typing import Any

import pytest
from access_world import ROLES, World, make_world
from flask import Flask

from server import services
from server.api.access import POLICIES, SEAT, STAFF, TABLE, TABLES, socket_actor
from server.core.errors import AppError


@pytest.fixture
def world(app: Flask, clock) -> World:
    return make_world(app, clock())


def test_every_route_of_the_url_map_has_an_explicit_decision(app: Flask):
    missing = sorted(
        {r.endpoint for r in app.url_map.iter_rules()} - set(POLICIES),
    )
    assert missing == []


def sample_url(rule: Any, w: World) -> str:
    """The rule's path with its parameters filled in for the world's event table."""
    values = {
        "code": w.code,
        "event_id": str(w.event_id),
        "slug": w.slug,
        "number": "1",
        "seat": "A",
        "rest": "x",
        "path": "no-such-file.txt",
        "filename": "x",
        "username": "nobody",
        "ref": "nothing",
    }
    url = re.sub(r"<(?:[a-z]+:)?([a-z_]+)>", lambda m: values[m.group(1)], rule.rule)
    return url + (f"?codes={w.code}" if rule.endpoint == "sheets.sheets_page" else "")


def allowed(policy: str, role: str, spectators: bool) -> bool:
    """What the access module must let through to the route for each kind of asker."""
    if policy in (TABLE, TABLES):
        return spectators or role in ("seat", "judge", "organiser")
    if policy == SEAT:
        return role == "seat"
    if policy == STAFF:
        return role in ("judge", "other_judge", "organiser")
    return True


REFUSALS = {"spectators_off", "not_logged_in", "bad_token"}


@pytest.mark.parametrize("spectators", [True, False])
def test_every_route_against_every_kind_of_asker(app: Flask, world: World, spectators: bool):
    world.spectators(spectators)
    checked = 0
    for rule in app.url_map.iter_rules():
        policy = POLICIES[rule.endpoint]
        if policy == "socket" or rule.endpoint in ("staff.logout",):
            continue  # sockets: below; logging out would end the session the loop uses
        method = sorted(rule.methods - {"HEAD", "OPTIONS"})[0]
        url = sample_url(rule, world)
        for role in ROLES:
            answer = world.request(role, method, url, json={})
            body = answer.get_json(silent=True) or {}
            answer.close()
            refused = answer.status_code in (401, 403) and body.get("code") in REFUSALS
            assert refused != allowed(policy, role, spectators), (role, method, url, body)
            checked += 1
    assert checked > 6 * 30


@pytest.mark.parametrize(
    "path",
    ["/api/tables/{c}", "/api/tables/{c}/log", "/api/tables/{c}/export.json",
     "/api/tables/{c}/ledger.csv", "/api/tables/{c}/ledger", "/t/{c}/sheet", "/sheets?codes={c}",
     "/api/tables/{c}/event"],
)  # fmt: skip
def test_spectators_off_hides_the_table_from_anonymous_requests(world: World, path: str):
    url = path.format(c=world.code)
    assert world.request("spectator", "GET", url).status_code == 200
    world.spectators(False)
    answer = world.request("spectator", "GET", url)
    assert (answer.status_code, answer.get_json()["code"]) == (403, "spectators_off")
    for role in ("seat", "judge", "organiser"):
        assert world.request(role, "GET", url).status_code == 200, role
    for role in ("other_seat", "other_judge"):
        assert world.request(role, "GET", url).status_code == 403, role


def test_the_sockets_ask_the_same_module(app: Flask, world: World):
    world.spectators(False)
    with app.test_request_context(f"/ws/table/{world.code}"):
        with pytest.raises(AppError) as refused:
            socket_actor(world.code, None)
        assert refused.value.code == "spectators_off"
        with pytest.raises(AppError) as bad:
            socket_actor(world.code, world.tokens["other_seat"])
        assert bad.value.code == "bad_token"
        seat = socket_actor(world.code, world.tokens["seat"])
        assert seat is not None and seat.seat == "A"
    world.spectators(True)
    with app.test_request_context(f"/ws/table/{world.code}"):
        assert socket_actor(world.code, None) is None  # a spectator


def test_pairing_names_only_to_staff_and_the_seat(app: Flask, world: World):
    t = world.tournament()
    csv = "1,Yugi Muto,0001,Seto Kaiba,0002\n"
    with app.app_context():
        from server.service.tournament import parse_pairings

        t.set_pairings(world.event_id, parse_pairings(csv))
    url = f"/api/tables/{world.code}/event"
    anon = world.request("spectator", "GET", url).get_json()
    assert anon["number"] == 1 and anon["pairing"] is None
    for role in ("seat", "judge", "organiser"):
        pairing = world.request(role, "GET", url).get_json()["pairing"]
        assert pairing["A"]["name"] == "Yugi Muto", role
    assert "Kaiba" not in world.request("other_seat", "GET", url).get_data(as_text=True)


def test_a_sheets_look_up_costs_a_token_per_code(app_config: dict):
    from server import create_app

    app = create_app({**app_config, "HTTP_RATE_PER_MINUTE": 1, "HTTP_RATE_BURST": 30})
    try:
        client = app.test_client()
        codes = ",".join(f"ZZZZ{i:02d}" for i in range(25))
        assert client.get(f"/sheets?codes={codes}").status_code == 200
        answer = client.get(f"/sheets?codes={codes}")  # 25 more: only 5 tokens left
        assert answer.status_code == 429
        assert client.get("/sheets?codes=ZZZZ99").status_code == 200
    finally:
        app.extensions["duel_table"].close()


def test_the_event_look_up_is_rate_limited(app_config: dict):
    from server import create_app

    app = create_app({**app_config, "HTTP_RATE_PER_MINUTE": 1, "HTTP_RATE_BURST": 5})
    try:
        client = app.test_client()
        codes = [client.get(f"/api/tables/ZZZZ{i:02d}/event").status_code for i in range(8)]
        assert codes[:5] == [404] * 5 and codes[5:] == [429] * 3
        assert services  # the services module is the app's
    finally:
        app.extensions["duel_table"].close()


def test_guessing_codes_spends_the_few_miss_tokens_but_known_codes_still_open(app_config: dict):
    from server import create_app

    app = create_app({**app_config, "HTTP_MISS_PER_MINUTE": 1, "HTTP_MISS_BURST": 3})
    try:
        client = app.test_client()
        code = client.post("/api/tables", json={}).get_json()["code"]
        guesses = [client.get(f"/api/tables/ZZZZ{i:02d}").status_code for i in range(5)]
        assert guesses == [404, 404, 404, 429, 429]
        assert client.get(f"/sheets?codes={code},ZZZZ77").status_code == 429
        assert client.get(f"/api/tables/{code}").status_code == 200
        assert client.get(f"/api/tables/{code}/log").status_code == 200
    finally:
        app.extensions["duel_table"].close()
