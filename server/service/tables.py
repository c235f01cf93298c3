"""The table service: every write to a table's log decided here, stored, then published.

A caller (a view, the table socket, the timer, a round started for all tables) asks the service.
The service takes a turn at the table from the store (`server/store/events.py`: its latest
state), asks the rules to decide (`server.rules.decision`: the events and the state they lead
to), decides what a seat change stores beside them (a seat's row, a request's), appends the
decided events, and waits for their commit; a turn decided on a state another process moved
past is decided again, and after a few such tries it holds the table. Then it tells the hub
(`server/service/hub.py`) the table's new seq, so no caller can forget to publish or publish a
seq that was not written. Nothing outside this module (and the hub itself) calls
`hub.publish`; `tests/test_service.py` checks that.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import logging
import secrets
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from server.core.errors import Conflict, DomainError, Forbidden, NotFound, TooMany
from server.core.tokens import hash_token
from server.rules import (
    Actor,
    Decision,
    Event,
    RuleError,
    RuleSet,
    choose_seat,
    create_events,
    decision,
    facts,
)
from server.rules.base import SYSTEM_ACTOR, judge_called
from server.rules.state import SeatAsk
from server.runtime.loop import let_loop_run
from server.service.hub import Hub
from server.store import Appended, EventStore, Joined, Snapshot
from server.store.chain import Verification
from server.store.events import Turn, new_recovery_code
from server.store.models import COMMAND_DIGEST_MAX, COMMAND_ID_MAX
from server.store.writers import Statement

log = logging.getLogger(__name__)

# Told the token hash of a phone that lost its seat (None: the seat was free), before publishing.
SeatEnded = Callable[[str | None], object] | None

# What deciding on a snapshot gives: the decision, and the statements to store with its events.
Decided = tuple[Decision, list[Statement]]
Decider = Callable[[Snapshot], Decided]

YIELD_EVERY = 50  # tables decided in `append_many` between two yields to the event loop

# One command for `append_many`: the table's code, the command, its arguments, who sends it
# and its id.
Order = tuple[str, str, dict[str, Any], Actor, str | None]
# A table's answer in `append_many`: what was stored, or why it was refused.
Answer = Appended | RuleError | DomainError


def sender_of(actor: Actor) -> str:
    """Whose ids a command's id is among: a seat's (`A`, `B`) or a staff member's
    (`staff:<username>`); two senders never spend each other's ids."""
    if actor.role == "seat" and actor.seat:
        return actor.seat
    return f"staff:{actor.name}"


def phone_command_id(ref: str, sender: str) -> str:
    """The stored id of a command a phone (or a staff page's socket) `sender` sent as `ref`.
    The server's own commands have ids of their own (the timer's `tick:<deadline>`, a round's
    `round:<id>:start`), and a repeated id is answered as a duplicate that writes nothing: a
    client's ids live apart from them (`p:`), so no phone can spend the id of a deadline or a
    round start before the server does, and each sender's apart from the others' (`p:A:7` is
    not `p:B:7`). A long id is kept as its hash, within the column."""
    stored = f"p:{sender}:{ref}"
    if len(stored) <= COMMAND_ID_MAX:
        return stored
    return "p#" + hashlib.sha256(f"{sender}:{ref}".encode()).hexdigest()


