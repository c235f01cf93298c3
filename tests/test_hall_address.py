"""A hall's phones share one public address (the venue's Wi-Fi behind one NAT): the limits per
address must not refuse them. Budgets are keyed by the seat (or the staff login) where there
is one; the anonymous rest (spectators, sockets before their hello) has its own ceilings per
address, which seated phones never count against. Against a real server behind one trusted
proxy (`PROXY_COUNT=1`), the hall's address given by `X-Forwarded-For`."""

from __future__ import annotations

import asyncio
import json
import urllib.error
import urllib.request

import pytest
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed

from clients.testing import isolated_database, start_server, stop_server

HALL = "203.0.113.7"  # the venue's one public address
LIMITS = {
    "PROXY_COUNT": "1",
    "HTTP_RATE_PER_MINUTE": "60",
    "HTTP_RATE_BURST": "20",
    "WS_MAX_PER_ADDRESS": "60",
    "WS_MAX_SPECTATORS_PER_ADDRESS": "20",
}


def post(base: str, path: str, body: dict, address: str) -> dict:
    request = urllib.request.Request(
        base + path,
        data=json.dumps(body).encode(),
        method="POST",
        headers={"Content-Type": "application/json", "X-Forwarded-For": address},
    )
    with urllib.request.urlopen(request, timeout=10) as response:
        return json.load(response)


def get(base: str, path: str, address: str, token: str | None = None) -> int:
    headers = {"X-Forwarded-For": address}
    if token:
        headers["Authorization"] = f"Bearer {token}"
    request = urllib.request.Request(base + path, headers=headers)
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status
    except urllib.error.HTTPError as exc:
        return exc.code


def seated_tables(base: str, n: int) -> list[tuple[str, str, str]]:
    """`n` tables with both seats taken, each set up from an address of its own."""
    tables = []
    for k in range(n):
        address = f"198.51.100.{k + 1}"
        code = post(base, "/api/tables", {}, address)["code"]
        a = post(base, f"/api/tables/{code}/join", {"name": "Yugi"}, address)["token"]
        b = post(base, f"/api/tables/{code}/join", {"name": "Kaiba"}, address)["token"]
        tables.append((code, a, b))
    return tables


async def hello(ws_url: str, code: str, token: str | None) -> str:
    """Open a socket from the hall and say hello: "welcome", or the error code it got."""
    try:
        ws = await connect(
            f"{ws_url}/ws/table/{code}", additional_headers={"X-Forwarded-For": HALL}
        )
    except Exception as exc:  # refused at the handshake
        return f"handshake: {exc!r}"
    try:
        await ws.send(json.dumps({"type": "hello", **({"token": token} if token else {})}))
        while True:
            message = json.loads(await asyncio.wait_for(ws.recv(), 10))
            if message["type"] == "welcome":
                return "welcome"
            if message["type"] == "error":
                return str(message["error"]["code"])
    except ConnectionClosed:
        return "closed"
    finally:
        OPEN.append(ws)


OPEN: list = []


@pytest.fixture
def hall_server(tmp_path, database_url):
    url = isolated_database(database_url, "hall_address")
    server, process = start_server(tmp_path, url, LIMITS)
    try:
        yield server
    finally:
        stop_server(process)


@pytest.mark.slow
def test_many_seated_phones_reconnecting_from_one_address_are_not_refused(hall_server):
    # 25 tables, 50 phones, all behind the hall's address, reconnect at once (a Wi-Fi blip),
    # twice (the first sockets still open: 100 seated sockets, over the address's 60), and
    # each reads its table: 150 requests against a per-address burst of 20. Before: the
    # address's budget refused every one past the 20th (rate_limited).
    tables = seated_tables(str(hall_server), 25)

    async def reconnect_all() -> list[str]:
        phones = [(code, token) for code, a, b in tables for token in (a, b)]
        try:
            first = await asyncio.gather(
                *(hello(hall_server.ws_url, code, token) for code, token in phones)
            )
            again = await asyncio.gather(
                *(hello(hall_server.ws_url, code, token) for code, token in phones)
            )
            return first + again
        finally:
            for ws in OPEN:
                await ws.close()
            OPEN.clear()

    answers = asyncio.run(reconnect_all())
    assert answers.count("welcome") == 100, answers
    reads = [
        get(str(hall_server), f"/api/tables/{code}", HALL, token)
        for code, a, b in tables
        for token in (a, b)
    ]
    assert reads == [200] * 50, reads


@pytest.mark.slow
def test_one_address_opening_spectator_sockets_cannot_lock_seated_phones_out(hall_server):
    # One device in the hall opens spectator sockets until it is refused; the seated phones on
    # the same address still get in. Before: the spectators filled WS_MAX_PER_ADDRESS and every
    # phone behind the address got too_many_sockets.
    tables = seated_tables(str(hall_server), 6)

    async def attack_then_phones() -> tuple[list[str], list[str]]:
        try:
            spectators = []
            for n in range(60):
                spectators.append(await hello(hall_server.ws_url, tables[n % 6][0], None))
            phones = await asyncio.gather(
                *(
                    hello(hall_server.ws_url, code, token)
                    for code, a, b in tables
                    for token in (a, b)
                )
            )
            return spectators, phones
        finally:
            for ws in OPEN:
                await ws.close()
            OPEN.clear()

    spectators, phones = asyncio.run(attack_then_phones())
    assert spectators.count("welcome") >= 20  # spectators are welcome, up to their ceiling
    assert "welcome" in spectators and spectators[-1] != "welcome", spectators  # then refused
    assert phones == ["welcome"] * 12, phones


def test_a_seats_budget_is_its_own_and_a_wrong_token_spends_the_address(app_config: dict):
    # A seat's requests are charged to the seat, a judge's to the login, so a hall's phones
    # and judges do not share one budget;
    # a token that does not hold at the table is charged to the address, as is no token, so
    # minting tokens buys nothing.
    from server import create_app

    app = create_app({**app_config, "HTTP_RATE_PER_MINUTE": 1, "HTTP_RATE_BURST": 5})
    try:
        client = app.test_client()
        code = client.post("/api/tables", json={}).get_json()["code"]
        token = client.post(f"/api/tables/{code}/join", json={"name": "Yugi"}).get_json()["token"]
        # The address's 5 tokens: the create and the join spent 2; 3 more, then 429.
        anonymous = [client.get(f"/api/tables/{code}").status_code for _ in range(4)]
        assert anonymous == [200, 200, 200, 429]
        wrong = {"Authorization": "Bearer not-a-seat-token"}
        assert client.get(f"/api/tables/{code}", headers=wrong).status_code == 429
        seat = {"Authorization": f"Bearer {token}"}
        seated = [client.get(f"/api/tables/{code}", headers=seat).status_code for _ in range(6)]
        assert seated == [200] * 5 + [429]  # the seat's own 5
        # A judge's login on the same address: its own budget too.
        app.extensions["duel_table"].tournament.create_account(
            "floorjudge", "correct horse battery", "judge", 0
        )
        login = client.post(
            "/api/auth/login",
            json={"username": "floorjudge", "password": "correct horse battery"},
            headers={"Origin": "http://localhost"},
        )
        assert login.status_code == 200
        judged = [client.get(f"/api/tables/{code}").status_code for _ in range(6)]
        assert judged == [200] * 5 + [429]
    finally:
        app.extensions["duel_table"].close()
