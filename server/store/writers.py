"""The writers of the event store: how one database's transactions are taken and how a group
of decided commands is committed (`group.py`). One class per database, chosen once when the
store is made (`writer_for`); the store itself never asks which database it is on.

SQLite has one writer per file: one lock for the process, `BEGIN IMMEDIATE`, and each
command's statements in turn. PostgreSQL locks the table's row (`SELECT ... FOR UPDATE`),
stripes its in-process locks by table code, and writes a whole group in one round trip.

Each writer has its own connections outside the pool, opened with the driver's public API and
set up as the pool's are: the committer's, and the duplicate check's (used under the store's
plan lock only).
"""

from __future__ import annotations

import contextlib
import logging
import sqlite3
import threading
import zlib
from abc import ABC, abstractmethod
from collections.abc import Callable, Sequence
from typing import Any, Protocol

from peewee import Database, DatabaseProxy, IntegrityError

from .cache import Snapshot
from .models import is_sqlite

log = logging.getLogger(__name__)

# A statement with the database's placeholder where each parameter goes, and its parameters.
Statement = tuple[str, tuple[Any, ...]]

# Striped locks: bounded memory whatever the number of tables; two tables sharing a stripe only
# wait for each other's (sub-millisecond) commit.
LOCK_STRIPES = 1024

# SQLite's settings that belong to a connection rather than to the file: the writer's own
# connections copy them from a pooled one.
SQLITE_CONNECTION_PRAGMAS = (
    "synchronous",
    "foreign_keys",
    "busy_timeout",
    "journal_size_limit",
    "wal_autocheckpoint",
)


class Pending:
    """A decided command waiting for its group commit.

    `parent` is the pending command it was decided after (same table), if that one had not been
    committed yet: if the parent is not written, neither is this one."""

    __slots__ = (
        "code", "base_seq", "snap", "written", "statements", "cmd_id", "parent", "done",
        "outcome", "error", "digest",
    )  # fmt: skip

    def __init__(
        self,
        code: str,
        base_seq: int,
        snap: Snapshot,
        written: list[dict[str, Any]],
        statements: list[Statement],
        cmd_id: str | None,
        parent: Pending | None,
        digest: str = "",
    ) -> None:
        self.code = code
        self.digest = digest  # what was sent under `cmd_id` ("" for the server's own)
        self.base_seq = base_seq
        self.snap = snap
        self.written = written
        self.statements = statements
        self.cmd_id = cmd_id
        self.parent = parent
        self.done = threading.Event()
        # "ok", "stale" (decided on a state another writer moved past) or "failed" (`error`).
        self.outcome: str | None = None
        self.error: BaseException | None = None


class Stale(Exception):
    """A pending command's base is no longer the table's latest state."""


def _integrity_errors() -> tuple[type[BaseException], ...]:
    errors: list[type[BaseException]] = [sqlite3.IntegrityError, IntegrityError]
    try:
        import psycopg2
    except ImportError:
        pass
    else:
        errors.append(psycopg2.IntegrityError)
    return tuple(errors)


INTEGRITY_ERRORS = _integrity_errors()


class Writer(Protocol):
    """What the store asks of its database's writer."""

    # How the group committer runs a group's write (`GroupCommit(run=...)`).
    run: Callable[[Callable[[], Any]], Any] | None
    # Appended to the `SELECT` of the table's row inside `hold`, to lock it.
    for_update: str

    def lock(self, code: str) -> threading.Lock:
        """The in-process lock of a table."""
        ...

    def atomic(self) -> Any:
        """A transaction (peewee's, on the pooled connection) that holds the table."""
        ...

    def write_group(self, group: Sequence[Pending]) -> None:
        """Commit `group`; each command's `outcome` says what became of it."""
        ...

    def answered(self, table_id: int, cmd_id: str) -> tuple[int, str] | None:
        """The seq a stored command answered and its digest, or None."""
        ...

    def close(self) -> None: ...


