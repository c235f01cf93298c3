"""The table websocket against a real server (gunicorn, gevent worker) and a real client."""

from __future__ import annotations

import asyncio
import contextlib
import json
import time
from typing import Any

import pytest
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed
from ws_helpers import DECK, WAIT, Phone, http, new_table, start_clock

from tests.tables import tables_of


class Table:
    def __init__(self, server: str) -> None:
        self.server = server
        self.code, self.token_a, self.token_b = new_table(server)
        self.url = f"{server.ws_url}/ws/table/{self.code}"  # type: ignore[attr-defined]

    def connect(self, **kwargs: Any):
        return connect(self.url, **kwargs)

    def state(self) -> dict:
        return http(self.server, "GET", f"/api/tables/{self.code}")[1]


async def to_duel(a: Phone, b: Phone) -> int:
    """Registration, checklist, rock-paper-scissors, choice and draw: A goes first."""
    await a.ok("deck.declare", DECK)
    await b.ok("deck.declare", DECK)
    await a.ok("deck.confirm", {"seat": "B"})
    await b.ok("deck.confirm", {"seat": "A"})
    items = ["handshake", "side_shown", "shuffled", "cut"]
    await a.ok("pregame.check", {"items": items})
    await b.ok("pregame.check", {"items": items})
    await a.ok("rps.pick", {"hand": "rock"})
    await b.ok("rps.pick", {"hand": "scissors"})
    await a.ok("duel.choose", {"order": "first"})
    await a.ok("duel.draw")
    return await b.ok("duel.draw")


def run(coro) -> Any:
    return asyncio.run(coro)


@pytest.fixture
def table(live_server) -> Table:
    return Table(live_server)


def test_two_seats_propose_and_confirm_and_both_see_it(table: Table):
    async def scenario() -> None:
        async with table.connect() as wa, table.connect() as wb:
            a, b = Phone(wa), Phone(wb)
            welcome = await a.hello(table.token_a)
            assert welcome["role"] == "seat" and welcome["seat"] == "A"
            assert welcome["seq"] == 3 and welcome["events"] == []
            assert welcome["state"]["seq"] == 3 and welcome["state"]["seats"]["B"]["joined"]
            assert abs(welcome["now_ms"]) > 0
            assert (await b.hello(table.token_b))["seat"] == "B"
            await to_duel(a, b)

            seq = await a.ok("lp.propose", {"seat": "B", "delta": -1200, "note": "battle"})
            for phone in (a, b):
                update = await phone.until_seq(seq)
                [event] = update["events"]
                assert event["type"] == "lp.proposed" and event["seq"] == seq
                assert event["actor"] == {"role": "seat", "seat": "A", "name": "Yugi"}
                assert update["state"]["pending"][0]["changes"] == [
                    {"seat": "B", "kind": "damage", "amount": 1200}
                ]
                assert update["state"]["lp"]["B"] == 8000
            entry = b.updates[-1]["state"]["pending"][0]["entry"]

            seq = await b.ok("lp.confirm", {"entry": entry})
            for phone in (a, b):
                update = await phone.until_seq(seq)
                assert update["state"]["lp"] == {"A": 8000, "B": 6800}
                assert update["state"]["pending"] == []
            # Updates arrive in order, without gaps.
            for phone in (a, b):
                seqs = [e["seq"] for u in phone.updates for e in u["events"]]
                assert seqs == list(range(seqs[0], seqs[0] + len(seqs)))

    run(scenario())
    assert table.state()["state"]["lp"]["B"] == 6800


def test_a_retried_command_is_applied_once(table: Table):
    async def scenario() -> None:
        async with table.connect() as wa:
            a = Phone(wa)
            await a.hello(table.token_a)
            first = await a.command("deck.declare", DECK, ref="same-id")
            assert first == {"type": "reply", "re": "same-id", "ok": True, "seq": 4}
        # A new socket (the phone came back online) sends the same command again.
        async with table.connect() as wa:
            a = Phone(wa)
            await a.hello(table.token_a, since=4)
            again = await a.command("deck.declare", DECK, ref="same-id")
            assert again == {
                "type": "reply",
                "re": "same-id",
                "ok": True,
                "seq": 4,
                "duplicate": True,
            }

    run(scenario())
    assert table.state()["seq"] == 4


