"""The hall clock's data: public, per event slug; the round, its deadline, table numbers and
counts (never players' names), and the organiser's message. It is read from the event's one
public projection (server/api/event_page.py), the same one the players' page is served from:
built when the event's data changes (a table's publish, a staff write), never per view."""

from __future__ import annotations

from tests.test_event_rounds import Org, event, join


def cache(app):
    return app.extensions["duel_table"].events


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
    # table in a duel is: e2e/test_event_day.py). The timer's tick, written and published by
    # the table service, as the server's timer does.
    tables = app.extensions["duel_table"].tables
    due = started + 40 * 60_000
    assert tables.system(codes[0], "tick", {}, f"tick:{due}", due + 5).events
    body = client.get(f"/api/hall/{ev['slug']}")
    assert body.json["tables"] == {"total": 3, "playing": 3, "time_called": 1, "extra": []}
    text = body.get_data(as_text=True)
    assert "Yugi" not in text and "Kaiba" not in text and codes[0] not in text
    assert body.headers["Cache-Control"] == "no-store"


def test_the_hall_and_the_players_page_read_one_projection(app, client) -> None:
    """No view builds it; a table's result (one event on its log, published) and a staff write
    each rebuild it once, for the hall and the players' page alike."""
    org = Org(client, app)
    ev = event(org, tables=2)
    slug = ev["slug"]
    pairings = {"csv": "1,Yugi,,Kaiba,\n2,Mai,,Joey,"}
    assert org.post(f"/api/events/{ev['id']}/pairings", pairings).status_code == 200
    assert org.post(f"/api/events/{ev['id']}/round/start").status_code == 200
    anyone = app.test_client()
    hall = anyone.get(f"/api/hall/{slug}")
    page = anyone.get(f"/api/e/{slug}")
    assert hall.headers["X-Projection"] == page.headers["X-Projection"]
    assert hall.json["tables"]["playing"] == 2
    builds = cache(app).builds
    for _ in range(10):
        again = anyone.get(f"/api/hall/{slug}")
        assert again.headers["X-Projection"] == hall.headers["X-Projection"]
        assert again.json["tables"] == hall.json["tables"]
    assert cache(app).builds == builds  # no view rebuilt it

    # A judge's result at table 1: the table closes; the hall and the page both say so, from
    # one rebuild.
    r = org.post(f"/api/events/{ev['id']}/tables/1/result", {"result": "A"})
    assert r.status_code == 200, r.json
    hall = anyone.get(f"/api/hall/{slug}")
    page = anyone.get(f"/api/e/{slug}")
    assert hall.json["tables"]["playing"] == 1
    assert hall.headers["X-Projection"] == page.headers["X-Projection"]
    assert cache(app).builds == builds + 1

    # The organiser's message (a staff write) rebuilds it once as well.
    assert org.post(f"/api/events/{ev['id']}/hall/message", {"text": "Lunch"}).status_code == 200
    assert anyone.get(f"/api/hall/{slug}").json["message"]["text"] == "Lunch"
    assert cache(app).builds == builds + 2


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
