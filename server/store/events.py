"""The event store: every table's append-only, hash-chained log, and the commands it answered.
Events in, snapshots out: the store never decides (the table service does, with the rules,
`server/service/tables.py`); it gives the state to decide on and stores what was decided.

A write is a turn at the table (`EventStore.turn`): under one lock in this process, the store
gives the table's latest state (the one a command still waiting for its commit left, or the
cached committed one, or the database's), the caller decides on it and appends the events with
the state they lead to, and the store chains them (hashes, salts) and keeps that state as the
table's snapshot: each event is applied once, by the rules. The rows then wait for a group
commit (`group.py`) that writes every waiting command's events, command id and the table's new
sequence number in one transaction; `settle` returns once it is committed, and signs the head
when it is due.

The table's sequence number in the database is the check across processes: a command's update
of it names the number it was decided on (`... WHERE seq = <base>`), so a command decided on a
state another process has moved past writes nothing (`settle` says so), and is decided again on
the newer state. Creating a table, and a command that went stale a few times over (several
processes writing one table), take the older path, a held turn: the database's own lock
(SQLite: BEGIN IMMEDIATE; PostgreSQL: SELECT ... FOR UPDATE on the table's row) around deciding
and writing.
"""

from __future__ import annotations

import contextlib
import json
import logging
import secrets
import threading
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from typing import Any

from peewee import DatabaseProxy, IntegrityError, fn

from server.core.errors import Busy, Conflict, DomainError, NotFound
from server.rules import (
    EMPTY,
    Actor,
    Event,
    RuleSet,
    TableState,
    apply,
    next_due_ms,
    replay,
)
from server.rules.state import MATCH_OVER, MATCH_RESULT
from server.runtime import gctune

from .cache import LRU, RECENT, Snapshot
from .chain import (
    GENESIS,
    SALT,
    SECRET_FIELDS,
    Verification,
    canonical,
    chain_hash,
    check_signed,
    dumps,
    hash_token,
    link_hash,
    salted,
    verify_chain,
)
from .group import GroupCommit
from .logs import TournamentLogs
from .models import CommandRow, EventRow, HeadSignature, SeatRequest, SeatRow, TableRow
from .signing import SIGN_AT
from .writers import INTEGRITY_ERRORS, Pending, Statement, Writer, writer_for

# A table in these phases has its match decided: its final head is signed at every write.
DECIDED = frozenset({MATCH_RESULT, MATCH_OVER})

__all__ = [
    "GENESIS",
    "SALT",
    "SECRET_FIELDS",
    "Appended",
    "EventStore",
    "Joined",
    "Snapshot",
    "Verification",
    "canonical",
    "chain_hash",
    "envelope",
    "hash_token",
    "salted",
]

log = logging.getLogger(__name__)