def test_a_command_id_belongs_to_the_seat_that_sent_it(table: Table):
    """Seat B's die roll under the id seat A spent on a coin toss is B's own command: the die
    is rolled, not answered as A's duplicate (docs/protocol.md, "Command ids")."""

    async def scenario() -> None:
        async with table.connect() as wa, table.connect() as wb:
            a, b = Phone(wa), Phone(wb)
            await a.hello(table.token_a)
            await b.hello(table.token_b)
            tossed = await a.command("coin.toss", {}, ref="1")
            assert tossed["ok"] and not tossed.get("duplicate"), tossed
            rolled = await b.command("die.roll", {}, ref="1")
            assert rolled["ok"] and not rolled.get("duplicate"), rolled
            assert rolled["seq"] == tossed["seq"] + 1
            update = await b.until_seq(rolled["seq"])
            [event] = [e for e in update["events"] if e["seq"] == rolled["seq"]]
            assert event["type"] == "roll.made" and event["data"]["kind"] == "die"
            assert event["actor"]["seat"] == "B"

    run(scenario())


def test_the_same_id_with_another_command_is_refused_not_a_duplicate(table: Table):
    """A sender's id spent on one command and sent again with another command or other
    arguments is `id_reused` and writes nothing; the same content again is a retry."""

    async def scenario() -> None:
        async with table.connect() as wa:
            a = Phone(wa)
            await a.hello(table.token_a)
            first = await a.command("coin.toss", {}, ref="7")
            assert first["ok"], first
            for cmd, args in (("die.roll", {}), ("coin.toss", {"count": 2})):
                other = await a.command(cmd, args, ref="7")
                assert other["ok"] is False and other["error"]["code"] == "id_reused", other
            again = await a.command("coin.toss", {}, ref="7")
            assert again == {**first, "duplicate": True}

    run(scenario())
    assert table.state()["seq"] == 4


def test_resume_from_a_sequence_number_gets_exactly_the_missed_events(table: Table):
    async def scenario() -> None:
        async with table.connect() as wa:
            a = Phone(wa)
            await a.hello(table.token_a)
            await a.ok("deck.declare", DECK)
        async with table.connect() as wb:
            b = Phone(wb)
            await b.hello(table.token_b)
            await b.ok("deck.declare", DECK)
            await b.ok("deck.confirm", {"seat": "A"})
        async with table.connect() as wa:
            a = Phone(wa)
            welcome = await a.hello(table.token_a, since=4)
            assert [e["seq"] for e in welcome["events"]] == [5, 6]
            assert [e["type"] for e in welcome["events"]] == ["deck.declared", "deck.confirmed"]
            assert welcome["seq"] == 6 and welcome["state"]["decks"]["A"]["confirmed"]
            # Up to date, or with no `since`: the state alone.
            assert (await a.hello(table.token_a, since=6))["events"] == []
            assert (await a.hello(table.token_a))["events"] == []

    run(scenario())


def test_a_spectator_watches_but_cannot_write(table: Table):
    async def scenario() -> None:
        async with table.connect() as ws, table.connect() as wa:
            spectator, a = Phone(ws), Phone(wa)
            welcome = await spectator.hello()
            assert welcome["role"] == "spectator" and welcome["seat"] is None
            reply = await spectator.command("deck.declare", DECK)
            assert reply["ok"] is False and reply["error"]["code"] == "forbidden"
            await a.hello(table.token_a)
            seq = await a.ok("deck.declare", DECK)
            assert (await spectator.until_seq(seq))["events"][0]["type"] == "deck.declared"

    run(scenario())
    assert table.state()["seq"] == 4