class _Writer(ABC):
    """What both writers share: the group commit with its one-by-one fallback, and the
    connections of their own."""

    for_update = ""

    def __init__(self, database: DatabaseProxy | Database) -> None:
        self.db = database
        # None: the group committer's default (`group.blocking_runner`, a thread under gevent).
        self.run: Callable[[Callable[[], Any]], Any] | None = None
        self._conn: Any = None  # the committer's own connection
        self._reader: Any = None  # the duplicate check's, under the store's plan lock

    @abstractmethod
    def connect(self) -> Any:
        """A connection outside the pool, set up as the pool's are."""

    def begin(self) -> str:
        return "BEGIN"

    def _writer(self) -> Any:
        if self._conn is None:
            self._conn = self.connect()
        return self._conn

    def drop_writer(self) -> None:
        conn, self._conn = self._conn, None
        if conn is not None:
            with contextlib.suppress(Exception):
                conn.close()

    def close(self) -> None:
        self.drop_writer()
        reader, self._reader = self._reader, None
        if reader is not None:
            with contextlib.suppress(Exception):
                reader.close()

    def answered(self, table_id: int, cmd_id: str) -> tuple[int, str] | None:
        """The seq a stored command answered and its digest, or None. Called under the plan
        lock only, so one connection of its own serves every call (a pooled one cost more
        than the query)."""
        if self._reader is None:
            self._reader = self.connect()
        mark = self.db.param
        cursor = self._reader.cursor()
        try:
            cursor.execute(
                f"SELECT seq, digest FROM command WHERE table_id = {mark} AND cmd_id = {mark}",
                (table_id, cmd_id),
            )
            found = cursor.fetchone()
        except Exception:
            reader, self._reader = self._reader, None
            reader.close()
            raise
        finally:
            cursor.close()
        return None if found is None else (int(found[0]), str(found[1] or ""))

    def write_group(self, group: Sequence[Pending]) -> None:
        """Write `group` in one transaction; if that fails, each command in its own."""
        try:
            self.write_together(group)
            return
        except Stale:
            pass  # some command's base moved on: find which, one by one
        except Exception:
            log.warning("group commit of %d commands failed; writing them one by one", len(group))
            self.drop_writer()
        for pending in group:
            pending.outcome = None
        for pending in group:
            try:
                self.write_all([pending])
            except INTEGRITY_ERRORS:
                # Another writer stored the same command id (a repeat sent to another process).
                pending.outcome = "stale"
            except Exception as exc:
                log.exception("command at table %s could not be stored", pending.code)
                pending.outcome, pending.error = "failed", exc
                self.drop_writer()

    def write_together(self, group: Sequence[Pending]) -> None:
        self.write_all(group)

    def write_all(self, group: Sequence[Pending]) -> None:
        """`group` in one transaction, statement by statement: a command whose update of its
        table's seq matches no row (its base moved on) is left out, as "stale"."""
        conn = self._writer()
        cursor = conn.cursor()
        cursor.execute(self.begin())
        try:
            for pending in group:
                if pending.parent is not None and pending.parent.outcome != "ok":
                    pending.outcome = "stale"
                    continue
                (sql, params), *rest = pending.statements
                cursor.execute(sql, params)
                if cursor.rowcount != 1:
                    pending.outcome = "stale"
                    continue
                for sql, params in rest:
                    cursor.execute(sql, params)
                pending.outcome = "ok"
            cursor.execute("COMMIT")
        except BaseException:
            for pending in group:
                pending.outcome = None
            with contextlib.suppress(Exception):
                cursor.execute("ROLLBACK")
            raise


