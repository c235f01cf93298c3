"""Schema versions and migrations (server/store/migrations.py).

A database made by the last release before schema versions (commit 0e10e3f) is rebuilt from
what that release did, frozen in tests/data/schema_0e10e3f.json (tests/data/freeze_schema.py
made it): its CREATE statements on SQLite and PostgreSQL and the rows of one live table (two
seats, both decks declared). It is upgraded, and the table plays on.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from peewee import CharField, Database, IntegerField, PostgresqlDatabase
from playhouse.migrate import SchemaMigrator, migrate

from clients.testing import isolated_database
from server import create_app
from server.store import open_database, upgrade
from server.store.migrations import BASELINE, MIGRATIONS, latest, version_of
from tests.tables import tables_of

FROZEN = json.loads((Path(__file__).parent / "data" / "schema_0e10e3f.json").read_text("utf-8"))
ROOT = Path(__file__).resolve().parent.parent
SCHEMA = "migrations_test"


@pytest.fixture
def url(database_url: str) -> str:
    """An empty database: a fresh SQLite file in the test's directory, or a PostgreSQL schema."""
    return isolated_database(database_url, SCHEMA)


def opened(url: str, data_dir: Path) -> Database:
    return open_database(url, str(data_dir))


def build_previous_release(database: Database) -> None:
    """The tables and rows the release before schema versions left in its database."""
    postgres = isinstance(database, PostgresqlDatabase)
    mark = database.param
    with database.connection_context():
        for statement in FROZEN["ddl"]["postgresql" if postgres else "sqlite"]:
            database.execute_sql(statement)
        for table, rows in FROZEN["rows"].items():
            for row in rows:
                columns = ", ".join(f'"{name}"' for name in row)
                marks = ", ".join([mark] * len(row))
                database.execute_sql(
                    f'INSERT INTO "{table}" ({columns}) VALUES ({marks})', tuple(row.values())
                )
            if postgres:  # as a restored dump does: ids go on after the rows'
                database.execute_sql(
                    f"SELECT setval(pg_get_serial_sequence('\"{table}\"', 'id'), "
                    f'(SELECT max(id) FROM "{table}"))'
                )


def describe(database: Database, url: str) -> dict[str, Any]:
    """Every table's columns, indexes and foreign keys, as the database reports them."""
    schema = SCHEMA if isinstance(database, PostgresqlDatabase) else None
    with database.connection_context():
        return {
            table: {
                "columns": sorted(
                    (c.name, c.data_type.lower(), c.null, c.primary_key)
                    for c in database.get_columns(table, schema)
                ),
                "indexes": sorted(
                    (i.name, tuple(i.columns), i.unique)
                    for i in database.get_indexes(table, schema)
                ),
                "foreign_keys": sorted(
                    (f.column, f.dest_table, f.dest_column)
                    for f in database.get_foreign_keys(table, schema)
                ),
            }
            for table in database.get_tables(schema)
        }


@pytest.fixture
def app_on(tmp_path: Path) -> Iterator[Any]:
    apps: list[Any] = []

    def make(url: str) -> Any:
        app = create_app(
            {
                "TESTING": True,
                "DATA_DIR": str(tmp_path),
                "DATABASE_URL": url,
                "REDIS_URL": "",
                "SECRET_KEY": "test",
                "TIMER_ENABLED": False,
                "CLOCK": lambda: FROZEN["rows"]["event"][-1]["at_ms"] + 60_000,
            }
        )
        apps.append(app)
        return app

    yield make
    for app in apps:
        app.extensions["duel_table"].close()


