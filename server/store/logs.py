"""An event's tournament log, kept the way a table's log is: one append-only sequence per event,
each entry hash-chained to the one before it (`chain.link_hash`: the same canonical text, with
`tournament/<event id>` where a table has its code), its actor stored structured (`Actor`, as
JSON), and its folded state (`server/rules/tournament_log.py`) kept as a snapshot in an LRU
(`cache.KeyedLRU`), advanced by the entries written since, never replayed whole on a read.

Appending takes the table store's held path (`EventStore.turn(hold=True)`, through the same
`Writer`): the writer's in-process lock, then one transaction that holds the event's row
(SQLite: BEGIN IMMEDIATE; PostgreSQL: SELECT ... FOR UPDATE), catches the snapshot up, and
writes the next seq. Two processes appending to one event take turns there, so nothing is lost
or reordered; the unique (event, seq) index is the last guard.

A log written before this (bare names as actors, no hashes) is carried over by the migration
`tournament_log_chained` (`chain_existing`); a bare name still read is given the actor it
stands for (`tournament_log.actor_of`).
"""

from __future__ import annotations

import json
import logging
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from peewee import BigIntegerField, CharField, ForeignKeyField, IntegerField, TextField

from server.core.errors import Busy, NotFound
from server.rules import Actor, Event
from server.rules.tournament_log import EMPTY, TournamentState, actor_of, apply

from .cache import KeyedLRU
from .chain import GENESIS, Verification, dumps, link_hash, verify_chain
from .models import BaseModel, JSONField
from .tournament import TournamentEvent
from .writers import INTEGRITY_ERRORS, Writer

log = logging.getLogger(__name__)

# Events whose tournament state one process keeps in memory.
CACHE_SIZE = 256
# Tries at an append that lost the (event, seq) race to another writer.
TRIES = 5


class SwissLog(BaseModel):
    """One entry of an event's tournament log (append-only, hash-chained). `actor` is the
    structured actor as JSON (`Actor.to_dict`); a row written before it was holds a bare name."""

    event = ForeignKeyField(TournamentEvent, backref="swiss_log", on_delete="CASCADE")
    seq = IntegerField()
    type = CharField(max_length=32)
    data = JSONField()
    actor = TextField()
    at_ms = BigIntegerField()
    prev_hash = CharField(max_length=64, default="")
    hash = CharField(max_length=64, default="")

    class Meta:
        table_name = "swiss_log"
        indexes = ((("event", "seq"), True),)


def stream(event_id: int) -> str:
    """The name an event's tournament log is chained under (a table's is its code)."""
    return f"tournament/{event_id}"


def read_actor(event_type: str, data: Mapping[str, Any], text: str) -> Actor:
    """The actor of a stored entry: its JSON, or the actor a bare name (an older row) stands
    for."""
    if text.startswith("{"):
        return Actor.from_dict(json.loads(text))
    return actor_of(event_type, data, text)


@dataclass(frozen=True)
class LogSnapshot:
    """An event's tournament state as of entry `seq`, and that entry's hash."""

    seq: int
    state: TournamentState
    last_hash: str


START = LogSnapshot(0, EMPTY, GENESIS)


@dataclass
class _Link:
    """A stored entry as `chain.verify_chain` reads it (`chain.Link`)."""

    seq: int
    type: str
    data: str
    actor: str
    at_ms: int
    prev_hash: str
    hash: str