def test_the_opponents_secret_pick_is_hidden(table: Table):
    async def scenario() -> None:
        async with table.connect() as wa, table.connect() as wb:
            a, b = Phone(wa), Phone(wb)
            await a.hello(table.token_a)
            await b.hello(table.token_b)
            await a.ok("deck.declare", DECK)
            await b.ok("deck.declare", DECK)
            await a.ok("deck.confirm", {"seat": "B"})
            await b.ok("deck.confirm", {"seat": "A"})
            seq = await a.ok("rps.pick", {"hand": "paper"})
            seen_by_b = (await b.until_seq(seq))["events"][-1]
            seen_by_a = (await a.until_seq(seq))["events"][-1]
            assert seen_by_b["type"] == "rps.picked" and seen_by_b["data"]["hand"] is None
            assert seen_by_a["data"]["hand"] == "paper"

    run(scenario())


def test_ping_gets_the_server_time(table: Table):
    async def scenario() -> None:
        async with table.connect() as ws:
            phone = Phone(ws)
            await phone.send({"type": "ping", "t": 123})
            pong = await phone.next()
            assert pong["type"] == "pong" and pong["t"] == 123 and pong["now_ms"] > 0

    run(scenario())


BAD_MESSAGES = [
    ("{not json", "bad_json"),
    ("[1, 2]", "bad_json"),
    ('"hello"', "bad_json"),
    ('{"type": "subscribe"}', "unknown_type"),
    ("{}", "unknown_type"),
    ('{"type": "ping"}', "invalid"),
    ('{"type": "ping", "t": "soon"}', "invalid"),
    ('{"type": "hello", "since": -1}', "invalid"),
    ('{"type": "command", "cmd": "deck.declare"}', "invalid"),
    # A lone surrogate decodes but can be neither stored nor sent back.
    ('{"type": "ping", "t": 1, "x": "\\ud800"}', "bad_json"),
    (
        '{"type": "command", "id": "c1", "cmd": "judge.call", "args": {"reason": "\\udfff"}}',
        "bad_json",
    ),
]


@pytest.mark.parametrize(("raw", "code"), BAD_MESSAGES)
def test_malformed_messages_get_a_coded_error_and_change_nothing(table: Table, raw, code):
    async def scenario() -> None:
        async with table.connect() as ws:
            phone = Phone(ws)
            await phone.hello(table.token_a)
            await phone.send(raw)
            error = await phone.next()
            assert error["type"] == "error" and error["error"]["code"] == code
            # The socket still works.
            await phone.send({"type": "ping", "t": 1})
            assert (await phone.next())["type"] == "pong"

    run(scenario())
    assert table.state()["seq"] == 3


BAD_COMMANDS = [
    ("deck.shuffle", {}, "unknown_command"),
    ("tick", {}, "forbidden"),
    ("seat.join", {"seat": "A", "name": "X", "player_id": ""}, "forbidden"),
    ("clock.pause", {}, "forbidden"),
    ("deck.declare", {"main": 40}, "invalid"),
    ("deck.declare", {**DECK, "main": "40"}, "invalid"),
    ("deck.declare", {**DECK, "main": 2_000_000}, "invalid"),
    ("deck.declare", {**DECK, "mainn": 40}, "invalid"),
    ("deck.declare", {**DECK, "main": 39}, "deck_size"),
    ("lp.propose", {"seat": "B", "delta": -100}, "wrong_phase"),
    ("counter.change", {"name": "x" * 41, "delta": 1}, "invalid"),
]


@pytest.mark.parametrize(("cmd", "args", "code"), BAD_COMMANDS)
def test_refused_commands_reply_with_a_code_and_change_nothing(table: Table, cmd, args, code):
    async def scenario() -> None:
        async with table.connect() as ws:
            phone = Phone(ws)
            await phone.hello(table.token_a)
            reply = await phone.command(cmd, args)
            assert reply["ok"] is False and reply["error"]["code"] == code, reply
            assert set(reply["error"]) == {"code", "message", "details"}

    run(scenario())
    assert table.state()["seq"] == 3


def test_a_command_before_hello_is_refused(table: Table):
    async def scenario() -> None:
        async with table.connect() as ws:
            reply = await Phone(ws).command("deck.declare", DECK)
            assert reply["ok"] is False and reply["error"]["code"] == "hello_first"

    run(scenario())
    assert table.state()["seq"] == 3


