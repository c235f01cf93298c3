"""Schema versions: the database keeps its version in `schema_version`, and `upgrade` runs the
migrations it has not had yet, in order, each in the transaction that records it.

Version 1 is the schema of the releases before versions (commit 0e10e3f): a database with the
tables but no `schema_version` is taken to be at version 1. A new, empty database gets every
table from the models and the latest version at once, so the models must always describe the
schema the migrations end at (tests/test_migrations.py compares the two).

To change the schema (docs/architecture.md, "Changing the schema"): change the model, then add
one function at the end of this file (`migrate` from playhouse.migrate, fields from peewee):

    @migration
    def seat_language(migrator: SchemaMigrator) -> None:
        migrate(migrator.add_column("seat", "language", CharField(max_length=8, default="")))

Never edit or reorder a migration that has been released.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from peewee import (
    BigIntegerField,
    BooleanField,
    CharField,
    Database,
    DatabaseProxy,
    IntegerField,
    Model,
    PostgresqlDatabase,
    TextField,
)
from playhouse.migrate import SchemaMigrator, migrate

from .banlists import BanListRow
from .cards import CardName
from .hall import HallMessage
from .logs import chain_existing
from .models import MODELS, BaseModel, HeadSignature, SeatRequest, db
from .swiss import SWISS_MODELS
from .tournament import TOURNAMENT_MODELS

BASELINE = 1
LOCK_ID = 0x6475656C  # PostgreSQL advisory lock for the upgrade ("duel")

Migration = Callable[[SchemaMigrator], None]
# MIGRATIONS[i] takes a database from version BASELINE + i to BASELINE + i + 1.
MIGRATIONS: list[Migration] = []


def migration(step: Migration) -> Migration:
    """Add `step` as the next migration (the order of the file is the order they run in)."""
    MIGRATIONS.append(step)
    return step


class SchemaVersion(BaseModel):
    """The one row that says which migrations the database has had."""

    version = IntegerField()

    class Meta:
        table_name = "schema_version"


def all_models() -> list[type[Model]]:
    """Every table of the server, made by its model."""
    return [
        *MODELS,
        *TOURNAMENT_MODELS,
        BanListRow,
        HallMessage,
        *SWISS_MODELS,
        CardName,
        SchemaVersion,
    ]


def latest(steps: list[Migration] | None = None) -> int:
    """The version a database has after every migration."""
    return BASELINE + len(MIGRATIONS if steps is None else steps)


def _target(database: Database | DatabaseProxy) -> Database:
    target: Database = database.obj if isinstance(database, DatabaseProxy) else database
    return target


def _sql(database: Any, sql: str, params: tuple[Any, ...] = ()) -> Any:
    """One statement's cursor (peewee's `execute_sql` has no annotations)."""
    return database.execute_sql(sql, params)


def _exists(database: Database, table: str) -> bool:
    """Whether `table` is in the database (on PostgreSQL, as the search path finds it)."""
    if isinstance(database, PostgresqlDatabase):
        cursor = _sql(database, "SELECT to_regclass(%s)", (f'"{table}"',))
    else:
        cursor = _sql(
            database, "SELECT name FROM sqlite_master WHERE type = 'table' AND name = ?", (table,)
        )
    row = cursor.fetchone()
    return row is not None and row[0] is not None


def version_of(database: Database | DatabaseProxy) -> int | None:
    """The schema version of the database: None when it is empty."""
    target = _target(database)
    with target.connection_context():
        return _version(target)


def _version(database: Database) -> int | None:
    if _exists(database, SchemaVersion._meta.table_name):
        row = _sql(database, "SELECT version FROM schema_version").fetchone()
        return int(row[0])
    if _exists(database, "table"):
        return BASELINE
    return None


def upgrade(database: Database | DatabaseProxy, steps: list[Migration] | None = None) -> int:
    """Bring the database to the latest version and return it. Processes starting together take
    turns (a write lock on SQLite, an advisory lock on PostgreSQL); the later ones find it done.
    `steps` replaces the list of migrations (for tests)."""
    target = _target(database)
    todo = MIGRATIONS if steps is None else steps
    newest = latest(todo)
    postgres = isinstance(target, PostgresqlDatabase)
    with target.connection_context():
        with target.atomic() if postgres else target.atomic("IMMEDIATE"):
            if postgres:
                _sql(target, "SELECT pg_advisory_xact_lock(%s)", (LOCK_ID,))
            current = _version(target)
            models = all_models()
            with target.bind_ctx(models):
                if current is None:
                    target.create_tables(models)
                    SchemaVersion.create(version=newest)
                    return newest
                if current > newest:
                    raise RuntimeError(
                        f"The database is at schema version {current}, newer than this "
                        f"server's {newest}: run the newer release."
                    )
                if current == newest and _exists(target, SchemaVersion._meta.table_name):
                    return current
                migrator = SchemaMigrator.from_database(target)
                for version in range(current, newest):
                    todo[version - BASELINE](migrator)
                target.create_tables([SchemaVersion], safe=True)
                SchemaVersion.delete().execute()
                SchemaVersion.create(version=newest)
    return newest


def bind(database: Database, create: bool = True) -> None:
    """Point the models at `database` and, with `create`, bring its schema up to date."""
    db.initialize(database)
    if create:
        upgrade(database)


# -- migrations, oldest first (version 2 onwards) ---------------------------------------------


def _create(migrator: SchemaMigrator, models: list[type[Model]]) -> None:
    """Create new tables (with their indexes) on the migrator's database."""
    with migrator.database.bind_ctx(models):
        migrator.database.create_tables(models, safe=True)


