"""A recorded match replays to the same log and the same views.

`tests/data/replay_match.json` was recorded from the scripted match of `tests/sheet_match.py`
(three duels, time called with extra turns, penalties, a clock extension, rolls, a rejected
entry and a judge's rulings), followed by a seat request granted (a seat move), another refused,
and a seat released: every event the store wrote (without its hashes) and, after every
command, a digest of the table's four views (each seat's, a spectator's, a judge's) built from
the state the store then held in memory. The same script played again must write the same
events and give the same views, command by command; and the state held in memory must be the
one a replay of the stored log gives.

Randomness is fixed: the die and the coin (`randbelow`), the table's code (`secrets.choice`),
the salts and request refs (`secrets.token_hex`). Record again (only for a change meant to
change the log or the views) with `python -m tests.test_replay`. Last recorded when a player's
ID left the other viewers' views (docs/security.md): before recording, the new views put back
in the old shape (every ID shown to all, keys in their old places) gave every digest and the
final views of the earlier recording exactly, and the events were unchanged. Recorded again when
each seat's view gained `may_send` (`server.rules.now`): the new views without that key gave
every digest and the final views of the earlier recording exactly; the events were unchanged."""

from __future__ import annotations

import hashlib
import json
import random
import secrets
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from server.rules import replay
from server.rules.view import view
from server.store import EventStore, bind, db, open_database
from server.store.events import _event_of
from tests import sheet_match

DATA = Path(__file__).resolve().parent / "data" / "replay_match.json"


def digest(value: Any) -> str:
    text = json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def views(state: Any) -> dict[str, Any]:
    return {
        "A": view(state, "A"),
        "B": view(state, "B"),
        "spectator": view(state, None),
        "judge": view(state, None, privileged=True),
    }


@contextmanager
def fixed_randomness() -> Iterator[random.Random]:
    rng = random.Random(30)
    counter = iter(range(1, 10**6))
    saved = secrets.choice, secrets.token_hex
    secrets.choice = rng.choice  # type: ignore[assignment]
    secrets.token_hex = lambda n=16: f"{next(counter):0{2 * (n or 16)}x}"  # type: ignore[assignment]
    try:
        yield rng
    finally:
        secrets.choice, secrets.token_hex = saved  # type: ignore[assignment]


def play(store: EventStore, rng: random.Random) -> dict[str, Any]:
    """Play the script on `store`: the log (without hashes) and the views after each command."""
    after: list[list[Any]] = []

    class Recorded(sheet_match.StoreTable):
        def do(self, who: Any, cmd: str, **args: Any) -> list[dict[str, Any]]:
            events = super().do(who, cmd, **args)
            snap = self.store.fresh(self.code)
            after.append([cmd, snap.seq, digest(views(snap.state))])
            return events

    table = Recorded(store)
    sheet_match.play_match(store, table=table)
    code, now = table.code, table.now
    tables = sheet_match.tables_of(store)
    ref, _token, _seq = tables.request_seat(code, "B", "Kaiba", "0002", "taken", now + 1)
    tables.grant_request(code, ref, "judge Pegasus", now + 2)
    ref, _token, _seq = tables.request_seat(code, "A", "Yugi", "0001", "taken", now + 3)
    tables.refuse_request(code, ref, "judge Pegasus", now + 4)
    tables.release_seat(code, "B", "judge Pegasus", now + 5)
    snap = store.fresh(code)
    after.append(["seats", snap.seq, digest(views(snap.state))])
    log = store.log(code)
    held = store.fresh(code).state
    assert held == replay(_event_of(e) for e in log), "the state in memory is not the log's"
    assert store.verify(code).ok
    events = [{k: e[k] for k in ("seq", "type", "data", "actor", "at_ms")} for e in log]
    return {"events": events, "after": after, "final": views(held)}


def record(tmp: Path) -> dict[str, Any]:
    bind(open_database("", str(tmp)))
    with fixed_randomness() as rng:
        store = sheet_match.bare_store(db, rng.randrange)
        try:
            return play(store, rng)
        finally:
            store.close()


def test_a_recorded_match_replays_to_the_same_events_and_views(
    tmp_path: Path, database_url: str
) -> None:
    if database_url:
        pytest.skip("recorded on SQLite; the log is the same on PostgreSQL (test_store.py)")
    expected = json.loads(DATA.read_text(encoding="utf-8"))
    got = json.loads(json.dumps(record(tmp_path)))
    assert len(got["events"]) == len(expected["events"]) > 100
    for mine, theirs in zip(got["events"], expected["events"], strict=True):
        assert mine == theirs, mine["seq"]
    assert got["after"] == expected["after"]
    assert got["final"] == expected["final"]


if __name__ == "__main__":  # record again
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        recorded = record(Path(tmp))
    DATA.write_text(json.dumps(recorded, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    print(f"{len(recorded['events'])} events, {len(recorded['after'])} commands -> {DATA}")
