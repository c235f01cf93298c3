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
import sys
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
from tests.golden import project, shape_of_all

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
    """Play the script on `store`: the log (without hashes) and the views after each command
    (whole: `digested` digests them on a recorded shape)."""
    after: list[list[Any]] = []

    class Recorded(sheet_match.StoreTable):
        def do(self, who: Any, cmd: str, **args: Any) -> list[dict[str, Any]]:
            events = super().do(who, cmd, **args)
            snap = self.store.fresh(self.code)
            after.append([cmd, snap.seq, views(snap.state)])
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
    after.append(["seats", snap.seq, views(snap.state)])
    log = store.log(code)
    held = store.fresh(code).state
    assert held == replay(_event_of(e) for e in log), "the state in memory is not the log's"
    assert store.verify(code).ok
    events = [{k: e[k] for k in ("seq", "type", "data", "actor", "at_ms")} for e in log]
    return {"events": events, "after": after, "final": views(held)}


def run(tmp: Path) -> dict[str, Any]:
    """The script played on a fresh database, with fixed randomness (views whole)."""
    bind(open_database("", str(tmp)))
    with fixed_randomness() as rng:
        store = sheet_match.bare_store(db, rng.randrange)
        try:
            return json.loads(json.dumps(play(store, rng)))
        finally:
            store.close()


def digested(played: dict[str, Any], shape: dict[str, Any]) -> dict[str, Any]:
    """A played script as the golden file keeps it: the events and the final views projected
    on the recorded shape, each command's views as a digest of that projection."""
    views_shape = shape["view"]
    return {
        "events": [project(e, shape["event"]) for e in played["events"]],
        "after": [[c, seq, digest(project(v, views_shape))] for c, seq, v in played["after"]],
        "final": project(played["final"], views_shape),
    }


def record(tmp: Path) -> dict[str, Any]:
    """A new recording: the shape of every event and view the script gave, and the script's
    events, digests and final views on it."""
    played = run(tmp)
    shape = {
        "event": shape_of_all(played["events"]),
        "view": shape_of_all(v for _c, _s, v in played["after"]),
    }
    return {"shape": shape, **digested(played, shape)}


def compare(got: dict[str, Any], expected: dict[str, Any]) -> None:
    """The played script against the recording, on the recording's shape."""
    mine = digested(got, expected["shape"])
    assert len(mine["events"]) == len(expected["events"]) > 100
    for event, theirs in zip(mine["events"], expected["events"], strict=True):
        assert event == theirs, event["seq"]
    assert mine["after"] == expected["after"]
    assert mine["final"] == expected["final"]


def test_a_recorded_match_replays_to_the_same_events_and_views(
    tmp_path: Path, database_url: str
) -> None:
    if database_url:
        pytest.skip("recorded on SQLite; the log is the same on PostgreSQL (test_store.py)")
    compare(run(tmp_path), json.loads(DATA.read_text(encoding="utf-8")))


def test_a_new_view_field_needs_no_new_recording_but_a_changed_value_fails(
    tmp_path: Path, database_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The comparison reads the recorded keys: a field the views gain since passes, a recorded
    value that changes fails (so does a new field in the events)."""
    if database_url:
        pytest.skip("recorded on SQLite")
    expected = json.loads(DATA.read_text(encoding="utf-8"))
    played = run(tmp_path)
    # A new field in every view, and in every event's data: the comparison still passes.
    grown = json.loads(json.dumps(played))
    for _c, _s, by_viewer in grown["after"]:
        for v in by_viewer.values():
            v["new_field"] = {"shown": True}
            v["seats"]["A"]["new_field"] = 1
    for v in grown["final"].values():
        v["new_field"] = 1
    for e in grown["events"]:
        e["data"]["new_field"] = 1
    compare(grown, expected)
    # The same through the views themselves (a field `view` adds), monkeypatched.
    real = views

    def more(state: Any) -> dict[str, Any]:
        return {who: {**v, "new_field": 7} for who, v in real(state).items()}

    monkeypatch.setattr(sys.modules[__name__], "views", more)
    (tmp_path / "more").mkdir()
    compare(run(tmp_path / "more"), expected)
    monkeypatch.undo()
    # A recorded value that changes fails: in one command's views, the final views, an event.
    for spoil in ("after", "final", "event"):
        changed = json.loads(json.dumps(played))
        if spoil == "after":
            changed["after"][40][2]["A"]["lp"]["A"] += 1
        elif spoil == "final":
            changed["final"]["judge"]["lp"]["B"] -= 1
        else:
            changed["events"][30]["at_ms"] += 1
        with pytest.raises(AssertionError):
            compare(changed, expected)


def test_the_recorded_log_replays_to_the_recorded_views() -> None:
    """The log as recorded (an older log: its events lack any field added since) still replays
    to the final views recorded with it."""
    expected = json.loads(DATA.read_text(encoding="utf-8"))
    state = replay(_event_of(e) for e in expected["events"])
    assert (
        project(json.loads(json.dumps(views(state))), expected["shape"]["view"])
        == (expected["final"])
    )


if __name__ == "__main__":  # record again
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        recorded = record(Path(tmp))
    DATA.write_text(json.dumps(recorded, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    print(f"{len(recorded['events'])} events, {len(recorded['after'])} commands -> {DATA}")