def test_a_forged_token_is_refused_and_the_socket_closed(table: Table):
    async def scenario() -> None:
        async with table.connect() as ws:
            phone = Phone(ws)
            await phone.send({"type": "hello", "token": "forged-token"})
            error = await phone.next()
            assert error == {
                "type": "error",
                "error": {"code": "bad_token", "message": "Unknown token.", "details": {}},
            }
            with pytest.raises(ConnectionClosed):
                await asyncio.wait_for(ws.recv(), WAIT)
            assert ws.close_code == 4001

    run(scenario())
    assert table.state()["seq"] == 3


def test_a_token_of_another_table_is_refused(live_server, table: Table):
    _, other_token, _ = new_table(live_server)

    async def scenario() -> None:
        async with table.connect() as ws:
            await ws.send(json.dumps({"type": "hello", "token": other_token}))
            assert json.loads(await ws.recv())["error"]["code"] == "bad_token"

    run(scenario())


def test_a_foreign_origin_is_refused(table: Table):
    async def scenario() -> None:
        async with table.connect(origin="https://evil.example") as ws:
            error = json.loads(await asyncio.wait_for(ws.recv(), WAIT))
            assert error["type"] == "error" and error["error"]["code"] == "bad_origin"
            with pytest.raises(ConnectionClosed):
                await asyncio.wait_for(ws.recv(), WAIT)
            assert ws.close_code == 1008

    run(scenario())


def test_the_servers_own_origin_is_accepted(live_server, table: Table):
    async def scenario() -> None:
        async with table.connect(origin=live_server) as ws:
            assert (await Phone(ws).hello())["role"] == "spectator"

    run(scenario())


def test_an_oversized_message_closes_the_socket(table: Table):
    async def scenario() -> None:
        async with table.connect() as ws:
            phone = Phone(ws)
            await phone.hello(table.token_a)
            big = {"type": "command", "id": "big", "cmd": "judge.call", "args": {}}
            big["args"]["reason"] = "x" * 9000
            await phone.send(big)
            with pytest.raises(ConnectionClosed):
                while True:
                    await asyncio.wait_for(ws.recv(), WAIT)
            assert ws.close_code == 1009

    run(scenario())
    assert table.state()["seq"] == 3


def test_an_unknown_table_closes_the_socket(live_server):
    async def scenario() -> None:
        async with connect(f"{live_server.ws_url}/ws/table/ZZZZZZ") as ws:
            error = json.loads(await asyncio.wait_for(ws.recv(), WAIT))
            assert error["error"]["code"] == "no_such_table"

    run(scenario())


def test_too_many_messages_are_rate_limited(table: Table):
    async def scenario() -> None:
        async with table.connect() as ws:
            phone = Phone(ws)
            for t in range(60):
                await phone.send({"type": "ping", "t": t})
            answers = [await phone.next() for _ in range(60)]
            limited = [m for m in answers if m["type"] == "error"]
            assert limited and all(m["error"]["code"] == "rate_limited" for m in limited)
            assert sum(m["type"] == "pong" for m in answers) >= 40

    run(scenario())


def test_compression_is_declined(table: Table):
    async def scenario() -> None:
        async with table.connect() as ws:  # the client offers permessage-deflate by default
            assert ws.response.headers.get("Sec-WebSocket-Extensions") is None

    run(scenario())


@pytest.mark.slow
def test_opening_sockets_counts_against_the_address_limit(tmp_path, database_url):
    from clients.testing import isolated_database, start_server, stop_server

    url = isolated_database(database_url, "rate_limited")
    env = {"HTTP_RATE_PER_MINUTE": "1", "HTTP_RATE_BURST": "3"}
    server, process = start_server(tmp_path, url, env)
    try:
        status, created = http(server, "POST", "/api/tables", {})
        assert status == 201

        async def scenario() -> list[str]:
            codes = []
            for _ in range(3):
                async with connect(f"{server.ws_url}/ws/table/{created['code']}") as ws:
                    with contextlib.suppress(ConnectionClosed):  # a refused one is closing
                        await ws.send(json.dumps({"type": "hello"}))
                    codes.append(json.loads(await asyncio.wait_for(ws.recv(), WAIT))["type"])
            return codes

        assert run(scenario())[:2] == ["welcome", "welcome"]
        assert run(scenario()) == ["error", "error", "error"]
    finally:
        stop_server(process)