CODE_ALPHABET = "23456789ABCDEFGHJKMNPQRSTUVWXYZ"
CODE_LENGTH = 6
SNAPSHOT_BATCH = 500  # codes a query when reading many tables' seqs (`snapshots`)


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
    ) -> None:
        self.db = database
        self._cache = LRU(cache_size)
        # The database's transactions and group writes (SQLite's or PostgreSQL's).
        self.writer: Writer = writer_for(database)
        # Each event's tournament log, kept beside the tables' logs with the same writer.
        self.tournament_logs = TournamentLogs(database, self.writer)
        # Deciding: one command at a time in this process, in memory (no I/O but a cache miss).
        self._plan_lock = threading.Lock()
        self._pending: dict[str, Pending] = {}
        self._pending_cmds: dict[tuple[str, str], Pending] = {}
        self._group: GroupCommit[Pending] = GroupCommit(
            self._write_group,
            self._settle,
            lambda pending: pending.done,
            run=self.writer.run,
        )
        # The head signer (`server.store.signing.Signer`): set by the app; None signs nothing.
        self.signer: Any = None
        # The heads ledger outside the database (`server.store.ledger.HeadLedger`): set by the
        # app; None records nothing and checks no log's length.
        self.ledger: Any = None
        self._audit_at = 0

    def close(self) -> None:
        """Stop the group committer (after what is queued)."""
        self._group.close()
        self.writer.close()

    # -- reading -------------------------------------------------------------------------------

    def _table(self, code: str) -> TableRow:
        table = TableRow.get_or_none(TableRow.code == code)
        if table is None:
            raise NotFound("no_such_table", "No table has this code.")
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

    def snapshots(self, codes: Sequence[str]) -> dict[str, Snapshot]:
        """The committed state of many tables now (a round's, for the event's pages): their
        seqs in one query a few hundred codes at a time, each state from memory when it is at
        that seq; codes with no table are left out."""
        found: dict[str, Snapshot] = {}
        with self.db.connection_context():
            for start in range(0, len(codes), SNAPSHOT_BATCH):
                chunk = list(codes[start : start + SNAPSHOT_BATCH])
                marks = ", ".join([self.db.param] * len(chunk))
                rows = self.db.execute_sql(
                    f'SELECT id, code, seq, created_ms FROM "table" WHERE code IN ({marks})',
                    chunk,
                ).fetchall()
                for table_id, code, seq, created_ms in rows:
                    row = TableRow(id=table_id, code=code, seq=seq, created_ms=created_ms)
                    found[code] = self._catch_up(row)  # the cached state when it is at `seq`
        return found

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

    def codes(self) -> list[str]:
        """Every table's code, oldest first."""
        with self.db.connection_context():
            query = TableRow.select(TableRow.code).order_by(TableRow.created_ms, TableRow.code)
            return [row.code for row in query]

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

    def next_due(self) -> int | None:
        """The earliest timer deadline of any table (None: no clock runs anywhere)."""
        with self.db.connection_context():
            found = self._sql('SELECT MIN(next_due_ms) FROM "table"').fetchone()
            return None if found is None or found[0] is None else int(found[0])

    def verify(self, code: str) -> Verification:
        """Recompute the hash chain and name the first link that does not hold; then check the
        signed heads: each the log's hash at its seq under the server's key, and covering every
        confirmed result and a finished table's final head (`chain.check_signed`)."""
        with self.db.connection_context():
            table = self._table(code)
            rows = list(EventRow.select().where(EventRow.table == table.id).order_by(EventRow.seq))
            hashes: dict[int, str] = {}
            checked = verify_chain(code, rows, table.seq, hashes)
            if not checked.ok:
                return checked
            heads = list(
                HeadSignature.select()
                .where(HeadSignature.table_id == table.id)
                .order_by(HeadSignature.seq)
            )
        wrong = self._verify_signatures(table, heads, hashes, checked.count)
        if wrong is not None:
            return wrong
        if self.signer is not None:  # without a key (a bare store): the chain alone
            state = replay(_event_of(envelope(row)) for row in rows)
            finished = state.phase in DECIDED
            signed = check_signed(rows, [h.seq for h in heads], SIGN_AT, finished)
            if not signed.ok:
                return signed
        # Last: an edit inside the signed heads is named at its signed head, not at the end.
        return self._verify_length(table, hashes, checked.count) or checked

    def _verify_length(
        self, table: TableRow, hashes: dict[int, str], count: int
    ) -> Verification | None:
        """The log against the heads ledger kept outside the database (`store.ledger`): as long
        as the longest head recorded for it, with the same hash there. A sound chain cut back
        (its table's seq and signed heads with it) fails here."""
        if self.ledger is None:
            return None
        found = self._against_ledger(table, hashes, count)
        if found is not None:
            # Another process sharing the ledger may have written this table since this one
            # read it: read the file again before naming the log broken.
            self.ledger.refresh()
            found = self._against_ledger(table, hashes, count)
        return found

    def _against_ledger(
        self, table: TableRow, hashes: dict[int, str], count: int
    ) -> Verification | None:
        recorded = self.ledger.head(table.code)
        if recorded is None:
            if count and table.created_ms >= self.ledger.since_ms:
                return Verification(False, count, 1, "no recorded length outside the log")
            return None  # no events yet, or a table from before the ledger began
        seq, digest = recorded
        if seq > count:
            return Verification(False, count, count + 1, "log shorter than its recorded length")
        if hashes.get(seq) != digest:
            return Verification(False, count, seq, "the log does not match its recorded head")
        return None

    def _verify_signatures(
        self, table: TableRow, heads: list[HeadSignature], hashes: dict[int, str], count: int
    ) -> Verification | None:
        """Each signed head must be the log's hash at its seq, signed by the server's key."""
        for sig in heads:
            if hashes.get(sig.seq) != sig.hash:
                return Verification(False, count, sig.seq, "the signed head does not match the log")
            if self.signer is None:
                return Verification(False, count, sig.seq, "no key to check the signed heads")
            if not self.signer.check(table.code, sig.seq, sig.hash, sig.signature):
                return Verification(False, count, sig.seq, "bad signature on the head")
        return None

    # -- writing -------------------------------------------------------------------------------

    @contextmanager
    def _transaction(self, code: str) -> Iterator[_Tx]:
        """Hold the table (in this process and across processes) inside one transaction."""
        writer = self.writer
        with writer.lock(code), self.db.connection_context():
            with writer.atomic():
                # Hand-written SQL on the hot path: building it with peewee's query objects
                # cost more CPU than the database itself.
                found = self._sql(
                    f'SELECT id, seq, created_ms FROM "table" WHERE code = {{}}{writer.for_update}',
                    code,
                ).fetchone()
                if found is None:
                    raise NotFound("no_such_table", "No table has this code.")
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
        self,
        code: str,
        snap: Snapshot,
        events: Sequence[Event],
        state: TableState,
        cmd_id: str | None,
        content: str = "",
    ) -> tuple[Snapshot, list[dict[str, Any]], list[Statement]]:
        """Chain `events`, already decided on `snap` and leading to `state`: the new snapshot,
        the new envelopes, and the statements that store them (the first moves the table's
        seq, from `snap.seq` only). Nothing is applied here: `state` is the decision's."""
        seq, prev, table_id = snap.seq, snap.last_hash, snap.table_id
        rows: list[Any] = []
        written = []
        for event in events:
            seq += 1
            data = salted(event.type, event.data)
            actor = event.actor.to_dict()
            data_text, actor_text = dumps(data), dumps(actor)
            digest = link_hash(prev, code, seq, event.type, data_text, actor_text, event.at_ms)
            rows += (table_id, seq, event.type, data_text, actor_text, event.at_ms, prev, digest)
            written.append(
                {"seq": seq, "type": event.type, "data": data, "actor": actor, "at_ms": event.at_ms}
            )
            prev = digest
        mark = self.db.param
        statements: list[Statement] = [
            (
                f'UPDATE "table" SET seq = {mark}, next_due_ms = {mark} '
                f"WHERE id = {mark} AND seq = {mark}",
                (seq, next_due_ms(state), table_id, snap.seq),
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
                    "INSERT INTO command (table_id, cmd_id, seq, digest) "
                    f"VALUES ({mark}, {mark}, {mark}, {mark})",
                    (table_id, cmd_id, seq, content),
                )
            )
        recent = (snap.recent + tuple(written))[-RECENT:]
        new = Snapshot(seq, state, prev, recent, table_id=table_id)
        return new, written, statements

    # -- appending: a turn at the table, then its commit ---------------------------------------

    @contextmanager
    def turn(
        self, code: str, cmd_id: str | None, hold: bool = False, digest: str = ""
    ) -> Iterator[Turn]:
        """One try at appending to `code`: its latest state (`turn.snap`) to decide on, or the
        seq an earlier command with the same `cmd_id` answered (`turn.answered`). `digest` is
        what the command was sent with: an earlier one under the same id with another digest
        makes `settle` refuse it (`id_reused`), never answer it as a duplicate.

        Inside the `with`, the caller decides and hands the result to `turn.append`; nothing
        else is decided on this table in this process meanwhile. Without `hold` the events
        then wait for the next group commit (`settle` waits for it); with `hold`, the table is
        held in the database (across processes) and they are written before the `with` ends:
        the path of a table that other processes keep moving on (a command gone stale a few
        times), which always gets through."""
        gctune.turn_taken()  # how busy the hall is: the collector waits for a quiet minute
        if not hold:
            with self._plan_lock:
                turn = Turn(self, code, cmd_id, digest=digest)
                self._open(turn)
                yield turn
            return
        turn = Turn(self, code, cmd_id, held=True, digest=digest)
        try:
            with self._transaction(code) as tx:
                turn.tx = tx
                turn.snap = tx.snap
                if cmd_id is not None:
                    done = self._sql(
                        "SELECT seq, digest FROM command WHERE table_id = {} AND cmd_id = {}",
                        tx.table.id,
                        cmd_id,
                    ).fetchone()
                    if done is not None:
                        turn.answered, turn.answered_digest = int(done[0]), str(done[1] or "")
                yield turn
        except IntegrityError:
            # Only another writer's identical cmd_id can get here: answer as a duplicate.
            if cmd_id is None:
                raise
            with self.db.connection_context():
                found = self.db.execute_sql(
                    'SELECT c.seq, c.digest FROM command c JOIN "table" t ON t.id = c.table_id '
                    f"WHERE t.code = {self.db.param} AND c.cmd_id = {self.db.param}",
                    (code, cmd_id),
                ).fetchone()
            if found is None:
                raise
            turn.answered, turn.pending = int(found[0]), None
            turn.answered_digest = str(found[1] or "")

    def _open(self, turn: Turn) -> None:
        """The state a command in this process decides on (under the plan lock): the one the
        table's last command still waiting for its commit left, or the cached committed one,
        or the database's; or the answer of a command already stored with the same id."""
        code, cmd_id = turn.code, turn.cmd_id
        if cmd_id is not None:
            waiting = self._pending_cmds.get((code, cmd_id))
            if waiting is not None:
                turn.waiting = waiting
                return
        parent = self._pending.get(code)
        if parent is not None:
            snap = parent.snap
        else:
            cached = self._cache.get(code)
            snap = cached if cached is not None and cached.table_id else self.snapshot(code)
        turn.parent, turn.snap = parent, snap
        if cmd_id is not None:
            done = self.writer.answered(snap.table_id, cmd_id)
            if done is not None:
                turn.answered, turn.answered_digest = done

    def _append(
        self, turn: Turn, events: Sequence[Event], state: TableState, statements: list[Statement]
    ) -> None:
        """Store decided events (`Turn.append`)."""
        code, cmd_id, snap = turn.code, turn.cmd_id, turn.snap
        new, written, chained = self._chain(code, snap, events, state, cmd_id, turn.digest)
        if turn.held:
            assert turn.tx is not None
            for sql, params in chained + statements:
                self.db.execute_sql(sql, params)
            turn.tx.snap = new
            turn.tx.written += written
            stored = Pending(code, snap.seq, new, written, [], cmd_id, None, turn.digest)
            stored.outcome = "ok"  # written in the held transaction (committed as it closes)
            stored.done.set()
            turn.pending = stored
            return
        pending = Pending(
            code, snap.seq, new, written, chained + statements, cmd_id, turn.parent, turn.digest
        )
        self._pending[code] = pending
        if cmd_id is not None:
            self._pending_cmds[(code, cmd_id)] = pending
        self._group.submit(pending)
        turn.pending = pending

    def settle(self, turn: Turn, sign: bool = True) -> Appended | None:
        """What became of a turn's events: the `Appended` once committed (a repeated id's
        answer, too); None when the state they were decided on had been moved past by another
        writer (decide again); the error when they could not be stored. A committed write
        that holds a confirmed result or the match's end, or lands on a decided table, has
        its head signed (`sign`)."""
        if turn.answered is not None:
            _same_content(turn.digest, turn.answered_digest)
            return Appended(turn.answered, [], duplicate=True)
        if turn.waiting is not None:  # the same id, decided and waiting for its commit
            _same_content(turn.digest, turn.waiting.digest)
            turn.waiting.done.wait()
            if turn.waiting.outcome == "ok":
                return Appended(turn.waiting.snap.seq, [], duplicate=True)
            return None
        pending = turn.pending
        if pending is None:
            raise RuntimeError("a turn settled without an append")
        pending.done.wait()
        if pending.outcome == "ok":
            if sign:
                self._sign_if_due(turn.code, pending)
            return Appended(pending.snap.seq, list(pending.written))
        if pending.outcome == "failed":
            assert pending.error is not None
            raise pending.error
        return None

    def _sign_if_due(self, code: str, pending: Pending) -> None:
        """Sign the head a write left when it holds a confirmed result or the match's end, or
        lands on a table whose match is decided: a finished table's final head is always
        signed, so nothing after it can be rewritten unseen (`chain.check_signed`)."""
        written = pending.written
        if self.signer is None or not written:
            return
        snap = pending.snap
        if snap.state.phase in DECIDED or any(e["type"] in SIGN_AT for e in written):
            self.sign_head(code, snap, int(written[-1]["at_ms"]))

    def _write_group(self, group: Sequence[Pending]) -> None:
        """Write `group` (the group committer's call)."""
        self.writer.write_group(group)

    def _settle(self, group: Sequence[Pending]) -> None:
        """After a group's commit: committed states to the cache, the rest forgotten."""
        committed: list[tuple[str, int, str]] = []
        with self._plan_lock:
            for pending in group:
                code = pending.code
                if pending.outcome is None:
                    pending.outcome = "failed"
                    pending.error = DomainError("internal", "The command could not be stored.")
                if pending.cmd_id is not None:
                    if self._pending_cmds.get((code, pending.cmd_id)) is pending:
                        del self._pending_cmds[(code, pending.cmd_id)]
                latest = self._pending.get(code)
                if pending.outcome == "ok":
                    committed.append((code, pending.snap.seq, pending.snap.last_hash))
                    self._cache.offer(code, pending.snap)
                    if latest is pending:
                        del self._pending[code]
                    continue
                # Not written: neither is anything decided after it; decide afresh from the
                # database (another writer may have moved the table on).
                self._cache.drop(code)
                if latest is not None and _descends(latest, pending):
                    del self._pending[code]
        if self.ledger is not None and committed:
            self.ledger.record(committed)

    def add_table(self, ruleset: RuleSet, now_ms: int) -> str:
        """Make a new table's row with a fresh code (its log is empty: its first events are
        appended like any others)."""
        for _ in range(8):
            code = "".join(secrets.choice(CODE_ALPHABET) for _ in range(CODE_LENGTH))
            if self.ledger is not None and self.ledger.head(code) is not None:
                continue  # a swept table's code: its heads stay in the ledger, never reused
            try:
                with self.db.connection_context(), self.db.atomic():
                    TableRow.create(code=code, created_ms=now_ms, ruleset=ruleset.to_dict())
            except IntegrityError:
                continue
            return code
        raise Busy("busy", "Could not find a free table code.")

    def sweep_unjoined(self, before_ms: int, limit: int) -> list[str]:
        """Delete up to `limit` casual tables made before `before_ms` that nobody ever joined:
        no seat taken, no event after `table.created` (so nothing played is ever deleted), no
        tournament event. Their codes."""
        with self.db.connection_context(), self.db.atomic():
            played = EventRow.select(EventRow.id).where(
                (EventRow.table == TableRow.id) & (EventRow.seq > 1)
            )
            seated = SeatRow.select(SeatRow.id).where(SeatRow.table == TableRow.id)
            rows = list(
                TableRow.select(TableRow.id, TableRow.code)
                .where(
                    (TableRow.created_ms < before_ms)
                    & TableRow.event_id.is_null()
                    & (TableRow.seq <= 1)
                    & ~fn.EXISTS(played)
                    & ~fn.EXISTS(seated)
                )
                .limit(limit)
            )
            ids = [r.id for r in rows]
            if not ids:
                return []
            for model in (EventRow, CommandRow, SeatRequest, SeatRow):
                model.delete().where(model.table.in_(ids)).execute()
            HeadSignature.delete().where(HeadSignature.table_id.in_(ids)).execute()
            TableRow.delete().where(TableRow.id.in_(ids)).execute()
        codes = [str(r.code) for r in rows]
        for code in codes:
            self._cache.drop(code)
        return codes

    # -- signed heads and tamper alarms -------------------------------------------------------

    def sign_head(self, code: str, snap: Snapshot, now_ms: int) -> dict[str, Any]:
        """Sign and store the chain head of `snap` (`server.store.signing`)."""
        signature = self.signer.sign(code, snap.seq, snap.last_hash)
        with self.db.connection_context():
            table_id = snap.table_id or self._table(code).id
            with contextlib.suppress(*INTEGRITY_ERRORS):  # signed already (a retry)
                HeadSignature.create(
                    table_id=table_id,
                    seq=snap.seq,
                    hash=snap.last_hash,
                    signature=signature,
                    signed_ms=now_ms,
                )
        return {"seq": snap.seq, "hash": snap.last_hash, "signature": signature}

    def audit_codes(self, count: int) -> list[str]:
        """The next `count` cached tables to audit (round robin)."""
        codes = self._cache.codes()
        if not codes:
            return []
        start = self._audit_at % len(codes)
        chosen = (codes[start:] + codes[:start])[:count]
        self._audit_at = start + len(chosen)
        return chosen

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

    def changed_under(self, code: str) -> dict[str, Any] | None:
        """Compare this process's cached head with the log's hash at the same seq: a
        difference means the log was changed under the cache. Then the cache is dropped and
        what was found is returned (`seq`, `expected`, `found`: the hashes' first 12 digits)."""
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
        log.error(
            "table %s: the stored log changed under the server at seq %s: expected %s, found %s",
            code,
            snap.seq,
            snap.last_hash[:12],
            stored[:12] or "nothing",
        )
        self._cache.drop(code)
        return {"seq": snap.seq, "expected": snap.last_hash[:12], "found": stored[:12]}

    # -- what a seat change stores beside its events (the service decides which) ---------------

    def _insert(self, table: str, row: dict[str, Any]) -> Statement:
        marks = ", ".join([self.db.param] * len(row))
        return (f"INSERT INTO {table} ({', '.join(row)}) VALUES ({marks})", tuple(row.values()))

    def seat_taken(
        self, table_id: int, seat: str, token_hash: str, name: str, player_id: str, device: str = ""
    ) -> Statement:
        """A seat row for a phone that joined."""
        row = {"table_id": table_id, "seat": seat, "token_hash": token_hash, "name": name}
        return self._insert("seat", {**row, "player_id": player_id, "device": device or None})

    def seat_handed(
        self, table_id: int, seat: str, token_hash: str, name: str, player_id: str
    ) -> Statement:
        """A taken seat given to another phone (a request granted): its old token dies."""
        mark = self.db.param
        return (
            f"UPDATE seat SET token_hash = {mark}, name = {mark}, player_id = {mark}, "
            f"device = NULL, seen_ms = NULL WHERE table_id = {mark} AND seat = {mark}",
            (token_hash, name, player_id, table_id, seat),
        )

    def seat_moved(self, table_id: int, seat: str, token_hash: str, device: str) -> Statement:
        """A seat moved to a new phone of the same player (a one-phone table's recovery)."""
        mark = self.db.param
        return (
            f"UPDATE seat SET token_hash = {mark}, device = {mark} "
            f"WHERE table_id = {mark} AND seat = {mark}",
            (token_hash, device or None, table_id, seat),
        )

    def seat_freed(self, table_id: int, seat: str) -> Statement:
        mark = self.db.param
        return (f"DELETE FROM seat WHERE table_id = {mark} AND seat = {mark}", (table_id, seat))

    def request_made(self, table_id: int, ref: str, asked: dict[str, Any]) -> Statement:
        """A waiting request for a seat: `asked` holds its seat, token_hash, name, player_id,
        created_ms and asker."""
        asker = asked.get("asker") or None
        row = {"table_id": table_id, "ref": ref, **asked, "status": "waiting", "asker": asker}
        return self._insert("seat_request", row)

    def request_answered(self, request_id: int, status: str) -> Statement:
        """A request approved or refused."""
        mark = self.db.param
        return (f"UPDATE seat_request SET status = {mark} WHERE id = {mark}", (status, request_id))

    def recovery_spent(self, table_id: int, old_hash: str, new_hash: str) -> Statement:
        """A one-phone table's recovery code used: the next one replaces it."""
        mark = self.db.param
        return (
            f'UPDATE "table" SET recovery_hash = {mark} '
            f"WHERE id = {mark} AND recovery_hash = {mark}",
            (new_hash, table_id, old_hash),
        )

    def recovery_ended(self, table_id: int) -> Statement:
        """The table is no longer one phone's (a seat handed on or freed): its recovery code
        dies, so a code seen in the one-phone days never moves a seat of another phone."""
        mark = self.db.param
        return (f'UPDATE "table" SET recovery_hash = NULL WHERE id = {mark}', (table_id,))

    def asker_waiting(self, table_id: int, asker: str, expiring: Iterable[str] = ()) -> bool:
        """Whether `asker` has a request waiting at the table (those in `expiring` do not)."""
        ending = set(expiring)
        with self.db.connection_context():
            found = SeatRequest.select(SeatRequest.ref).where(
                (SeatRequest.table == table_id)
                & (SeatRequest.asker == asker)
                & (SeatRequest.status == "waiting")
            )
            return any(r.ref not in ending for r in found)

    def seat_token_hash(self, table_id: int, seat: str) -> str | None:
        """The token hash of the phone that holds a seat (None: the seat is free)."""
        with self.db.connection_context():
            row = SeatRow.get_or_none((SeatRow.table == table_id) & (SeatRow.seat == seat))
        return row.token_hash if row else None

    # -- a seat's phone: when it was last seen, and a one-phone table's recovery ---------------

    def seat_row(self, code: str, seat: str) -> SeatRow | None:
        with self.db.connection_context():
            found: SeatRow | None = (
                SeatRow.select(SeatRow)
                .join(TableRow)
                .where((TableRow.code == code) & (SeatRow.seat == seat))
                .first()
            )
            return found

    def held_tokens(self, token_hashes: list[str]) -> set[str]:
        """Which of the seat token hashes are some seat's."""
        with self.db.connection_context():
            rows = SeatRow.select(SeatRow.token_hash).where(SeatRow.token_hash.in_(token_hashes))
            return {str(r.token_hash) for r in rows}

    def seen(self, code: str, seat: str, now_ms: int) -> None:
        """The seat's phone is around now (its socket opened, closed, or is kept)."""
        with self.db.connection_context():
            table = TableRow.select(TableRow.id).where(TableRow.code == code)
            SeatRow.update(seen_ms=now_ms).where(
                (SeatRow.table.in_(table)) & (SeatRow.seat == seat)
            ).execute()

    def table_recovery(self, code: str) -> str:
        """The hash of a one-phone table's recovery code ("" when it has none)."""
        with self.db.connection_context():
            row = TableRow.select(TableRow.recovery_hash).where(TableRow.code == code).first()
        return str(row.recovery_hash or "") if row is not None else ""

    def set_recovery(self, code: str, device: str, recovery_hash: str) -> bool:
        """Keep a one-phone table's recovery code (its hash) when one device holds both seats
        and the table has none yet; whether it was kept."""
        with self.db.connection_context():
            row = TableRow.get_or_none(TableRow.code == code)
            if row is None or row.recovery_hash:
                return False
            devices = [
                r.device for r in SeatRow.select(SeatRow.device).where(SeatRow.table == row.id)
            ]
            if len(devices) != 2 or any(d != device for d in devices):
                return False
            changed = (
                TableRow.update(recovery_hash=recovery_hash)
                .where((TableRow.id == row.id) & (TableRow.recovery_hash.is_null()))
                .execute()
            )
            return bool(changed)

    def seat_request(self, code: str, ref: str) -> SeatRequest | None:
        with self.db.connection_context():
            found: SeatRequest | None = (
                SeatRequest.select()
                .join(TableRow)
                .where((TableRow.code == code) & (SeatRequest.ref == ref))
                .first()
            )
            return found