class TournamentLogs:
    """Every event's tournament log on one database, with its writer and snapshot cache."""

    def __init__(self, database: Any, writer: Writer, cache_size: int = CACHE_SIZE) -> None:
        self.db = database
        self.writer = writer
        self._cache: KeyedLRU[int, LogSnapshot] = KeyedLRU(cache_size)

    # -- reading -----------------------------------------------------------------------------

    def _advance(self, event_id: int, snap: LogSnapshot) -> LogSnapshot:
        """`snap` moved on by the entries written after it (the entry at `snap.seq` is read
        again: a different hash there means the log is not the one cached, and it is read
        from its start)."""
        rows = list(
            SwissLog.select(SwissLog.seq, SwissLog.type, SwissLog.data, SwissLog.actor)
            .select_extend(SwissLog.at_ms, SwissLog.hash)
            .where((SwissLog.event == event_id) & (SwissLog.seq >= max(snap.seq, 1)))
            .order_by(SwissLog.seq)
        )
        if snap.seq:
            if not rows or rows[0].seq != snap.seq or rows[0].hash != snap.last_hash:
                log.warning("event %s: its tournament log changed under the cache", event_id)
                return self._advance(event_id, START)
            rows = rows[1:]
        state, seq, last = snap.state, snap.seq, snap.last_hash
        for row in rows:
            if row.seq != seq + 1:
                log.error("event %s: tournament log entry %s is missing", event_id, seq + 1)
                break
            actor = read_actor(row.type, row.data, row.actor)
            state = apply(state, row.seq, Event(row.type, row.data, row.at_ms, actor))
            seq, last = row.seq, row.hash
        return snap if seq == snap.seq else LogSnapshot(seq, state, last)

    def snapshot(self, event_id: int) -> LogSnapshot:
        """The event's tournament state now: the cached snapshot and the entries since."""
        with self.db.connection_context():
            snap = self._advance(event_id, self._cache.get(event_id) or START)
        self._cache.offer(event_id, snap)
        return snap

    def entries(self, event_id: int) -> list[dict[str, Any]]:
        """The whole log, oldest first: each entry's seq, type, data, actor (structured),
        at_ms and chain hashes."""
        with self.db.connection_context():
            rows = SwissLog.select().where(SwissLog.event == event_id).order_by(SwissLog.seq)
            return [
                {
                    "seq": r.seq,
                    "type": r.type,
                    "data": r.data,
                    "actor": read_actor(r.type, r.data, r.actor).to_dict(),
                    "at_ms": r.at_ms,
                    "prev_hash": r.prev_hash,
                    "hash": r.hash,
                }
                for r in rows
            ]

    def verify(self, event_id: int) -> Verification:
        """Recompute the event's chain from its start and name the first link that does not
        hold (as `EventStore.verify` does for a table's chain)."""
        links = [
            _Link(
                e["seq"],
                e["type"],
                dumps(e["data"]),
                dumps(e["actor"]),
                e["at_ms"],
                e["prev_hash"],
                e["hash"],
            )
            for e in self.entries(event_id)
        ]
        return verify_chain(stream(event_id), links, links[-1].seq if links else 0)

    # -- writing -----------------------------------------------------------------------------

    def append(
        self, event_id: int, type_: str, data: Mapping[str, Any], actor: Actor, now: int
    ) -> int:
        """Write the next entry of the event's log (chained to the last one) and return its
        seq. The state it leads to becomes the event's snapshot."""
        plain = json.loads(dumps(data))  # as a read gives it back
        actor_text, data_text = dumps(actor.to_dict()), dumps(plain)
        name = stream(event_id)
        writer = self.writer
        for _ in range(TRIES):
            try:
                with writer.lock(name), self.db.connection_context():
                    with writer.atomic():
                        mark = self.db.param
                        held = self.db.execute_sql(
                            f'SELECT id FROM "tournament" WHERE id = {mark}{writer.for_update}',
                            (event_id,),
                        ).fetchone()
                        if held is None:
                            raise NotFound("no_such_event", "No such event.")
                        snap = self._advance(event_id, self._cache.get(event_id) or START)
                        seq = snap.seq + 1
                        digest = link_hash(
                            snap.last_hash, name, seq, type_, data_text, actor_text, now
                        )
                        SwissLog.insert(
                            event=event_id,
                            seq=seq,
                            type=type_,
                            data=plain,
                            actor=actor_text,
                            at_ms=now,
                            prev_hash=snap.last_hash,
                            hash=digest,
                        ).execute()
                        state = apply(snap.state, seq, Event(type_, plain, now, actor))
                self._cache.offer(event_id, LogSnapshot(seq, state, digest))
                return seq
            except INTEGRITY_ERRORS:
                self._cache.drop(event_id)  # another writer took this seq: read again
        raise Busy("busy", "Try again.")


def chain_existing(database: Any) -> int:
    """Chain every stored entry that is not yet (a log written before chains): its bare actor
    name becomes the structured actor it stands for, and each entry gets its `prev_hash` and
    `hash` in seq order per event. Returns how many rows changed."""
    mark = database.param
    rows: Iterable[Any] = database.execute_sql(
        "SELECT id, event_id, seq, type, data, actor, at_ms, prev_hash, hash FROM swiss_log "
        "ORDER BY event_id, seq"
    ).fetchall()
    changed = 0
    event, prev = None, GENESIS
    for row_id, event_id, seq, type_, data_text, actor_text, at_ms, old_prev, old_hash in rows:
        if event_id != event:
            event, prev = event_id, GENESIS
        data = json.loads(data_text)
        actor = dumps(read_actor(type_, data, str(actor_text)).to_dict())
        digest = link_hash(prev, stream(event_id), seq, type_, dumps(data), actor, at_ms)
        if (actor, prev, digest) != (actor_text, old_prev, old_hash):
            database.execute_sql(
                f"UPDATE swiss_log SET actor = {mark}, prev_hash = {mark}, hash = {mark} "
                f"WHERE id = {mark}",
                (actor, prev, digest, row_id),
            )
            changed += 1
        prev = digest
    return changed