def test_previous_release_database_upgrades_at_start_and_the_table_plays_on(
    url: str, tmp_path: Path, app_on: Any
) -> None:
    database = opened(url, tmp_path)
    build_previous_release(database)
    assert version_of(database) == BASELINE
    database.close()

    app = app_on(url)  # the server upgrades the database as it starts
    assert version_of(app.extensions["duel_table"].tables.store.db) == latest()
    store = app.extensions["duel_table"].tables.store
    code = FROZEN["table"]["code"]
    tokens = FROZEN["table"]["tokens"]
    a = store.seat_actor(code, tokens["A"])
    b = store.seat_actor(code, tokens["B"])
    assert a is not None and b is not None
    assert (a.role, a.seat, b.seat) == ("seat", "A", "B")
    before = store.snapshot(code).state
    assert before.seats["A"].name == "Yugi" and before.decks["B"].registered is not None

    now = FROZEN["rows"]["event"][-1]["at_ms"] + 60_000
    tables_of(store).append(code, "deck.confirm", {"seat": "B"}, a, "a2", now)
    tables_of(store).append(code, "deck.confirm", {"seat": "A"}, b, "b2", now + 1)
    again = tables_of(store).append(
        code, "deck.declare", {"main": 40, "extra": 15, "side": 15}, a, "a1", now
    )
    assert again.duplicate  # the old release's command ids still count
    log = store.log(code)
    assert len(log) > len(FROZEN["rows"]["event"])
    assert [e["hash"] for e in log[: len(FROZEN["rows"]["event"])]] == [
        row["hash"] for row in FROZEN["rows"]["event"]
    ]
    assert store.verify(code).ok
    after = store.snapshot(code).state
    assert after.decks["A"].confirmed and after.decks["B"].confirmed

    client = app.test_client()  # and a new table opens beside it
    opened_table = client.post("/api/tables", json={})
    assert opened_table.status_code == 201, opened_table.get_data(as_text=True)
    assert store.snapshot(opened_table.get_json()["code"]).seq > 0


def test_the_models_describe_the_schema_the_migrations_end_at(
    url: str, database_url: str, tmp_path: Path
) -> None:
    """A column added to a model without its migration (or the other way round) fails here."""
    old = opened(url, tmp_path / "old")
    build_previous_release(old)
    upgrade(old)
    upgraded = describe(old, url)
    old.close()

    fresh_url = isolated_database(database_url, SCHEMA)  # empty again
    fresh = opened(fresh_url, tmp_path / "fresh")
    assert upgrade(fresh) == latest()
    assert describe(fresh, fresh_url) == upgraded
    fresh.close()


def test_migrations_run_in_order_once_each(url: str, tmp_path: Path) -> None:
    ran: list[str] = []

    def seat_language(migrator: SchemaMigrator) -> None:
        ran.append("language")
        migrate(migrator.add_column("seat", "language", CharField(max_length=8, default="")))

    def seat_rank(migrator: SchemaMigrator) -> None:
        assert ran == ["language"]
        ran.append("rank")
        migrate(migrator.add_column("seat", "rank", IntegerField(default=0)))

    steps = [*MIGRATIONS, seat_language, seat_rank]
    database = opened(url, tmp_path)
    build_previous_release(database)
    assert upgrade(database, steps) == latest() + 2
    assert upgrade(database, steps) == latest() + 2
    assert ran == ["language", "rank"]
    assert version_of(database) == latest() + 2
    with database.connection_context():
        rows = database.execute_sql('SELECT name, language, "rank" FROM seat ORDER BY id')
        assert [tuple(r) for r in rows] == [("Yugi", "", 0), ("Kaiba", "", 0)]
    with pytest.raises(RuntimeError, match="newer than this server"):
        upgrade(database)  # a server that knows fewer migrations refuses the database
    database.close()


@pytest.mark.slow
def test_python_m_server_migrate(tmp_path: Path) -> None:
    database = opened("", tmp_path)
    build_previous_release(database)
    database.close()
    env = {"DATA_DIR": str(tmp_path), "DATABASE_URL": "", "PATH": "/usr/bin:/bin"}

    def run() -> str:
        done = subprocess.run(
            [sys.executable, "-m", "server", "migrate"],
            cwd=ROOT,
            env=env,
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert done.returncode == 0, done.stderr
        return done.stdout

    assert "up to date" not in run() or not MIGRATIONS
    assert version_of(opened("", tmp_path)) == latest()
    assert "up to date" in run()
