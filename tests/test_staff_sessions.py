"""Staff sessions: logging out (or the session expiring) closes that login's open sockets;
an organiser removes a judge; only judge accounts are added to an event."""

from __future__ import annotations

import asyncio
import json
import uuid
from typing import Any

import pytest
from flask import Flask
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed

from server.api.access import session_grant
from server.api.grants import Grants
from tests.staff_actions import Staff, create_organiser
from tests.ws_helpers import Phone

WAIT = 10


def a_judged_table(server: Any) -> tuple[Staff, Staff, dict, str, str]:
    suffix = uuid.uuid4().hex[:6]
    create_organiser(server, f"org{suffix}")
    org = Staff(server).login(f"org{suffix}")
    event = org.create_event("Cup", 1)
    org.add_judge(event["id"], f"judge{suffix}")
    judge = Staff(server).login(f"judge{suffix}")
    return org, judge, event, event["tables"][0]["code"], f"judge{suffix}"


async def closed_within(ws: Any, seconds: float) -> list[dict]:
    """The messages until the server closes the socket; fails if it stays open."""
    seen: list[dict] = []
    try:
        async with asyncio.timeout(seconds):
            while True:
                seen.append(json.loads(await ws.recv()))
    except ConnectionClosed:
        return seen
    except TimeoutError:
        raise AssertionError(f"still open after {seconds} s; saw {seen}") from None


def test_logout_closes_the_judges_table_and_floor_sockets(live_server):
    org, judge, event, code, _ = a_judged_table(live_server)
    headers = {"Origin": live_server, "Cookie": judge.cookie}

    async def scenario() -> tuple[list[dict], list[dict]]:
        table_url = f"{live_server.ws_url}/ws/table/{code}"
        floor_url = f"{live_server.ws_url}/ws/floor/{event['id']}"
        async with (
            connect(table_url, additional_headers=headers) as table,
            connect(floor_url, additional_headers=headers) as floor,
        ):
            phone = Phone(table)
            assert (await phone.hello())["role"] == "judge"
            assert json.loads(await asyncio.wait_for(floor.recv(), WAIT))["type"] == "floor"
            status, _ = judge.request("POST", "/api/auth/logout", {})
            assert status == 200
            return await closed_within(table, WAIT), await closed_within(floor, WAIT)

    table_seen, floor_seen = asyncio.run(scenario())
    assert any(m.get("error", {}).get("code") == "revoked" for m in table_seen)
    assert any(m.get("error", {}).get("code") == "revoked" for m in floor_seen)


def test_an_organiser_removes_a_judge_and_the_judges_socket_closes(live_server):
    org, judge, event, code, username = a_judged_table(live_server)
    headers = {"Origin": live_server, "Cookie": judge.cookie}

    async def scenario() -> list[dict]:
        async with connect(
            f"{live_server.ws_url}/ws/table/{code}", additional_headers=headers
        ) as ws:
            await Phone(ws).hello()
            status, body = org.request("DELETE", f"/api/events/{event['id']}/judges/{username}")
            assert status == 200, body
            return await closed_within(ws, WAIT)

    assert asyncio.run(scenario())
    status, body = judge.request("GET", f"/api/events/{event['id']}")
    assert (status, body["code"]) == (403, "forbidden")
    status, body = judge.request("DELETE", f"/api/events/{event['id']}/judges/{username}")
    assert status in (401, 403)


def test_only_judge_accounts_are_added_to_an_event(live_server):
    org, _judge, event, _code, _ = a_judged_table(live_server)
    other = f"org{uuid.uuid4().hex[:6]}"
    create_organiser(live_server, other)
    status, body = org.request("POST", f"/api/events/{event['id']}/judges", {"username": other})
    assert (status, body["code"]) == (409, "not_a_judge")
    _, detail = org.request("GET", f"/api/events/{event['id']}")
    assert other not in [s["username"] for s in detail["staff"]]


def test_an_expired_session_closes_its_sockets(app: Flask, clock):
    t = app.extensions["duel_table"].tournament
    with app.app_context():
        t.create_account("judge9", "correct horse battery", "judge", clock())
        token, _ = t.login("judge9", "correct horse battery", clock())
    closed: list[bool] = []
    forget = grants(app).add(session_grant(token), lambda: closed.append(True))
    try:
        assert grants(app).sweep() == 0 and closed == []
        clock.advance(17 * 3600 * 1000)  # past the session's 16 hours
        assert grants(app).sweep() == 1 and closed == [True]
    finally:
        forget()


@pytest.mark.parametrize("ended", ["logout", "expiry"])
def test_a_sweep_keeps_live_sessions(app: Flask, clock, ended: str):
    t = app.extensions["duel_table"].tournament
    with app.app_context():
        t.create_account("judge8", "correct horse battery", "judge", clock())
        token, _ = t.login("judge8", "correct horse battery", clock())
        other, _ = t.login("judge8", "correct horse battery", clock())
    closed: list[str] = []
    forgets = [
        grants(app).add(session_grant(token), lambda: closed.append("one")),
        grants(app).add(session_grant(other), lambda: closed.append("other")),
    ]
    try:
        if ended == "logout":
            with app.app_context():
                t.logout(token)
        else:
            clock.advance(17 * 3600 * 1000)
            with app.app_context():
                fresh, _ = t.login("judge8", "correct horse battery", clock())
        grants(app).sweep()
        assert "one" in closed
        assert ("other" in closed) == (ended == "expiry")
    finally:
        for forget in forgets:
            forget()


def grants(app: Flask) -> Grants:
    """The app's open sockets by grant (`Services.grants`)."""
    found: Grants = app.extensions["duel_table"].grants
    return found
