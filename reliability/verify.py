"""After a run: compare what the clients were told with what the store holds.

For every table: each acknowledged command id is in the command table with the seq it was
answered with (else it is lost); each acknowledged command's event is in the log exactly once
(counted per event type and seat; an LP proposal also by the command id in its note); the
hash chain verifies; the state the server serves equals `server.rules.replay` of the log.
"""

from __future__ import annotations

import json
import os
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from server.service.tables import phone_command_id

from .http import retrying
from .proc import Backend

# The event each command of the harness writes once, with the commanding seat as its actor.
EVENT_OF = {
    "deck.declare": "deck.declared",
    "deck.confirm": "deck.confirmed",
    "pregame.check": "pregame.checked",
    "rps.report": "rps.reported",
    "rps.confirm": "rps.decided",
    "duel.choose": "duel.chosen",
    "duel.draw": "duel.drawn",
    "lp.propose": "lp.proposed",
    "lp.confirm": "lp.confirmed",
    "coin.toss": "roll.made",
    "die.roll": "roll.made",
    "turn.end": "turn.ended",
}


@dataclass
class TableCheck:
    code: str
    acknowledged: int = 0
    lost: int = 0
    duplicated: int = 0
    applied_unanswered: int = 0
    replay_equal: bool = False
    chain_ok: bool = False
    problems: list[str] = field(default_factory=list)


class StoreReader:
    """The server's own store, opened read-side from this process on the same data."""

    def __init__(self, backend: Backend) -> None:
        from server.store import EventStore, bind, db, open_database

        self._saved = os.environ.get("PGOPTIONS")
        env = backend.env()
        if "PGOPTIONS" in env:
            os.environ["PGOPTIONS"] = env["PGOPTIONS"]
        bind(open_database(backend.database_url, str(backend.data_dir)), create=False)
        self.db = db
        self.store = EventStore(db, cache_size=1)

    def commands(self, code: str) -> dict[str, int]:
        from server.store.models import CommandRow, TableRow

        with self.db.connection_context():
            rows = (
                CommandRow.select(CommandRow.cmd_id, CommandRow.seq)
                .join(TableRow)
                .where(TableRow.code == code)
            )
            return {r.cmd_id: r.seq for r in rows}

    def close(self) -> None:
        if self._saved is None:
            os.environ.pop("PGOPTIONS", None)
        else:
            os.environ["PGOPTIONS"] = self._saved
        self.db.close()


def replayed_view(log: list[dict[str, Any]], upto: int, seat: str | None = None) -> dict[str, Any]:
    """The view (public, or `seat`'s) of the state folded from the log's first `upto` events."""
    from server.rules import Event, replay, view

    events = [
        Event.from_dict({k: e[k] for k in ("type", "data", "at_ms", "actor")})
        for e in log
        if e["seq"] <= upto
    ]
    return json.loads(json.dumps({**view(replay(events), seat), "seq": upto}))


def check_table(base: str, reader: StoreReader, code: str, clients: list[Any]) -> TableCheck:
    check = TableCheck(code)
    _status, served = retrying(base, "GET", f"/api/tables/{code}")
    log = reader.store.log(code)
    check.replay_equal = replayed_view(log, served["seq"]) == served["state"]
    if not check.replay_equal:
        check.problems.append(f"{code}: served state differs from the replay of its log")
    for client in clients:
        # What each phone ended with (welcome, then updates, across every reconnect) is the
        # replay of the log up to the seq it holds.
        if client.state is None or replayed_view(log, client.seq, client.seat) != client.state:
            check.replay_equal = False
            check.problems.append(f"{code}: seat {client.seat}'s state at {client.seq} differs")
    verification = reader.store.verify(code)
    check.chain_ok = verification.ok
    if not verification.ok:
        check.problems.append(f"{code}: chain broken at {verification.seq}: {verification.problem}")

    stored = reader.commands(code)
    by_seq = {e["seq"]: e for e in log}
    expected: Counter[tuple[str, str]] = Counter()
    answered: set[str] = set()
    for client in clients:
        for out in client.outcomes.values():
            key = phone_command_id(out.id, out.seat)  # as the server stores a seat's command id
            answered.add(key)
            if not out.ok:
                if key in stored:
                    check.applied_unanswered += 1
                    check.problems.append(f"{code}: refused command {out.id} is in the log")
                continue
            check.acknowledged += 1
            expected[(EVENT_OF.get(out.cmd, "?"), out.seat)] += 1
            if key not in stored:
                check.lost += 1
                check.problems.append(f"{code}: acknowledged {out.cmd} {out.id} is not stored")
            elif stored[key] != out.seq:
                check.lost += 1
                check.problems.append(
                    f"{code}: {out.id} answered seq {out.seq}, stored {stored[key]}"
                )
            else:
                event = by_seq.get(out.seq)
                if event is None or (event.get("actor") or {}).get("seat") != out.seat:
                    check.lost += 1
                    check.problems.append(f"{code}: no event of {out.seat} at seq {out.seq}")
            if out.cmd == "lp.propose":
                note = out.args.get("note")
                found = sum(
                    1 for e in log if e["type"] == "lp.proposed" and e["data"].get("note") == note
                )
                if found != 1:
                    check.duplicated += max(0, found - 1)
                    check.lost += int(found == 0)
                    check.problems.append(f"{code}: proposal {note} appears {found} times")
    actual: Counter[tuple[str, str]] = Counter()
    for e in log:
        actor = e.get("actor") or {}
        if actor.get("role") == "seat" and e["type"] in EVENT_OF.values():
            actual[(e["type"], actor.get("seat"))] += 1
    for key in set(expected) | set(actual):
        if actual[key] > expected[key]:
            check.duplicated += actual[key] - expected[key]
            check.problems.append(f"{code}: {key} {actual[key]} in the log, {expected[key]} acked")
        elif actual[key] < expected[key]:
            check.lost += expected[key] - actual[key]
            check.problems.append(f"{code}: {key} {actual[key]} in the log, {expected[key]} acked")
    for cid in stored:
        if cid not in answered and not cid.startswith(("tick:", "round:")):
            check.applied_unanswered += 1
            check.problems.append(f"{code}: stored command {cid} was never answered")
    return check


def verify_tables(base: str, backend: Backend, tables: dict[str, Any]) -> list[TableCheck]:
    """Check every table the run drove."""
    reader = StoreReader(backend)
    try:
        return [check_table(base, reader, code, [t.a, t.b]) for code, t in tables.items()]
    finally:
        reader.close()
