"""Two server processes with Redis: phone A on one, phone B on the other, a judge's floor view on
either; everything stays in step (DESIGN principle 8)."""

from __future__ import annotations

import asyncio
import json
import uuid

import pytest
from test_hub import REDIS_URL, redis_answers
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed
from ws_helpers import DECK, WAIT, Phone, http

from clients.testing import isolated_database, start_server, stop_server
from tests.staff_actions import Staff, create_organiser, seat_claim

# Two real server processes sharing Redis.
pytestmark = pytest.mark.slow


async def floor_until(ws, code: str, check) -> dict:
    """Floor messages until the summary of table `code` satisfies `check`."""
    while True:
        message = json.loads(await asyncio.wait_for(ws.recv(), WAIT))
        for table in message.get("tables", []):
            if table["code"] == code and check(table):
                return table


@pytest.mark.redis
@pytest.mark.skipif(not redis_answers(), reason="Redis does not answer")
def test_phones_and_floor_views_on_two_processes_stay_in_step(tmp_path, database_url):
    env = {"REDIS_URL": REDIS_URL}
    url = isolated_database(database_url, "scale_out")
    first, p1 = start_server(tmp_path / "one", url, env)
    # The second process shares the first one's database (its SQLite file, or the schema).
    second, p2 = start_server(tmp_path / "one", url, env)
    try:
        organiser = f"org{uuid.uuid4().hex[:6]}"
        create_organiser(first, organiser)
        staff = Staff(first).login(organiser)
        event = staff.create_event("Scale Cup", 2)
        code = event["tables"][0]["code"]
        # Each phone scans its seat's QR (with the seat's claim), one on each process.
        claims = {s: seat_claim(first, event["slug"], 1, s) for s in "AB"}
        body_a = {"name": "Yugi", "seat": "A", "claim": claims["A"]}
        body_b = {"name": "Kaiba", "seat": "B", "claim": claims["B"]}
        _, a = http(first, "POST", f"/api/tables/{code}/join", body_a)
        _, b = http(second, "POST", f"/api/tables/{code}/join", body_b)
        # A login made on one process is good on the other (sessions live in the database).
        cookie = staff.cookie
        floor_url = f"/ws/floor/{event['id']}"

        async def scenario() -> None:
            table = f"/ws/table/{code}"
            async with (
                connect(first.ws_url + table) as wa,
                connect(second.ws_url + table) as wb,
                connect(
                    first.ws_url + floor_url, additional_headers={"Origin": first, "Cookie": cookie}
                ) as floor1,
                connect(
                    second.ws_url + floor_url,
                    additional_headers={"Origin": second, "Cookie": cookie},
                ) as floor2,
            ):
                for floor in (floor1, floor2):
                    hello = json.loads(await asyncio.wait_for(floor.recv(), WAIT))
                    assert hello["type"] == "floor"
                pa, pb = Phone(wa), Phone(wb)
                await pa.hello(a["token"])
                await pb.hello(b["token"])
                seq = await pa.ok("deck.declare", DECK)  # on process one
                assert (await pb.until_seq(seq))["state"]["decks"]["A"]["declared"]
                seq = await pb.ok("deck.declare", DECK)  # on process two
                assert (await pa.until_seq(seq))["state"]["decks"]["B"]["declared"]
                await pa.ok("judge.call", {"reason": "ruling"})
                for floor in (floor1, floor2):  # both floor views see the call
                    summary = await floor_until(
                        floor, code, lambda t: any(x["kind"] == "judge_call" for x in t["alerts"])
                    )
                    assert summary["names"] == {"A": "Yugi", "B": "Kaiba"}

        asyncio.run(scenario())
    finally:
        stop_server(p2)
        stop_server(p1)


@pytest.mark.redis
@pytest.mark.skipif(not redis_answers(), reason="Redis does not answer")
def test_a_seat_released_on_one_process_closes_its_socket_on_the_other(tmp_path, database_url):
    """The other process hears the seat's event on the table's log and its next sweep of the
    socket grants asks about that seat (api/grants.py): the old phone's socket there closes."""
    env = {"REDIS_URL": REDIS_URL}
    url = isolated_database(database_url, "scale_out_release")
    first, p1 = start_server(tmp_path / "one", url, env)
    second, p2 = start_server(tmp_path / "one", url, env)
    try:
        organiser = f"org{uuid.uuid4().hex[:6]}"
        create_organiser(first, organiser)
        staff = Staff(first).login(organiser)
        event = staff.create_event("Release Cup", 1)
        code = event["tables"][0]["code"]
        claim = seat_claim(first, event["slug"], 1, "A")
        _, a = http(
            first, "POST", f"/api/tables/{code}/join", {"name": "Yugi", "seat": "A", "claim": claim}
        )

        async def scenario() -> None:
            async with connect(second.ws_url + f"/ws/table/{code}") as wa:
                phone = Phone(wa)
                await phone.hello(a["token"])
                status, _ = staff.request("POST", f"/api/staff/tables/{code}/seats/A/release", {})
                assert status == 200
                seen = []
                try:
                    async with asyncio.timeout(WAIT):
                        while True:
                            seen.append(json.loads(await wa.recv()))
                except ConnectionClosed:
                    pass
                codes = [(m.get("error") or {}).get("code") for m in seen]
                assert "revoked" in codes, seen

        asyncio.run(scenario())
    finally:
        stop_server(p2)
        stop_server(p1)
