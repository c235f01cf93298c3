"""Freeze a release's database for the upgrade test (tests/test_migrations.py).

Run from a checkout of the release (the file it wrote, `schema_0e10e3f.json`, came from commit
0e10e3f, the last release without schema versions):

    git worktree add /tmp/old 0e10e3f && cp tests/data/freeze_schema.py /tmp/old/
    cd /tmp/old && .venv/bin/python freeze_schema.py > schema_OLD.json

It records the statements that release ran to create its tables, on SQLite and on PostgreSQL
(TEST_DATABASE_URL, default the local test database), and the rows of one live table made by
that release's own store: two seats (their tokens kept, so the test can act for them) and both
decks declared.
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
from typing import Any

import peewee

from server import create_app

T0 = 1_764_484_800_000
PG_URL = os.environ.get("TEST_DATABASE_URL", "postgresql://postgres@127.0.0.1:5432/test")


def capture_ddl(database_url: str, data_dir: str) -> tuple[list[str], Any]:
    statements: list[str] = []
    original = peewee.Database.execute_sql

    def recording(self: peewee.Database, sql: str, params: Any = None, *args: Any) -> Any:
        if sql.lstrip().upper().startswith("CREATE"):
            statements.append(sql)
        return original(self, sql, params, *args)

    peewee.Database.execute_sql = recording  # type: ignore[method-assign]
    try:
        app = create_app(
            {
                "TESTING": True,
                "DATA_DIR": data_dir,
                "DATABASE_URL": database_url,
                "REDIS_URL": "",
                "SECRET_KEY": "freeze",
                "TIMER_ENABLED": False,
                "CLOCK": lambda: T0,
            }
        )
    finally:
        peewee.Database.execute_sql = original  # type: ignore[method-assign]
    return statements, app


def main() -> int:
    from clients.testing import isolated_database
    from server.rules import Actor, get_ruleset
    from server.store import db
    from server.store.models import MODELS

    postgres, pg_app = capture_ddl(isolated_database(PG_URL, "freeze_schema"), "")
    pg_app.extensions["duel_table"].close()
    with tempfile.TemporaryDirectory() as tmp:
        sqlite, app = capture_ddl("", tmp)
        store = app.extensions["duel_table"].tables.store
        code = store.create_table(get_ruleset(), T0)
        a, _ = store.join(code, "A", "Yugi", "0001", T0 + 1000)
        b, _ = store.join(code, "B", "Kaiba", "0002", T0 + 2000)
        deck = {"main": 40, "extra": 15, "side": 15}
        store.append(code, "deck.declare", deck, Actor("seat", "A", "Yugi"), "a1", T0 + 3000)
        store.append(code, "deck.declare", deck, Actor("seat", "B", "Kaiba"), "b1", T0 + 4000)
        rows: dict[str, list[dict[str, Any]]] = {}
        with db.connection_context():
            for model in MODELS:
                cursor = db.execute_sql(f'SELECT * FROM "{model._meta.table_name}" ORDER BY id')
                names = [column[0] for column in cursor.description]
                rows[model._meta.table_name] = [
                    dict(zip(names, row, strict=True)) for row in cursor
                ]
        app.extensions["duel_table"].close()
    frozen = {
        "release": "0e10e3f",
        "ddl": {"sqlite": sqlite, "postgresql": postgres},
        "table": {"code": code, "tokens": {"A": a.token, "B": b.token}},
        "rows": rows,
    }
    json.dump(frozen, sys.stdout, indent=1, ensure_ascii=False)
    sys.stdout.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
