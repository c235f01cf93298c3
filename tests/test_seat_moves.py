"""A casual seat moves to a new phone only with its owner: against a real server and real
sockets, with `SEAT_AWAY_SECONDS` short. While the seat's phone is connected, the other seat
cannot give the seat away (the owner is asked and can say no); once the owner's phone has been
away for the setting, the other seat can, and the old phone's token ends."""

from __future__ import annotations

import asyncio
import json
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from typing import Any

import pytest
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed
from ws_helpers import Phone, new_table

from clients.testing import LiveServer, isolated_database, start_server, stop_server

AWAY_SECONDS = 2
pytestmark = pytest.mark.slow  # its own server process


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory, database_url: str) -> Iterator[LiveServer]:
    url = isolated_database(database_url, "seat_moves")
    live, process = start_server(
        tmp_path_factory.mktemp("seat_moves"), url, {"SEAT_AWAY_SECONDS": str(AWAY_SECONDS)}
    )
    try:
        yield live
    finally:
        stop_server(process)


def call(server: str, method: str, path: str, body: Any = None, token: str = "") -> tuple[int, Any]:
    headers = {"Content-Type": "application/json"}
    if token:
        headers["Authorization"] = f"Bearer {token}"
    data = None if body is None else json.dumps(body).encode()
    req = urllib.request.Request(server + path, data=data, method=method, headers=headers)
    try:
        with urllib.request.urlopen(req, timeout=5) as response:
            return response.status, json.load(response)
    except urllib.error.HTTPError as err:
        with err:
            return err.code, json.load(err)


def takeover(server: str, code: str, name: str = "Bob") -> dict:
    status, body = call(
        server, "POST", f"/api/tables/{code}/join", {"name": name, "seat": "B", "takeover": True}
    )
    assert status == 202, body
    return body


async def seen_request(phone: Phone, ref: str) -> dict:
    """The update that shows the owner's phone the request for its seat."""
    for _ in range(20):
        update = await phone.expect("update")
        state = update.get("state") or {}
        asks = state.get("seat_requests") or []
        if any(r["request"] == ref for r in asks):
            return update
    raise AssertionError("the owner's phone was never shown the request")


def test_a_strangers_request_with_the_owner_online_needs_the_owner(server: LiveServer):
    code, a, b = new_table(server)

    async def run() -> None:
        async with connect(f"{server.ws_url}/ws/table/{code}") as ws:
            owner = Phone(ws)
            await owner.hello(b, since=0)
            asked = takeover(server, code)
            ref = asked["request"]
            await seen_request(owner, ref)  # the owner's phone is told
            await asyncio.sleep(AWAY_SECONDS + 1)  # the owner stays online: no time runs out
            url = f"/api/tables/{code}/seat-requests/{ref}"
            status, body = call(server, "POST", f"{url}/confirm", {}, a)
            assert status == 409 and body["code"] == "owner_online", body
            status, body = call(server, "POST", f"{url}/refuse", {}, b)  # the owner says no
            assert status == 200 and body["status"] == "refused"
            status, body = call(server, "GET", url, token=asked["token"])
            assert body["status"] == "refused"

    asyncio.run(run())
    status, state = call(server, "GET", f"/api/tables/{code}")
    assert state["state"]["seats"]["B"]["name"] == "Kaiba"


def test_the_other_seat_approves_once_the_owners_phone_went_away(server: LiveServer):
    code, a, b = new_table(server)

    async def run() -> None:
        async with connect(f"{server.ws_url}/ws/table/{code}") as ws:
            owner = Phone(ws)
            await owner.hello(b, since=0)
            asked = takeover(server, code, "Kaiba")
            await seen_request(owner, asked["request"])
        # The owner's phone is gone (its socket closed): after the setting, the other seat may.
        ref = asked["request"]
        url = f"/api/tables/{code}/seat-requests/{ref}/confirm"
        status, body = call(server, "POST", url, {}, a)
        assert status == 409 and 1 <= body["details"]["seconds"] <= AWAY_SECONDS, body
        time.sleep(AWAY_SECONDS + 0.5)
        status, body = call(server, "POST", url, {}, a)
        assert status == 200 and body["status"] == "approved", body
        # The old phone's token ends: its socket is refused.
        async with connect(f"{server.ws_url}/ws/table/{code}") as ws:
            await ws.send(json.dumps({"type": "hello", "token": b}))
            refused = json.loads(await asyncio.wait_for(ws.recv(), 5))
            assert refused["type"] == "error" and refused["error"]["code"] == "bad_token"
        async with connect(f"{server.ws_url}/ws/table/{code}") as ws:
            new = Phone(ws)
            welcome = await new.hello(asked["token"])
            assert welcome["role"] == "seat" and welcome["seat"] == "B"

    asyncio.run(run())


def test_the_owners_phone_gives_the_seat_and_is_told(server: LiveServer):
    code, a, b = new_table(server)

    async def run() -> None:
        async with connect(f"{server.ws_url}/ws/table/{code}") as ws:
            owner = Phone(ws)
            await owner.hello(b, since=0)
            asked = takeover(server, code, "Kaiba")
            await seen_request(owner, asked["request"])
            url = f"/api/tables/{code}/seat-requests/{asked['request']}/confirm"
            status, body = call(server, "POST", url, {}, b)
            assert status == 200, body
            while True:  # the old phone is told its access ended, then the socket closes
                message = json.loads(await asyncio.wait_for(ws.recv(), 5))
                if message["type"] == "error":
                    assert message["error"]["code"] == "revoked"
                    break

    asyncio.run(run())


def test_a_socket_that_said_hello_twice_ends_with_the_seat_it_acts_for(server: LiveServer):
    """One socket says hello with seat A's token, then with seat B's: it now acts for B, so
    when B's seat moves to another phone this socket ends with it, and cannot go on
    confirming for B."""
    code, a, b = new_table(server)

    async def run() -> None:
        async with connect(f"{server.ws_url}/ws/table/{code}") as ws:
            phone = Phone(ws)
            await phone.hello(a, since=0)
            welcome = await phone.hello(b)
            assert welcome["seat"] == "B"
            asked = takeover(server, code, "Kaiba")
            await seen_request(phone, asked["request"])
            url = f"/api/tables/{code}/seat-requests/{asked['request']}/confirm"
            status, body = call(server, "POST", url, {}, b)
            assert status == 200, body
            revoked = False
            with pytest.raises(ConnectionClosed):  # told, then closed: nothing more as B
                for _ in range(50):
                    message = json.loads(await asyncio.wait_for(ws.recv(), 5))
                    if message["type"] == "error":
                        revoked = message["error"]["code"] == "revoked"
            assert revoked

    asyncio.run(run())
