"""The event store: every table's append-only, hash-chained log, and the commands it answered.

Commands for one table are decided one at a time, in memory: under one lock in this process, the
store takes the table's latest state (the one a command still waiting for its commit left, or the
cached committed one, or the database's), asks the rules to decide, and chains the new events.
The rows then wait for a group commit (`group.py`) that writes every waiting command's events,
command id and the table's new sequence number in one transaction. A call returns only after
that commit.

The table's sequence number in the database is the check across processes: a command's update
of it names the number it was decided on (`... WHERE seq = <base>`), so a command decided on a
state another process has moved past writes nothing, and is decided again on the newer state.
Creating a table, and a command that went stale a few times over (several processes writing
one table), take the older path: the database's own lock (SQLite: BEGIN IMMEDIATE;
PostgreSQL: SELECT ... FOR UPDATE on the table's row) around deciding and writing.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import logging
import secrets
import sqlite3
import threading
import zlib
from collections import OrderedDict
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from typing import Any

from peewee import DatabaseProxy, IntegrityError
from playhouse.pool import PooledDatabase

from server.errors import AppError
from server.jsontext import compact_encoder, string_literal
from server.rules import (
    EMPTY,
    Actor,
    Event,
    RuleSet,
    TableState,
    apply,
    create_events,
    decide,
    next_due_ms,
)
from server.rules.base import SYSTEM_ACTOR

from .group import GroupCommit
from .models import EventRow, HeadSignature, SeatRequest, SeatRow, TableRow, is_sqlite
from .signing import SIGN_AT

log = logging.getLogger(__name__)

GENESIS = "0" * 64
CODE_ALPHABET = "23456789ABCDEFGHJKMNPQRSTUVWXYZ"
CODE_LENGTH = 6
SEATS = ("A", "B")
# Striped locks: bounded memory whatever the number of tables; two tables sharing a stripe only
# wait for each other's (sub-millisecond) commit.
LOCK_STRIPES = 1024


# Fields some viewers may not see (`server.rules.view`): an event carrying one also carries a
# random 128-bit salt, disclosed only with the value, so its public hash cannot be matched by
# hashing the few values it could hold.
SECRET_FIELDS: dict[str, tuple[str, ...]] = {
    "rps.picked": ("hand",),
    "deck.registered": ("cards",),
    "side.exchanged": ("cards", "current"),
}
SALT = "salt"


def salted(raw: dict[str, Any]) -> dict[str, Any]:
    """`raw` with a fresh salt in its data when it carries a secret field."""
    fields = SECRET_FIELDS.get(raw["type"], ())
    if any(k in raw["data"] for k in fields) and SALT not in raw["data"]:
        raw["data"][SALT] = secrets.token_hex(16)
    return raw


def canonical(code: str, seq: int, type_: str, data: Any, actor: Any, at_ms: int) -> str:
    """The exact text an event's hash covers."""
    return json.dumps(
        {"actor": actor, "at_ms": at_ms, "code": code, "data": data, "seq": seq, "type": type_},
        sort_keys=True,
        separators=(",", ":"),
        ensure_ascii=False,
    )


def chain_hash(
    prev_hash: str, code: str, seq: int, type_: str, data: Any, actor: Any, at_ms: int
) -> str:
    """sha256(prev_hash + canonical JSON of the event), hex."""
    return _sha256(prev_hash + canonical(code, seq, type_, data, actor, at_ms))