def test_the_encoded_state_is_the_viewers_view_and_reuses_an_unchanged_ledger(store):
    """Each audience's text is `view(...)` plus "seq", though the shared part is encoded once
    per snapshot and the ledger once per change of it."""
    from server.api.arguments import load_args
    from server.api.encoding import ViewTexts
    from server.rules import Actor, get_ruleset, view

    views = ViewTexts()
    _ledger_rows, _state_text = views.ledger_rows, views.state_text

    def send(seat, cmd, args, ref, at_ms):
        loaded = load_args(cmd, args)
        return tables_of(store).append(code, cmd, loaded, actor[seat], ref, at_ms)

    code = tables_of(store).create_table(get_ruleset(), 1_000)
    for s in "AB":
        tables_of(store).join(code, s, f"Player <{s}>", "", 1_000)
    actor = {s: Actor("seat", s, s) for s in "AB"}
    checks = {"items": ["handshake", "side_shown", "shuffled", "cut"]}
    setup = [
        ("A", "deck.declare", DECK), ("B", "deck.declare", DECK),
        ("A", "deck.confirm", {"seat": "B"}), ("B", "deck.confirm", {"seat": "A"}),
        ("A", "pregame.check", checks), ("B", "pregame.check", checks),
        ("A", "rps.report", {"winner": "A"}), ("B", "rps.confirm", {}),
        ("A", "duel.choose", {"order": "first"}), ("A", "duel.draw", {}), ("B", "duel.draw", {}),
    ]  # fmt: skip
    for n, (s, cmd, args) in enumerate(setup):
        send(s, cmd, args, f"s{n}", 2_000)
    proposed = send("A", "lp.propose", {"seat": "B", "delta": -500}, "p", 3_000)
    send("B", "lp.confirm", {"entry": proposed.events[0]["data"]["entry"]}, "c", 4_000)
    before = store.snapshot(code)
    texts = {(s, p): _state_text(before, s, p, {}) for s in ("A", "B", None) for p in (False, True)}
    send("A", "coin.toss", {"count": 1}, "t", 5_000)
    after = store.snapshot(code)
    assert after.state.ledger is before.state.ledger
    kept = _ledger_rows(before)
    for (s, p), text in texts.items():
        assert json.loads(text) == {**view(before.state, s, privileged=p), "seq": before.seq}
        again = json.loads(_state_text(after, s, p, {}))
        assert again == {**view(after.state, s, privileged=p), "seq": after.seq}
        assert len(again["ledger"]) == 1 and len(again["rolls"]) == 1
    assert _ledger_rows(after) is kept  # not encoded again


def test_encode_is_compact_json_with_non_ascii_kept():
    from server.api.encoding import encode

    message = {"a": [1, 2.5, None, True, -0.0], "名": '「ライフ」 "q" \\ \n é', "n": {"x": []}}
    assert encode(message) == json.dumps(message, separators=(",", ":"), ensure_ascii=False)
    assert json.loads(encode(message)) == message


