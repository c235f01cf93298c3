"""A body the route answers without reading (401, 403, 404, 405, 429...) is never read to its end:
the answer says `Connection: close` and the connection closes, whatever its size or framing, so
one sender cannot hold the only worker in gunicorn's discard loop. (The timing under attack is
the adversary run's: `python -m reliability --only unread-bodies`, docs/reliability.md.)"""

from __future__ import annotations

import asyncio
import json
import socket
import threading
from collections.abc import Iterator

import pytest
from websockets.asyncio.client import connect
from ws_helpers import http, new_table

from clients.testing import LiveServer, isolated_database, start_server, stop_server

# What a sender pushes at most after the head; a server that keeps reading takes all of it.
CAP = 64 * 1024 * 1024
PIECE = 65536


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory, database_url: str) -> Iterator[LiveServer]:
    """A server of its own: one unknown code is this address's whole budget of misses."""
    url = isolated_database(database_url, "unread_bodies")
    live, process = start_server(
        tmp_path_factory.mktemp("unread"),
        url,
        {"HTTP_MISS_BURST": "1", "HTTP_MISS_PER_MINUTE": "1"},
    )
    try:
        yield live
    finally:
        stop_server(process)


def send_unread(port: int, method: str, path: str, chunked: bool, headers: str = "") -> dict:
    """Send a request whose body is 2 GB long (or chunked without end), reading the answer on
    another thread; stop when the server stops taking bytes or after `CAP` bytes."""
    sock = socket.create_connection(("127.0.0.1", port))
    sock.settimeout(10)
    result: dict = {"answer": b"", "closed": False, "sent": 0}

    def read() -> None:
        try:
            while chunk := sock.recv(65536):
                result["answer"] += chunk
            result["closed"] = True
        except ConnectionResetError:
            result["closed"] = True
        except OSError:
            pass

    framing = "Transfer-Encoding: chunked" if chunked else "Content-Length: 2147483648"
    sock.sendall(
        f"{method} {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
        f"{headers}{framing}\r\n\r\n".encode()
    )
    reader = threading.Thread(target=read)
    reader.start()
    piece = (f"{PIECE:x}\r\n".encode() + b"[" * PIECE + b"\r\n") if chunked else b"[" * PIECE
    try:
        while result["sent"] < CAP:
            sock.sendall(piece)
            result["sent"] += PIECE
    except OSError:
        pass  # the server closed the connection: what is wanted
    try:
        sock.shutdown(socket.SHUT_WR)
    except OSError:
        pass  # already reset by the server
    reader.join(15)
    sock.close()
    return result


ROUTES = [
    ("POST", "/api/auth/logout", "", 401),
    ("POST", "/api/events", "Origin: http://127.0.0.1\r\n", 401),
    ("POST", "/api/auth/login", "Origin: http://evil.example\r\n", 403),
    ("PUT", "/api/tables", "", 405),
    ("DELETE", "/no/such/page", "", 404),
    ("POST", "/api/time", "", 405),
]


@pytest.mark.parametrize("chunked", [False, True], ids=["2GB-length", "chunked"])
@pytest.mark.parametrize(("method", "path", "headers", "status"), ROUTES)
def test_an_answer_before_the_body_closes_the_connection(
    server: LiveServer,
    method: str,
    path: str,
    headers: str,
    status: int,
    chunked: bool,
):
    result = send_unread(server.port, method, path, chunked, headers)
    head = result["answer"].partition(b"\r\n\r\n")[0].lower()
    # A route's body limit may refuse first (413, before any of the body is read): the same case.
    assert head[9:12] in {str(status).encode(), b"413"}, result["answer"][:300]
    assert b"connection: close" in head
    assert result["closed"]
    # The server stopped taking the body: the sender's writes failed long before its cap.
    assert result["sent"] < CAP, result["sent"]


def test_a_429_before_the_body_closes_the_connection(server: LiveServer):
    """The unknown-code budget (one miss here) answers 429 before any body is read."""
    http(server, "POST", "/api/tables/ZZZZZZ/join", {"name": "x"})  # spends the one miss
    for chunked in (False, True):
        result = send_unread(server.port, "POST", "/api/tables/ZZZZZY/join", chunked)
        head = result["answer"].partition(b"\r\n\r\n")[0].lower()
        assert head.startswith(b"http/1.1 429"), result["answer"][:300]
        assert b"connection: close" in head
        assert result["closed"] and result["sent"] < CAP


def test_another_tables_socket_lives_through_unread_bodies(live_server: LiveServer):
    """Four senders of unread bodies at once: another table's socket, open before, is still
    served after them by the same worker (no worker restart in the server's log)."""
    code, token, _ = new_table(live_server)

    async def ping(ws, n: int) -> None:
        await ws.send(json.dumps({"type": "ping", "t": n}))
        while True:
            message = json.loads(await asyncio.wait_for(ws.recv(), 10))
            if message["type"] == "pong" and message["t"] == n:
                return

    async def scenario() -> list[dict]:
        async with connect(f"{live_server.ws_url}/ws/table/{code}") as ws:
            await ws.send(json.dumps({"type": "hello", "token": token}))
            while json.loads(await asyncio.wait_for(ws.recv(), 10))["type"] != "welcome":
                pass
            await ping(ws, 1)
            results: list[dict] = []
            senders = [
                threading.Thread(
                    target=lambda chunked=chunked: results.append(
                        send_unread(live_server.port, "POST", "/api/auth/logout", chunked)
                    )
                )
                for chunked in (False, True, False, True)
            ]
            for sender in senders:
                sender.start()
            while any(sender.is_alive() for sender in senders):
                await ping(ws, 2)
                await asyncio.sleep(0.05)
            await ping(ws, 3)
            return results

    results = asyncio.run(scenario())
    assert len(results) == 4
    assert all(r["closed"] and r["sent"] < CAP for r in results), [r["sent"] for r in results]
    log = live_server.read_log()
    assert "WORKER TIMEOUT" not in log
    assert log.count("Booting worker") == 1


def test_a_small_unread_body_keeps_the_connection(server: LiveServer):
    """Up to 64 KiB left unread is discarded by the server and the connection serves on."""
    with socket.create_connection(("127.0.0.1", server.port)) as sock:
        sock.settimeout(10)
        body = b"{}" * 100
        request = (
            f"POST /api/auth/logout HTTP/1.1\r\nHost: 127.0.0.1\r\n"
            f"Content-Type: application/json\r\nContent-Length: {len(body)}\r\n\r\n"
        ).encode() + body
        sock.sendall(request + b"GET /api/time HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        answer = b""
        while answer.count(b"HTTP/1.1 ") < 2 or not answer.rstrip().endswith(b"}"):
            chunk = sock.recv(65536)
            if not chunk:
                break
            answer += chunk
    first, _, second = answer.partition(b"HTTP/1.1 200")
    assert first.startswith(b"HTTP/1.1 401") and b"connection: keep-alive" in first.lower()
    assert second, answer[:500]
