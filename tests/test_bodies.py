"""Request bodies have a size limit per route: 413 too_large, before the body is read."""

from __future__ import annotations

import asyncio
import json
import socket
import threading
import time

from websockets.asyncio.client import connect
from ws_helpers import new_table


def test_a_body_over_the_limit_is_413_in_the_usual_shape(client):
    body = json.dumps({"ruleset": "ocg-2008", "pad": "x" * 70_000})
    response = client.post("/api/tables", data=body, content_type="application/json")
    assert response.status_code == 413
    assert response.json["code"] == "too_large"
    assert response.json["details"] == {"max_bytes": 65536}
    assert set(response.json) == {"code", "message", "details"}


def test_a_ban_list_upload_may_be_larger(app, client):
    tournament = app.extensions["duel_table"].tournament
    tournament.create_account("uploader", "correct horse battery", "organiser", 0)
    headers = {"Origin": "http://localhost"}
    me = client.post(
        "/api/auth/login",
        json={"username": "uploader", "password": "correct horse battery"},
        headers=headers,
    ).json
    headers["X-CSRF-Token"] = me["csrf"]
    event = client.post(
        "/api/events", json={"name": "Big", "date": "2026-12-01", "tables": 1}, headers=headers
    ).json
    big = "card,status\n" + "".join(f"Card {n},limited\n" for n in range(6000))
    assert 65536 < len(big) < 2 * 1024 * 1024
    response = client.post(
        f"/api/events/{event['id']}/banlist",
        data=big,
        content_type="text/csv",
        headers=headers,
    )
    assert response.status_code != 413, response.json


def test_a_huge_body_is_refused_before_it_is_sent(live_server):
    """A client announcing 100 MB gets its 413 after sending 1 MB: nothing waits for the rest."""
    sock = socket.create_connection(("127.0.0.1", live_server.port))
    sock.settimeout(5)
    sock.sendall(
        b"POST /api/tables HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
        b"Content-Length: 100000000\r\n\r\n"
    )
    start = time.monotonic()
    try:
        sock.sendall(b" " * 1_000_000)
    except OSError:
        pass  # the server may have closed already
    answer = b""
    try:
        while b"\r\n\r\n" not in answer:
            chunk = sock.recv(4096)
            if not chunk:
                break
            answer += chunk
    except (TimeoutError, ConnectionResetError):
        pass
    finally:
        sock.close()
    assert answer.startswith(b"HTTP/1.1 413"), answer[:200]
    assert time.monotonic() - start < 3


def answer_complete(answer: bytes) -> bool:
    """Whether `answer` holds an HTTP response's head and its whole Content-Length body."""
    head, found, body = answer.partition(b"\r\n\r\n")
    if not found:
        return False
    for line in head.split(b"\r\n"):
        name, _, value = line.partition(b":")
        if name.strip().lower() == b"content-length":
            return len(body) >= int(value)
    return True


def send_chunked(port: int, total: int, path: str = "/api/tables") -> dict:
    """POST `total` bytes to `path` with `Transfer-Encoding: chunked` as fast as the socket
    takes them, reading the answer on another thread meanwhile; stop when the answer came (and
    one more second of sending went by) or the server closed. What happened, in a dict."""
    result: dict = {"sent": 0, "answer": b"", "sent_at_answer": None, "seconds": None}
    sock = socket.create_connection(("127.0.0.1", port))
    sock.settimeout(10)
    answered = threading.Event()

    def read() -> None:
        try:
            while not answer_complete(result["answer"]):
                chunk = sock.recv(4096)
                if not chunk:
                    break
                if not result["answer"]:
                    result["sent_at_answer"] = result["sent"]
                result["answer"] += chunk
        except OSError:
            pass
        answered.set()

    reader = threading.Thread(target=read)
    start = time.monotonic()
    sock.sendall(
        f"POST {path} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
        "Transfer-Encoding: chunked\r\n\r\n".encode()
    )
    reader.start()
    piece = b"[" * 65536
    chunk = f"{len(piece):x}\r\n".encode() + piece + b"\r\n"
    stop_at = None
    try:
        while result["sent"] < total:
            if answered.is_set():
                stop_at = stop_at or time.monotonic() + 1
                if time.monotonic() > stop_at:
                    break
            sock.sendall(chunk)
            result["sent"] += len(piece)
        sock.sendall(b"0\r\n\r\n")
    except OSError:
        pass  # the server closed: what it answered is read below
    reader.join(15)
    result["seconds"] = time.monotonic() - start
    sock.close()
    return result


def test_a_chunked_200_mb_body_is_refused_at_the_limit_while_other_tables_play(live_server):
    """A body without a length (`Transfer-Encoding: chunked`) is bounded like any other: 413
    too_large once the route's limit is passed, read with the loop yielding, so another table's
    ping stays under 100 ms meanwhile. (Before: the whole 200 MB was read in one go, the only
    worker frozen for seconds.)"""
    victim, _, _ = new_table(live_server)
    url = f"{live_server.ws_url}/ws/table/{victim}"
    results: list[dict] = []

    def attacker() -> None:
        results.append(send_chunked(live_server.port, 200 * 1024 * 1024))

    sender = threading.Thread(target=attacker)

    async def pings() -> list[float]:
        times: list[float] = []
        async with connect(url) as ws:
            await ws.send(json.dumps({"type": "hello"}))
            while json.loads(await asyncio.wait_for(ws.recv(), 5))["type"] != "welcome":
                pass
            sender.start()
            n = 0
            while sender.is_alive() or n < 20:
                n += 1
                start = time.monotonic()
                await ws.send(json.dumps({"type": "ping", "t": n}))
                try:
                    while True:
                        left = 10 - (time.monotonic() - start)
                        message = json.loads(await asyncio.wait_for(ws.recv(), max(left, 0.01)))
                        if message["type"] == "pong" and message["t"] == n:
                            break
                except TimeoutError:
                    pass
                times.append(time.monotonic() - start)
                await asyncio.sleep(0.02)
        return times

    times = asyncio.run(pings())
    sender.join(30)
    [result] = results
    assert result["answer"].startswith(b"HTTP/1.1 413"), result
    # Refused as soon as the 64 KiB limit was passed: what the sender had pushed by then sat in
    # the sockets' buffers, not in the server.
    assert result["sent_at_answer"] is not None and result["sent_at_answer"] < 32 * 1024 * 1024
    assert len(times) >= 20 and max(times) < 0.1, (len(times), max(times), result["seconds"])


def test_a_chunked_body_over_the_limit_is_413_in_the_usual_shape(live_server):
    result = send_chunked(live_server.port, 200_000)
    head, _, body = result["answer"].partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 413"), result
    assert json.loads(body) == {
        "code": "too_large",
        "message": "The body is over 65536 bytes.",
        "details": {"max_bytes": 65536},
    }
    with socket.create_connection(("127.0.0.1", live_server.port)) as sock:
        sock.settimeout(5)
        piece = json.dumps({"ruleset": "ocg-2008"}).encode()
        sock.sendall(
            b"POST /api/tables HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
            b"Transfer-Encoding: chunked\r\nConnection: close\r\n\r\n"
            + f"{len(piece):x}\r\n".encode()
            + piece
            + b"\r\n0\r\n\r\n"
        )
        answer = b""
        while chunk := sock.recv(4096):
            answer += chunk
    assert answer.startswith(b"HTTP/1.1 201"), answer[:300]
    assert b'"code"' in answer