def test_r5_5_a_turn_with_an_entry_pending_cannot_end_over_the_socket(live_server):
    """R5.5 with two real sockets: A 8000, B 7500, time runs out; in the 3rd extra turn B
    proposes 1000 damage to A and ends the turn: refused (entries_pending), nothing written;
    once A confirms, the turn ends and B wins 7500 to 7000."""
    _, created = http(live_server, "POST", "/api/tables", {"match_minutes": 0.05})
    code = created["code"]
    _, joined_a = http(live_server, "POST", f"/api/tables/{code}/join", {"name": "Yugi"})
    _, joined_b = http(live_server, "POST", f"/api/tables/{code}/join", {"name": "Kaiba"})
    url = f"{live_server.ws_url}/ws/table/{code}"

    async def scenario() -> None:
        async with connect(url) as wa, connect(url) as wb:
            a, b = Phone(wa), Phone(wb)
            await a.hello(joined_a["token"])
            await b.hello(joined_b["token"])
            phones = {"A": a, "B": b}
            await to_duel(a, b)
            seq = await a.ok("lp.propose", {"seat": "B", "delta": -500})
            entry = (await b.until_seq(seq))["state"]["pending"][0]["entry"]
            seq = await b.ok("lp.confirm", {"entry": entry})
            assert (await b.until_seq(seq))["state"]["lp"] == {"A": 8000, "B": 7500}
            # The clock started with the duel (R4.1); the server's timer calls time 3 s later.
            deadline = asyncio.get_running_loop().time() + 30
            update = a.updates[-1]
            while not update["state"]["time"]["called"]:
                update = await a.expect("update")
                assert asyncio.get_running_loop().time() < deadline
            assert update["state"]["time"]["stage"] == "finish_turn"
            for _ in range(3):  # A's turn 1, then extra turns 1 (B) and 2 (A)
                player = a.updates[-1]["state"]["turn"]
                phone = phones[player["player"]]
                seq = await phone.ok("turn.end", {"turn": player["no"]})
                await a.until_seq(seq)
            state = a.updates[-1]["state"]
            assert state["time"]["extra_turn"] == 3 and state["turn"]["player"] == "B"
            turn = state["turn"]["no"]

            seq = await b.ok("lp.propose", {"seat": "A", "delta": -1000})
            pending = (await a.until_seq(seq))["state"]["pending"]
            before = table_seq = seq
            refused = await b.command("turn.end", {"turn": turn})
            assert refused["ok"] is False and refused["error"]["code"] == "entries_pending"
            assert refused["error"]["details"]["entries"] == [pending[0]["entry"]]
            assert http(live_server, "GET", f"/api/tables/{code}")[1]["seq"] == table_seq

            seq = await a.ok("lp.confirm", {"entry": pending[0]["entry"]})
            assert seq == before + 2  # lp.confirmed, lp.applied
            seq = await b.ok("turn.end", {"turn": turn})
            for phone in (a, b):
                state = (await phone.until_seq(seq))["state"]
                assert state["phase"] == "duel_result"
                assert state["result"]["winner"] == "B" and state["result"]["reason"] == "time_lp"
                assert state["lp"] == {"A": 7000, "B": 7500}
                assert state["time"]["stage"] is None

    run(scenario())


def test_the_edge_keeps_its_encoded_texts_beside_the_snapshots_not_in_them(store):
    """The store's snapshots carry no texts of the edge; the edge's per-snapshot texts are
    shared by every socket sent the same snapshot and dropped with it."""
    import dataclasses
    import gc

    from server.api.encoding import ViewTexts
    from server.rules import get_ruleset
    from server.store import Snapshot

    views = ViewTexts()  # an app's own (`Services.views`): no texts kept in module globals

    assert {f.name for f in dataclasses.fields(Snapshot)} == {
        "seq", "state", "last_hash", "recent", "table_id",
    }  # fmt: skip
    code = tables_of(store).create_table(get_ruleset(), 1_000)
    snap = store.snapshot(code)
    first = views.state_text(snap, None, False, {})
    shared = views.encoded(snap)["parts"]  # the viewer-independent keys, encoded once
    views.state_text(snap, "A", False, {})  # another audience: its own keys only
    assert views.encoded(snap)["parts"] is shared
    assert views.state_text(snap, None, False, {}) == first
    key = id(snap)
    assert views.kept(key)
    store._cache.clear()
    del snap
    gc.collect()
    assert not views.kept(key)


