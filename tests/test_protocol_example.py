"""The example session of docs/protocol.md, played by a client written from that page and the
served schema alone: nothing of the server's code is imported here (only the address of a
running server), the client's messages are checked against `#/$defs/client` of
`/api/protocol/schema.json` before they are sent, and the server's against `#/$defs/server`
(tests/conftest.py). Two phones, ids numbered 1, 2, 3 by each seat (an id is its sender's),
protocol version 3 (deltas; a sender's own update in its reply), each command sent only when
the seat's `may_send` lists it, a best-of-three won 2-0, and the match result confirmed by
both."""

from __future__ import annotations

import asyncio
import json
import urllib.request
from typing import Any

import jsonschema_rs
from websockets.asyncio.client import ClientConnection, connect

WAIT = 5


def call(base: str, method: str, path: str, body: Any = None) -> Any:
    data = None if body is None else json.dumps(body).encode()
    headers = {"Content-Type": "application/json"}
    request = urllib.request.Request(base + path, data=data, method=method, headers=headers)
    with urllib.request.urlopen(request, timeout=WAIT) as answer:
        return json.load(answer)


class Seat:
    """One phone: its socket, the state it holds (deltas applied), its own command ids."""

    def __init__(self, ws: ClientConnection, client_schema: Any) -> None:
        self.ws, self.check = ws, client_schema
        self.state: dict[str, Any] = {}
        self.seq = 0
        self.next_id = 0
        self.seat = ""

    async def send(self, message: dict[str, Any]) -> None:
        self.check.validate(message)  # the schema's client messages
        await self.ws.send(json.dumps(message))

    async def receive(self) -> dict[str, Any]:
        message = json.loads(await asyncio.wait_for(self.ws.recv(), WAIT))
        if message["type"] in ("welcome", "update"):
            self.apply(message)
        elif message["type"] == "reply" and "update" in message:
            self.apply(message["update"])  # version 3: the sender's own update, in its reply
        return message

    def apply(self, message: dict[str, Any]) -> None:
        """The doc's rule: a whole `state` replaces; a `delta` replaces its top-level keys; a
        `ledger` part keeps the first `from` rows and puts `rows` after them."""
        if "state" in message:
            self.state = message["state"]
        else:
            self.state = {**self.state, **message.get("delta", {})}
            if "ledger" in message:
                part = message["ledger"]
                self.state["ledger"] = self.state["ledger"][: part["from"]] + part["rows"]
        self.seq = message["seq"]

    async def hello(self, token: str) -> dict[str, Any]:
        await self.send({"type": "hello", "token": token, "v": 3})
        welcome = await self.receive()
        assert welcome["type"] == "welcome" and welcome["v"] == 3
        self.seat = welcome["seat"]
        return welcome

    async def do(self, cmd: str, args: dict[str, Any] | None = None) -> int:
        """Send `cmd` if the seat may send it now; its reply, then the update it made."""
        assert cmd in self.state["may_send"], (self.seat, cmd, self.state["may_send"])
        self.next_id += 1
        ref = str(self.next_id)
        await self.send({"type": "command", "id": ref, "cmd": cmd, "args": args or {}})
        while True:  # the reply comes with the update it made, or before it (the doc's ordering)
            message = await self.receive()
            if message["type"] == "reply":
                break
        assert message["re"] == ref and message["ok"], message
        await self.until(message["seq"])
        return int(message["seq"])

    async def until(self, seq: int) -> None:
        """Updates until the state holds `seq`."""
        while self.seq < seq:
            await self.receive()


async def play(base: str, ws_base: str) -> dict[str, Any]:
    schema = call(base, "GET", "/api/protocol/schema.json")
    client_schema = jsonschema_rs.validator_for({**schema, "oneOf": [{"$ref": "#/$defs/client"}]})
    code = call(base, "POST", "/api/tables", {})["code"]
    token_a = call(base, "POST", f"/api/tables/{code}/join", {"name": "Yugi"})["token"]
    token_b = call(base, "POST", f"/api/tables/{code}/join", {"name": "Kaiba"})["token"]
    url = f"{ws_base}/ws/table/{code}"
    async with connect(url) as wa, connect(url) as wb:
        a, b = Seat(wa, client_schema), Seat(wb, client_schema)
        await a.hello(token_a)
        await b.hello(token_b)
        assert a.state["phase"] == "registration"
        deck = {"main": 40, "extra": 15, "side": 15}
        await a.do("deck.declare", deck)
        await b.until(await b.do("deck.declare", deck))
        await a.until(b.seq)
        await a.do("deck.confirm", {"seat": "B"})
        await b.until(await b.do("deck.confirm", {"seat": "A"}))
        checklist = {"items": ["handshake", "side_shown", "shuffled", "cut"]}
        for duel, chooser in ((1, None), (2, b)):
            await a.until(b.seq)
            assert a.state["phase"] == "pregame" and a.state["duel_no"] == duel
            await a.do("pregame.check", checklist)
            await b.do("pregame.check", checklist)
            if chooser is None:  # the first duel: rock-paper-scissors decides who chooses
                await a.do("rps.pick", {"hand": "rock"})
                await b.until(await b.do("rps.pick", {"hand": "scissors"}))
                chooser = a
            await chooser.until(max(a.seq, b.seq))
            await chooser.do("duel.choose", {"order": "first"})
            await a.until(chooser.seq)
            await b.until(chooser.seq)
            await a.do("duel.draw")
            await a.until(await b.do("duel.draw"))
            assert a.state["phase"] == "duel" and a.state["lp"] == {"A": 8000, "B": 8000}
            # Seat A proposes 8000 damage to B; B confirms the pending entry by its number.
            await b.until(await a.do("lp.propose", {"seat": "B", "delta": -8000}))
            [entry] = b.state["pending"]
            await a.until(await b.do("lp.confirm", {"entry": entry["entry"]}))
            assert a.state["phase"] == "duel_result" and a.state["result"]["winner"] == "A"
            await a.do("result.confirm", {"duel": duel})
            await a.until(await b.do("result.confirm", {"duel": duel}))
            if duel == 1:
                assert a.state["phase"] == "between"
                await a.do("deck.check", {"ok": True})
                await b.until(await b.do("deck.check", {"ok": True}))
                await b.until(await a.do("between.ready"))
                await b.do("between.ready")
        assert a.state["phase"] == "match_result" and a.state["match"]["winner"] == "A"
        await b.until(await a.do("match.confirm"))
        await a.until(await b.do("match.confirm"))
        assert a.state["phase"] == "match_over" and a.state["wins"] == {"A": 2, "B": 0}
        assert a.state["may_send"] == b.state["may_send"]  # only a new match, a coin, a call
        return a.state


def test_the_docs_example_session_plays_a_match(live_server):
    final = asyncio.run(play(live_server, live_server.ws_url))
    assert final["match"]["confirmed"] == {"A": True, "B": True}
    assert "match.new" in final["may_send"]
