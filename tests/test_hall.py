"""The hall clock's data: public, per event slug; the round, its deadline, table numbers and
counts (never players' names), and the organiser's message."""

from __future__ import annotations

import pytest

from server.api import running
from server.rules import Actor
from tests.test_event_rounds import Org, event, join


@pytest.fixture(autouse=True)
def no_cache(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(running, "HALL_CACHE_SECONDS", 0)


def test_an_unknown_event_is_a_coded_404(client) -> None:
    r = client.get("/api/hall/nope")
    assert (r.status_code, r.json["code"]) == (404, "no_such_event")


def test_the_hall_shows_the_round_its_deadline_and_table_counts_only(app, client) -> None:
    org = Org(client, app)
    ev = event(org, tables=3)
    codes = [t["code"] for t in ev["tables"]]
    join(client, codes[0], "A", "Yugi")
    join(client, codes[0], "B", "Kaiba")
    # The round's pairing (a round starts only then): tables 2 and 3 are paired too.
    pairings = {"csv": "2,Mai,,Joey,\n3,Rex,,Weevil,"}
    assert org.post(f"/api/events/{ev['id']}/pairings", pairings).status_code == 200
    r = client.get(f"/api/hall/{ev['slug']}")
    assert r.status_code == 200, r.json
    assert r.json["round"] == 1 and r.json["deadline_ms"] is None
    assert r.json["tables"] == {"total": 3, "playing": 0, "time_called": 0, "extra": []}
    started = org.post(f"/api/events/{ev['id']}/round/start").json["now_ms"]
    body = client.get(f"/api/hall/{ev['slug']}").json
    assert body["deadline_ms"] == started + 40 * 60_000
    assert body["tables"]["playing"] == 3
    # Time is called at table 1 before its duel began: counted, but not in extra turns (a
    # table in a duel is: e2e/test_event_day.py).
    store = app.extensions["duel_table"].store
    store.append(codes[0], "tick", {}, Actor("system"), None, started + 40 * 60_000 + 5)
    body = client.get(f"/api/hall/{ev['slug']}")
    assert body.json["tables"] == {"total": 3, "playing": 3, "time_called": 1, "extra": []}
    text = body.get_data(as_text=True)
    assert "Yugi" not in text and "Kaiba" not in text and codes[0] not in text
    assert body.headers["Cache-Control"] == "no-store"


def test_the_organiser_shows_and_clears_a_message(app, client) -> None:
    org = Org(client, app)
    ev = event(org, tables=1)
    path = f"/api/events/{ev['id']}/hall/message"
    r = org.post(path, {"text": " Round 2 pairings are up \u202e"})
    assert r.status_code == 200, r.json
    assert client.get(f"/api/hall/{ev['slug']}").json["message"]["text"] == (
        "Round 2 pairings are up"
    )
    assert org.post(path, {"text": "x" * 201}).status_code == 400
    assert org.post(path, {"text": ""}).json["message"] is None
    assert client.get(f"/api/hall/{ev['slug']}").json["message"] is None
    # Only the organiser, logged in, with the CSRF token.
    assert client.post(path, json={"text": "hi"}).status_code == 403
    client.post("/api/auth/logout", headers={"X-CSRF-Token": org.csrf})
    assert client.post(path, json={"text": "hi"}).status_code == 401


def test_the_hall_page_is_served(client) -> None:
    with client.get("/e/anything/hall") as r:
        assert r.status_code == 200 and b"hall.js" in r.data
