"""The table socket's schema, generated from the declarations and served at a stable URL
(docs/protocol.md, "The schema"); tests/conftest.py checks every message of the socket tests
against it."""

from __future__ import annotations

import asyncio
import json
import re
from pathlib import Path

import jsonschema_rs
from flask.testing import FlaskClient
from websockets.asyncio.client import connect
from ws_helpers import Phone, http, new_table

import server.rules as rules
from clients.testing import SCHEMA_CHECK
from clients.wire import PROTOCOL
from server.rules import DECLARATIONS, EVENTS
from server.rules.base import HANDLERS
from server.rules.table import replay
from server.rules.view import VIEW_FIELDS, view
from tests import twokey_script

REPLAY = Path(__file__).resolve().parent / "data" / "replay_match.json"


def served(client: FlaskClient) -> dict:
    answer = client.get("/api/protocol/schema.json")
    assert answer.status_code == 200
    return answer.get_json()


def test_every_event_and_command_is_in_the_served_schema(client: FlaskClient):
    document = served(client)
    defs = document["$defs"]
    assert set(HANDLERS) == set(EVENTS)  # every event declared beside its handler
    assert {k[len("event.") :] for k in defs if k.startswith("event.")} == set(EVENTS)
    from_clients = {n for n, d in DECLARATIONS.items() if d.from_clients}
    assert {k[len("args.") :] for k in defs if k.startswith("args.")} == from_clients
    # the newest version served is the one the app's phones and the Python clients speak
    assert document["version"] == 3 == PROTOCOL
    phone = (Path(__file__).parent.parent / "web" / "js" / "conn.js").read_text()
    assert re.search(r"^export const PROTOCOL = (\d+);$", phone, re.M)[1] == "3"
    jsonschema_rs.meta.validate(document)


def test_the_schema_refuses_what_the_declarations_do_not_say(client: FlaskClient):
    validator = jsonschema_rs.validator_for(
        {**served(client), "oneOf": [{"$ref": "#/$defs/server"}]}
    )
    state = {**view(replay([])), "seq": 0}
    assert set(state) - {"seq", "ledger"} == set(VIEW_FIELDS)
    envelope = {
        "seq": 9, "type": "lp.confirmed", "data": {"entry": 1, "by": "B"},
        "actor": {"role": "seat", "seat": "B", "name": "Kaiba"}, "at_ms": 1,
    }  # fmt: skip
    update = {"type": "update", "seq": 9, "events": [envelope], "state": state}
    assert validator.is_valid(update)
    bogus = {**envelope, "data": {**envelope["data"], "bogus": 1}}  # an undeclared field
    assert not validator.is_valid({**update, "events": [bogus]})
    assert not validator.is_valid({**update, "events": [{**envelope, "type": "lp.nothing"}]})
    assert not validator.is_valid({**update, "state": {**state, "extra_key": 1}})
    assert not validator.is_valid({"type": "reply", "re": "1", "ok": True})  # no seq


def test_a_commands_arguments_in_the_schema(client: FlaskClient):
    validator = jsonschema_rs.validator_for(
        {**served(client), "oneOf": [{"$ref": "#/$defs/client"}]}
    )
    command = {"type": "command", "id": "1", "cmd": "lp.propose"}
    assert validator.is_valid({**command, "args": {"seat": "B", "delta": -1200}})
    assert not validator.is_valid({**command, "args": {"seat": "C", "delta": -1200}})
    assert not validator.is_valid({**command, "args": {"seat": "B", "delta": -1, "seq": 3}})
    assert not validator.is_valid({**command, "cmd": "no.such"})


def test_the_socket_tests_check_what_the_server_sends(live_server):
    """The hook of tests/conftest.py sees this test's messages and accepts them."""
    code, token_a, _ = new_table(live_server)
    before = SCHEMA_CHECK.checked

    async def scenario() -> None:
        async with connect(f"{live_server.ws_url}/ws/table/{code}") as ws:
            a = Phone(ws)
            welcome = await a.hello(token_a)
            assert welcome["v"] == 1
            await a.send({"type": "hello", "token": token_a, "v": 4})
            assert (await a.expect("welcome"))["v"] == 3  # the newest it speaks, said
            reply = await a.command("coin.toss")
            # version 3: the sender's own update rides in its reply, and comes no other way
            assert reply["ok"] and reply["update"]["seq"] == reply["seq"], reply
            assert "delta" in reply["update"] and "state" not in reply["update"]
            await a.send({"type": "ping", "t": 5})
            assert (await a.next())["type"] == "pong"

    asyncio.run(scenario())
    assert SCHEMA_CHECK.checked - before >= 4
    assert http(live_server, "GET", "/api/protocol/schema.json")[0] == 200
    assert json.dumps(SCHEMA_CHECK.refused) == "[]"


def test_every_event_of_the_recorded_matches_fits_its_declaration(client: FlaskClient):
    """The recorded match of tests/test_replay.py (judges' rulings, penalties, time called, seat
    moves) and the two-key scripts: every event, as the store keeps it, fits the schema."""
    document = served(client)
    envelope = jsonschema_rs.validator_for({**document, "oneOf": [{"$ref": "#/$defs/envelope"}]})
    recorded = json.loads(REPLAY.read_text(encoding="utf-8"))["events"]
    logs = [recorded] + [
        [
            {**e.to_dict(), "seq": i}
            for i, e in enumerate(twokey_script.play(rules, name, False)[1], 1)
        ]
        for name in sorted(twokey_script.SCRIPTS)
    ]
    seen = set()
    for log in logs:
        for event in log:
            kept = {k: event[k] for k in ("seq", "type", "data", "actor", "at_ms")}
            errors = [e.message for e in envelope.iter_errors(kept)]
            assert errors == [], (event["type"], errors)
            seen.add(event["type"])
    assert len(seen) > 40


def test_every_view_along_the_recorded_matches_fits_the_state_schema(client: FlaskClient):
    """Each viewer's view (both seats, a spectator, a judge) at every state of the recorded
    match and the two-key scripts fits `#/$defs/state`."""
    document = served(client)
    state = jsonschema_rs.validator_for({**document, "oneOf": [{"$ref": "#/$defs/state"}]})
    logs = [[rules.Event.from_dict(e) for e in json.loads(REPLAY.read_text())["events"]]]
    logs += [twokey_script.play(rules, n, False)[1] for n in sorted(twokey_script.SCRIPTS)]
    checked = 0
    for log in logs:
        s = rules.EMPTY
        for seq, event in enumerate(log, 1):
            s = rules.apply(s, event)
            for seat, privileged in ((None, False), ("A", False), ("B", False), (None, True)):
                shown = json.loads(json.dumps({**view(s, seat, privileged), "seq": seq}))
                errors = [f"{e.message} at {e.instance_path}" for e in state.iter_errors(shown)]
                assert errors == [], (event.type, seat, errors[:3])
                checked += 1
    assert checked > 1000
