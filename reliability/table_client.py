"""A synchronous table client for the access checks (`reliability.access` and
`reliability.access_record`): a new casual table with its seats taken, and a socket that says
hello and sends commands."""

from __future__ import annotations

import json
import time
import uuid
from typing import Any

from websockets.exceptions import ConnectionClosed
from websockets.sync.client import connect

from .http import request
from .proc import ServerProcess


class Ws:
    """A small synchronous client: hello, then request/answer pairs."""

    def __init__(
        self, server: ServerProcess, code: str, token: str | None = None, origin: str | None = None
    ) -> None:
        headers = {"Origin": origin} if origin else None
        self.ws = connect(
            f"{server.ws_base}/ws/table/{code}",
            additional_headers=headers,
            open_timeout=5,
            max_size=2**22,
            compression=None,
            legacy=True,
        )
        self.token = token

    def hello(self) -> dict[str, Any]:
        # Protocol 1 (no "v"): whole states; this client reads no state from updates.
        self.ws.send(json.dumps({"type": "hello", "token": self.token}))
        return self.answer()

    def answer(self, timeout: float = 5.0) -> dict[str, Any]:
        deadline = time.monotonic() + timeout
        while True:
            msg = json.loads(self.ws.recv(timeout=max(0.01, deadline - time.monotonic())))
            if msg.get("type") != "update":
                return msg

    def command(self, cmd: str, args: dict[str, Any]) -> dict[str, Any]:
        cid = str(uuid.uuid4())
        self.ws.send(json.dumps({"type": "command", "id": cid, "cmd": cmd, "args": args}))
        while True:
            msg = self.answer()
            if msg.get("type") == "reply" and msg.get("re") == cid:
                return msg

    def close_code(self, timeout: float = 5.0) -> int | None:
        """Read until the server closes; its close code (None if it stays open)."""
        deadline = time.monotonic() + timeout
        try:
            while time.monotonic() < deadline:
                self.ws.recv(timeout=max(0.01, deadline - time.monotonic()))
        except ConnectionClosed as exc:
            return exc.rcvd.code if exc.rcvd else None
        except TimeoutError:
            return None
        return None

    def close(self) -> None:
        try:
            self.ws.close()
        except Exception:
            pass


def table(server: ServerProcess, seats: tuple[str, ...] = ("A", "B")) -> tuple[str, dict]:
    _s, _h, body = request(server.base, "POST", "/api/tables", {})
    tokens = {}
    for seat in seats:
        _s, _h, joined = request(
            server.base,
            "POST",
            f"/api/tables/{body['code']}/join",
            {"seat": seat, "name": f"Seat {seat}"},
        )
        tokens[seat] = joined["token"]
    return body["code"], tokens
