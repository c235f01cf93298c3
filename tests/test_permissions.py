"""Who may do what: every role against every command and every staff endpoint.

Roles: seat A's token, seat B's token, a spectator, a judge of this event, a judge of another
event, the event's organiser, and an anonymous visitor. Each pair is either allowed (the answer
is not a permission refusal) or refused with a stable code. Runs against a real server.
"""

from __future__ import annotations

import asyncio
import json
import uuid
from typing import Any

import pytest
from websockets.asyncio.client import connect

from server.rules import COMMANDS, DECLARATIONS
from tests.staff_actions import Staff, create_organiser, seat_claim
from tests.test_ws import http

WAIT = 5

# Schema-valid arguments for every command a client may send: each declaration's sample.
ARGS: dict[str, dict[str, Any]] = {
    name: dict(declared.sample) for name, declared in DECLARATIONS.items() if declared.from_clients
}
CLIENT_COMMANDS = sorted(c for c, roles in COMMANDS.items() if roles - {"system"})
ROLES = ("seat_a", "seat_b", "spectator", "judge", "other_judge", "organiser", "anonymous")
# The role each one has at the table, or None when the table refuses it at hello.
TABLE_ROLE = {
    "seat_a": "seat",
    "seat_b": "seat",
    "spectator": "spectator",
    "judge": "judge",
    "other_judge": "spectator",
    "organiser": "organiser",
    "anonymous": None,
}


class World:
    """Two events of one organiser: E1 (spectators allowed, judge `j1`, one table with both
    seats taken) and E2 (spectators off, judge `j2`)."""

    def __init__(self, server: Any) -> None:
        suffix = uuid.uuid4().hex[:6]
        self.server = server
        create_organiser(server, f"org{suffix}")
        self.org = Staff(server).login(f"org{suffix}")
        self.e1 = self.org.create_event("Cup", 1)
        self.e2 = self.org.create_event("Other", 1)
        self.org.add_judge(self.e1["id"], f"j1{suffix}")
        self.org.add_judge(self.e2["id"], f"j2{suffix}")
        self.j1 = Staff(server).login(f"j1{suffix}")
        self.j2 = Staff(server).login(f"j2{suffix}")
        status, _ = self.org.request("PATCH", f"/api/events/{self.e2['id']}", {"spectators": False})
        assert status == 200
        self.code = self.e1["tables"][0]["code"]
        self.code2 = self.e2["tables"][0]["code"]
        slug = self.e1["slug"]
        claims = {s: seat_claim(server, slug, 1, s) for s in "AB"}
        path = f"/api/tables/{self.code}/join"
        _, a = http(server, "POST", path, {"name": "Yugi", "seat": "A", "claim": claims["A"]})
        _, b = http(server, "POST", path, {"name": "Kaiba", "seat": "B", "claim": claims["B"]})
        self.tokens = {"seat_a": a["token"], "seat_b": b["token"]}

    def http_client(self, role: str) -> Staff:
        """An HTTP client as `role`: staff carry their login; the others have no cookie."""
        return {"judge": self.j1, "other_judge": self.j2, "organiser": self.org}.get(
            role, Staff(self.server)
        )

    def socket_args(self, role: str) -> tuple[str, dict[str, str], str | None]:
        """(table code, headers, token) for `role` at the table websocket."""
        headers = {"Origin": self.server}
        staff = {"judge": self.j1, "other_judge": self.j2, "organiser": self.org}.get(role)
        if staff:
            headers["Cookie"] = staff.cookie
        code = self.code2 if role == "anonymous" else self.code
        return code, headers, self.tokens.get(role)


@pytest.fixture(scope="module")
def world(live_server) -> World:
    return World(live_server)


