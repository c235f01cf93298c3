"""Websocket opens are budgeted before the upgrade (`api/buckets.py: OpenBudget`): in all, so a
whole hall reconnecting at once is let back at a rate the worker's loop can take while it keeps
serving, and per client address, so one address cannot spend the whole budget. A refused open
is a plain 503 with a Retry-After: no upgrade, no socket, nothing changed."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Iterator

import pytest
from websockets.asyncio.client import connect
from websockets.exceptions import InvalidStatus
from ws_helpers import Phone, new_table

from clients.testing import LiveServer, isolated_database, start_server, stop_server
from server.api.buckets import OpenBudget


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_the_total_and_each_address_have_their_own_budget() -> None:
    clock = Clock()
    budget = OpenBudget(10, 4, 5, 2, clock=clock)
    assert [budget.admit("hall") for _ in range(3)] == [True, True, False]  # the address's 2
    assert [budget.admit("home") for _ in range(3)] == [True, True, False]  # the total's 4
    assert not budget.admit("third")  # the total is spent
    clock.now += 0.2  # 2 tokens back in all, 1 for each address
    assert budget.admit("third") and budget.admit("hall") and not budget.admit("hall")


def test_an_address_refused_spends_nothing_of_the_total() -> None:
    clock = Clock()
    budget = OpenBudget(1, 3, 1, 1, clock=clock)
    assert budget.admit("hall")
    assert not budget.admit("hall") and not budget.admit("hall")
    assert budget.admit("a") and budget.admit("b")  # the refusals left the total's 2


LIMITS = {"WS_OPENS_PER_SECOND": "2", "WS_OPENS_BURST": "3", "WS_MAX_PER_ADDRESS": "50"}


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory, database_url: str) -> Iterator[LiveServer]:
    url = isolated_database(database_url, "opens")
    live, process = start_server(tmp_path_factory.mktemp("opens"), url, LIMITS)
    try:
        yield live
    finally:
        stop_server(process)


def test_an_open_past_the_budget_is_a_503_before_the_upgrade(server: LiveServer) -> None:
    code, token, _ = new_table(server)
    url = f"{server.ws_url}/ws/table/{code}"
    time.sleep(1.6)  # the set-up's own socket, if any, is paid back

    async def scenario() -> tuple[int, list[int], str, str, str]:
        admitted, refused = [], []
        for _ in range(6):
            try:
                ws = await connect(url)
            except InvalidStatus as exc:
                refused.append(exc.response)
            else:
                admitted.append(ws)
        answer = refused[0]
        statuses = [r.status_code for r in refused]
        body = json.loads(answer.body.decode())["error"]["code"]
        retry = answer.headers["Retry-After"]
        # An admitted socket still works as a seat's phone: the refusals changed nothing.
        welcome = await Phone(admitted[0]).hello(token)
        for ws in admitted:
            await ws.close()
        return len(admitted), statuses, body, retry, welcome["type"]

    count, statuses, body, retry, welcomed = asyncio.run(scenario())
    assert count == 3 and statuses == [503, 503, 503] and welcomed == "welcome"
    assert body == "busy" and retry in {"1", "2", "3"}

    async def later() -> bool:
        await asyncio.sleep(1.2)  # 2 opens a second come back
        async with connect(url):
            return True

    assert asyncio.run(later())
