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
import json
import logging
import secrets
import threading
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from typing import Any

from peewee import DatabaseProxy, IntegrityError

from server.core.errors import Busy, Conflict, DomainError, Forbidden, NotFound, TooMany
from server.rules import (
    EMPTY,
    Actor,
    Event,
    RuleSet,
    apply,
    choose_seat,
    create_events,
    decide,
    next_due_ms,
    replay,
)
from server.rules.base import SYSTEM_ACTOR, judge_called
from server.rules.state import MATCH_OVER, MATCH_RESULT

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
from .models import EventRow, HeadSignature, SeatRequest, SeatRow, TableRow
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


# Tries on the group commit before a command holds its table (see `_decide`).
OPTIMISTIC = 3


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
        self._cache = LRU(cache_size)
        # The database's transactions and group writes (SQLite's or PostgreSQL's).
        self.writer: Writer = writer_for(database)
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
        # Told (code, seq) after a tamper alarm was written, so the judges' sockets hear it.
        self.on_alarm: Callable[[str, int], None] | None = None
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
        if wrong is not None or self.signer is None:
            return wrong or checked  # no key (a bare store): the chain alone
        state = replay(_event_of(envelope(row)) for row in rows)
        finished = state.phase in DECIDED
        return check_signed(rows, [h.seq for h in heads], SIGN_AT, finished)

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
            raw = salted(json.loads(dumps(event.to_dict())))
            data, actor = dumps(raw["data"]), dumps(raw["actor"])
            digest = link_hash(prev, code, seq, raw["type"], data, actor, raw["at_ms"])
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
        new = Snapshot(seq, state, prev, recent, table_id=snap.table_id)
        return new, written, statements

    def _write(self, tx: _Tx, events: list[Event], cmd_id: str | None) -> None:
        """Store `events` inside `_transaction` (which holds the table)."""
        tx.snap, written, statements = self._chain(tx.table.code, tx.snap, events, cmd_id)
        for sql, params in statements:
            self.db.execute_sql(sql, params)
        tx.written += written

    # -- deciding and the group commit ---------------------------------------------------------

    def _decide(
        self,
        code: str,
        cmd_id: str | None,
        decide_on: Callable[[Snapshot], Decided],
        sign: bool = True,
    ) -> tuple[Pending | _Answered, bool]:
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
                if sign and not repeat:
                    self._sign_if_due(code, pending)
                return pending, repeat
            if pending.outcome == "failed" and not repeat:
                assert pending.error is not None
                raise pending.error
        # Contended (other processes writing the same table): hold the table, then decide.
        pending, repeat = self._decide_holding(code, cmd_id, decide_on)
        if sign and not repeat:
            self._sign_if_due(code, pending)
        return pending, repeat

    def _sign_if_due(self, code: str, pending: Pending | _Answered) -> None:
        """Sign the head a write left when it holds a confirmed result or the match's end, or
        lands on a table whose match is decided: a finished table's final head is always
        signed, so nothing after it can be rewritten unseen (`chain.check_signed`)."""
        written = getattr(pending, "written", None)
        if self.signer is None or not written:
            return
        snap = pending.snap
        if snap.state.phase in DECIDED or any(e["type"] in SIGN_AT for e in written):
            self.sign_head(code, snap, int(written[-1]["at_ms"]))

    def _decide_holding(
        self, code: str, cmd_id: str | None, decide_on: Callable[[Snapshot], Decided]
    ) -> tuple[Pending | _Answered, bool]:
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
        stored = Pending(code, base, tx.snap, tx.written, [], cmd_id, None)
        stored.outcome = "ok"
        return stored, False

    def _plan(
        self, code: str, cmd_id: str | None, decide_on: Callable[[Snapshot], Decided]
    ) -> tuple[Pending | _Answered, bool]:
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
        pending = Pending(code, snap.seq, new, written, statements + extra, cmd_id, parent)
        self._pending[code] = pending
        if cmd_id is not None:
            self._pending_cmds[(code, cmd_id)] = pending
        self._group.submit(pending)
        return pending, False

    def _answered(self, table_id: int, cmd_id: str) -> int | None:
        """The seq a stored command answered, or None (under the plan lock only)."""
        return self.writer.answered(table_id, cmd_id)

    def _write_group(self, group: Sequence[Pending]) -> None:
        """Write `group` (the group committer's call)."""
        self.writer.write_group(group)

    def _settle(self, group: Sequence[Pending]) -> None:
        """After a group's commit: committed states to the cache, the rest forgotten."""
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
        raise Busy("busy", "Could not find a free table code.")

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
        return Appended(pending.snap.seq, list(pending.written))

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
        # The call carries a code and its values (each screen words them), not the sentence.
        found_at = {"seq": snap.seq, "expected": snap.last_hash[:12], "found": stored[:12]}

        def decide_on(latest: Snapshot) -> Decided:
            data = judge_called(latest.state, None, "", code="log_changed", params=found_at)
            return [Event("judge.called", data, now_ms, SYSTEM_ACTOR)], []

        # Not signed: the alarm sits on a log changed under the server, and a signature would
        # vouch for it; at a decided table `verify` then reports the unsigned head too.
        pending, _ = self._decide(code, None, decide_on, sign=False)
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
            chosen = choose_seat(snap.state, seat)
            args = {"seat": chosen, "name": name, "player_id": player_id, "device": device}
            events = decide(snap.state, "seat.join", args, SYSTEM_ACTOR, now_ms, self.randbelow)
            taken[:] = [chosen]
            mark = self.db.param
            insert = (
                "INSERT INTO seat (table_id, seat, token_hash, name, player_id, device) "
                f"VALUES ({', '.join([mark] * 6)})",
                (snap.table_id, chosen, hash_token(token), name, player_id, device or None),
            )
            return events, [insert]

        pending, _ = self._decide(code, None, decide_on)
        return Joined(taken[0], token, pending.snap.seq), list(pending.written)

    # -- seat requests, releases and moves ----------------------------------------------------

    def request_seat(
        self,
        code: str,
        seat: str,
        name: str,
        player_id: str,
        why: str,
        now_ms: int,
        asker: str = "",
        per_table: int = 0,
    ) -> tuple[str, str, int]:
        """Ask for `seat` (it waits for approval): (request ref, token, seq). The request is
        an event in the log, so the judges and the other seat see it.

        At most one waiting request per `asker` (a hash of who asks) and, when `per_table`,
        at most that many per table: each one is a prompt on the phones and the floor."""
        token, ref = secrets.token_urlsafe(32), secrets.token_hex(6)

        def decide_on(snap: Snapshot) -> Decided:
            if per_table and len(snap.state.seat_requests) >= per_table:
                raise TooMany(
                    "too_many_requests",
                    "This table has enough phones waiting; ask a judge or the players.",
                    {"waiting": len(snap.state.seat_requests)},
                )
            if asker and self._asker_waiting(snap.table_id, asker):
                raise Conflict("request_waiting", "Your request for a seat here is still waiting.")
            data = {"request": ref, "seat": seat, "name": name, "player_id": player_id}
            events = [Event("seat.requested", {**data, "why": why}, now_ms, SYSTEM_ACTOR)]
            mark = self.db.param
            insert = (
                "INSERT INTO seat_request (table_id, ref, seat, token_hash, name, player_id, "
                f"created_ms, status, asker) VALUES ({', '.join([mark] * 9)})",
                (
                    snap.table_id,
                    ref,
                    seat,
                    hash_token(token),
                    name,
                    player_id,
                    now_ms,
                    "waiting",
                    asker or None,
                ),
            )
            return events, [insert]

        pending, _ = self._decide(code, None, decide_on)
        return ref, token, pending.snap.seq

    def _asker_waiting(self, table_id: int, asker: str) -> bool:
        with self.db.connection_context():
            found = (
                SeatRequest.select(SeatRequest.id)
                .where(
                    (SeatRequest.table == table_id)
                    & (SeatRequest.asker == asker)
                    & (SeatRequest.status == "waiting")
                )
                .first()
            )
        return found is not None

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

    def seen(self, code: str, seat: str, now_ms: int) -> None:
        """The seat's phone is around now (its socket opened, closed, or is kept)."""
        with self.db.connection_context():
            table = TableRow.select(TableRow.id).where(TableRow.code == code)
            SeatRow.update(seen_ms=now_ms).where(
                (SeatRow.table.in_(table)) & (SeatRow.seat == seat)
            ).execute()

    def disown(self, code: str, seat: str, now_ms: int) -> int:
        """The seat's phone says it is not its player's any more; the new seq."""
        return self.append(code, "seat.disown", {"seat": seat}, SYSTEM_ACTOR, None, now_ms).seq

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

    def recover(
        self, code: str, recovery_hash: str, tokens: dict[str, str], device: str, now_ms: int
    ) -> tuple[list[str | None], str]:
        """Move both seats of a one-phone table to a new phone (`tokens`: the new token of
        each seat) if `recovery_hash` is its recovery code's; the old tokens' hashes and the
        new recovery code (the old one is spent)."""
        import hmac as _hmac

        with self.db.connection_context():
            row = TableRow.get_or_none(TableRow.code == code)
        if (
            row is None
            or not row.recovery_hash
            or not _hmac.compare_digest(row.recovery_hash, recovery_hash)
        ):
            raise Forbidden("bad_recovery", "This is not the table's recovery code.")
        fresh = new_recovery_code()
        old: list[str | None] = []

        def decide_on(snap: Snapshot) -> Decided:
            old.clear()
            events: list[Event] = []
            statements: list[Statement] = []
            mark = self.db.param
            state = snap.state
            for seat in ("A", "B"):
                held = self.seat_row(code, seat)
                if held is None:
                    raise Conflict("seat_free", "That seat is free: join it.")
                old.append(held.token_hash)
                info = state.seats[seat]
                args = {"seat": seat, "name": info.name, "player_id": info.player_id}
                made = decide(
                    state,
                    "seat.move",
                    {**args, "by": "recovery code"},
                    SYSTEM_ACTOR,
                    now_ms,
                    self.randbelow,
                )
                events += made
                for e in made:
                    state = apply(state, e)
                statements.append(
                    (
                        f"UPDATE seat SET token_hash = {mark}, device = {mark} "
                        f"WHERE table_id = {mark} AND seat = {mark}",
                        (hash_token(tokens[seat]), device or None, snap.table_id, seat),
                    )
                )
            statements.append(
                (
                    f'UPDATE "table" SET recovery_hash = {mark} '
                    f"WHERE id = {mark} AND recovery_hash = {mark}",
                    (hash_token(fresh), snap.table_id, recovery_hash),
                )
            )
            return events, statements

        self._decide(code, None, decide_on)
        return old, fresh

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
            raise NotFound("no_such_request", "No waiting request has this id.")
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
                        f"UPDATE seat SET token_hash = {mark}, name = {mark}, player_id = {mark}, "
                        f"device = NULL, seen_ms = NULL WHERE table_id = {mark} AND seat = {mark}",
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
            raise NotFound("no_such_request", "No waiting request has this id.")

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


# A decision: the events, and any statements to store with them.
Decided = tuple[list[Event], list[Statement]]


class _Answered:
    """A command already stored: the seq it answered (looks like a committed `Pending`)."""

    outcome = "ok"
    error: BaseException | None = None
    written: list[dict[str, Any]] = []

    def __init__(self, code: str, seq: int) -> None:
        self.code = code
        self.snap = Snapshot(seq, EMPTY, GENESIS)
        self.done = _SET


_SET = threading.Event()
_SET.set()


def _descends(pending: Pending, ancestor: Pending) -> bool:
    node: Pending | None = pending
    while node is not None:
        if node is ancestor:
            return True
        node = node.parent
    return False
