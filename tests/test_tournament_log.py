"""An event's tournament log, kept as a table's is (server/store/logs.py) and folded by pure
handlers (server/rules/tournament_log.py): hash-chained entries, structured actors, a cached
snapshot moved on by the new entries only, two writers (two processes) taking turns without
losing or reordering an entry, and an older database's log carried over by its migration with
the same standings."""

from __future__ import annotations

import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from peewee import BigIntegerField, CharField, ForeignKeyField, IntegerField, TextField

from clients.testing import isolated_database
from server import create_app
from server.rules import Actor, Event
from server.rules.base import FIELD_TYPES
from server.rules.tournament_log import (
    EMPTY,
    TOURNAMENT_EVENTS,
    TOURNAMENT_HANDLERS,
    actor_of,
    apply,
    replay,
)
from server.store import logs as logs_module
from server.store.logs import GENESIS, SwissLog, TournamentLogs, read_actor
from server.store.migrations import SchemaVersion, latest, version_of
from server.store.models import BaseModel, db
from server.store.tournament import TournamentEvent
from server.store.writers import writer_for
from tests.test_swiss_api import Org, finish_round, register

ROOT = Path(__file__).resolve().parent.parent
STAFF = Actor(role="staff", name="org")


def entry(type_: str, **data: Any) -> Event:
    return Event(type_, data, 1, STAFF)


# -- the fold (pure) ------------------------------------------------------------------------------


def test_the_fold_replays_pairings_drops_check_ins_and_settings() -> None:
    log = [
        entry("settings", check_in=True, rounds=4),
        entry("player.registered", player=1, name="A", player_id="1", round=1),
        entry("player.checked_in", player=1, round=1),
        entry("player.checked_in", player=2, round=1),
        entry("player.checked_out", player=2),
        entry("round.paired", round=1, stage="swiss", seed=7, tables=[[1, 1, 3]], bye=4),
        entry("round.paired", round=1, stage="swiss", seed=None, tables=[[1, 3, 1]], bye=4),
        entry("player.dropped", player=3, after_round=1),
        entry("settings", public=True),
        Event("player.decklist", {"player": 1, "by": "table"}, 2, Actor("table", name="ABC234")),
    ]
    state = replay(enumerate(log, start=1))
    assert state.seq == 10
    assert state.check_in and state.public and state.swiss_rounds == 4 and state.cut_size is None
    assert dict(state.checked_in) == {1: 1}
    assert dict(state.dropped) == {3: 1}
    assert state.repairs == 1
    assert state.rounds[1].tables == ((1, 3, 1),) and state.rounds[1].seq == 7
    assert state.rounds[1].seed is None and state.rounds[1].bye == 4
    assert state.decklists[1] == ("table", "ABC234")
    # a setting given as null clears the override; one not given stays
    cleared = apply(state, 11, entry("settings", rounds=None))
    assert cleared.swiss_rounds is None and cleared.public
    # pure: the earlier state is as it was
    assert state.swiss_rounds == 4 and state.seq == 10
    assert EMPTY.rounds == {} and EMPTY.seq == 0


def test_every_event_the_tournament_writes_is_declared_with_its_fields() -> None:
    written = {
        "player.registered", "players.imported", "player.checked_in", "player.checked_out",
        "player.decklist", "player.dropped", "round.paired", "settings",
    }  # fmt: skip
    assert set(TOURNAMENT_EVENTS) == written == set(TOURNAMENT_HANDLERS)
    for declared in TOURNAMENT_EVENTS.values():
        assert declared.data, declared.type
        assert all(kind.rstrip("?") in FIELD_TYPES for kind in declared.data.values())


def test_a_bare_actor_name_reads_as_the_actor_it_stands_for() -> None:
    assert read_actor("player.dropped", {"player": 1}, "org1") == Actor("staff", name="org1")
    assert read_actor("player.decklist", {"player": 1, "by": "player"}, "player") == Actor(
        "player", name="player"
    )
    assert read_actor("player.decklist", {"by": "table"}, "ABC234") == Actor("table", name="ABC234")
    structured = '{"name":"j","role":"staff","seat":null}'
    assert read_actor("settings", {}, structured) == Actor("staff", name="j")
    assert actor_of("settings", {}, "org1") == Actor("staff", name="org1")


# -- the store -----------------------------------------------------------------------------------


@pytest.fixture
def org(app: Flask) -> Org:
    return Org(app, app.test_client())