def _sha256(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def canonical_of(code: str, seq: int, type_: str, data: str, actor: str, at_ms: int) -> str:
    """`canonical(...)` from `data` and `actor` already in canonical JSON (the same text)."""
    return (
        f'{{"actor":{actor},"at_ms":{_number(at_ms)},"code":{string_literal(code)},'
        f'"data":{data},"seq":{_number(seq)},"type":{string_literal(type_)}}}'
    )


def hash_token(token: str) -> str:
    """The stored form of a seat token."""
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


_dumps = compact_encoder(sort_keys=True)


def _number(value: int) -> str:
    return str(value) if type(value) is int else _dumps(value)


def envelope(row: EventRow) -> dict[str, Any]:
    """The wire form of a stored event."""
    return {
        "seq": row.seq,
        "type": row.type,
        "data": json.loads(row.data),
        "actor": json.loads(row.actor),
        "at_ms": row.at_ms,
    }


def _event_of(env: dict[str, Any]) -> Event:
    return Event.from_dict(
        {"type": env["type"], "data": env["data"], "at_ms": env["at_ms"], "actor": env["actor"]}
    )


@dataclass(frozen=True)
class Snapshot:
    """A table's state as of sequence number `seq`, and the hash of that event."""

    seq: int
    state: TableState
    last_hash: str
    # The last few envelopes up to `seq`, so broadcasts need not read them back.
    recent: tuple[dict[str, Any], ...] = ()
    # Encoded views of this state by audience, so every phone watching the table as the same
    # viewer is sent the same text, encoded once (`server.api.ws`).
    encoded: dict[Any, Any] = field(default_factory=dict, compare=False, repr=False)
    # The table's row id, so a command on a cached table needs no read to find it.
    table_id: int = 0
    # One dict handed from each snapshot of a table to the next: what the edge derives from a
    # part of the state that most commands leave as it was (the encoded ledger, `server.api.ws`).
    memo: dict[str, Any] = field(default_factory=dict, compare=False, repr=False)

    def since(self, seq: int) -> list[dict[str, Any]] | None:
        """The envelopes after `seq` from memory, or None when they are not all here."""
        if seq >= self.seq:
            return []
        if not self.recent or self.recent[0]["seq"] > seq + 1:
            return None
        # `recent` holds consecutive seqs.
        return list(self.recent[seq + 1 - self.recent[0]["seq"] :])


RECENT = 64


@dataclass(frozen=True)
class Appended:
    """What a command wrote: the table's sequence number after it, and the new envelopes."""

    seq: int
    events: list[dict[str, Any]] = field(default_factory=list)
    duplicate: bool = False


@dataclass(frozen=True)
class Joined:
    """A seat taken by the HTTP join: the seat, its token (shown once) and the new seq."""

    seat: str
    token: str
    seq: int


@dataclass(frozen=True)
class Verification:
    """The result of checking a table's hash chain; `seq` names the first broken link."""

    ok: bool
    count: int
    seq: int | None = None
    problem: str | None = None


class _LRU:
    """A small thread-safe LRU map of table code -> Snapshot."""

    def __init__(self, size: int) -> None:
        self._size = max(1, size)
        self._items: OrderedDict[str, Snapshot] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, code: str) -> Snapshot | None:
        with self._lock:
            snap = self._items.get(code)
            if snap is not None:
                self._items.move_to_end(code)
            return snap

    def offer(self, code: str, snap: Snapshot) -> None:
        """Keep `snap` unless a newer snapshot is already cached."""
        with self._lock:
            old = self._items.get(code)
            if old is None or old.seq <= snap.seq:
                self._items[code] = snap
            self._items.move_to_end(code)
            while len(self._items) > self._size:
                self._items.popitem(last=False)

    def codes(self) -> list[str]:
        with self._lock:
            return list(self._items)

    def drop(self, code: str) -> None:
        with self._lock:
            self._items.pop(code, None)

    def clear(self) -> None:
        with self._lock:
            self._items.clear()


class _Tx:
    """The open transaction of one table inside `EventStore._transaction`."""

    def __init__(self, table: TableRow, snap: Snapshot) -> None:
        self.table = table
        self.snap = snap
        self.written: list[dict[str, Any]] = []


# A statement with `{}` where each parameter goes, and its parameters.
Statement = tuple[str, tuple[Any, ...]]

# Tries on the group commit before a command holds its table (see `_decide`).
OPTIMISTIC = 3


class _Pending:
    """A decided command waiting for its group commit.

    `parent` is the pending command it was decided after (same table), if that one had not been
    committed yet: if the parent is not written, neither is this one."""

    __slots__ = (
        "code", "base_seq", "snap", "written", "statements", "cmd_id", "parent", "done",
        "outcome", "error",
    )  # fmt: skip

    def __init__(
        self,
        code: str,
        base_seq: int,
        snap: Snapshot,
        written: list[dict[str, Any]],
        statements: list[Statement],
        cmd_id: str | None,
        parent: _Pending | None,
    ) -> None:
        self.code = code
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


class _Stale(Exception):
    """A pending command's base is no longer the table's latest state."""