@migration
def signed_heads(migrator: SchemaMigrator) -> None:
    """Version 2: the signed chain heads (`head_signature`)."""
    _create(migrator, [HeadSignature])


@migration
def hall_messages(migrator: SchemaMigrator) -> None:
    """Version 3: the organiser's message on the hall clock (`hall_message`)."""
    _create(migrator, [HallMessage])


@migration
def swiss_tournament(migrator: SchemaMigrator) -> None:
    """Version 4: the Swiss tournament's players and its log of rounds and results."""
    _create(migrator, list(SWISS_MODELS))


@migration
def seat_requests(migrator: SchemaMigrator) -> None:
    """Version 5: phones waiting for a seat (a judge's or the other seat's approval)."""
    _create(migrator, [SeatRequest])


@migration
def require_player_id(migrator: SchemaMigrator) -> None:
    """Version 6: an event can require a player ID to join its tables (R1.1)."""
    migrate(migrator.add_column("tournament", "require_player_id", BooleanField(default=False)))


@migration
def seat_moves(migrator: SchemaMigrator) -> None:
    """Version 7: who a seat request's asker is, when a seat's phone was last seen, a
    one-phone table's device and recovery code."""
    steps = [
        migrator.add_column("seat", "device", CharField(max_length=40, null=True)),
        migrator.add_column("seat", "seen_ms", BigIntegerField(null=True)),
        migrator.add_column("table", "recovery_hash", CharField(max_length=64, null=True)),
    ]
    # Version 5 makes `seat_request` from its model, which has `asker` from this version on.
    present = {c.name for c in migrator.database.get_columns("seat_request")}
    if "asker" not in present:
        steps.append(
            migrator.add_column("seat_request", "asker", CharField(max_length=64, null=True))
        )
    migrate(*steps)


@migration
def cards_issue(migrator: SchemaMigrator) -> None:
    """Version 8: which printing of an event's table cards holds (their claims are signed with
    it; re-issuing the cards voids the older ones)."""
    migrate(migrator.add_column("tournament", "cards_issue", IntegerField(default=1)))


@migration
def card_names(migrator: SchemaMigrator) -> None:
    """Version 9: card names an organiser loads by language (`card_name`)."""
    _create(migrator, [CardName])


@migration
def command_digests(migrator: SchemaMigrator) -> None:
    """Version 10: what a command id was sent with, so the same id with other content is refused
    (`id_reused`) rather than answered as a duplicate."""
    migrate(migrator.add_column("command", "digest", CharField(max_length=32, default="")))


@migration
def tournament_log_chained(migrator: SchemaMigrator) -> None:
    """Version 11: an event's tournament log is kept as a table's is: each entry hash-chained
    (`prev_hash`, `hash`) and its actor structured (JSON text, no longer a bare name of at most
    80 characters). The rows already there are carried over: chained in seq order, their
    names given the actors they stand for (`logs.chain_existing`)."""
    columns = {c.name: c.data_type.lower() for c in migrator.database.get_columns("swiss_log")}
    steps = []
    if "hash" not in columns:  # version 4 made the table from its model of the day
        steps += [
            migrator.add_column("swiss_log", "prev_hash", CharField(max_length=64, default="")),
            migrator.add_column("swiss_log", "hash", CharField(max_length=64, default="")),
        ]
    if columns["actor"] != "text":
        steps.append(migrator.alter_column_type("swiss_log", "actor", TextField()))
    if steps:
        migrate(*steps)
    chain_existing(migrator.database)