async def _session(world: World, role: str, commands: list[str]) -> tuple[dict, dict[str, dict]]:
    code, headers, token = world.socket_args(role)
    url = f"{world.server.ws_url}/ws/table/{code}"
    replies: dict[str, dict] = {}
    async with connect(url, additional_headers=headers) as ws:
        hello: dict[str, Any] = {"type": "hello"}
        if token:
            hello["token"] = token
        await ws.send(json.dumps(hello))
        first = json.loads(await asyncio.wait_for(ws.recv(), WAIT))
        if first["type"] != "welcome":
            return first, replies
        for cmd in commands:
            ref = str(uuid.uuid4())
            await ws.send(json.dumps({"type": "command", "id": ref, "cmd": cmd, "args": ARGS[cmd]}))
            while True:
                message = json.loads(await asyncio.wait_for(ws.recv(), WAIT))
                if message["type"] == "reply" and message["re"] == ref:
                    replies[cmd] = message
                    break
            await asyncio.sleep(0.06)  # stay under the socket's rate limit
    return first, replies


def test_every_client_command_has_sample_arguments():
    assert set(CLIENT_COMMANDS) <= set(ARGS)


@pytest.mark.slow
@pytest.mark.parametrize("role", ROLES)
def test_each_role_against_each_command(world: World, role: str):
    first, replies = asyncio.run(_session(world, role, CLIENT_COMMANDS))
    expected = TABLE_ROLE[role]
    if expected is None:
        assert first["type"] == "error"
        assert first["error"]["code"] == "spectators_off"
        return
    assert first["role"] == expected
    for cmd in CLIENT_COMMANDS:
        reply = replies[cmd]
        allowed = expected in COMMANDS[cmd]
        if allowed:
            assert reply["ok"] or reply["error"]["code"] != "forbidden", (role, cmd, reply)
        else:
            assert not reply["ok"], (role, cmd, reply)
            assert reply["error"]["code"] == "forbidden", (role, cmd, reply)


@pytest.mark.slow  # reads the judge actions test_each_role_against_each_command made
def test_judge_actions_are_signed_with_the_judges_name(world: World):
    _, log = world.j1.request("GET", f"/api/staff/tables/{world.code}")
    judged = [e for e in log["log"] if e["actor"]["role"] == "judge"]
    assert judged
    assert {e["actor"]["name"] for e in judged} == {_username(world.j1)}


def test_a_judge_of_the_event_may_watch_when_spectators_are_off(world: World):
    async def scenario() -> dict:
        headers = {"Origin": world.server, "Cookie": world.org.cookie}
        url = f"{world.server.ws_url}/ws/table/{world.code2}"
        async with connect(url, additional_headers=headers) as ws:
            await ws.send(json.dumps({"type": "hello"}))
            return json.loads(await asyncio.wait_for(ws.recv(), WAIT))

    assert asyncio.run(scenario())["role"] == "organiser"


# -- HTTP ------------------------------------------------------------------------------------

STAFF = ("judge", "organiser")
ORGANISER = ("organiser",)


def endpoints(world: World) -> list[tuple[str, str, Any, tuple[str, ...], int]]:
    """(method, path, body, allowed roles, refusal status for a judge of another event)."""
    e1 = world.e1["id"]
    return [
        ("GET", "/api/auth/me", None, ("judge", "other_judge", "organiser"), 0),
        ("GET", "/api/events", None, ("judge", "other_judge", "organiser"), 0),
        ("POST", "/api/events", {"name": "X", "date": "2026-12-02", "tables": 1}, ORGANISER, 403),
        ("GET", f"/api/events/{e1}", None, STAFF, 403),
        ("PATCH", f"/api/events/{e1}", {"spectators": True}, ORGANISER, 403),
        (
            "POST",
            f"/api/events/{e1}/judges",
            {"username": "nobody-" + uuid.uuid4().hex[:6], "password": "long enough pw"},
            ORGANISER,
            403,
        ),
        ("POST", f"/api/events/{e1}/pairings", {"csv": "1,Yugi,1,Kaiba,2"}, ORGANISER, 403),
        ("POST", f"/api/events/{e1}/round/start", None, ORGANISER, 403),
        ("POST", f"/api/events/{e1}/round/end", None, ORGANISER, 403),
        ("POST", f"/api/events/{e1}/round/next", None, ORGANISER, 403),
        ("GET", f"/api/events/{e1}/results.csv", None, STAFF, 403),
        ("GET", f"/api/staff/tables/{world.code}", None, STAFF, 403),
        ("GET", f"/organiser/events/{e1}/cards", None, ORGANISER, 403),
    ]


