"""Budgets per identity, against a real server with small limits: a seat's sockets and its
message budget, spectators per table, sockets per address, hello and write deadlines."""

from __future__ import annotations

import asyncio
import contextlib
import json
import socket
import time
from collections.abc import Iterator

import pytest
from websockets.asyncio.client import connect
from ws_helpers import WAIT, Phone, new_table

from clients.testing import LiveServer, isolated_database, start_server, stop_server

LIMITS = {
    "WS_HELLO_SECONDS": "1",
    "WS_MAX_SPECTATORS_PER_TABLE": "2",
    "WS_MAX_PER_ADDRESS": "12",
    "WS_WRITE_TIMEOUT_SECONDS": "1",
    "WS_SEND_BUFFER_BYTES": "4096",
    "WS_PING_SECONDS": "0",  # only the write deadline may close the socket that never reads
}


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory, database_url: str) -> Iterator[LiveServer]:
    url = isolated_database(database_url, "budgets")
    live, process = start_server(tmp_path_factory.mktemp("budgets"), url, LIMITS)
    try:
        yield live
    finally:
        stop_server(process)


async def closed_within(ws, seconds: float) -> bool:
    try:
        await asyncio.wait_for(ws.wait_closed(), seconds)
    except TimeoutError:
        return False
    return True


def test_a_seats_third_socket_closes_its_oldest(server: LiveServer):
    code, token, _ = new_table(server)
    url = f"{server.ws_url}/ws/table/{code}"

    async def scenario() -> None:
        async with connect(url) as w1, connect(url) as w2, connect(url) as w3:
            for ws in (w1, w2, w3):
                await Phone(ws).hello(token)
            assert await closed_within(w1, 2)
            assert w1.close_code == 1008
            assert not await closed_within(w2, 0.3) and not await closed_within(w3, 0.1)

    asyncio.run(scenario())


def test_a_seats_sockets_share_one_message_budget(server: LiveServer):
    code, token, _ = new_table(server)
    url = f"{server.ws_url}/ws/table/{code}"

    async def scenario() -> None:
        async with connect(url) as w1, connect(url) as w2:
            phones = [Phone(w1), Phone(w2)]
            for phone in phones:
                await phone.hello(token)
            for t in range(30):  # 60 in all: past the burst of 40 together, not each
                for phone in phones:
                    await phone.send({"type": "ping", "t": t})
            answers = [await phone.next() for phone in phones for _ in range(30)]
            codes = [m["error"]["code"] for m in answers if m["type"] == "error"]
            assert codes and set(codes) == {"rate_limited"}

    asyncio.run(scenario())


def test_spectators_per_table_are_capped(server: LiveServer):
    code, _, _ = new_table(server)
    url = f"{server.ws_url}/ws/table/{code}"

    async def scenario() -> None:
        async with connect(url) as w1, connect(url) as w2, connect(url) as w3:
            await Phone(w1).hello()
            await Phone(w2).hello()
            await Phone(w3).send({"type": "hello"})
            error = json.loads(await asyncio.wait_for(w3.recv(), WAIT))
            assert error["error"]["code"] == "too_many_spectators"
            assert await closed_within(w3, 2)
        async with connect(url) as w4:  # the others left: room again
            await Phone(w4).hello()

    asyncio.run(scenario())


@pytest.fixture(scope="module")
def patient_server(
    tmp_path_factory: pytest.TempPathFactory, database_url: str
) -> Iterator[LiveServer]:
    """The same limits with a long hello deadline: opening twelve sockets may take longer than
    the 1 s deadline on a busy machine, and a socket closed for its missing hello would free a
    place under the address's cap before the thirteenth asks."""
    url = isolated_database(database_url, "budgets_patient")
    live, process = start_server(
        tmp_path_factory.mktemp("budgets_patient"), url, {**LIMITS, "WS_HELLO_SECONDS": "60"}
    )
    try:
        yield live
    finally:
        stop_server(process)


def test_sockets_per_address_are_capped(patient_server: LiveServer):
    server = patient_server
    code, _, _ = new_table(server)
    url = f"{server.ws_url}/ws/table/{code}"

    async def scenario() -> None:
        # The handshake is answered before the server counts the socket (it first looks the
        # table up, a query that yields on PostgreSQL): which of thirteen sockets opened one
        # after another comes last to the count is not their order. One of them, and only one,
        # is told it is one too many; the others wait for their hello.
        async with contextlib.AsyncExitStack() as stack:
            sockets = [await stack.enter_async_context(connect(url)) for _ in range(13)]
            reads = [asyncio.ensure_future(ws.recv()) for ws in sockets]
            done, _ = await asyncio.wait(reads, timeout=WAIT, return_when=asyncio.FIRST_COMPLETED)
            await asyncio.sleep(0.5)  # time for a second refusal to arrive, were there one
            done = {read for read in reads if read.done()}
            assert len(done) == 1
            error = json.loads(done.pop().result())
            assert error["error"]["code"] == "too_many_sockets"
            for read in reads:
                read.cancel()

    asyncio.run(scenario())


def test_a_socket_without_hello_is_closed(server: LiveServer):
    code, _, _ = new_table(server)

    async def scenario() -> float:
        async with connect(f"{server.ws_url}/ws/table/{code}") as ws:
            start = time.monotonic()
            assert await closed_within(ws, 3)
            return time.monotonic() - start

    assert asyncio.run(scenario()) < 2.5


def test_a_socket_that_never_reads_is_closed(server: LiveServer):
    """A raw client with a tiny receive buffer asks for the table's state again and again and
    reads nothing: the server's writes block, and after the write deadline it hangs up."""
    code, _, _ = new_table(server)
    raw = socket.socket()
    raw.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 2048)
    raw.connect(("127.0.0.1", server.port))
    raw.sendall(
        f"GET /ws/table/{code} HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\n"
        "Connection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
        "Sec-WebSocket-Version: 13\r\n\r\n".encode()
    )
    from wsproto.frame_protocol import FrameProtocol

    frames = FrameProtocol(client=True, extensions=[])
    hello = frames.send_data(json.dumps({"type": "hello"}))
    for _ in range(35):
        raw.sendall(hello)
    time.sleep(3.5)
    raw.settimeout(3)
    ended = False
    try:
        while raw.recv(65536):
            pass
        ended = True
    except ConnectionResetError:
        ended = True
    except TimeoutError:
        ended = False
    finally:
        raw.close()
    assert ended, "the server still holds the socket"
