"""The table service: every write to a table's log, then the publish of its new seq, in one place.

A caller (a view, the table socket, the timer, a round started for all tables) asks the service;
the service appends through the store (`server/store/events.py`) and tells the hub
(`server/service/hub.py`) the table's new seq, so no caller can forget to publish or publish a seq
that was not written. Nothing outside this module (and the hub itself) calls `hub.publish`;
`tests/test_service.py` checks that.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from server.rules import Actor, RuleSet
from server.rules.base import SYSTEM_ACTOR
from server.service.hub import Hub
from server.store import Appended, EventStore, Joined

# Told the token hash of a phone that lost its seat (None: the seat was free), before publishing.
SeatEnded = Callable[[str | None], object] | None


class TableService:
    """Append to a table's log and publish the new seq: the one write path of every table."""

    def __init__(self, store: EventStore, hub: Hub) -> None:
        self.store, self.hub = store, hub

    def publish(self, code: str, seq: int) -> None:
        """Tell every socket of the table it is at `seq` (the store's alarms come here too)."""
        self.hub.publish(code, seq)

    def announce(self, seqs: Mapping[str, int]) -> None:
        """Publish the seqs of tables written together (a round started or ended)."""
        for code, seq in seqs.items():
            self.hub.publish(code, seq)

    def _publish_latest(self, code: str) -> None:
        self.hub.publish(code, self.store.snapshot(code).seq)

    def command(
        self,
        code: str,
        cmd: str,
        args: dict[str, Any],
        actor: Actor,
        cmd_id: str | None,
        now_ms: int,
        answered: Callable[[Appended], None] | None = None,
    ) -> Appended:
        """Decide and store one command; publish if it wrote events (a repeated id writes
        none). `answered` runs between the two, so the sender hears its reply before the
        update the publish brings (docs/protocol.md)."""
        result = self.store.append(code, cmd, args, actor, cmd_id, now_ms)
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
        code = self.store.create_table(ruleset, now_ms)
        self.hub.publish(code, 1)
        return code

    def join(
        self,
        code: str,
        seat: str | None,
        name: str,
        player_id: str,
        now_ms: int,
        device: str = "",
    ) -> Joined:
        """Seat a player; the token is in the answer only."""
        joined, _events = self.store.join(code, seat, name, player_id, now_ms, device)
        self.hub.publish(code, joined.seq)
        return joined

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
        """A phone asks for a seat it cannot take at once: (ref, token, seq)."""
        ref, token, seq = self.store.request_seat(
            code, seat, name, player_id, why, now_ms, asker, per_table
        )
        self.hub.publish(code, seq)
        return ref, token, seq

    def disown(self, code: str, seat: str, now_ms: int) -> int:
        """The seat's phone says it is not its player's any more."""
        seq = self.store.disown(code, seat, now_ms)
        self.hub.publish(code, seq)
        return seq

    def recover(
        self,
        code: str,
        recovery_hash: str,
        tokens: dict[str, str],
        device: str,
        now_ms: int,
        ended: SeatEnded = None,
    ) -> str:
        """Move a one-phone table to a new phone; the new recovery code. `ended` gets each
        old token's hash before the publish, so the old phone's sockets close first."""
        old, fresh = self.store.recover(code, recovery_hash, tokens, device, now_ms)
        if ended is not None:
            for token_hash in old:
                ended(token_hash)
        self._publish_latest(code)
        return fresh

    def grant_request(
        self, code: str, ref: str, by: str, now_ms: int, ended: SeatEnded = None
    ) -> tuple[str, str | None]:
        """Give a waiting phone its seat: (seat, the token hash of the phone that had it).
        `ended` gets that hash before the publish, so the old phone's sockets close first."""
        seat, old = self.store.grant_request(code, ref, by, now_ms)
        if ended is not None:
            ended(old)
        self._publish_latest(code)
        return seat, old

    def refuse_request(self, code: str, ref: str, by: str, now_ms: int) -> str:
        """Refuse a waiting request; its seat."""
        seat = self.store.refuse_request(code, ref, by, now_ms)
        self._publish_latest(code)
        return seat

    def release_seat(
        self, code: str, seat: str, by: str, now_ms: int, ended: SeatEnded = None
    ) -> str | None:
        """Free a seat; the token hash of the phone that had it (given to `ended` first)."""
        old = self.store.release_seat(code, seat, by, now_ms)
        if ended is not None:
            ended(old)
        self._publish_latest(code)
        return old
