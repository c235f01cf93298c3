"""Protocol 2: updates carry what changed, not the whole state; a client without "v" gets
whole states as before; protocol 3: a sender's own update rides in its command's reply."""

from __future__ import annotations

import asyncio
import json
import statistics
from typing import Any

from websockets.asyncio.client import connect
from ws_helpers import DECK, Phone, new_table

from clients.wire import apply_update, unfold

ITEMS = ["handshake", "side_shown", "shuffled", "cut"]
PER_DUEL = 30


apply = apply_update


async def play(a: Phone, b: Phone) -> None:
    """Three duels of `PER_DUEL` confirmed entries each: A, B, A win."""
    seat = {"A": a, "B": b}
    await a.ok("deck.declare", DECK)
    await b.ok("deck.declare", DECK)
    await a.ok("deck.confirm", {"seat": "B"})
    await b.ok("deck.confirm", {"seat": "A"})
    for duel, (winner, chooser) in enumerate([("A", "A"), ("B", "B"), ("A", "A")]):
        loser = "B" if winner == "A" else "A"
        await a.ok("pregame.check", {"items": ITEMS})
        await b.ok("pregame.check", {"items": ITEMS})
        if duel == 0:
            await a.ok("rps.pick", {"hand": "rock"})
            await b.ok("rps.pick", {"hand": "scissors"})
        else:
            chooser = {1: "B", 2: "A"}[duel]
        await seat[chooser].ok("duel.choose", {"order": "first"})
        await a.ok("duel.draw")
        await b.ok("duel.draw")
        for n in range(PER_DUEL):
            by = "AB"[n % 2]
            last = n == PER_DUEL - 1
            change = {"seat": loser, "kind": "damage", "amount": 8000} if last else None
            change = change or {"seat": by, "kind": "gain", "amount": 0}
            note = "" if last else f"Upstart Goblin {n}"
            reply = await seat[by].command("lp.propose", {"changes": [change], "note": note})
            assert reply["ok"], reply
            other = seat["B" if by == "A" else "A"]
            entry = (await other.until_seq(reply["seq"]))["events"][0]["data"]["entry"]
            await other.ok("lp.confirm", {"entry": entry})
            await asyncio.sleep(0.05)  # under the seat's rate limit
        await a.ok("result.confirm", {"duel": duel + 1})
        await b.ok("result.confirm", {"duel": duel + 1})
        if duel < 2:
            for p in (a, b):
                await p.ok("deck.check", {"ok": True})
            for p in (a, b):
                await p.ok("between.ready")


class Recorder(Phone):
    """A phone that keeps every text it is sent."""

    def __init__(self, ws: Any) -> None:
        super().__init__(ws)
        self.texts: list[str] = []

    async def next(self) -> dict:
        text = await asyncio.wait_for(self.ws.recv(), 10)
        self.texts.append(text)
        return json.loads(text)


async def watcher(url: str, hello: dict[str, Any], out: list[str]) -> None:
    """Keep every text this socket is sent until it closes."""
    async with connect(url) as ws:
        await ws.send(json.dumps(hello))
        async for text in ws:
            out.append(text)