def _same_content(digest: str, earlier: str) -> None:
    """Refuse a command id already spent on other content: a retry repeats its content, so a
    different command under the same sender's id is a client's mistake, not a duplicate."""
    if digest and earlier and digest != earlier:
        raise Conflict("id_reused", "This command id was already used for another command.", {})


class Turn:
    """One try at appending to a table (`EventStore.turn`): the state to decide on, and what
    was appended."""

    __slots__ = (
        "store", "code", "cmd_id", "held", "snap", "answered", "waiting", "parent", "pending",
        "tx", "digest", "answered_digest",
    )  # fmt: skip

    def __init__(
        self,
        store: EventStore,
        code: str,
        cmd_id: str | None,
        held: bool = False,
        digest: str = "",
    ) -> None:
        self.store = store
        self.code = code
        self.cmd_id = cmd_id
        self.held = held
        self.digest = digest
        # What the earlier command with this id was sent with ("" when not known).
        self.answered_digest = ""
        self.snap = Snapshot(0, EMPTY, GENESIS)
        # The seq an earlier command with this id answered (then nothing is to be decided).
        self.answered: int | None = None
        # The earlier command with this id, decided and still waiting for its commit.
        self.waiting: Pending | None = None
        self.parent: Pending | None = None
        self.pending: Pending | None = None
        self.tx: _Tx | None = None

    @property
    def ready(self) -> bool:
        """Whether `EventStore.settle` would answer now, without waiting for a commit."""
        if self.answered is not None:
            return True
        if self.waiting is not None:
            return self.waiting.done.is_set()
        return self.pending is None or self.pending.done.is_set()

    @property
    def repeat(self) -> bool:
        """Whether a command with this id was decided already (nothing to decide)."""
        return self.answered is not None or self.waiting is not None

    def append(
        self,
        events: Sequence[Event],
        state: TableState,
        statements: list[Statement] | None = None,
    ) -> None:
        """Store `events`, decided on `snap` and leading to `state` (chained and signed
        here), with `statements` in the same transaction (a seat's row, a request's)."""
        self.store._append(self, events, state, statements or [])


RECOVERY_ALPHABET = "23456789ABCDEFGHJKMNPQRSTUVWXYZ"  # a table code's: nothing to misread
RECOVERY_LENGTH = 12  # 31^12: about 59 bits


def new_recovery_code() -> str:
    """A one-phone table's recovery code, as shown: XXXX-XXXX-XXXX."""
    raw = "".join(secrets.choice(RECOVERY_ALPHABET) for _ in range(RECOVERY_LENGTH))
    return "-".join(raw[i : i + 4] for i in range(0, RECOVERY_LENGTH, 4))


def normal_recovery_code(typed: str) -> str:
    """A typed recovery code in its shown form (any case, spaces or dashes), or ""."""
    raw = "".join(ch for ch in typed.upper() if ch not in " -")
    if len(raw) != RECOVERY_LENGTH or any(ch not in RECOVERY_ALPHABET for ch in raw):
        return ""
    return "-".join(raw[i : i + 4] for i in range(0, RECOVERY_LENGTH, 4))


def _descends(pending: Pending, ancestor: Pending) -> bool:
    node: Pending | None = pending
    while node is not None:
        if node is ancestor:
            return True
        node = node.parent
    return False
