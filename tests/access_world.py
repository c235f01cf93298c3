"""Two events and a casual table, in one in-process app: a client for each kind of asker."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from flask import Flask
from flask.testing import FlaskClient

PASSWORD = "correct horse battery"
ROLES = ("spectator", "seat", "other_seat", "judge", "other_judge", "organiser")


@dataclass
class World:
    app: Flask
    event_id: int = 0
    other_event_id: int = 0
    code: str = ""  # table 1 of the event
    other_code: str = ""  # table 1 of the other event
    slug: str = ""
    tokens: dict[str, str] = field(default_factory=dict)
    clients: dict[str, FlaskClient] = field(default_factory=dict)
    csrf: dict[str, str] = field(default_factory=dict)
    claims: dict[str, str] = field(default_factory=dict)

    def tournament(self) -> Any:
        return self.app.extensions["duel_table"].tournament

    def login(self, role: str, username: str) -> None:
        client = self.app.test_client()
        answer = client.post("/api/auth/login", json={"username": username, "password": PASSWORD})
        assert answer.status_code == 200, answer.get_json()
        self.clients[role], self.csrf[role] = client, answer.get_json()["csrf"]

    def headers(self, role: str) -> dict[str, str]:
        if role == "seat":
            return {"Authorization": f"Bearer {self.tokens['seat']}"}
        if role == "other_seat":
            return {"Authorization": f"Bearer {self.tokens['other_seat']}"}
        return {"X-CSRF-Token": self.csrf[role]} if role in self.csrf else {}

    def request(self, role: str, method: str, url: str, **kw: Any) -> Any:
        client = self.clients.get(role) or self.app.test_client()
        return client.open(url, method=method, headers=self.headers(role), **kw)

    def spectators(self, allowed: bool) -> None:
        self.tournament().set_spectators(self.event_id, allowed)


def make_world(app: Flask, now_ms: int) -> World:
    w = World(app)
    t = w.tournament()
    with app.app_context():
        t.create_account("org", PASSWORD, "organiser", now_ms)
        t.create_account("org2", PASSWORD, "organiser", now_ms)
        _, org = t.login("org", PASSWORD, now_ms)
        _, org2 = t.login("org2", PASSWORD, now_ms)
        # Unsanctioned test events: no player ID asked at their tables (R1.1).
        ev = t.create_event(org, "Cup", "2026-12-01", "ocg-2008", 40, 2, now_ms, False)
        other = t.create_event(org2, "Other", "2026-12-01", "ocg-2008", 40, 1, now_ms, False)
        t.add_judge(ev.id, "judge1", PASSWORD, now_ms)
        t.add_judge(other.id, "judge2", PASSWORD, now_ms)
        w.event_id, w.other_event_id, w.slug = ev.id, other.id, ev.slug
        w.code = t.tables(ev.id)[0]["code"]
        w.other_code = t.tables(other.id)[0]["code"]
    w.login("judge", "judge1")
    w.login("other_judge", "judge2")
    w.login("organiser", "org")
    anon = app.test_client()
    with app.app_context():
        from server.api.claims import claim_for

        claims = {
            "seat": claim_for(ev.slug, 1, "A"),
            "other_seat": claim_for(other.slug, 1, "A"),
        }
    w.claims = claims
    for role, code in (("seat", w.code), ("other_seat", w.other_code)):
        body = {"name": "Yugi", "player_id": "1", "seat": "A", "claim": claims[role]}
        answer = anon.post(f"/api/tables/{code}/join", json=body)
        assert answer.status_code == 201, answer.get_json()
        w.tokens[role] = answer.get_json()["token"]
    return w