def test_v2_updates_do_not_grow_with_the_ledger_and_v1_still_gets_whole_states(live_server):
    code, token_a, token_b = new_table(live_server)
    url = f"{live_server.ws_url}/ws/table/{code}"
    seen: dict[str, list[str]] = {"v1": [], "v2": []}
    resynced: dict[str, Any] = {}

    async def main() -> None:
        hellos = {"v1": {"type": "hello"}, "v2": {"type": "hello", "v": 2}}
        tasks = [asyncio.create_task(watcher(url, hellos[k], seen[k])) for k in seen]
        async with connect(url) as wa, connect(url) as wb:
            a, b = Recorder(wa), Recorder(wb)
            await a.send({"type": "hello", "token": token_a, "v": 3})
            assert (await a.expect("welcome"))["v"] == 3
            await b.hello(token_b)
            await play(a, b)
            await asyncio.sleep(1)
            await a.send({"type": "resync"})
            resynced.update(await a.expect("welcome"))
            seen["A"], seen["B"] = a.texts[:-1], b.texts
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)

    asyncio.run(main())
    finals = {}
    for name, texts in seen.items():
        state = None
        for message in (m for t in texts for m in unfold(json.loads(t))):
            if message["type"] in ("welcome", "update"):
                state = apply(state, message)
        finals[name] = state
    # Seat A speaks version 3: its own commands' updates came in their replies, never again.
    own = [json.loads(t) for t in seen["A"] if json.loads(t)["type"] == "reply"]
    assert len(own) > 3 * PER_DUEL and all(r["update"]["seq"] >= r["seq"] for r in own)
    others = {json.loads(t)["seq"] for t in seen["A"] if json.loads(t)["type"] == "update"}
    assert others and not others & {r["update"]["seq"] for r in own}
    assert len(finals["v1"]["ledger"]) == 3 * PER_DUEL
    assert finals["v1"]["wins"] == {"A": 2, "B": 1}
    assert finals["v2"] == finals["v1"]
    assert finals["A"] == resynced["state"]  # the deltas add up to the whole state
    assert finals["A"]["ledger"] == finals["B"]["ledger"] == finals["v1"]["ledger"]

    def update_sizes(name: str) -> list[int]:
        texts = [t for t in seen[name] if unfold(json.loads(t))[-1]["type"] == "update"]
        return [len(t.encode()) for t in texts]

    v1, v2 = update_sizes("v1"), update_sizes("v2")
    # Each socket's writer sends what is new since its last update, so a busy moment may fold two
    # seqs into one update on one watcher and not the other: the counts may differ by a few.
    assert min(len(v1), len(v2)) > 6 * PER_DUEL
    assert all("state" in json.loads(t) for t in seen["v1"])  # whole states, as before
    for name in ("v2", "A"):
        sizes = update_sizes(name)
        p95 = statistics.quantiles(sizes, n=20)[-1]
        assert p95 <= 2048, (name, p95, sizes)
        third = len(sizes) // 3
        # No growth with the ledger: the last duel's updates weigh what the first duel's did.
        early, late = statistics.median(sizes[:third]), statistics.median(sizes[-third:])
        assert late <= early * 1.25 + 64, (name, early, late)
    assert statistics.median(v1[-len(v1) // 3 :]) > 3 * statistics.median(v1[: len(v1) // 3])


class Sent:
    """A socket that keeps what it is sent."""

    def __init__(self) -> None:
        self.texts: list[str] = []

    def send(self, text: str) -> None:
        self.texts.append(text)


def test_v2_deltas_add_up_to_the_whole_state_at_every_seq_for_every_audience(store, monkeypatch):
    """Seat A, seat B, a spectator and a judge, each over protocols 1, 2 and 3 (its updates in
    replies, as though it had sent every command): after every command, the deltas applied so
    far give exactly that viewer's whole state."""
    import sheet_match

    from server.api.encoding import ViewTexts
    from server.api.encoding import encode_parts as _encode_parts
    from server.api.ws import Connection
    from server.rules import Actor, view
    from server.service.hub import LocalHub
    from server.service.tables import TableService

    audiences = {
        "A": Actor("seat", "A", "Yugi"),
        "B": Actor("seat", "B", "Kaiba"),
        "spectator": Actor(role="spectator"),
        "judge": Actor("judge", name="Pegasus"),
    }
    sockets: dict[tuple[str, int], Connection] = {}
    held: dict[tuple[str, int], Any] = {}
    views = ViewTexts()
    reads = TableService(store, LocalHub())  # what a socket reads the table through
    checked = {"seqs": 0, "ledger": 0, "delta_bytes": 0, "full_bytes": 0, "replies": 0}

    def connection(code: str, actor: Actor, version: int) -> Connection:
        conn = Connection.__new__(Connection)
        conn.code, conn.tables, conn.clock, conn.actor = code, reads, lambda: 0, actor
        conn.ws, conn.version, conn.last_seq, conn.welcomed = Sent(), version, 0, False
        conn.sent_parts, conn.sent_rows = {}, []
        conn.open_pass, conn._grant = (
            None,
            None,
        )  # no pass, no grant: never open again, act on nothing
        conn.views = views  # one app's encoded texts, shared by its sockets
        conn.write("welcome", None)
        return conn

    original = sheet_match.StoreTable.do

    def do(self, who, cmd, **args):
        events = original(self, who, cmd, **args)
        snap = store.snapshot(self.code)
        for name, actor in audiences.items():
            for version in (1, 2, 3):
                key = (name, version)
                if key not in sockets:
                    sockets[key] = connection(self.code, actor, version)
                    held[key] = json.loads(sockets[key].ws.texts[-1])["state"]
                    continue
                conn = sockets[key]
                before = len(conn.ws.texts)
                if version == 3:
                    # As though this socket had sent the command: its update rides in the
                    # reply, and the publish that follows finds nothing left to send.
                    conn.write("reply", {"type": "reply", "re": "x", "ok": True, "seq": snap.seq})
                    conn.write("sync", snap.seq)
                    assert len(conn.ws.texts) == before + 1, conn.ws.texts[before:]
                    reply = json.loads(conn.ws.texts[-1])
                    assert reply["type"] == "reply" and reply["update"]["seq"] == snap.seq
                    checked["replies"] += 1
                else:
                    conn.write("sync", snap.seq)
                for text in conn.ws.texts[before:]:
                    for message in unfold(json.loads(text)):
                        if message["type"] == "reply":
                            continue
                        assert ("delta" in message) == (version >= 2), message.keys()
                        held[key] = apply_update(held[key], message)
                        checked["delta_bytes" if version >= 2 else "full_bytes"] += len(text)
                whole = {**view(snap.state, actor.seat, privileged=name == "judge")}
                assert held[key] == json.loads(json.dumps({**whole, "seq": snap.seq})), key
                if version >= 2:
                    # Texts reused from earlier snapshots are those a fresh encoding gives.
                    fresh = {**whole, "seq": snap.seq}
                    del fresh["ledger"]
                    assert dict(conn.sent_parts) == dict(_encode_parts(fresh, {})), key
        checked["seqs"] += 1
        checked["ledger"] = len(snap.state.ledger)
        return events

    monkeypatch.setattr(sheet_match.StoreTable, "do", do)
    sheet_match.play_match(store, padding=25)
    assert checked["seqs"] > 150 and checked["ledger"] >= 90, checked
    assert checked["replies"] == 4 * (checked["seqs"] - 1), checked
    assert checked["delta_bytes"] * 4 < checked["full_bytes"], checked
    # The judge sees the deck lists and call reasons a seat does not; the views differ.
    assert held[("judge", 2)] != held[("spectator", 2)]


def test_a_view_s_texts_are_reused_only_for_values_equal_and_of_the_same_type():
    from server.api.encoding import encode_parts as _encode_parts

    before = _encode_parts({"lp": {"A": 8000}, "flag": 1, "list": [1, 2]}, {})
    after = _encode_parts({"lp": {"A": 8000}, "flag": True, "list": [1, 2, 3]}, before)
    assert after["lp"] is before["lp"]  # unchanged: not encoded again
    assert after["flag"] == '"flag":true'  # 1 == True, but not the same JSON
    assert after["list"] == '"list":[1,2,3]'
    assert dict(after) == dict(_encode_parts(dict(after.view), {}))
