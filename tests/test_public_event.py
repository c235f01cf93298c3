"""The public pages of an event come from one projection per event, built when the event's data
changes and never per view; they show no player's ID; the standings only once published; a
player finds themselves by name or ID. (`python -m bench.public` times a view at 2,000 players.)
"""

from __future__ import annotations

import pytest
from flask import Flask
from flask.testing import FlaskClient

from tests.test_swiss_api import Org, register


@pytest.fixture
def org(app: Flask, client: FlaskClient) -> Org:
    return Org(app, client)


def cache(org: Org):
    return org.app.extensions["duel_table"].events


def paired_event(org: Org) -> tuple[int, str]:
    ev = org.event(tables=2)
    register(org, ev, 4)
    assert org.call("POST", f"/api/events/{ev}/swiss/pair").status_code == 200
    assert org.call("POST", f"/api/events/{ev}/round/start").status_code == 200
    return ev, org.call("GET", f"/api/events/{ev}").json["slug"]


def test_views_are_served_from_the_cached_projection(org: Org):
    ev, slug = paired_event(org)
    anyone = org.app.test_client()
    first = anyone.get(f"/api/e/{slug}")
    assert first.status_code == 200
    builds = cache(org).builds
    for _ in range(20):
        again = anyone.get(f"/api/e/{slug}")
        assert again.data == first.data
        assert again.headers["X-Projection"] == first.headers["X-Projection"]
    assert cache(org).builds == builds  # no view rebuilt it
    body = first.json
    assert body["round"]["number"] == 1 and body["round"]["started_ms"] is not None
    assert len(body["tables"]) == 2 and body["standings"] is None  # not published


def test_a_result_at_a_table_rebuilds_the_projection_once(org: Org):
    ev, slug = paired_event(org)
    anyone = org.app.test_client()
    assert [t["result"] for t in anyone.get(f"/api/e/{slug}").json["tables"]] == [None, None]
    builds = cache(org).builds
    # a judge's result: the table's log changes and its publish reaches the cache
    r = org.call("POST", f"/api/events/{ev}/swiss/result", {"round": 1, "table": 1, "result": "A"})
    assert r.status_code == 200
    body = anyone.get(f"/api/e/{slug}").json
    assert [t["result"] for t in body["tables"]] == ["A", None]
    assert cache(org).builds == builds + 1
    anyone.get(f"/api/e/{slug}")
    assert cache(org).builds == builds + 1
    # the seats' own result, published by the table service like any phone's command
    code = org.summary(ev)["rounds"][0]["tables"][1]["code"]
    services = org.app.extensions["duel_table"]
    org.table_result(code, "B")
    services.hub.publish(code, services.tables.store.snapshot(code).seq)
    assert [t["result"] for t in anyone.get(f"/api/e/{slug}").json["tables"]] == ["A", "B"]


def test_no_player_id_is_public_and_a_player_finds_themselves(org: Org):
    ev, slug = paired_event(org)
    org.call("PATCH", f"/api/events/{ev}/swiss", {"public": True})
    anyone = org.app.test_client()
    body = anyone.get(f"/api/e/{slug}").get_data(as_text=True)
    page = anyone.get(f"/e/{slug}/standings").get_data(as_text=True)
    for pid in ("0001", "0002", "0003", "0004"):
        assert pid not in body and pid not in page
    assert "P1" in page and anyone.get(f"/api/e/{slug}").json["standings"] is not None
    found = anyone.get(f"/api/e/{slug}/find", query_string={"q": "0003"}).json["players"]
    assert [(p["number"], p["name"], p["by_id"]) for p in found] == [(3, "P3", True)]
    assert "0003" not in anyone.get(f"/api/e/{slug}/find?q=0003").get_data(as_text=True)
    by_name = anyone.get(f"/api/e/{slug}/find", query_string={"q": "p4"}).json["players"]
    assert [p["number"] for p in by_name] == [4]
    assert anyone.get(f"/api/e/{slug}/find").status_code == 400  # q is required
    assert anyone.get("/api/e/nope").status_code == 404
    with anyone.get(f"/e/{slug}") as page_of_players:
        assert page_of_players.status_code == 200


def test_the_standings_page_is_rendered_once_per_language(org: Org):
    ev, slug = paired_event(org)
    org.call("PATCH", f"/api/events/{ev}/swiss", {"public": True})
    anyone = org.app.test_client()
    first = anyone.get(f"/e/{slug}/standings?lang=zh-Hant")
    builds = cache(org).builds
    entry = cache(org).get(ev)
    for _ in range(5):
        assert anyone.get(f"/e/{slug}/standings?lang=zh-Hant").data == first.data
    assert cache(org).builds == builds and "standings:zh-Hant" in entry.texts


def test_the_search_is_no_id_oracle(org: Org):
    """Searches that find nobody (IDs tried one after another) spend the join's budget for
    wrong IDs, 30 from one address, then 429; another address still finds itself. (Before:
    ~600 guesses a minute found a 3-digit ID in 43 s.)"""
    _ev, slug = paired_event(org)
    guesser = org.app.test_client()
    url = f"/api/e/{slug}/find"
    answers = [guesser.get(url, query_string={"q": f"9{n:03}"}).status_code for n in range(40)]
    assert answers[:30] == [200] * 30
    assert answers[30:] == [429] * 10
    refused = guesser.get(url, query_string={"q": "0003"})
    assert refused.status_code == 429 and refused.json["code"] == "rate_limited"
    player = org.app.test_client()
    found = player.get(url, query_string={"q": "0003"}, environ_base={"REMOTE_ADDR": "10.9.0.1"})
    assert [p["number"] for p in found.json["players"]] == [3]


def test_a_deck_registration_is_no_id_oracle(org: Org):
    """Registering a deck list on the players' page trusts the player ID it is given: each try
    spends the address's budget for wrong IDs, as the search and the join do (R2.6), and the
    answer names nobody."""
    _ev, slug = paired_event(org)
    guesser = org.app.test_client()
    url = f"/api/e/{slug}/decklist"
    body = {"text": "40 Kuriboh"}
    answers = [
        guesser.post(url, json={**body, "player_id": f"9{n:03}"}).status_code for n in range(35)
    ]
    assert answers[:30] == [404] * 30 and answers[30:] == [429] * 5