def swiss_of(app: Flask) -> Any:
    return app.extensions["duel_table"].swiss


def test_entries_are_chained_with_structured_actors_and_the_chain_is_checked(org: Org) -> None:
    ev = org.event()
    register(org, ev, 4)
    assert org.call("POST", f"/api/events/{ev}/swiss/pair").status_code == 200
    swiss = swiss_of(org.app)
    entries = swiss.log(ev)
    assert [e["seq"] for e in entries] == [1, 2, 3, 4, 5]
    assert entries[0]["prev_hash"] == GENESIS
    assert all(b["prev_hash"] == a["hash"] for a, b in zip(entries, entries[1:], strict=False))
    assert {e["actor"]["role"] for e in entries} == {"staff"}
    assert all(e["actor"]["name"].startswith("org1-") for e in entries)
    for e in entries:  # only declared fields are written
        assert set(e["data"]) <= set(TOURNAMENT_EVENTS[e["type"]].data), e["type"]
    logs = swiss.store.tournament_logs
    assert logs.verify(ev).ok
    with db.connection_context():  # an entry changed in the database breaks its link
        SwissLog.update(data={"player": 9, "name": "X", "player_id": "9", "round": 1}).where(
            (SwissLog.event == ev) & (SwissLog.seq == 2)
        ).execute()
    broken = logs.verify(ev)
    assert not broken.ok and broken.seq == 2 and broken.problem == "hash does not match"


def test_a_read_folds_only_the_entries_written_since_the_cached_snapshot(
    org: Org, monkeypatch: pytest.MonkeyPatch
) -> None:
    ev = org.event()
    register(org, ev, 4)
    swiss = swiss_of(org.app)
    folded: list[int] = []

    def counting(state: Any, seq: int, event: Event) -> Any:
        folded.append(seq)
        return apply(state, seq, event)

    monkeypatch.setattr(logs_module, "apply", counting)
    swiss.state(ev)
    swiss.state(ev)
    assert folded == []  # the appends left the snapshot: nothing to fold again
    assert org.call("POST", f"/api/events/{ev}/swiss/players/2/drop").status_code == 200
    assert folded == [5]  # the append folds its own entry, once
    assert swiss.state(ev).dropped == {2: 0}
    assert folded == [5]
    # Another process's entry: this one folds that entry alone on its next read.
    other = TournamentLogs(db, writer_for(db))
    other.append(ev, "player.dropped", {"player": 3, "after_round": 0}, STAFF, 2)
    folded.clear()
    assert swiss.state(ev).dropped == {2: 0, 3: 0}
    assert folded == [6]
    # A process that starts cold reads the log once, then only what is new.
    folded.clear()
    cold = TournamentLogs(db, writer_for(db))
    assert cold.snapshot(ev).state == swiss.store.tournament_logs.snapshot(ev).state
    assert folded == [1, 2, 3, 4, 5, 6]
    folded.clear()
    cold.snapshot(ev)
    assert folded == []


def test_two_writers_on_one_event_lose_and_reorder_nothing(org: Org) -> None:
    """Two logs, each with its own writer and cache, as two processes have, append to one
    event at once: every entry is kept, once, each writer's in its own order, one chain."""
    ev = org.event()
    writers = [TournamentLogs(db, writer_for(db)) for _ in range(2)]
    count = 25
    errors: list[BaseException] = []

    def run(number: int) -> None:
        try:
            for i in range(count):
                data = {"player": number, "round": i + 1}
                writers[number].append(ev, "player.checked_in", data, STAFF, i)
        except BaseException as exc:  # pragma: no cover - shown by the assertion below
            errors.append(exc)

    threads = [threading.Thread(target=run, args=(n,)) for n in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    entries = swiss_of(org.app).log(ev)
    assert [e["seq"] for e in entries] == list(range(1, 2 * count + 1))
    for number in range(2):
        mine = [e["data"]["round"] for e in entries if e["data"]["player"] == number]
        assert mine == list(range(1, count + 1))
    assert writers[0].verify(ev).ok
    assert writers[0].snapshot(ev) == writers[1].snapshot(ev)
    assert dict(writers[0].snapshot(ev).state.checked_in) == {0: count, 1: count}


APPENDER = """
import sys
from server.rules import Actor
from server.store import open_database
from server.store.logs import TournamentLogs
from server.store.migrations import bind
from server.store.models import db
from server.store.writers import writer_for

url, data_dir, event, number, count = sys.argv[1:]
bind(open_database(url, data_dir), create=False)
logs = TournamentLogs(db, writer_for(db))
for i in range(int(count)):
    data = {"player": int(number), "round": i + 1}
    logs.append(int(event), "player.checked_in", data, Actor("staff", name="p"), i)
print("done")
"""


def test_two_processes_appending_to_one_event_lose_and_reorder_nothing(
    app: Flask, org: Org, database_url: str
) -> None:
    ev = org.event()
    data_dir = app.config["DATA_DIR"]
    count = 20
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", APPENDER, database_url, data_dir, str(ev), str(n), str(count)],
            cwd=ROOT,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for n in range(2)
    ]
    for p in procs:
        out, err = p.communicate(timeout=120)
        assert p.returncode == 0 and out.strip() == "done", err
    entries = swiss_of(app).log(ev)
    assert [e["seq"] for e in entries] == list(range(1, 2 * count + 1))
    for number in range(2):
        mine = [e["data"]["round"] for e in entries if e["data"]["player"] == number]
        assert mine == list(range(1, count + 1))
    assert swiss_of(app).store.tournament_logs.verify(ev).ok


