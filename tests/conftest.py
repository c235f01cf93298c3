"""Fixtures for the server's tests: an app on a fresh database, its client, a bare store."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient

from clients.testing import SCHEMA_CHECK, SchemaCheck
from server import create_app
from server.store import EventStore, bind, db, open_database

T0 = 1_764_484_800_000


@pytest.fixture(autouse=True, scope="session")
def key_dir(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """Every app and command a test starts keeps its signing key and heads ledger in the
    session's own directory, not the user's (KEY_DIR's default); a test may name its own."""
    import os

    before = os.environ.get("KEY_DIR")
    os.environ["KEY_DIR"] = str(tmp_path_factory.mktemp("keys"))
    yield
    if before is None:
        os.environ.pop("KEY_DIR", None)
    else:
        os.environ["KEY_DIR"] = before


class FixedClock:
    """A server clock tests move by hand."""

    def __init__(self, now_ms: int = T0) -> None:
        self.now_ms = now_ms

    def __call__(self) -> int:
        return self.now_ms

    def advance(self, ms: int) -> None:
        self.now_ms += ms


@pytest.fixture(scope="session", autouse=True)
def protocol_schema_check() -> Iterator[SchemaCheck]:
    """Every message a table socket sends in these tests is checked against the served
    protocol schema (docs/protocol.md): one the schema refuses fails the test that got it."""
    undo = SCHEMA_CHECK.install()
    try:
        yield SCHEMA_CHECK
    finally:
        undo()


@pytest.fixture(autouse=True)
def _schema_refusals_fail_the_test() -> Iterator[None]:
    before = len(SCHEMA_CHECK.refused)
    yield
    # A refusal raised inside code that swallows errors still fails the test here.
    assert SCHEMA_CHECK.refused[before:] == [], SCHEMA_CHECK.refused[before:]


@pytest.fixture
def clock() -> FixedClock:
    return FixedClock()


@pytest.fixture
def app_config(tmp_path: Path, database_url: str, clock: FixedClock) -> dict[str, Any]:
    """Settings for a test app: its own SQLite file (or the test PostgreSQL), no timer."""
    return {
        "TESTING": True,
        "DATA_DIR": str(tmp_path),
        "KEY_DIR": str(tmp_path / "keys"),
        # A result shows on the public pages at the next view (the wait between two rebuilds
        # is tested on its own: tests/test_public_cost.py).
        "PROJECTION_REBUILD_SECONDS": 0,
        "DATABASE_URL": database_url,
        "REDIS_URL": "",
        "SECRET_KEY": "test",
        "TIMER_ENABLED": False,
        "CLOCK": clock,
        # Staff passwords hashed at 1/256 of production's cost (a stored hash names
        # its own cost, so login checks are unchanged): the accounts a test makes are cheap.
        "PASSWORD_HASH_METHOD": "scrypt:1024:1:1",
        # One address opens every table of a test (tests/test_table_expiry.py checks the bound).
        "CASUAL_TABLES_PER_ADDRESS_PER_HOUR": 0,
        # A test's opens are not refused for a loop a busy test machine holds up
        # (tests/test_open_budget.py checks that bound).
        "WS_OPENS_MAX_LAG_MS": 0,
    }


@pytest.fixture
def app(app_config: dict[str, Any], database_url: str) -> Iterator[Flask]:
    application = create_app(app_config)
    if database_url:
        # PostgreSQL: one database for the whole session; empty it, as SQLite's fresh file is,
        # so accounts and events of one test are not another's ("that username is taken").
        from server.store.migrations import SchemaVersion, all_models

        tables = ", ".join(
            f'"{m._meta.table_name}"' for m in all_models() if m is not SchemaVersion
        )
        with db.connection_context():
            db.execute_sql(f"TRUNCATE {tables} CASCADE")
    yield application
    application.extensions["duel_table"].close()


@pytest.fixture
def client(app: Flask) -> FlaskClient:
    return app.test_client()


@pytest.fixture
def store(tmp_path: Path, database_url: str) -> Iterator[EventStore]:
    """A bare event store on a fresh SQLite file (or the test PostgreSQL); its group committer
    stopped after the test."""
    bind(open_database(database_url, str(tmp_path)))
    found = EventStore(db)
    yield found
    found.close()


@pytest.fixture
def another_store() -> Iterator[Callable[[], EventStore]]:
    """Another process's store on the same database: its own cache and its own writer's
    connections, closed after the test."""
    made: list[EventStore] = []

    def make() -> EventStore:
        made.append(EventStore(db))
        return made[-1]

    yield make
    for other in made:
        other.close()


@pytest.fixture(autouse=True)
def _database_connections_closed() -> Iterator[None]:
    """Close the pooled connections of the database a test leaves bound. A pool keeps its
    connections open for the next request; on PostgreSQL, a thousand tests' pools passed its
    100 clients ("sorry, too many clients already")."""
    yield
    database = db.obj
    if database is not None and hasattr(database, "close_all"):
        database.close_all()
