"""Drive the table websocket the way a phone does: HTTP to open and join, then hello,
commands and updates over a real socket (the `websockets` asyncio client)."""

from __future__ import annotations

import asyncio
import json
import urllib.error
import urllib.request
import uuid
from typing import Any

from websockets.asyncio.client import ClientConnection

DECK = {"main": 40, "extra": 15, "side": 15}
WAIT = 5


def http(server: str, method: str, path: str, body: Any = None) -> tuple[int, Any]:
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(
        server + path, data=data, method=method, headers={"Content-Type": "application/json"}
    )
    try:
        with urllib.request.urlopen(request, timeout=WAIT) as response:
            return response.status, json.load(response)
    except urllib.error.HTTPError as err:
        with err:
            return err.code, json.load(err)


def new_table(server: str) -> tuple[str, str, str]:
    """A table with both seats taken: (code, token A, token B)."""
    _, created = http(server, "POST", "/api/tables", {})
    code = created["code"]
    _, a = http(server, "POST", f"/api/tables/{code}/join", {"name": "Yugi"})
    _, b = http(server, "POST", f"/api/tables/{code}/join", {"name": "Kaiba"})
    return code, a["token"], b["token"]


class Phone:
    """One socket at a table, as a phone uses it: hello, commands, the updates it is sent."""

    def __init__(self, ws: ClientConnection) -> None:
        self.ws = ws
        self.updates: list[dict] = []
        self.welcome: dict = {}

    async def send(self, message: Any) -> None:
        await self.ws.send(message if isinstance(message, str) else json.dumps(message))

    async def next(self) -> dict:
        return json.loads(await asyncio.wait_for(self.ws.recv(), WAIT))

    async def expect(self, kind: str) -> dict:
        """The next message of type `kind`; updates seen on the way are kept."""
        while True:
            message = await self.next()
            if message["type"] == kind:
                if kind == "update":
                    self.updates.append(message)
                return message
            if message["type"] == "update":
                self.updates.append(message)
            else:
                raise AssertionError(f"expected {kind}, got {message}")

    async def hello(self, token: str | None = None, since: int | None = None) -> dict:
        body: dict[str, Any] = {"type": "hello"}
        if token is not None:
            body["token"] = token
        if since is not None:
            body["since"] = since
        await self.send(body)
        self.welcome = await self.expect("welcome")
        return self.welcome

    async def command(self, cmd: str, args: dict | None = None, ref: str | None = None) -> dict:
        ref = ref or str(uuid.uuid4())
        await self.send({"type": "command", "id": ref, "cmd": cmd, "args": args or {}})
        reply = await self.expect("reply")
        assert reply["re"] == ref
        return reply

    async def ok(self, cmd: str, args: dict | None = None) -> int:
        reply = await self.command(cmd, args)
        assert reply["ok"], reply
        return reply["seq"]

    async def until_seq(self, seq: int) -> dict:
        """Updates until the one at `seq`."""
        while not self.updates or self.updates[-1]["seq"] < seq:
            await self.expect("update")
        return self.updates[-1]


async def start_clock(a: Phone, b: Phone) -> None:
    """Both seats declare their decks, confirm each other's and start the clock (R2, R5)."""
    await a.ok("deck.declare", DECK)
    await b.ok("deck.declare", DECK)
    await a.ok("deck.confirm", {"seat": "B"})
    await b.ok("deck.confirm", {"seat": "A"})
    await a.ok("clock.start")
    await b.ok("clock.start")