def test_r1_4_r7_1_a_rejected_entry_holds_the_later_one_over_the_socket(table: Table):
    """Two real sockets at a casual table: A proposes 8000 to B, B proposes 8000 to A and A
    confirms it, then B rejects A's entry. Both phones see neither LP move and B's entry
    confirmed but waiting; A's turn cannot end (`entries_pending`, `first` naming A's entry)
    and nothing is written; when A withdraws the rejected entry, B's applies and B wins."""

    async def scenario() -> None:
        async with table.connect() as wa, table.connect() as wb:
            a, b = Phone(wa), Phone(wb)
            await a.hello(table.token_a)
            await b.hello(table.token_b)
            await to_duel(a, b)
            seq = await a.ok("lp.propose", {"seat": "B", "delta": -8000})
            first = (await b.until_seq(seq))["state"]["pending"][0]["entry"]
            seq = await b.ok("lp.propose", {"seat": "A", "delta": -8000})
            later = (await a.until_seq(seq))["state"]["pending"][1]["entry"]
            await a.ok("lp.confirm", {"entry": later})
            seq = await b.ok("lp.reject", {"entry": first, "reason": "negated"})
            for phone in (a, b):
                state = (await phone.until_seq(seq))["state"]
                assert state["phase"] == "duel" and state["lp"] == {"A": 8000, "B": 8000}
                assert [(p["entry"], p["confirmed"]) for p in state["pending"]] == [(later, True)]
                assert [(d["entry"], d["status"]) for d in state["disputes"]] == [(first, "open")]
            refused = await a.command("turn.end", {"turn": 1})
            assert refused["ok"] is False and refused["error"]["code"] == "entries_pending"
            details = refused["error"]["details"]
            assert (details["first"], details["disputes"]) == (first, [first])
            assert table.state()["seq"] == seq

            seq = await a.ok("dispute.withdraw", {"entry": first})
            for phone in (a, b):
                state = (await phone.until_seq(seq))["state"]
                assert state["lp"] == {"A": 0, "B": 8000}
                assert state["phase"] == "duel_result" and state["result"]["winner"] == "B"

    run(scenario())


def test_every_declared_pre_step_is_one_the_edge_has():
    """A declaration names its pre-steps (server/rules/); each is a function of
    server/api/presteps.py, run before the rules decide."""
    from server.api.presteps import PRESTEPS
    from server.rules import DECLARATIONS

    named = {name for d in DECLARATIONS.values() for name in d.pre}
    assert named and named <= set(PRESTEPS)
    assert set(PRESTEPS) <= named  # none left without its command
    assert DECLARATIONS["banlist.set"].pre == ("banlist.entries",)


def test_the_views_texts_are_the_apps_and_emptied_with_it(app):
    """The encoded views belong to the app's services (no module globals), closed with them."""
    from server.api.context import Services
    from server.rules import get_ruleset

    found: Services = app.extensions["duel_table"]
    code = found.tables.create_table(get_ruleset(), 1)
    snap = found.tables.store.snapshot(code)
    found.views.state_text(snap, None, False, {})
    assert snap in found.views
    found.views.close()
    assert snap not in found.views


def test_r5_a_phone_cannot_spend_the_id_of_the_servers_own_deadline(live_server):
    """The timer writes a deadline as the command `tick:<deadline>`, and a repeated command id
    writes nothing. The deadline is public (`next_due_ms`): a seat that sends a command under
    that id, or a round's, must not stop time being called (R5.1)."""
    status, created = http(live_server, "POST", "/api/tables", {"match_minutes": 0.05})
    assert status == 201, created
    code = created["code"]
    tokens = [http(live_server, "POST", f"/api/tables/{code}/join", {"name": n})[1]["token"]
              for n in ("Yugi", "Kaiba")]  # fmt: skip
    url = f"{live_server.ws_url}/ws/table/{code}"

    async def scenario() -> None:
        async with connect(url) as wa, connect(url) as wb:
            a, b = Phone(wa), Phone(wb)
            await a.hello(tokens[0])
            await b.hello(tokens[1])
            await start_clock(a, b)
            due = http(live_server, "GET", f"/api/tables/{code}")[1]["state"]["next_due_ms"]
            assert isinstance(due, int)
            for ref in (f"tick:{due}", "round:1:start", "round:1:end"):
                reply = await a.command("coin.toss", {}, ref=ref)
                assert reply["ok"] and not reply.get("duplicate"), reply
            # The same id again is still the phone's own duplicate, answered as such.
            again = await a.command("coin.toss", {}, ref=f"tick:{due}")
            assert again["ok"] and again.get("duplicate") is True, again

    asyncio.run(scenario())
    deadline = time.monotonic() + 10
    called = False
    while not called and time.monotonic() < deadline:
        called = http(live_server, "GET", f"/api/tables/{code}")[1]["state"]["time"]["called"]
        time.sleep(0.1)
    assert called, "time was never called"
