"""Peewee models. The database is chosen at start-up through the `db` proxy."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl, urlsplit

from peewee import (
    AutoField,
    BigIntegerField,
    CharField,
    Database,
    DatabaseProxy,
    ForeignKeyField,
    IntegerField,
    Model,
    SqliteDatabase,
    TextField,
)
from playhouse.db_url import connect
from playhouse.pool import PooledSqliteDatabase

db = DatabaseProxy()

SQLITE_FILE = "duel.db"


# The longest command id the command table keeps (a client's longer id is kept as its hash).
COMMAND_ID_MAX = 100
# A command's content digest (`server.service.tables.command_digest`): "" for the server's own.
COMMAND_DIGEST_MAX = 32


class JSONField(TextField):
    """JSON kept as text, the same on SQLite and PostgreSQL."""

    def db_value(self, value: Any) -> str | None:
        if value is None:
            return None
        return json.dumps(value, separators=(",", ":"), ensure_ascii=False, sort_keys=True)

    def python_value(self, value: str | None) -> Any:
        return None if value is None else json.loads(value)


class BaseModel(Model):
    # peewee's implicit primary key, spelled out so type checkers know it.
    id = AutoField()

    class Meta:
        database = db


class TableRow(BaseModel):
    """One live table: its code, rule set, last sequence number and next timer deadline."""

    code = CharField(max_length=16, unique=True)
    created_ms = BigIntegerField()
    ruleset = JSONField()
    seq = IntegerField(default=0)
    next_due_ms = BigIntegerField(null=True, index=True)
    # The tournament event a table belongs to, once events exist.
    event_id = IntegerField(null=True, index=True)
    # A one-phone table's recovery code (its SHA-256; shown once on the phone): it moves both
    # seats to a new phone (`server.api.seats.recover_table`).
    recovery_hash = CharField(max_length=64, null=True)

    class Meta:
        table_name = "table"


class SeatRow(BaseModel):
    """A taken seat. Only the SHA-256 of its token is kept."""

    table = ForeignKeyField(TableRow, backref="seat_rows", on_delete="CASCADE")
    seat = CharField(max_length=1)
    token_hash = CharField(max_length=64, index=True)
    name = CharField(max_length=64, default="")
    player_id = CharField(max_length=64, default="")
    # The phone's id when one phone holds both seats (table mode).
    device = CharField(max_length=40, null=True)
    # When the seat's phone was last seen opening, closing or keeping its socket while a
    # request for the seat waited (`server.api.seats`: who answers the request).
    seen_ms = BigIntegerField(null=True)

    class Meta:
        table_name = "seat"
        indexes = ((("table", "seat"), True),)


class EventRow(BaseModel):
    """One entry of a table's append-only log, chained to the previous one by hash."""

    table = ForeignKeyField(TableRow, backref="event_rows", on_delete="CASCADE")
    seq = IntegerField()
    type = CharField(max_length=64)
    data = TextField()
    actor = TextField()
    at_ms = BigIntegerField()
    prev_hash = CharField(max_length=64)
    hash = CharField(max_length=64)

    class Meta:
        table_name = "event"
        indexes = ((("table", "seq"), True),)


class CommandRow(BaseModel):
    """A command id already applied at a table, the sequence number it answered, and the digest
    of what was sent under it (the same id with other content is refused, not a duplicate)."""

    table = ForeignKeyField(TableRow, backref="command_rows", on_delete="CASCADE")
    cmd_id = CharField(max_length=COMMAND_ID_MAX)
    seq = IntegerField()
    digest = CharField(max_length=COMMAND_DIGEST_MAX, default="")

    class Meta:
        table_name = "command"
        indexes = ((("table", "cmd_id"), True),)


class HeadSignature(BaseModel):
    """A table's chain head signed by the server's key (`server.store.signing`)."""

    table_id = IntegerField(index=True)
    seq = IntegerField()
    hash = CharField(max_length=64)
    signature = CharField(max_length=128)
    signed_ms = BigIntegerField(default=0)

    class Meta:
        table_name = "head_signature"
        indexes = ((("table_id", "seq"), True),)


class SeatRequest(BaseModel):
    """A phone asking for a seat without the table card's claim, or for a taken seat: it
    waits for a judge (event table) or the other seat (casual table). Only its token's
    SHA-256 is kept; the token works once the request is approved."""

    table = ForeignKeyField(TableRow, backref="seat_requests", on_delete="CASCADE")
    ref = CharField(max_length=16, unique=True)
    seat = CharField(max_length=1)
    token_hash = CharField(max_length=64)
    name = CharField(max_length=64, default="")
    player_id = CharField(max_length=64, default="")
    created_ms = BigIntegerField(default=0)
    status = CharField(max_length=10, default="waiting")
    # Who asked: a hash of the client's address and device id (one waiting request each).
    asker = CharField(max_length=64, null=True)

    class Meta:
        table_name = "seat_request"


MODELS = [TableRow, SeatRow, EventRow, CommandRow, HeadSignature, SeatRequest]


def open_database(url: str, data_dir: str, autocheckpoint: bool = True) -> Database:
    """Open (lazily) the database named by `url`, or the SQLite file in `data_dir`.

    `autocheckpoint=False`: SQLite's WAL checkpoints are left to a `Checkpointer`
    (`server/store/checkpoint.py`), which the caller starts."""
    if not url:
        Path(data_dir).mkdir(parents=True, exist_ok=True)
        url = f"sqlite:///{Path(data_dir) / SQLITE_FILE}"
    if url.startswith("sqlite:///"):
        # sqlite:///relative/path or sqlite:////absolute/path
        # Pooled: opening and closing a connection per message cost ~3 ms each, and closing the
        # last one checkpoints and deletes the WAL files every time. Connections go back to the
        # pool at the end of each `connection_context`.
        sqlite: Database = PooledSqliteDatabase(
            url[len("sqlite:///") :],
            max_connections=SQLITE_POOL_SIZE,
            check_same_thread=False,  # a pooled connection serves one thread at a time
            stale_timeout=300,
            timeout=30,
            pragmas={
                "journal_mode": "wal",
                "synchronous": "full",
                "foreign_keys": 1,
                "busy_timeout": 30000,
                # A burst can grow the log between two checkpoints; give the disk space back.
                "journal_size_limit": 64 * 1024 * 1024,
                **({} if autocheckpoint else {"wal_autocheckpoint": 0}),
            },
        )
        return sqlite
    if url.startswith("postgres://"):
        url = "postgresql://" + url[len("postgres://") :]
    if url.startswith("postgresql://"):
        # Each green thread inside a database section holds its own connection: with a few
        # dozen busy sockets one worker passed PostgreSQL's max_connections (100 by default)
        # and answered "too many clients". A bounded pool makes them wait their turn instead.
        # Options in the URL's query win: ?max_connections=40&timeout=30
        pooled = "postgresql+pool://" + url[len("postgresql://") :]
        named = {key for key, _ in parse_qsl(urlsplit(url).query)}
        defaults = {"max_connections": PG_POOL_SIZE, "stale_timeout": 300, "timeout": 30}
        postgres: Database = connect(
            pooled, **{k: v for k, v in defaults.items() if k not in named}
        )
        return postgres
    other: Database = connect(url)
    return other


PG_POOL_SIZE = 20
SQLITE_POOL_SIZE = 32


def is_sqlite(database: Database | DatabaseProxy) -> bool:
    """Tell whether the (proxied) database is SQLite."""
    target = database.obj if isinstance(database, DatabaseProxy) else database
    return isinstance(target, SqliteDatabase)