def test_each_role_against_each_endpoint(world: World):
    for method, path, body, allowed, _ in endpoints(world):
        for role in ROLES:
            client = world.http_client(role)
            headers = {}
            if role in world.tokens:
                headers["Authorization"] = f"Bearer {world.tokens[role]}"  # opens nothing
            status, answer = client.request(method, path, body, headers)
            where = (role, method, path, status, answer)
            if role in allowed:
                assert status not in (401, 403), where
                continue
            assert status in (401, 403), where
            if path.endswith("/cards"):
                continue  # a plain-text page
            staff = role in ("judge", "other_judge", "organiser")
            assert answer["code"] == ("forbidden" if staff else "not_logged_in"), where


def test_state_changing_requests_need_the_csrf_token(world: World):
    e1 = world.e1["id"]
    client = Staff(world.server)
    client.jar = world.org.jar
    client.opener = world.org.opener
    status, body = client.request("PATCH", f"/api/events/{e1}", {"spectators": True})
    assert (status, body["code"]) == (403, "bad_csrf")
    status, body = world.org.request(
        "PATCH", f"/api/events/{e1}", {"spectators": True}, {"Origin": "https://evil.example"}
    )
    assert (status, body["code"]) == (403, "bad_origin")


def test_the_session_cookie_is_httponly_and_samesite(world: World):
    client = Staff(world.server)
    client.login(_username(world.j1))
    cookie = next(iter(client.jar))
    assert cookie.has_nonstandard_attr("HttpOnly")
    assert cookie.get_nonstandard_attr("SameSite") == "Lax"


def _username(staff: Staff) -> str:
    return staff.request("GET", "/api/auth/me")[1]["username"]


def test_a_wrong_password_is_refused(world: World):
    status, body = Staff(world.server).request(
        "POST", "/api/auth/login", {"username": _username(world.j1), "password": "wrong one"}
    )
    assert (status, body["code"]) == (401, "bad_login")


# -- the floor socket ------------------------------------------------------------------------


@pytest.mark.parametrize("role", ROLES)
def test_each_role_against_the_floor_socket(world: World, role: str):
    async def scenario() -> dict:
        _, headers, _ = world.socket_args(role)
        url = f"{world.server.ws_url}/ws/floor/{world.e1['id']}"
        async with connect(url, additional_headers=headers) as ws:
            return json.loads(await asyncio.wait_for(ws.recv(), WAIT))

    first = asyncio.run(scenario())
    if role in STAFF:
        assert first["type"] == "floor"
        assert first["role"] == role
        assert [t["code"] for t in first["tables"]]
    else:
        expected = "forbidden" if role == "other_judge" else "not_logged_in"
        assert (first["type"], first["error"]["code"]) == ("error", expected)


def test_the_floor_socket_refuses_a_foreign_origin(world: World):
    async def scenario() -> dict:
        headers = {"Origin": "https://evil.example", "Cookie": world.j1.cookie}
        url = f"{world.server.ws_url}/ws/floor/{world.e1['id']}"
        async with connect(url, additional_headers=headers) as ws:
            return json.loads(await asyncio.wait_for(ws.recv(), WAIT))

    assert asyncio.run(scenario())["error"]["code"] == "bad_origin"


def test_pairing_a_started_round_is_a_conflict(world: World):
    """An organiser's refusals keep their HTTP status (409), with the one error shape."""
    org = world.org
    event = org.create_event("Late", 1)
    status, _ = org.request("POST", f"/api/events/{event['id']}/pairings", {"csv": "1,Mai,,Joey,"})
    assert status == 200  # a round starts once paired
    status, _ = org.request("POST", f"/api/events/{event['id']}/round/start", {})
    assert status == 200
    status, body = org.request(
        "POST", f"/api/events/{event['id']}/pairings", {"csv": "1,Yugi,,Kaiba,"}
    )
    assert (status, body["code"]) == (409, "round_started")
    assert body["details"] == {}
