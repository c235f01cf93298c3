"""A closed socket is freed when it closes, not left for the cycle collector.

The worker never starts a full collection on its own and runs one only in a quiet minute
(`server/runtime/gctune.py`): a socket left in a reference cycle when it closes stays in memory
until then, and every such cycle makes that collection's pause longer. A thousand tables' phones
dropped and back once left 191,075 objects of cyclic garbage (98 a socket, through a response
class made per request, the connection wrapper pointing back at its socket and the grant's
forget closure holding the session's bound method); a judge's floor socket left itself in its
mailbox's wake. Measured here on a real server whose collector keeps what it finds
(tests/gcprobe/sitecustomize.py)."""

from __future__ import annotations

import asyncio
import json
import os
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from websockets.asyncio.client import connect
from ws_helpers import Phone, http, new_table

from clients.testing import LiveServer, isolated_database, start_server, stop_server
from tests.staff_actions import Staff, create_organiser, seat_claim

PROBE_PATH = Path(__file__).resolve().parent / "gcprobe"
# The session's own classes: none may be left in a cycle, and none alive once every socket closed.
SESSION_TYPES = (
    "server.api.session.GuardedServer",
    "server.api.session._CountedConnection",
    "server.api.session.DeadlineSocket",
    "server.api.session.WebSocketResponse",
    "server.api.ws.Connection",
    "wsproto.WSConnection",
)
# A judge's floor socket: its mailbox's wake is a bound method of the socket.
FLOOR_TYPES = ("server.api.floor_ws.FloorSession", "server.api.floor_feeds.Subscriber")
TABLES = 10
FLOORS = 10


class Probe:
    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.asked = 0

    def ask(self, what: str = "") -> dict[str, dict[str, int]]:
        n, self.asked = self.asked, self.asked + 1
        (self.folder / f"ask-{n}").write_text(what)
        answer = self.folder / f"answer-{n}.json"
        deadline = time.monotonic() + 30
        while not answer.exists():
            assert time.monotonic() < deadline, "the server's probe did not answer"
            time.sleep(0.05)
        return json.loads(answer.read_text())


@pytest.fixture
def probed(
    tmp_path_factory: pytest.TempPathFactory, database_url: str
) -> Iterator[tuple[LiveServer, Probe]]:
    folder = tmp_path_factory.mktemp("gcprobe")
    url = isolated_database(database_url, "socket_garbage")
    env = {
        "PYTHONPATH": os.pathsep.join(
            [str(PROBE_PATH), *filter(None, [os.environ.get("PYTHONPATH")])]
        ),
        "GC_PROBE_DIR": str(folder),
        "WS_PING_SECONDS": "1",  # the pinger lets go of a closed socket at its next round
    }
    live, process = start_server(tmp_path_factory.mktemp("garbage"), url, env)
    try:
        yield live, Probe(folder)
    finally:
        stop_server(process)


def session_objects(counts: dict[str, int]) -> dict[str, int]:
    return {name: counts[name] for name in (*SESSION_TYPES, *FLOOR_TYPES) if counts.get(name)}


def freed(probe: Probe) -> dict[str, dict[str, int]]:
    """The probe's answer once no session object is alive (or after 20 s of asking)."""
    deadline = time.monotonic() + 20
    while True:
        answer = probe.ask()
        if not session_objects(answer["alive"]) or time.monotonic() > deadline:
            return answer
        time.sleep(0.2)


async def play_and_drop(server: LiveServer) -> None:
    """Both phones of each table say hello and play a step, then drop (no close handshake)."""
    for _ in range(TABLES):
        code, token_a, token_b = new_table(server)
        phones = []
        for token in (token_a, token_b):
            ws = await connect(f"{server.ws_url}/ws/table/{code}")
            phone = Phone(ws)
            await phone.hello(token)
            phones.append(phone)
        await phones[0].ok("deck.declare", {"main": 40, "extra": 15, "side": 15})
        for phone in phones:
            phone.ws.transport.abort()


def test_a_dropped_table_socket_leaves_no_cycle(probed: tuple[LiveServer, Probe]) -> None:
    server, probe = probed
    probe.ask("reset")
    asyncio.run(play_and_drop(server))
    answer = freed(probe)
    assert session_objects(answer["alive"]) == {}, "the closed sockets' sessions are still held"
    assert session_objects(answer["garbage"]) == {}


async def watch_and_drop(server: LiveServer, event: dict[str, Any], cookie: str) -> None:
    """Judges' floor views open on the event, see a table's judge call, then drop."""
    url = f"{server.ws_url}/ws/floor/{event['id']}"
    code = event["tables"][0]["code"]
    headers = {"Origin": str(server), "Cookie": cookie}
    floors = [await connect(url, additional_headers=headers) for _ in range(FLOORS)]
    for floor in floors:
        assert json.loads(await asyncio.wait_for(floor.recv(), 10))["type"] == "floor"
    ws = await connect(f"{server.ws_url}/ws/table/{code}")
    phone = Phone(ws)
    claim = seat_claim(server, event["slug"], 1, "A")  # as read off the printed card
    body = {"name": "Yugi", "seat": "A", "claim": claim}
    _, seat = http(server, "POST", f"/api/tables/{code}/join", body)
    await phone.hello(seat["token"])
    await phone.ok("judge.call", {"reason": "ruling"})
    for floor in floors:  # each mailbox was woken at least once: its wake was used
        while True:
            message = json.loads(await asyncio.wait_for(floor.recv(), 10))
            if message["type"] == "tables" and any(t["code"] == code for t in message["tables"]):
                break
        floor.transport.abort()
    phone.ws.transport.abort()


def test_a_dropped_floor_socket_leaves_no_cycle(probed: tuple[LiveServer, Probe]) -> None:
    server, probe = probed
    create_organiser(server, "garbage")
    staff = Staff(str(server)).login("garbage")
    event = staff.create_event("Garbage Cup", 2)
    probe.ask("reset")
    asyncio.run(watch_and_drop(server, event, staff.cookie))
    answer = freed(probe)
    assert session_objects(answer["alive"]) == {}, "the closed floor sockets are still held"
    assert session_objects(answer["garbage"]) == {}
