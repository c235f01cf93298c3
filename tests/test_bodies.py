"""Request bodies have a size limit per route: 413 too_large, before the body is read."""

from __future__ import annotations

import json
import socket
import time


def test_a_body_over_the_limit_is_413_in_the_usual_shape(client):
    body = json.dumps({"ruleset": "ocg-2008", "pad": "x" * 70_000})
    response = client.post("/api/tables", data=body, content_type="application/json")
    assert response.status_code == 413
    assert response.json["code"] == "too_large"
    assert response.json["details"] == {"max_bytes": 65536}
    assert set(response.json) == {"code", "message", "details"}


def test_a_ban_list_upload_may_be_larger(app, client):
    tournament = app.extensions["duel_table_tournament"]
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
