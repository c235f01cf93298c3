"""The event store: every table's append-only, hash-chained log, and the commands it answered.

Commands for one table are handled one at a time: a lock per table in this process, and the
database's own lock across processes (SQLite: BEGIN IMMEDIATE; PostgreSQL: SELECT ... FOR UPDATE
on the table's row). Inside that, the store brings its cached state up to date with any events
another process wrote, asks the rules to decide, and writes the events, the command id and the
table's new sequence number in one transaction. A call returns only after the commit.
"""

from __future__ import annotations

import hashlib
import json
import secrets
import threading
import zlib
from collections import OrderedDict
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from peewee import DatabaseProxy, IntegrityError

from server.errors import AppError
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

from .models import CommandRow, EventRow, SeatRow, TableRow, is_sqlite

GENESIS = "0" * 64
CODE_ALPHABET = "23456789ABCDEFGHJKMNPQRSTUVWXYZ"
CODE_LENGTH = 6
SEATS = ("A", "B")
# Striped locks: bounded memory whatever the number of tables; two tables sharing a stripe only
# wait for each other's (sub-millisecond) commit.
LOCK_STRIPES = 1024
SYSTEM = Actor(role="system")


def canonical(code: str, seq: int, type_: str, data: Any, actor: Any, at_ms: int) -> str:
    """The exact text an event's hash covers."""
    return json.dumps(
        {"actor": actor, "at_ms": at_ms, "code": code, "data": data, "seq": seq, "type": type_},
        sort_keys=True,
        separators=(",", ":"),
        ensure_ascii=False,
    )


def chain_hash(prev_hash: str, code: str, seq: int, type_: str, data: Any, actor: Any, at_ms: int):
    """sha256(prev_hash + canonical JSON of the event), hex."""
    text = prev_hash + canonical(code, seq, type_, data, actor, at_ms)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def hash_token(token: str) -> str:
    """The stored form of a seat token."""
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def _dumps(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


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
    encoded: dict[Any, str] = field(default_factory=dict, compare=False, repr=False)

    def since(self, seq: int) -> list[dict[str, Any]] | None:
        """The envelopes after `seq` from memory, or None when they are not all here."""
        if seq >= self.seq:
            return []
        if not self.recent or self.recent[0]["seq"] > seq + 1:
            return None
        return [e for e in self.recent if e["seq"] > seq]


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

    def clear(self) -> None:
        with self._lock:
            self._items.clear()


class _Tx:
    """The open transaction of one table inside `EventStore._transaction`."""

    def __init__(self, table: TableRow, snap: Snapshot) -> None:
        self.table = table
        self.snap = snap
        self.written: list[dict[str, Any]] = []


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
            snap = Snapshot(last_seq, state, last_hash, tuple(recent[-RECENT:]))
            self._cache.offer(table.code, snap)
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

    def events_since(self, code: str, since: int, limit: int | None = None) -> list[dict]:
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
                prev = row.hash
            if count != table.seq:
                return Verification(False, count, count + 1, "log shorter than the table's seq")
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

    def _write(self, tx: _Tx, events: list[Event], cmd_id: str | None) -> None:
        """Chain, store and apply `events`; move the table's seq and deadline."""
        code = tx.table.code
        seq, state, prev = tx.snap.seq, tx.snap.state, tx.snap.last_hash
        rows = []
        for event in events:
            seq += 1
            # Round-trip through JSON so the cached state is exactly what a replay would give.
            raw = json.loads(_dumps(event.to_dict()))
            digest = chain_hash(
                prev, code, seq, raw["type"], raw["data"], raw["actor"], raw["at_ms"]
            )
            rows.append(
                {
                    "table": tx.table.id,
                    "seq": seq,
                    "type": raw["type"],
                    "data": _dumps(raw["data"]),
                    "actor": _dumps(raw["actor"]),
                    "at_ms": raw["at_ms"],
                    "prev_hash": prev,
                    "hash": digest,
                }
            )
            state = apply(state, _event_of(raw))
            tx.written.append(
                {
                    "seq": seq,
                    "type": raw["type"],
                    "data": raw["data"],
                    "actor": raw["actor"],
                    "at_ms": raw["at_ms"],
                }
            )
            prev = digest
        if rows:
            values = ", ".join(["({}, {}, {}, {}, {}, {}, {}, {})"] * len(rows))
            self._sql(
                "INSERT INTO event (table_id, seq, type, data, actor, at_ms, prev_hash, hash) "
                f"VALUES {values}",
                *(value for row in rows for value in row.values()),
            )
            self._sql(
                'UPDATE "table" SET seq = {}, next_due_ms = {} WHERE id = {}',
                seq,
                next_due_ms(state),
                tx.table.id,
            )
        if cmd_id is not None:
            self._sql(
                "INSERT INTO command (table_id, cmd_id, seq) VALUES ({}, {}, {})",
                tx.table.id,
                cmd_id,
                seq,
            )
        recent = (tx.snap.recent + tuple(tx.written))[-RECENT:]
        tx.snap = Snapshot(seq, state, prev, recent)

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
        try:
            with self._transaction(code) as tx:
                if cmd_id is not None:
                    done = self._sql(
                        "SELECT seq FROM command WHERE table_id = {} AND cmd_id = {}",
                        tx.table.id,
                        cmd_id,
                    ).fetchone()
                    if done is not None:
                        return Appended(done[0], [], duplicate=True)
                events = decide(tx.snap.state, cmd, args, actor, now_ms, self.randbelow)
                self._write(tx, events, cmd_id)
                return Appended(tx.snap.seq, list(tx.written))
        except IntegrityError:
            # Only another writer's identical cmd_id can get here: answer as a duplicate.
            if cmd_id is None:
                raise
            with self.db.connection_context():
                done = (
                    CommandRow.select()
                    .join(TableRow)
                    .where((TableRow.code == code) & (CommandRow.cmd_id == cmd_id))
                    .first()
                )
            if done is None:
                raise
            return Appended(done.seq, [], duplicate=True)

    def join(
        self, code: str, seat: str | None, name: str, player_id: str, now_ms: int
    ) -> tuple[Joined, list[dict[str, Any]]]:
        """Take a seat (the first free one when `seat` is None) and make its token."""
        token = secrets.token_urlsafe(32)
        with self._transaction(code) as tx:
            seats = tx.snap.state.seats
            if seat is None:
                free = [s for s in SEATS if not seats[s].joined]
                if not free:
                    raise AppError("table_full", "Both seats are taken.", status=409)
                seat = free[0]
            elif seats[seat].joined:
                raise AppError("seat_taken", f"Seat {seat} is taken.", status=409)
            args = {"seat": seat, "name": name, "player_id": player_id}
            events = decide(tx.snap.state, "seat.join", args, SYSTEM, now_ms, self.randbelow)
            self._write(tx, events, None)
            SeatRow.create(
                table=tx.table.id,
                seat=seat,
                token_hash=hash_token(token),
                name=name,
                player_id=player_id,
            )
            return Joined(seat, token, tx.snap.seq), list(tx.written)