class SqliteWriter(_Writer):
    """SQLite: one writer per file."""

    def __init__(self, database: DatabaseProxy | Database) -> None:
        super().__init__(database)
        # SQLite has one writer per file anyway. One lock for the process also keeps a green
        # thread from waiting inside SQLite's busy handler (which blocks the whole worker) on
        # a transaction that another green thread of the same worker holds.
        self._lock = threading.Lock()

    def lock(self, code: str) -> threading.Lock:
        return self._lock

    def atomic(self) -> Any:
        # Take the write lock first, so the read that follows is the latest committed state.
        return self.db.atomic(lock_type="IMMEDIATE")

    def begin(self) -> str:
        return "BEGIN IMMEDIATE"

    def connect(self) -> Any:
        target: Any = self.db.obj if isinstance(self.db, DatabaseProxy) else self.db
        values = self._pool_pragmas()
        params = {**target.connect_params, "check_same_thread": False}
        conn = sqlite3.connect(target.database, isolation_level=None, **params)
        try:
            for name, value in zip(SQLITE_CONNECTION_PRAGMAS, values, strict=True):
                conn.execute(f"PRAGMA {name} = {int(value)}")
        except Exception:
            conn.close()
            raise
        return conn

    def _pool_pragmas(self) -> list[Any]:
        """The per-connection pragmas of a pooled connection (this thread's, if it holds one:
        a nested `connection_context` would close it on the way out)."""

        def read() -> list[Any]:
            return [
                self.db.execute_sql(f"PRAGMA {name}").fetchone()[0]
                for name in SQLITE_CONNECTION_PRAGMAS
            ]

        if not self.db.is_closed():
            return read()
        with self.db.connection_context():
            return read()


class PostgresWriter(_Writer):
    """PostgreSQL: row locks, striped in-process locks, and a group in one round trip."""

    for_update = " FOR UPDATE"

    def __init__(self, database: DatabaseProxy | Database) -> None:
        super().__init__(database)
        self.run = _call_here  # psycogreen makes the driver cooperative: no thread needed
        self._locks = [threading.Lock() for _ in range(LOCK_STRIPES)]

    def lock(self, code: str) -> threading.Lock:
        return self._locks[zlib.crc32(code.encode("utf-8")) % LOCK_STRIPES]

    def atomic(self) -> Any:
        return self.db.atomic()

    def connect(self) -> Any:
        import psycopg2

        target: Any = self.db.obj if isinstance(self.db, DatabaseProxy) else self.db
        conn = psycopg2.connect(dbname=target.database, **target.connect_params)
        conn.autocommit = True  # as peewee's: the writer says BEGIN and COMMIT itself
        return conn

    def write_together(self, group: Sequence[Pending]) -> None:
        """The group's statements in one round trip, then COMMIT.

        Each round trip of the committer's green thread waits for a turn of the busy loop:
        statement by statement, a group of a few dozen commands took hundreds of milliseconds
        at 2,500 tables. Here every table's seq after the group is read back in the same trip;
        unless each is what the group expects (a command's base had moved on, so its update
        matched no row), the group is rolled back and written one command at a time."""
        conn = self._writer()
        cursor = conn.cursor()
        parts, expected, written = ["BEGIN"], {}, []
        for pending in group:
            parent = pending.parent
            if parent is not None and parent.outcome not in (None, "ok"):
                pending.outcome = "stale"  # decided after a command of an earlier group that
                continue  # was not written
            parts += [cursor.mogrify(sql, params).decode() for sql, params in pending.statements]
            expected[pending.snap.table_id] = pending.snap.seq
            written.append(pending)
        if not written:
            return
        ids = ", ".join(str(int(table_id)) for table_id in expected)
        parts.append(f'SELECT id, seq FROM "table" WHERE id IN ({ids})')
        try:
            cursor.execute(";\n".join(parts))
            found = dict(cursor.fetchall())
        except BaseException:
            with contextlib.suppress(Exception):
                cursor.execute("ROLLBACK")
            raise
        if found != expected:
            cursor.execute("ROLLBACK")
            for pending in group:
                pending.outcome = None
            raise Stale
        cursor.execute("COMMIT")
        for pending in written:
            pending.outcome = "ok"


def _call_here(call: Callable[[], Any]) -> Any:
    return call()


def writer_for(database: DatabaseProxy | Database) -> SqliteWriter | PostgresWriter:
    """The writer of the (proxied) database, chosen once."""
    return SqliteWriter(database) if is_sqlite(database) else PostgresWriter(database)