# -- an older database ----------------------------------------------------------------------------


class OldSwissLog(BaseModel):
    """`swiss_log` as the releases before the chained log made it (schema version 10)."""

    event = ForeignKeyField(TournamentEvent, on_delete="CASCADE")
    seq = IntegerField()
    type = CharField(max_length=32)
    data = TextField()
    actor = CharField(max_length=80)
    at_ms = BigIntegerField()

    class Meta:
        table_name = "swiss_log"
        indexes = ((("event", "seq"), True),)


def columns() -> dict[str, str]:
    with db.connection_context():
        return {c.name: c.data_type.lower() for c in db.get_columns("swiss_log")}


def test_an_older_database_with_swiss_rows_migrates_with_the_same_standings(
    app_config: dict[str, Any], database_url: str
) -> None:
    url = isolated_database(database_url, "tournament_log_migration")
    config = {**app_config, "DATABASE_URL": url}
    first = create_app(config)
    org = Org(first, first.test_client())
    ev = org.event(tables=3)
    register(org, ev, 6)
    assert org.call("PATCH", f"/api/events/{ev}/swiss", {"rounds": 4}).status_code == 200
    assert org.call("POST", f"/api/events/{ev}/swiss/pair").status_code == 200
    finish_round(org, ev)
    assert org.call("POST", f"/api/events/{ev}/swiss/players/3/drop").status_code == 200
    assert org.call("POST", f"/api/events/{ev}/swiss/pair").status_code == 200
    assert org.call("POST", f"/api/events/{ev}/swiss/repair").status_code == 200
    finish_round(org, ev)
    swiss = swiss_of(first)
    before, log_before, chained_columns = swiss.summary(ev), swiss.log(ev), columns()
    assert before["repairs"] == 1 and before["swiss_played"] == 2
    # The log as the older release kept it: bare names as actors, no hashes, version 10.
    with db.connection_context(), db.atomic():
        db.drop_tables([SwissLog])
        db.create_tables([OldSwissLog])
        for e in log_before:
            OldSwissLog.insert(
                event=ev,
                seq=e["seq"],
                type=e["type"],
                data=logs_module.dumps(e["data"]),
                actor=e["actor"]["name"],
                at_ms=e["at_ms"],
            ).execute()
        SchemaVersion.update(version=latest() - 1).execute()
    first.extensions["duel_table"].close()

    second = create_app(config)  # the server upgrades the database as it starts
    try:
        assert version_of(db) == latest()
        assert columns() == chained_columns
        swiss = swiss_of(second)
        assert swiss.log(ev) == log_before  # the same actors, chained to the same hashes
        assert swiss.summary(ev) == before
        assert swiss.store.tournament_logs.verify(ev).ok
        # and the event goes on, its log chained on from the carried-over head
        swiss.drop(ev, 4, "org2", before["rounds"][-1]["number"])
        appended = swiss.log(ev)[-1]
        assert appended["actor"] == {"role": "staff", "name": "org2", "seat": None}
        assert appended["prev_hash"] == log_before[-1]["hash"]
        assert swiss.store.tournament_logs.verify(ev).ok
    finally:
        second.extensions["duel_table"].close()
