"""A phone that proves who it is is charged to that identity, never to its client address's
anonymous budget (a hall's phones share the venue's address; one device there can spend it):
a table card's valid claim (the QR link, the table's read, the join) spends the card's seat's
budget, and a seated phone's socket pass (`server/api/opens.py`) its seat's open budget."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator

import pytest
from access_world import make_world
from websockets.asyncio.client import connect
from websockets.exceptions import InvalidStatus
from ws_helpers import Phone, new_table

from clients.testing import LiveServer, isolated_database, start_server, stop_server
from server import create_app
from server.api.buckets import OpenBudget


def exhaust(client, code: str) -> int:
    """Spend the address's anonymous HTTP budget on reads of `code`; how many it took."""
    for n in range(1, 100):
        if client.get(f"/api/tables/{code}").status_code == 429:
            return n
    raise AssertionError("the address's budget never ran out")


def test_a_cards_valid_claim_is_not_refused_by_its_addresss_spent_budget(app_config: dict, clock):
    app = create_app({**app_config, "HTTP_RATE_PER_MINUTE": 1, "HTTP_RATE_BURST": 8})
    try:
        world = make_world(app, clock())
        with app.app_context():
            from server.api.claims import claim_for

            claim = claim_for(world.slug, 1, "B")
        client = app.test_client()
        assert exhaust(client, world.code) > 1
        card = f"seat=B&claim={claim}"
        # Anyone else at the address, a wrong claim and another seat's claim: still refused.
        assert client.get(f"/api/tables/{world.code}").status_code == 429
        assert client.get(f"/api/tables/{world.code}?seat=B&claim=x{claim[1:]}").status_code == 429
        assert client.get(f"/api/tables/{world.code}?seat=A&claim={claim}").status_code == 429
        # The new phone at the card: its QR link, the table, the event's line, the join.
        link = client.get(f"/s/{world.slug}/1/B?c={claim}")
        assert link.status_code == 302 and world.code in link.headers["Location"]
        assert client.get(f"/api/tables/{world.code}?{card}").status_code == 200
        assert client.get(f"/api/tables/{world.code}/event?{card}").status_code == 200
        joined = client.post(
            f"/api/tables/{world.code}/join?{card}",
            json={"name": "Kaiba", "player_id": "2", "seat": "B", "claim": claim},
        )
        assert joined.status_code == 201, joined.get_json()
        # The card's own budget is bounded like any other: a copied claim buys no flood.
        spent = [client.get(f"/api/tables/{world.code}?{card}").status_code for _ in range(10)]
        assert 429 in spent
    finally:
        app.extensions["duel_table"].close()


def test_a_seats_opens_are_its_own_budget_and_not_its_addresss() -> None:
    now = [100.0]
    budget = OpenBudget(100, 100, 1, 2, clock=lambda: now[0], per_seat_rate=1, per_seat_burst=2)
    assert [budget.admit("hall") for _ in range(3)] == [True, True, False]
    assert [budget.admit("hall", "seat:ABC:A") for _ in range(3)] == [True, True, False]
    assert budget.admit("hall", "seat:ABC:B")  # another seat's own
    assert not budget.admit("hall")  # the address's still spent


LIMITS = {
    "WS_OPENS_PER_SECOND": "1000",
    "WS_OPENS_BURST": "1000",
    "WS_OPENS_PER_ADDRESS_PER_SECOND": "1",
    "WS_OPENS_PER_ADDRESS_BURST": "4",
    "WS_MAX_PER_ADDRESS": "100",
}


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory, database_url: str) -> Iterator[LiveServer]:
    url = isolated_database(database_url, "claim_budget")
    live, process = start_server(tmp_path_factory.mktemp("claim_budget"), url, LIMITS)
    try:
        yield live
    finally:
        stop_server(process)


def test_a_seated_phone_reconnects_when_its_address_has_spent_its_opens(server: LiveServer):
    code, token, _ = new_table(server)
    url = f"{server.ws_url}/ws/table/{code}"

    async def scenario() -> tuple[list[int], str, int, int]:
        opened = []
        try:
            ws = await connect(url)
            opened.append(ws)
            welcome = await Phone(ws).hello(token)
            given = welcome["pass"]
            refused = []
            for _ in range(20):  # one device at the address opens sockets until it is refused
                try:
                    opened.append(await connect(url))
                except InvalidStatus as exc:
                    refused.append(exc.response.status_code)
            again = await connect(f"{url}?pass={given}")  # the seated phone comes back
            opened.append(again)
            back = await Phone(again).hello(token)
            wrong = given[:-1] + ("0" if given[-1] != "0" else "1")
            try:
                opened.append(await connect(f"{url}?pass={wrong}"))
                forged = 101
            except InvalidStatus as exc:
                forged = exc.response.status_code
            return refused, back["type"], forged, len(json.dumps(back))
        finally:
            for ws in opened:
                await ws.close()

    refused, back, forged, _ = asyncio.run(scenario())
    assert refused and set(refused) == {503}
    assert back == "welcome"
    assert forged == 503  # a pass that is not the seat's spends the address's (spent)