def command_digest(cmd: str, args: Mapping[str, Any]) -> str:
    """What a command was sent with, as stored beside its id: a retry sends the same, so the
    same id with another digest is refused (`id_reused`), not answered as a duplicate."""
    text = json.dumps([cmd, args], sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(text.encode()).hexdigest()[:COMMAND_DIGEST_MAX]


# Tries on the group commit before a command holds its table.
OPTIMISTIC = 3


class TableService:
    """Decide, store and publish: the one write path of every table."""

    def __init__(
        self,
        store: EventStore,
        hub: Hub,
        randbelow: Callable[[int], int] = secrets.randbelow,
    ) -> None:
        self.store, self.hub = store, hub
        self.randbelow = randbelow

    # -- deciding and storing ------------------------------------------------------------------

    def _write(
        self,
        code: str,
        cmd_id: str | None,
        decide_on: Decider,
        sign: bool = True,
        digest: str = "",
    ) -> Appended:
        """Decide on the table's latest state and store the events; decided again when another
        writer moved the table on first, holding the table after `OPTIMISTIC` tries."""
        for attempt in range(OPTIMISTIC + 1):
            with self.store.turn(code, cmd_id, attempt == OPTIMISTIC, digest) as turn:
                if not turn.repeat:
                    made, statements = decide_on(turn.snap)
                    turn.append(made.events, made.state, statements)
            stored = self.store.settle(turn, sign=sign)
            if stored is not None:
                return stored
        raise RuntimeError("a held turn was not stored")  # pragma: no cover - holding settles

    def _decide(
        self, snap: Snapshot, cmd: str, args: Mapping[str, Any], actor: Actor, now_ms: int
    ) -> Decision:
        return decision(snap.state, cmd, args, actor, now_ms, self.randbelow)

    def append(
        self,
        code: str,
        cmd: str,
        args: dict[str, Any],
        actor: Actor,
        cmd_id: str | None,
        now_ms: int,
        digest: str = "",
    ) -> Appended:
        """Decide and store one command, not published (the caller announces what it wrote
        with others, `announce`); a repeated `cmd_id` returns the original answer, or is
        refused (`id_reused`) when its `digest` differs from the original's."""

        def decide_on(snap: Snapshot) -> Decided:
            return self._decide(snap, cmd, args, actor, now_ms), []

        return self._write(code, cmd_id, decide_on, digest=digest)

    def append_many(
        self, orders: Sequence[Order], now_ms: int, publish: bool = False
    ) -> dict[str, Answer]:
        """Decide and store one command at each of many tables (a round's start, the time
        called at every table in the same second) without a commit of its own for each: the
        tables are decided one after another while the group committer writes those already
        decided, so the first are stored while the last are still being decided. With
        `publish`, each table is published as soon as its events are stored (the first phones
        are told at once, not after the whole hall); else the caller announces the seqs. A
        table another process moved on meanwhile is decided again on its own (`append`). A
        refused command is its table's answer."""
        waiting: list[tuple[Order, Turn]] = []
        answers: dict[str, Answer] = {}

        def settle(turns: list[tuple[Order, Turn]]) -> None:
            for order, turn in turns:
                code, cmd, args, actor, cmd_id = order
                try:
                    stored = self.store.settle(turn)
                    if stored is None:  # another process moved the table on: decide again
                        stored = self.append(code, cmd, args, actor, cmd_id, now_ms)
                except (RuleError, DomainError) as exc:
                    answers[code] = exc
                    continue
                answers[code] = stored
                if publish and stored.events:
                    self.hub.publish(code, stored.seq)

        for n, order in enumerate(orders, start=1):
            if n % YIELD_EVERY == 0:
                # Let the committer and the sockets run between slices; tell what is stored.
                let_loop_run()
                done: list[tuple[Order, Turn]] = []
                still: list[tuple[Order, Turn]] = []
                for item in waiting:  # one look at each: a commit may land meanwhile
                    (done if item[1].ready else still).append(item)
                waiting = still
                settle(done)
            code, cmd, args, actor, cmd_id = order
            try:
                with self.store.turn(code, cmd_id) as turn:
                    if not turn.repeat:
                        made = self._decide(turn.snap, cmd, args, actor, now_ms)
                        turn.append(made.events, made.state)
            except (RuleError, DomainError) as exc:
                answers[code] = exc
                continue
            except Exception:
                # A fault at one table (a bug) must not keep the hall's others waiting.
                log.exception("%s at table %s could not be decided", cmd, code)
                answers[code] = DomainError("internal", "The command could not be stored.")
                continue
            waiting.append((order, turn))
        settle(waiting)
        return answers

    # -- reads for the edge: the tables' state, logs and seats (the store stays behind) ---------

    def snapshot(self, code: str) -> Snapshot:
        """The committed state of table `code` now."""
        return self.store.snapshot(code)

    def fresh(self, code: str, at_least: int = 0) -> Snapshot:
        """The state at `at_least` or later, from memory when this process holds it."""
        return self.store.fresh(code, at_least)

    def update_since(
        self, code: str, since: int, at_least: int = 0, limit: int = 500
    ) -> tuple[Snapshot, list[dict[str, Any]]]:
        """The state now and the envelopes after `since` (none when more than `limit`)."""
        return self.store.update_since(code, since, at_least, limit)

    def exists(self, code: str) -> bool:
        """Whether a table has this code."""
        return self.store.exists(code)

    def log(self, code: str) -> list[dict[str, Any]]:
        """The table's whole log, oldest first."""
        return self.store.log(code)

    def verify(self, code: str) -> Verification:
        """The table's hash chain (and signed heads) checked."""
        return self.store.verify(code)

    def seat_actor(self, code: str, token: str) -> Actor | None:
        """The seat whose token this is at table `code`, or None."""
        return self.store.seat_actor(code, token)

    def seat_token_hash(self, code: str, seat: str) -> str | None:
        """The hash of the token holding `seat` at table `code` (None: the seat is free)."""
        row = self.store.seat_row(code, seat)
        return str(row.token_hash) if row is not None and row.token_hash else None

    def seen(self, code: str, seat: str, now_ms: int) -> None:
        """The seat's phone is around now."""
        self.store.seen(code, seat, now_ms)

    def signed_heads(self, code: str) -> list[dict[str, Any]]:
        """The table's signed heads, oldest first."""
        return self.store.signed_heads(code)

    def public_key(self) -> str | None:
        """The server's public key in hex (None: it signs nothing)."""
        signer = self.store.signer
        return None if signer is None else signer.public_hex

    def secret(self) -> bytes | None:
        """The server's signing key's raw secret, which the cards' claims and the socket
        passes are made from (None: the server has no key)."""
        signer = self.store.signer
        return None if signer is None else signer.raw_secret()

    def sweep_unjoined(self, before_ms: int, limit: int) -> list[str]:
        """Delete up to `limit` casual tables made before `before_ms` that nobody joined."""
        return self.store.sweep_unjoined(before_ms, limit)

    def close(self) -> None:
        """Close the store under the service (its group committer)."""
        self.store.close()

    # -- publishing ----------------------------------------------------------------------------

    def publish(self, code: str, seq: int) -> None:
        """Tell every socket of the table it is at `seq`."""
        self.hub.publish(code, seq)

    def held_tokens(self, token_hashes: list[str]) -> set[str]:
        """Which of the seat tokens (their hashes) still hold a seat."""
        return self.store.held_tokens(token_hashes)

    def announce(self, seqs: Mapping[str, int]) -> None:
        """Publish the seqs of tables written together (a round started or ended)."""
        for code, seq in seqs.items():
            self.hub.publish(code, seq)

    def _publish_latest(self, code: str) -> None:
        self.hub.publish(code, self.store.snapshot(code).seq)

    # -- commands ------------------------------------------------------------------------------

    def command(
        self,
        code: str,
        cmd: str,
        args: dict[str, Any],
        actor: Actor,
        cmd_id: str | None,
        now_ms: int,
        answered: Callable[[Appended], None] | None = None,
        digest: str = "",
    ) -> Appended:
        """Decide and store one command; publish if it wrote events (a repeated id writes
        none). `answered` runs between the two, so the sender hears its reply before the
        update the publish brings (docs/protocol.md)."""
        result = self.append(code, cmd, args, actor, cmd_id, now_ms, digest)
        if answered is not None:
            answered(result)
        if result.events:
            self.hub.publish(code, result.seq)
        return result

    def system(
        self, code: str, cmd: str, args: dict[str, Any], cmd_id: str | None, now_ms: int
    ) -> Appended:
        """A command of the server itself (the timer's tick, a ban list put in force)."""
        return self.command(code, cmd, args, SYSTEM_ACTOR, cmd_id, now_ms)

    def create_table(self, ruleset: RuleSet, now_ms: int) -> str:
        """Open a table; its first event is seq 1."""
        code = self.store.add_table(ruleset, now_ms)

        def decide_on(snap: Snapshot) -> Decided:
            return facts(snap.state, create_events(code, ruleset, now_ms)), []

        with self.store.turn(code, None, hold=True) as turn:
            made, _ = decide_on(turn.snap)
            turn.append(made.events, made.state)
        self.store.settle(turn)
        self.hub.publish(code, 1)
        return code

    # -- tamper alarms -------------------------------------------------------------------------

    def audit(self, code: str, now_ms: int) -> str | None:
        """Compare this process's cached head with the log (`EventStore.changed_under`): a log
        changed under the cache gets a judge call, which the judges' sockets hear; the
        problem is returned."""
        found_at = self.store.changed_under(code)
        if found_at is None:
            return None

        def decide_on(latest: Snapshot) -> Decided:
            # The call carries a code and its values (each screen words them), not a sentence.
            data = judge_called(latest.state, None, "", code="log_changed", params=found_at)
            return facts(latest.state, [Event("judge.called", data, now_ms, SYSTEM_ACTOR)]), []

        # Not signed: the alarm sits on a log changed under the server, and a signature would
        # vouch for it; at a decided table `verify` then reports the unsigned head too.
        stored = self._write(code, None, decide_on, sign=False)
        self.hub.publish(code, stored.seq)
        return (
            f"The stored log changed under the server at seq {found_at['seq']}: "
            f"expected {found_at['expected']}, found {found_at['found'] or 'nothing'}."
        )

    def audit_some(self, count: int, now_ms: int) -> int:
        """Audit the next `count` cached tables (round robin); how many alarms."""
        return sum(1 for code in self.store.audit_codes(count) if self.audit(code, now_ms))

    # -- seats ---------------------------------------------------------------------------------

    def join(
        self,
        code: str,
        seat: str | None,
        name: str,
        player_id: str,
        now_ms: int,
        device: str = "",
    ) -> Joined:
        """Take a seat (the first free one when `seat` is None) and make its token, shown
        once in the answer. `device` names one phone that holds both seats (table mode); it
        is kept in the event."""
        token = secrets.token_urlsafe(32)
        taken: list[str] = []

        def decide_on(snap: Snapshot) -> Decided:
            chosen = choose_seat(snap.state, seat)
            args = {"seat": chosen, "name": name, "player_id": player_id, "device": device}
            made = self._decide(snap, "seat.join", args, SYSTEM_ACTOR, now_ms)
            taken[:] = [chosen]
            row = self.store.seat_taken(
                snap.table_id, chosen, hash_token(token), name, player_id, device
            )
            return made, [row]

        stored = self._write(code, None, decide_on)
        self.hub.publish(code, stored.seq)
        return Joined(taken[0], token, stored.seq)

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
        stale: Callable[[SeatAsk], bool] | None = None,
    ) -> tuple[str, str, int]:
        """Ask for `seat` (it waits for approval): (request ref, token, seq). The request is an
        event in the log, so the judges and the other seat see it.

        At most one waiting request per `asker` (a hash of who asks) and, when `per_table`, at
        most that many per table: each one is a prompt on the phones and the floor. Waiting
        requests that are `stale` (their phone gone, or asked too long ago) expire first, in the
        same write (`seat.refused` by "expired"), so they hold no place."""
        token, ref = secrets.token_urlsafe(32), secrets.token_hex(6)

        def decide_on(snap: Snapshot) -> Decided:
            expired = [r for r in snap.state.seat_requests if stale is not None and stale(r)]
            waiting = len(snap.state.seat_requests) - len(expired)
            if per_table and waiting >= per_table:
                raise TooMany(
                    "too_many_requests",
                    "This table has enough phones waiting; ask a judge or the players.",
                    {"waiting": waiting},
                )
            events: list[Event] = []
            statements: list[Statement] = []
            for r in expired:
                data = {"request": r.request, "seat": r.seat, "by": "expired"}
                events.append(Event("seat.refused", data, now_ms, SYSTEM_ACTOR))
                old = self.store.seat_request(code, r.request)
                if old is not None:
                    statements.append(self.store.request_answered(old.id, "expired"))
            gone = {r.request for r in expired}
            if asker and self.store.asker_waiting(snap.table_id, asker, gone):
                raise Conflict("request_waiting", "Your request for a seat here is still waiting.")
            data = {"request": ref, "seat": seat, "name": name, "player_id": player_id}
            asked = Event("seat.requested", {**data, "why": why}, now_ms, SYSTEM_ACTOR)
            row = self.store.request_made(
                snap.table_id,
                ref,
                {
                    "seat": seat,
                    "token_hash": hash_token(token),
                    "name": name,
                    "player_id": player_id,
                    "created_ms": now_ms,
                    "asker": asker,
                },
            )
            return facts(snap.state, [*events, asked]), [*statements, row]

        stored = self._write(code, None, decide_on)
        self.hub.publish(code, stored.seq)
        return ref, token, stored.seq

    def disown(self, code: str, seat: str, now_ms: int) -> int:
        """The seat's phone says it is not its player's any more; the new seq."""
        return self.system(code, "seat.disown", {"seat": seat}, None, now_ms).seq

    def recover(
        self,
        code: str,
        recovery_hash: str,
        tokens: dict[str, str],
        device: str,
        now_ms: int,
        ended: SeatEnded = None,
    ) -> str:
        """Move both seats of a one-phone table to a new phone (`tokens`: the new token of
        each seat) if `recovery_hash` is its recovery code's; the new recovery code (the old
        one is spent). `ended` gets each old token's hash before the publish, so the old
        phone's sockets close first."""
        known = self.store.table_recovery(code)
        if not known or not hmac.compare_digest(known, recovery_hash):
            raise Forbidden("bad_recovery", "This is not the table's recovery code.")
        fresh = new_recovery_code()
        old: list[str | None] = []

        def decide_on(snap: Snapshot) -> Decided:
            old.clear()
            events: list[Event] = []
            statements: list[Statement] = []
            state = snap.state
            for seat in ("A", "B"):
                held = self.store.seat_row(code, seat)
                if held is None:
                    raise Conflict("seat_free", "That seat is free: join it.")
                old.append(held.token_hash)
                info = state.seats[seat]
                args = {"seat": seat, "name": info.name, "player_id": info.player_id}
                moved = decision(
                    state,
                    "seat.move",
                    {**args, "by": "recovery code"},
                    SYSTEM_ACTOR,
                    now_ms,
                    self.randbelow,
                )
                events += moved.events
                state = moved.state
                statements.append(
                    self.store.seat_moved(snap.table_id, seat, hash_token(tokens[seat]), device)
                )
            statements.append(
                self.store.recovery_spent(snap.table_id, recovery_hash, hash_token(fresh))
            )
            return Decision(events, state), statements

        self._write(code, None, decide_on)
        if ended is not None:
            for token_hash in old:
                ended(token_hash)
        self._publish_latest(code)
        return fresh

    def grant_request(
        self,
        code: str,
        ref: str,
        by: str,
        now_ms: int,
        ended: SeatEnded = None,
        identity: Callable[[str, str, str], tuple[str, str]] | None = None,
    ) -> tuple[str, str | None]:
        """Give a waiting request its seat (joining it, or moving it from the phone that had
        it): (seat, the token hash of the phone that had it). `ended` gets that hash before
        the publish, so the old phone's sockets close first. `identity(seat, typed name, typed
        ID)` gives the name and player ID the seat carries (an event seat is its pairing's): the
        request keeps what was typed, for the judge."""
        request = self.store.seat_request(code, ref)
        if request is None or request.status != "waiting":
            raise NotFound("no_such_request", "No waiting request has this id.")
        seat = str(request.seat)
        name, player_id = str(request.name), str(request.player_id)
        if identity is not None:
            name, player_id = identity(seat, name, player_id)
        old: list[str | None] = [None]

        def decide_on(snap: Snapshot) -> Decided:
            args = {"seat": seat, "name": name, "player_id": player_id}
            statements: list[Statement]
            if snap.state.seats[seat].joined:
                old[0] = self.store.seat_token_hash(snap.table_id, seat)
                cmd = "seat.move"
                statements = [
                    self.store.seat_handed(snap.table_id, seat, request.token_hash, name, player_id)
                ]
            else:
                cmd = "seat.join"
                statements = [
                    self.store.seat_taken(snap.table_id, seat, request.token_hash, name, player_id)
                ]
            # The request's ref (and who granted it) go with the seat's event.
            args = {**args, "by": by, "request": ref}
            made = self._decide(snap, cmd, args, SYSTEM_ACTOR, now_ms)
            statements.append(self.store.request_answered(request.id, "approved"))
            statements.append(self.store.recovery_ended(snap.table_id))
            return made, statements

        self._write(code, None, decide_on)
        if ended is not None:
            ended(old[0])
        self._publish_latest(code)
        return seat, old[0]

    def refuse_request(self, code: str, ref: str, by: str, now_ms: int) -> str:
        """Refuse a waiting request: its token never works. The request's seat."""
        request = self.store.seat_request(code, ref)
        if request is None or request.status != "waiting":
            raise NotFound("no_such_request", "No waiting request has this id.")

        def decide_on(snap: Snapshot) -> Decided:
            data = {"request": ref, "seat": request.seat, "by": by}
            refused = Event("seat.refused", data, now_ms, SYSTEM_ACTOR)
            return facts(snap.state, [refused]), [
                self.store.request_answered(request.id, "refused")
            ]

        self._write(code, None, decide_on)
        self._publish_latest(code)
        return str(request.seat)

    def release_seat(
        self, code: str, seat: str, by: str, now_ms: int, ended: SeatEnded = None
    ) -> str | None:
        """Free a seat; the token hash of the phone that had it (given to `ended` first)."""
        old: list[str | None] = [None]

        def decide_on(snap: Snapshot) -> Decided:
            made = self._decide(
                snap, "seat.release", {"seat": seat, "by": by}, SYSTEM_ACTOR, now_ms
            )
            old[0] = self.store.seat_token_hash(snap.table_id, seat)
            return made, [
                self.store.seat_freed(snap.table_id, seat),
                self.store.recovery_ended(snap.table_id),
            ]

        self._write(code, None, decide_on)
        if ended is not None:
            ended(old[0])
        self._publish_latest(code)
        return old[0]
