"""SQLite's WAL checkpoints run off the commit path (server/store/checkpoint.py): the server's
connections never checkpoint inside a COMMIT, and the checkpointer copies the log back."""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Any

import pytest

from server import create_app
from server.api.arguments import load_args
from server.rules import Actor, get_ruleset
from server.store import db
from tests.tables import tables_of

pytestmark = pytest.mark.skipif(
    bool(os.environ.get("TEST_DATABASE_URL")), reason="SQLite's write-ahead log only"
)


def _toss_many(store: Any, count: int) -> str:
    code = tables_of(store).create_table(get_ruleset("ocg-2008"), 1_000)
    tables_of(store).join(code, "A", "Ann", "1", 1_000)
    args = load_args("coin.toss", {"count": 1})
    seat_a = Actor(role="seat", seat="A")
    for n in range(count):
        # A second apart: a seat may toss only a few times a second.
        tables_of(store).append(code, "coin.toss", args, seat_a, f"c{n}", 2_000 + 1_000 * n)
    return code


def _autocheckpoint() -> int:
    with db.connection_context():
        return int(db.execute_sql("PRAGMA wal_autocheckpoint").fetchone()[0])


def test_the_server_checkpoints_on_its_own_thread(tmp_path: Path) -> None:
    app = create_app(
        {"DATA_DIR": str(tmp_path), "TIMER_ENABLED": False, "SQLITE_CHECKPOINT_MS": 50}
    )
    found = app.extensions["duel_table"]
    try:
        # No COMMIT of the server's connections copies the log back.
        assert _autocheckpoint() == 0
        _toss_many(found.tables.store, 60)
        runs = found.checkpointer.runs
        deadline = time.monotonic() + 5
        while found.checkpointer.runs < runs + 2 and time.monotonic() < deadline:
            time.sleep(0.02)
        assert found.checkpointer.runs >= runs + 2
        # After a round every frame of the log is in the database file.
        busy, frames, copied = found.checkpointer.checkpoint()
        assert busy == 0 and frames > 0 and copied == frames
        # The database file alone (no log) holds every event.
        with db.connection_context():
            events = db.execute_sql("SELECT count(*) FROM event").fetchone()[0]
        assert events >= 60
    finally:
        found.close()


def test_without_a_checkpointer_sqlite_checkpoints_in_its_commits(tmp_path: Path) -> None:
    app = create_app({"DATA_DIR": str(tmp_path), "TIMER_ENABLED": False, "SQLITE_CHECKPOINT_MS": 0})
    found = app.extensions["duel_table"]
    try:
        assert found.checkpointer is None
        assert _autocheckpoint() == 1000  # SQLite's default
    finally:
        found.close()