class EventStore:
    """Tables, seats and hash-chained event logs on the proxied peewee database."""

    def __init__(
        self,
        database: DatabaseProxy,
        cache_size: int = 12000,
        randbelow: Callable[[int], int] = secrets.randbelow,
    ) -> None:
        self.db = database
        self.randbelow = randbelow
        self._cache = _LRU(cache_size)
        self._locks = [threading.Lock() for _ in range(LOCK_STRIPES)]
        # SQLite has one writer per file anyway. One lock for the process also keeps a green
        # thread from waiting inside SQLite's busy handler (which blocks the whole worker) on
        # a transaction that another green thread of the same worker holds.
        self._sqlite_lock = threading.Lock()
        # Deciding: one command at a time in this process, in memory (no I/O but a cache miss).
        self._plan_lock = threading.Lock()
        self._pending: dict[str, _Pending] = {}
        self._pending_cmds: dict[tuple[str, str], _Pending] = {}
        self._group: GroupCommit[_Pending] = GroupCommit(
            self._write_group,
            self._settle,
            lambda pending: pending.done,
            run=None if is_sqlite(database) else (lambda call: call()),
        )
        self._conn: Any = None  # the committer's own connection
        self._reader: Any = None  # the duplicate check's, under the plan lock
        # The head signer (`server.store.signing.Signer`): set by the app; None signs nothing.
        self.signer: Any = None
        # Told (code, seq) after a tamper alarm was written, so the judges' sockets hear it.
        self.on_alarm: Callable[[str, int], None] | None = None
        self._audit_at = 0

    def close(self) -> None:
        """Stop the group committer (after what is queued)."""
        self._group.close()

    # -- reading -------------------------------------------------------------------------------

    def _table(self, code: str) -> TableRow:
        table = TableRow.get_or_none(TableRow.code == code)
        if table is None:
            raise AppError("no_such_table", "No table has this code.", status=404)
        return table

    def _catch_up(self, table: TableRow) -> Snapshot:
        """The state at `table.seq`, from the cache plus any events written since."""
        snap = self._cache.get(table.code)
        if snap is None or snap.seq > table.seq:
            snap = Snapshot(0, EMPTY, GENESIS)
        if snap.seq < table.seq:
            state, last_seq, last_hash = snap.state, snap.seq, snap.last_hash
            recent = list(snap.recent)
            rows = (
                EventRow.select()
                .where((EventRow.table == table.id) & (EventRow.seq > snap.seq))
                .order_by(EventRow.seq)
            )
            for row in rows:
                env = envelope(row)
                state = apply(state, _event_of(env))
                last_seq, last_hash = row.seq, row.hash
                recent.append(env)
            snap = Snapshot(last_seq, state, last_hash, tuple(recent[-RECENT:]), table_id=table.id)
            self._cache.offer(table.code, snap)
        elif snap.table_id != table.id:
            snap = replace(snap, table_id=table.id)
        return snap

    def snapshot(self, code: str) -> Snapshot:
        """The committed state of a table now."""
        with self.db.connection_context():
            return self._catch_up(self._table(code))

    def fresh(self, code: str, at_least: int = 0) -> Snapshot:
        """The state at `at_least` or later: from memory when this process holds it."""
        snap = self._cache.get(code)
        return snap if snap is not None and snap.seq >= at_least else self.snapshot(code)

    def update_since(
        self, code: str, since: int, at_least: int = 0, limit: int = 500
    ) -> tuple[Snapshot, list[dict[str, Any]]]:
        """The state now and the envelopes after `since` (none when more than `limit`).

        When this process already holds the table at `at_least` or later (it wrote the events,
        or read them for another socket), nothing is read from the database."""
        snap = self.fresh(code, at_least)
        if snap.seq - since > limit:
            return snap, []
        events = snap.since(since)
        if events is None:
            events = self.events_since(code, since, limit=snap.seq - since)
        return snap, events

    def exists(self, code: str) -> bool:
        """Tell whether a table has this code."""
        with self.db.connection_context():
            return TableRow.select().where(TableRow.code == code).exists()

    def events_since(self, code: str, since: int, limit: int | None = None) -> list[dict[str, Any]]:
        """Envelopes with seq > since, in order (at most `limit`)."""
        with self.db.connection_context():
            table = self._table(code)
            query = (
                EventRow.select()
                .where((EventRow.table == table.id) & (EventRow.seq > since))
                .order_by(EventRow.seq)
            )
            if limit is not None:
                query = query.limit(limit)
            return [envelope(row) for row in query]

    def log(self, code: str) -> list[dict[str, Any]]:
        """The whole log: envelopes with their chain hashes."""
        with self.db.connection_context():
            table = self._table(code)
            rows = EventRow.select().where(EventRow.table == table.id).order_by(EventRow.seq)
            return [{**envelope(r), "prev_hash": r.prev_hash, "hash": r.hash} for r in rows]

    def seat_actor(self, code: str, token: str) -> Actor | None:
        """The seat actor a token belongs to at this table, or None."""
        with self.db.connection_context():
            row = (
                SeatRow.select()
                .join(TableRow)
                .where((TableRow.code == code) & (SeatRow.token_hash == hash_token(token)))
                .first()
            )
            if row is None:
                return None
            return Actor(role="seat", seat=row.seat, name=row.name)

    def due(self, now_ms: int, limit: int = 200) -> list[tuple[str, int]]:
        """Tables whose timer deadline has passed: (code, next_due_ms), oldest first."""
        # Asked four times a second: hand-written, as peewee's query building cost more than
        # the (indexed) query.
        with self.db.connection_context():
            cursor = self._sql(
                'SELECT code, next_due_ms FROM "table" WHERE next_due_ms <= {} '
                "ORDER BY next_due_ms LIMIT {}",
                now_ms,
                limit,
            )
            return [(code, due) for code, due in cursor.fetchall()]

    def verify(self, code: str) -> Verification:
        """Recompute the hash chain and name the first link that does not hold."""
        with self.db.connection_context():
            table = self._table(code)
            rows = EventRow.select().where(EventRow.table == table.id).order_by(EventRow.seq)
            prev, count = GENESIS, 0
            hashes: dict[int, str] = {}
            for expected, row in enumerate(rows, start=1):
                count += 1
                if row.seq != expected:
                    return Verification(False, count, expected, "missing event")
                if row.prev_hash != prev:
                    return Verification(False, count, row.seq, "prev_hash does not match")
                try:
                    data, actor = json.loads(row.data), json.loads(row.actor)
                except ValueError:
                    return Verification(False, count, row.seq, "unreadable event")
                digest = chain_hash(prev, code, row.seq, row.type, data, actor, row.at_ms)
                if digest != row.hash:
                    return Verification(False, count, row.seq, "hash does not match")
                prev = hashes[row.seq] = row.hash
            if count != table.seq:
                return Verification(False, count, count + 1, "log shorter than the table's seq")
            return self._verify_signatures(table, hashes, count)

    def _verify_signatures(
        self, table: TableRow, hashes: dict[int, str], count: int
    ) -> Verification:
        """Each signed head must be the log's hash at its seq, signed by the server's key."""
        rows = (
            HeadSignature.select()
            .where(HeadSignature.table_id == table.id)
            .order_by(HeadSignature.seq)
        )
        for sig in rows:
            if hashes.get(sig.seq) != sig.hash:
                return Verification(False, count, sig.seq, "the signed head does not match the log")
            if self.signer is None:
                return Verification(False, count, sig.seq, "no key to check the signed heads")
            if not self.signer.check(table.code, sig.seq, sig.hash, sig.signature):
                return Verification(False, count, sig.seq, "bad signature on the head")
        return Verification(True, count)

    # -- writing -------------------------------------------------------------------------------

    def _lock(self, code: str) -> threading.Lock:
        if is_sqlite(self.db):
            return self._sqlite_lock
        return self._locks[zlib.crc32(code.encode("utf-8")) % LOCK_STRIPES]

    @contextmanager
    def _transaction(self, code: str) -> Iterator[_Tx]:
        """Hold the table (in this process and across processes) inside one transaction."""
        with self._lock(code), self.db.connection_context():
            if is_sqlite(self.db):
                # Take the write lock first, so the read below is the latest committed state.
                atomic = self.db.atomic(lock_type="IMMEDIATE")
            else:
                atomic = self.db.atomic()
            with atomic:
                # Hand-written SQL on the hot path: building it with peewee's query objects
                # cost more CPU than the database itself.
                lock = "" if is_sqlite(self.db) else " FOR UPDATE"
                found = self._sql(
                    f'SELECT id, seq, created_ms FROM "table" WHERE code = {{}}{lock}', code
                ).fetchone()
                if found is None:
                    raise AppError("no_such_table", "No table has this code.", status=404)
                table = TableRow(id=found[0], code=code, seq=found[1], created_ms=found[2])
                tx = _Tx(table, self._catch_up(table))
                yield tx
            if tx.written:
                self._cache.offer(code, tx.snap)

    def _sql(self, template: str, *params: Any) -> Any:
        """Run `template` with the database's placeholder in each `{}`; returns the cursor."""
        mark = self.db.param
        return self.db.execute_sql(template.format(*([mark] * len(params))), params)

    def _chain(
        self, code: str, snap: Snapshot, events: list[Event], cmd_id: str | None
    ) -> tuple[Snapshot, list[dict[str, Any]], list[Statement]]:
        """Chain and apply `events` after `snap`: the new snapshot, the new envelopes, and the
        statements that store them (the first moves the table's seq, from `snap.seq` only)."""
        seq, state, prev = snap.seq, snap.state, snap.last_hash
        rows: list[Any] = []
        written = []
        for event in events:
            seq += 1
            # Round-trip through JSON so the cached state is exactly what a replay would give.
            raw = salted(json.loads(_dumps(event.to_dict())))
            data, actor = _dumps(raw["data"]), _dumps(raw["actor"])
            digest = _sha256(prev + canonical_of(code, seq, raw["type"], data, actor, raw["at_ms"]))
            rows += (snap.table_id, seq, raw["type"], data, actor, raw["at_ms"], prev, digest)
            state = apply(state, _event_of(raw))
            written.append(
                {
                    "seq": seq,
                    "type": raw["type"],
                    "data": raw["data"],
                    "actor": raw["actor"],
                    "at_ms": raw["at_ms"],
                }
            )
            prev = digest
        mark = self.db.param
        statements: list[Statement] = [
            (
                f'UPDATE "table" SET seq = {mark}, next_due_ms = {mark} '
                f"WHERE id = {mark} AND seq = {mark}",
                (seq, next_due_ms(state), snap.table_id, snap.seq),
            )
        ]
        if rows:
            values = ", ".join([f"({', '.join([mark] * 8)})"] * len(events))
            statements.append(
                (
                    "INSERT INTO event (table_id, seq, type, data, actor, at_ms, prev_hash, hash) "
                    f"VALUES {values}",
                    tuple(rows),
                )
            )
        if cmd_id is not None:
            statements.append(
                (
                    f"INSERT INTO command (table_id, cmd_id, seq) VALUES ({mark}, {mark}, {mark})",
                    (snap.table_id, cmd_id, seq),
                )
            )
        recent = (snap.recent + tuple(written))[-RECENT:]
        new = Snapshot(seq, state, prev, recent, table_id=snap.table_id, memo=snap.memo)
        return new, written, statements

    def _write(self, tx: _Tx, events: list[Event], cmd_id: str | None) -> None:
        """Store `events` inside `_transaction` (which holds the table)."""
        tx.snap, written, statements = self._chain(tx.table.code, tx.snap, events, cmd_id)
        for sql, params in statements:
            self.db.execute_sql(sql, params)
        tx.written += written

    # -- deciding and the group commit ---------------------------------------------------------

    def _decide(
        self, code: str, cmd_id: str | None, decide_on: Callable[[Snapshot], Decided]
    ) -> tuple[_Pending | _Answered, bool]:
        """Decide one command on the table's latest state and wait for its group commit.

        Returns the committed command and whether it is an earlier one with the same `cmd_id`
        (the answer to a repeat). A command decided on a state that another writer moved past
        is decided again on the newer one; after a few such tries it takes the older path and
        holds the table while it decides, which always gets through."""
        for _ in range(OPTIMISTIC):
            with self._plan_lock:
                pending, repeat = self._plan(code, cmd_id, decide_on)
            pending.done.wait()
            if pending.outcome == "ok":
                return pending, repeat
            if pending.outcome == "failed" and not repeat:
                assert pending.error is not None
                raise pending.error
        # Contended (other processes writing the same table): hold the table, then decide.
        return self._decide_holding(code, cmd_id, decide_on)

    def _decide_holding(
        self, code: str, cmd_id: str | None, decide_on: Callable[[Snapshot], Decided]
    ) -> tuple[_Pending | _Answered, bool]:
        try:
            with self._transaction(code) as tx:
                if cmd_id is not None:
                    done = self._sql(
                        "SELECT seq FROM command WHERE table_id = {} AND cmd_id = {}",
                        tx.table.id,
                        cmd_id,
                    ).fetchone()
                    if done is not None:
                        return _Answered(code, done[0]), True
                base = tx.snap.seq
                events, extra = decide_on(tx.snap)
                self._write(tx, events, cmd_id)
                for sql, params in extra:
                    self.db.execute_sql(sql, params)
        except IntegrityError:
            # Only another writer's identical cmd_id can get here: answer as a duplicate.
            if cmd_id is None:
                raise
            with self.db.connection_context():
                found = self.db.execute_sql(
                    'SELECT c.seq FROM command c JOIN "table" t ON t.id = c.table_id '
                    f"WHERE t.code = {self.db.param} AND c.cmd_id = {self.db.param}",
                    (code, cmd_id),
                ).fetchone()
            if found is None:
                raise
            return _Answered(code, found[0]), True
        stored = _Pending(code, base, tx.snap, tx.written, [], cmd_id, None)
        stored.outcome = "ok"
        return stored, False

    def _plan(
        self, code: str, cmd_id: str | None, decide_on: Callable[[Snapshot], Decided]
    ) -> tuple[_Pending | _Answered, bool]:
        if cmd_id is not None:
            waiting = self._pending_cmds.get((code, cmd_id))
            if waiting is not None:
                return waiting, True
        parent = self._pending.get(code)
        if parent is not None:
            snap = parent.snap
        else:
            cached = self._cache.get(code)
            snap = cached if cached is not None and cached.table_id else self.snapshot(code)
        if cmd_id is not None:
            done = self._answered(snap.table_id, cmd_id)
            if done is not None:
                return _Answered(code, done), True
        events, extra = decide_on(snap)
        new, written, statements = self._chain(code, snap, events, cmd_id)
        pending = _Pending(code, snap.seq, new, written, statements + extra, cmd_id, parent)
        self._pending[code] = pending
        if cmd_id is not None:
            self._pending_cmds[(code, cmd_id)] = pending
        self._group.submit(pending)
        return pending, False

    def _answered(self, table_id: int, cmd_id: str) -> int | None:
        """The seq a stored command answered, or None. Called under the plan lock only, so
        one connection of its own serves every call (a pooled one cost more than the query)."""
        if self._reader is None:
            self._reader = self._connect()
        mark = self.db.param
        cursor = self._reader.cursor()
        try:
            cursor.execute(
                f"SELECT seq FROM command WHERE table_id = {mark} AND cmd_id = {mark}",
                (table_id, cmd_id),
            )
            found = cursor.fetchone()
        except Exception:
            reader, self._reader = self._reader, None
            reader.close()
            raise
        finally:
            cursor.close()
        return None if found is None else int(found[0])

    def _connect(self) -> Any:
        """A connection outside the pool, set up as the pool's are (SQLite's pragmas)."""
        target: Any = self.db.obj
        pooled = isinstance(target, PooledDatabase)
        base: Any = super(PooledDatabase, target) if pooled else target
        return base._connect()

    def _writer(self) -> Any:
        """The committer's own connection."""
        if self._conn is None:
            self._conn = self._connect()
        return self._conn

    def _write_group(self, group: Sequence[_Pending]) -> None:
        """Write `group` in one transaction; if that fails, each command in its own."""
        try:
            self._write_together(group)
            return
        except _Stale:
            pass  # some command's base moved on: find which, one by one
        except Exception:
            log.warning("group commit of %d commands failed; writing them one by one", len(group))
            self._drop_writer()
        for pending in group:
            pending.outcome = None
        for pending in group:
            try:
                self._write_all([pending])
            except _INTEGRITY_ERRORS:
                # Another writer stored the same command id (a repeat sent to another process).
                pending.outcome = "stale"
            except Exception as exc:
                log.exception("command at table %s could not be stored", pending.code)
                pending.outcome, pending.error = "failed", exc
                self._drop_writer()

    def _write_together(self, group: Sequence[_Pending]) -> None:
        if is_sqlite(self.db):
            self._write_all(group)
        else:
            self._write_in_one_trip(group)

    def _write_in_one_trip(self, group: Sequence[_Pending]) -> None:
        """PostgreSQL: the group's statements in one round trip, then COMMIT.

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
            raise _Stale
        cursor.execute("COMMIT")
        for pending in written:
            pending.outcome = "ok"

    def _write_all(self, group: Sequence[_Pending]) -> None:
        conn = self._writer()
        cursor = conn.cursor()
        cursor.execute("BEGIN IMMEDIATE" if is_sqlite(self.db) else "BEGIN")
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
            try:
                cursor.execute("ROLLBACK")
            except Exception:
                pass
            raise

    def _drop_writer(self) -> None:
        conn, self._conn = self._conn, None
        if conn is not None:
            try:
                conn.close()
            except Exception:
                pass

    def _settle(self, group: Sequence[_Pending]) -> None:
        """After a group's commit: committed states to the cache, the rest forgotten."""
        with self._plan_lock:
            for pending in group:
                code = pending.code
                if pending.outcome is None:
                    pending.outcome = "failed"
                    pending.error = AppError("internal", "The command could not be stored.")
                if pending.cmd_id is not None:
                    if self._pending_cmds.get((code, pending.cmd_id)) is pending:
                        del self._pending_cmds[(code, pending.cmd_id)]
                latest = self._pending.get(code)
                if pending.outcome == "ok":
                    self._cache.offer(code, pending.snap)
                    if latest is pending:
                        del self._pending[code]
                    continue
                # Not written: neither is anything decided after it; decide afresh from the
                # database (another writer may have moved the table on).
                self._cache.drop(code)
                if latest is not None and _descends(latest, pending):
                    del self._pending[code]

    def create_table(self, ruleset: RuleSet, now_ms: int) -> str:
        """Make a new table with a fresh code and write its first events."""
        for _ in range(8):
            code = "".join(secrets.choice(CODE_ALPHABET) for _ in range(CODE_LENGTH))
            try:
                with self.db.connection_context(), self.db.atomic():
                    TableRow.create(code=code, created_ms=now_ms, ruleset=ruleset.to_dict())
            except IntegrityError:
                continue
            with self._transaction(code) as tx:
                self._write(tx, create_events(code, ruleset, now_ms), None)
            return code
        raise AppError("busy", "Could not find a free table code.", status=503)

    def append(
        self,
        code: str,
        cmd: str,
        args: dict[str, Any],
        actor: Actor,
        cmd_id: str | None,
        now_ms: int,
    ) -> Appended:
        """Decide and store one command; a repeated `cmd_id` returns the original answer."""

        def decide_on(snap: Snapshot) -> Decided:
            return decide(snap.state, cmd, args, actor, now_ms, self.randbelow), []

        pending, repeat = self._decide(code, cmd_id, decide_on)
        if repeat:
            return Appended(pending.snap.seq, [], duplicate=True)
        if self.signer is not None and any(e["type"] in SIGN_AT for e in pending.written):
            self.sign_head(code, pending.snap, now_ms)
        return Appended(pending.snap.seq, list(pending.written))

    # -- signed heads and tamper alarms -------------------------------------------------------

    def sign_head(self, code: str, snap: Snapshot, now_ms: int) -> dict[str, Any]:
        """Sign and store the chain head of `snap` (`server.store.signing`)."""
        signature = self.signer.sign(code, snap.seq, snap.last_hash)
        with self.db.connection_context():
            table_id = snap.table_id or self._table(code).id
            with contextlib.suppress(*_INTEGRITY_ERRORS):  # signed already (a retry)
                HeadSignature.create(
                    table_id=table_id,
                    seq=snap.seq,
                    hash=snap.last_hash,
                    signature=signature,
                    signed_ms=now_ms,
                )
        return {"seq": snap.seq, "hash": snap.last_hash, "signature": signature}

    def audit_some(self, count: int, now_ms: int) -> int:
        """Audit the next `count` cached tables (round robin); how many alarms."""
        codes = self._cache.codes()
        if not codes:
            return 0
        start = self._audit_at % len(codes)
        chosen = (codes[start:] + codes[:start])[:count]
        self._audit_at = start + len(chosen)
        return sum(1 for code in chosen if self.audit(code, now_ms))

    def signed_heads(self, code: str) -> list[dict[str, Any]]:
        """The table's signed heads, oldest first."""
        with self.db.connection_context():
            table = self._table(code)
            rows = (
                HeadSignature.select()
                .where(HeadSignature.table_id == table.id)
                .order_by(HeadSignature.seq)
            )
            return [
                {"seq": r.seq, "hash": r.hash, "signature": r.signature, "signed_ms": r.signed_ms}
                for r in rows
            ]

    def audit(self, code: str, now_ms: int) -> str | None:
        """Compare this process's cached head with the log's hash at the same seq: a
        difference means the log was changed under the cache. Then the cache is dropped, a
        judge call is written to the table's log, and the problem is returned."""
        snap = self._cache.get(code)
        if snap is None or snap.seq == 0 or not snap.table_id:
            return None
        with self.db.connection_context():
            found = self._sql(
                "SELECT hash FROM event WHERE table_id = {} AND seq = {}", snap.table_id, snap.seq
            ).fetchone()
        stored = found[0] if found else ""
        if stored == snap.last_hash:
            return None
        problem = (
            f"The stored log changed under the server at seq {snap.seq}: "
            f"expected {snap.last_hash[:12]}, found {stored[:12] or 'nothing'}."
        )
        log.error("table %s: %s", code, problem)
        self._cache.drop(code)

        def decide_on(latest: Snapshot) -> Decided:
            data = {"call": len(latest.state.calls) + 1, "seat": None, "reason": problem}
            return [Event("judge.called", data, now_ms, SYSTEM_ACTOR)], []

        pending, _ = self._decide(code, None, decide_on)
        if self.on_alarm is not None:
            self.on_alarm(code, pending.snap.seq)
        return problem

    def join(
        self,
        code: str,
        seat: str | None,
        name: str,
        player_id: str,
        now_ms: int,
        device: str = "",
    ) -> tuple[Joined, list[dict[str, Any]]]:
        """Take a seat (the first free one when `seat` is None) and make its token. `device`
        names one phone that holds both seats (table mode); it is kept in the event."""
        token = secrets.token_urlsafe(32)
        taken: list[str] = []

        def decide_on(snap: Snapshot) -> Decided:
            seats, chosen = snap.state.seats, seat
            if chosen is None:
                free = [s for s in SEATS if not seats[s].joined]
                if not free:
                    raise AppError("table_full", "Both seats are taken.", status=409)
                chosen = free[0]
            elif seats[chosen].joined:
                raise AppError("seat_taken", f"Seat {chosen} is taken.", status=409)
            args = {"seat": chosen, "name": name, "player_id": player_id, "device": device}
            events = decide(snap.state, "seat.join", args, SYSTEM_ACTOR, now_ms, self.randbelow)
            taken[:] = [chosen]
            mark = self.db.param
            insert = (
                "INSERT INTO seat (table_id, seat, token_hash, name, player_id) "
                f"VALUES ({', '.join([mark] * 5)})",
                (snap.table_id, chosen, hash_token(token), name, player_id),
            )
            return events, [insert]

        pending, _ = self._decide(code, None, decide_on)
        return Joined(taken[0], token, pending.snap.seq), list(pending.written)

    # -- seat requests, releases and moves ----------------------------------------------------

    def request_seat(
        self, code: str, seat: str, name: str, player_id: str, why: str, now_ms: int
    ) -> tuple[str, str, int]:
        """Ask for `seat` (it waits for approval): (request ref, token, seq). The request is
        an event in the log, so the judges and the other seat see it."""
        token, ref = secrets.token_urlsafe(32), secrets.token_hex(6)

        def decide_on(snap: Snapshot) -> Decided:
            data = {"request": ref, "seat": seat, "name": name, "player_id": player_id}
            events = [Event("seat.requested", {**data, "why": why}, now_ms, SYSTEM_ACTOR)]
            mark = self.db.param
            insert = (
                "INSERT INTO seat_request (table_id, ref, seat, token_hash, name, player_id, "
                f"created_ms, status) VALUES ({', '.join([mark] * 8)})",
                (snap.table_id, ref, seat, hash_token(token), name, player_id, now_ms, "waiting"),
            )
            return events, [insert]

        pending, _ = self._decide(code, None, decide_on)
        return ref, token, pending.snap.seq

    def seat_request(self, code: str, ref: str) -> SeatRequest | None:
        with self.db.connection_context():
            found: SeatRequest | None = (
                SeatRequest.select()
                .join(TableRow)
                .where((TableRow.code == code) & (SeatRequest.ref == ref))
                .first()
            )
            return found

    def grant_request(self, code: str, ref: str, by: str, now_ms: int) -> tuple[str, str | None]:
        """Give a waiting request its seat (joining it, or moving it from the phone that had
        it): (seat, the old token's hash or None)."""
        request = self.seat_request(code, ref)
        if request is None or request.status != "waiting":
            raise AppError("no_such_request", "No waiting request has this id.", status=404)
        old: list[str | None] = [None]

        def decide_on(snap: Snapshot) -> Decided:
            seat = request.seat
            joined = snap.state.seats[seat].joined
            args = {"seat": seat, "name": request.name, "player_id": request.player_id}
            mark = self.db.param
            if joined:
                with self.db.connection_context():
                    row = SeatRow.get_or_none(
                        (SeatRow.table == snap.table_id) & (SeatRow.seat == seat)
                    )
                old[0] = row.token_hash if row else None
                cmd, args = "seat.move", {**args, "by": by}
                statements: list[Statement] = [
                    (
                        f"UPDATE seat SET token_hash = {mark}, name = {mark}, player_id = {mark} "
                        f"WHERE table_id = {mark} AND seat = {mark}",
                        (request.token_hash, request.name, request.player_id, snap.table_id, seat),
                    )
                ]
            else:
                cmd = "seat.join"
                statements = [
                    (
                        "INSERT INTO seat (table_id, seat, token_hash, name, player_id) "
                        f"VALUES ({', '.join([mark] * 5)})",
                        (snap.table_id, seat, request.token_hash, request.name, request.player_id),
                    )
                ]
            events = decide(snap.state, cmd, args, SYSTEM_ACTOR, now_ms, self.randbelow)
            extra = {"by": by, "request": ref} if cmd == "seat.join" else {"request": ref}
            events = [replace(e, data={**e.data, **extra}) for e in events]
            statements.append(
                (
                    f"UPDATE seat_request SET status = {mark} WHERE id = {mark}",
                    ("approved", request.id),
                )
            )
            return events, statements

        self._decide(code, None, decide_on)
        return request.seat, old[0]

    def refuse_request(self, code: str, ref: str, by: str, now_ms: int) -> str:
        """Refuse a waiting request: its token never works. The request's seat."""
        request = self.seat_request(code, ref)
        if request is None or request.status != "waiting":
            raise AppError("no_such_request", "No waiting request has this id.", status=404)

        def decide_on(snap: Snapshot) -> Decided:
            data = {"request": ref, "seat": request.seat, "by": by}
            mark = self.db.param
            update = (
                f"UPDATE seat_request SET status = {mark} WHERE id = {mark}",
                ("refused", request.id),
            )
            return [Event("seat.refused", data, now_ms, SYSTEM_ACTOR)], [update]

        self._decide(code, None, decide_on)
        return str(request.seat)

    def release_seat(self, code: str, seat: str, by: str, now_ms: int) -> str | None:
        """Free a taken seat; the old token's hash (its sockets are to be closed)."""
        old: list[str | None] = [None]

        def decide_on(snap: Snapshot) -> Decided:
            events = decide(
                snap.state,
                "seat.release",
                {"seat": seat, "by": by},
                SYSTEM_ACTOR,
                now_ms,
                self.randbelow,
            )
            with self.db.connection_context():
                row = SeatRow.get_or_none((SeatRow.table == snap.table_id) & (SeatRow.seat == seat))
            old[0] = row.token_hash if row else None
            mark = self.db.param
            delete = (
                f"DELETE FROM seat WHERE table_id = {mark} AND seat = {mark}",
                (snap.table_id, seat),
            )
            return events, [delete]

        self._decide(code, None, decide_on)
        return old[0]


# A decision: the events, and any statements to store with them.
Decided = tuple[list[Event], list[Statement]]


class _Answered:
    """A command already stored: the seq it answered (looks like a committed `_Pending`)."""

    outcome = "ok"
    error: BaseException | None = None
    written: list[dict[str, Any]] = []

    def __init__(self, code: str, seq: int) -> None:
        self.code = code
        self.snap = Snapshot(seq, EMPTY, GENESIS)
        self.done = _SET


_SET = threading.Event()
_SET.set()


def _descends(pending: _Pending, ancestor: _Pending) -> bool:
    node: _Pending | None = pending
    while node is not None:
        if node is ancestor:
            return True
        node = node.parent
    return False


def _integrity_errors() -> tuple[type[BaseException], ...]:
    errors: list[type[BaseException]] = [sqlite3.IntegrityError, IntegrityError]
    try:
        import psycopg2
    except ImportError:
        pass
    else:
        errors.append(psycopg2.IntegrityError)
    return tuple(errors)


_INTEGRITY_ERRORS = _integrity_errors()
