"""The seat service: who may take a seat, and how a seat passes to another phone (the policy of
`server/api/seats.py`'s routes, which say what is asked over HTTP).

- **Claims.** A table card's QR carries a per-seat claim: HMAC-SHA256 of the event's slug, its
  card issue (`cards_issue`), the table number and the seat under a key derived from the
  server's signing key, so it survives restarts and is the same in every process. A claim holds
  in every round of the event until an organiser re-issues the cards (older claims are then
  old), and seats nobody while the table's round has ended.
- **Joins** (R1.1). At a seat paired with a player ID the claim seats the phone only when the
  typed ID is the pairing's (`server/rules/seating.py`); a wrong ID waits for a judge
  (`id_mismatch`) and spends the asker's miss budget; past `SEAT_ID_GUESSES` wrong IDs at a seat
  no ID seats a phone there by itself. A seat takes the pairing's name and ID. An event that asks
  for player IDs refuses a join without one. Any other join at an event seat that is not the
  card's own waits for a judge, with its reason (`why_waiting`).
- **Requests.** Each asker has at most one waiting request per seat, a table at most
  `SEAT_REQUESTS_PER_TABLE`; a request expires when its phone stopped asking how it stands
  (`SEAT_REQUEST_GONE_SECONDS`) or `SEAT_REQUEST_SECONDS` after it was made. At a casual table
  the seat's own phone answers, or the other seat once the owner is gone
  (`server.rules.table.seat_answer`, `SEAT_AWAY_SECONDS`).
- **Recovery.** A one-phone casual table gets a recovery code that moves both seats to another
  phone.

Every write goes through the table service (`server/service/tables.py`), the one publisher.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from collections import OrderedDict
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from server.core.errors import (
    Busy,
    Conflict,
    DomainError,
    Forbidden,
    NotFound,
    TooMany,
    Unauthenticated,
)
from server.core.tokens import hash_token
from server.rules.seating import (
    ANSWERED_BY_JOIN,
    CLAIM_BAD,
    CLAIM_OK,
    CLAIM_OLD,
    carried_identity,
    checks_player_id,
    id_mismatch,
    pairing_of,
    player_id_missing,
    why_waiting,
)
from server.rules.state import SeatAsk
from server.rules.table import seat_answer
from server.store.events import new_recovery_code, normal_recovery_code

from .tables import SeatEnded, TableService
from .tournament import Staff, Tournament


def claim_with(secret: bytes, slug: str, number: int, seat: str, *, issue: int = 1) -> str:
    """The claim of a table card's seat under a given key (the raw Ed25519 private key's 32
    bytes)."""
    text = f"seat-claim v3\n{slug}\n{issue}\n{number}\n{seat}".encode()
    return hmac.new(secret, text, hashlib.sha256).hexdigest()[:24]


@dataclass
class Asker:
    """Who asks for a seat, as the edge knows them: `address` and `device` make the asker's
    key (hashed: the request rows keep no address); `holder` says which seat of the table this
    phone already holds; `charge` spends the asker's request budget for a key (a card's seat or
    the address) and `spend_miss` its budget of wrong guesses, each refusing when spent."""

    address: str
    device: str
    holder: Callable[[], str | None]
    charge: Callable[[str], None]
    spend_miss: Callable[[], None]

    def key(self, seat: str) -> str:
        """The asker of `seat`: its address, its phone's device id, the seat; hashed."""
        text = f"seat-asker\n{self.address}\n{self.device}\n{seat}".encode()
        return hashlib.sha256(text).hexdigest()[:32]


class SeatService:
    """Seat claims, joins, requests, moves and recovery of every table of one app."""

    def __init__(
        self,
        tables: TableService,
        tournament: Tournament,
        config: Mapping[str, Any],
        clock: Callable[[], int],
    ) -> None:
        self.tables, self.tournament, self.clock = tables, tournament, clock
        self.store = tables.store
        self.config = config  # read at each use: a test may change it under a running app
        # Wrong player IDs typed at each seat (table code and seat) and when each waiting
        # request's phone last asked how it stands: this process's memory.
        self.id_guesses: OrderedDict[str, int] = OrderedDict()
        self.polls: OrderedDict[str, int] = OrderedDict()

    # -- claims ---------------------------------------------------------------------------------

    def secret(self) -> bytes:
        """The key of the cards' claims, from the server's signing key."""
        secret = self.tables.secret()
        if secret is None:
            raise Busy("no_key", "The server has no signing key.")
        return secret

    def claim_for(self, slug: str, number: int, seat: str, *, issue: int = 1) -> str:
        """The claim printed in a table card's QR for one seat, for the whole event."""
        return claim_with(self.secret(), slug, number, seat, issue=issue)

    def card_claim(self, event_id: int, number: int, seat: str) -> str:
        """The claim of the event's current printing of table `number`'s card, for `seat`."""
        ev = self.tournament.event(event_id)
        return self.claim_for(ev.slug, number, seat, issue=int(ev.cards_issue))

    def claim_check(self, code: str, seat: str | None, claim: str) -> str:
        """Whether `claim` is the current card's claim for `seat` of event table `code` while
        the table's round is open (CLAIM_OK); a claim of a re-issued card, or any while the
        round has ended (CLAIM_OLD); else CLAIM_BAD."""
        if not claim or seat not in ("A", "B"):
            return CLAIM_BAD
        info = self.tournament.table_info(code)
        if info is None:
            return CLAIM_BAD
        ev = self.tournament.event(info["event"]["id"])
        number, issue = int(info["number"]), int(ev.cards_issue)
        secret = self.secret()
        if hmac.compare_digest(claim_with(secret, ev.slug, number, seat, issue=issue), claim):
            return CLAIM_OLD if self.tournament.round_ended(code) else CLAIM_OK
        for earlier in range(1, issue):
            if hmac.compare_digest(claim_with(secret, ev.slug, number, seat, issue=earlier), claim):
                return CLAIM_OLD
        return CLAIM_BAD

    # -- joins ----------------------------------------------------------------------------------

    def join(
        self,
        code: str,
        seat: str | None,
        name: str,
        player_id: str,
        claim: str,
        takeover: bool,
        asker: Asker,
    ) -> tuple[dict[str, Any], bool]:
        """A phone joins table `code`: (the answer, whether it waits). A seat at once (its
        token, and a one-phone casual table's recovery code), or a request that waits for a
        judge (at an event) or for the seat's phone (a casual takeover)."""
        typed = (name, player_id)  # as the phone sent them: a request shows the judge these
        info = self.tournament.table_info(code)
        event_table = info is not None
        verdict = self.claim_check(code, seat, claim) if event_table else CLAIM_BAD
        paired = pairing_of(info, seat)
        mismatch = False
        if paired and paired["name"] and verdict == CLAIM_OK:
            if checks_player_id(paired, verdict):
                # No ID typed: the join screen asks for it (nothing changes).
                if not player_id:
                    raise DomainError("player_id_required", "Type your player ID.")
                mismatch = id_mismatch(paired, player_id)
                # Past a few wrong IDs at this seat, no ID seats a phone there: right or wrong,
                # it waits for a judge, so a guesser past its budget cannot tell a hit from a
                # miss.
                locked = self.id_guessed(f"{code}:{seat}", mismatch)
                if mismatch or locked:
                    mismatch = True
                    asker.spend_miss()  # guessing IDs is throttled like guessing codes
            if not mismatch:
                name, player_id = carried_identity(paired, name, player_id)
        if info is not None and player_id_missing(bool(info["require_player_id"]), player_id):
            # R1.1: this event asks every player for a player ID (before any seat or request).
            raise DomainError("player_id_required", "This event needs your player ID.")
        taken = seat is not None and self.store.snapshot(code).state.seats[seat].joined
        if info is not None:
            if seat is None:
                raise DomainError("seat_needed", "Name the seat on your table card.")
            why = why_waiting(mismatch, taken, verdict)
            if why:
                return self.request(code, seat, *typed, why, asker, card=verdict == CLAIM_OK), True
        if taken and takeover:
            return self.request(code, str(seat), name, player_id, "takeover", asker), True
        joined = self.tables.join(code, seat, name, player_id, self.clock(), asker.device)
        if event_table and verdict == CLAIM_OK:
            self._close_answered(code, str(joined.seat))
        answer: dict[str, Any] = {"seat": joined.seat, "token": joined.token, "seq": joined.seq}
        if asker.device and not event_table:
            # One phone now holds both seats: the code that moves them to another phone, once.
            recovery = new_recovery_code()
            if self.store.set_recovery(code, asker.device, hash_token(recovery)):
                answer["recovery"] = recovery
        return answer, False

    def id_guessed(self, key: str, wrong: bool) -> bool:
        """Count a wrong player ID typed at a seat (`key`: table code and seat, one round's);
        whether the seat has had `SEAT_ID_GUESSES` wrong ones, after which its card seats
        nobody by itself."""
        most = int(self.config.get("SEAT_ID_GUESSES", 5))
        if not most:
            return False
        wrongs = self.id_guesses
        count = wrongs.get(key, 0)
        if count >= most:
            return True
        if wrong:
            wrongs[key] = count + 1
            wrongs.move_to_end(key)
            while len(wrongs) > 50_000:  # the oldest seats fall out first
                wrongs.popitem(last=False)
        return False

    def _close_answered(self, code: str, seat: str) -> None:
        """Close the waiting requests for `seat` that its card's join with the pairing's ID
        has answered (a mistyped ID, corrected): no stale alert stays on the floor."""
        for asked in self.store.fresh(code).state.seat_requests:
            if asked.seat == seat and asked.why in ANSWERED_BY_JOIN:
                try:
                    self.tables.refuse_request(code, asked.request, "seated", self.clock())
                except DomainError:
                    pass  # answered meanwhile (a judge, or the asker's own cancel)

    # -- requests -------------------------------------------------------------------------------

    def request(
        self,
        code: str,
        seat: str,
        name: str,
        player_id: str,
        why: str,
        asker: Asker,
        card: bool = False,
    ) -> dict[str, Any]:
        """A request for `seat` that waits (for a judge, or the seat's phone)."""
        holder = asker.holder()
        if holder is not None:
            # A seat's phone never asks for a seat of its own table (and so never confirms it).
            raise Conflict(
                "already_seated", f"This phone holds seat {holder} of this table.", {"seat": holder}
            )
        asker.charge(f"card:{code}:{seat}" if card else asker.address)
        per_table = int(self.config.get("SEAT_REQUESTS_PER_TABLE", 3))
        stale = self.stale()
        waiting = [r for r in self.store.fresh(code).state.seat_requests if not stale(r)]
        if per_table and len(waiting) >= per_table:
            # Refused before the writer (which checks again, on the latest state): a flood of
            # requests costs a cached look-up each.
            raise TooMany(
                "too_many_requests",
                "This table has enough phones waiting; ask a judge or the players.",
            )
        ref, token, _seq = self.tables.request_seat(
            code,
            seat,
            name,
            player_id,
            why,
            self.clock(),
            asker=asker.key(seat),
            per_table=per_table,
            stale=stale,
        )
        return {"status": "waiting", "request": ref, "seat": seat, "token": token, "why": why}

    def stale(self) -> Callable[[SeatAsk], bool]:
        """Whether a waiting seat request has expired: its phone stopped asking how it stands
        (`SEAT_REQUEST_GONE_SECONDS`), or it was made `SEAT_REQUEST_SECONDS` ago. Before, they
        never expired: one address kept 75 tables at their cap for 45 minutes."""
        now = self.clock()
        gone_ms = int(self.config.get("SEAT_REQUEST_GONE_SECONDS", 60)) * 1000
        most_ms = int(self.config.get("SEAT_REQUEST_SECONDS", 300)) * 1000
        polls = self.polls

        def stale(r: SeatAsk) -> bool:
            asked = max(r.at_ms, polls.get(r.request, 0))
            return bool(most_ms and now - r.at_ms >= most_ms) or bool(
                gone_ms and now - asked >= gone_ms
            )

        return stale

    def _polled(self, ref: str) -> None:
        """The waiting request's phone asked how it stands now (this process's memory: after a
        restart a request counts from when it was made)."""
        polls = self.polls
        polls[ref] = self.clock()
        polls.move_to_end(ref)
        while len(polls) > 20_000:  # requests answered long ago fall out first
            polls.popitem(last=False)

    def _own_request(self, code: str, ref: str, token: str | None) -> Any:
        """The request `ref` of table `code` when `token` is its token."""
        row = self.store.seat_request(code, ref)
        if row is None or not token or not hmac.compare_digest(row.token_hash, hash_token(token)):
            raise NotFound("no_such_request", "No request has this id and token.")
        return row

    def request_status(self, code: str, ref: str, token: str | None) -> dict[str, Any]:
        """How a request stands, asked by its phone (with the request's token)."""
        row = self._own_request(code, ref, token)
        status = str(row.status)
        if status == "waiting":
            asked = SeatAsk(ref, str(row.seat), "", "", "", int(row.created_ms))
            if self.stale()(asked):
                status = "expired"  # written as such by the table's next request
            else:
                self._polled(ref)  # its phone is still there (one back after it expired is not)
        return {"request": ref, "seat": row.seat, "status": status}

    def cancel(self, code: str, ref: str, token: str | None) -> str:
        """The waiting phone takes its own request back (with the request's token): the seat."""
        self._own_request(code, ref, token)
        return self.refuse(code, ref, "asker")

    def unseen_ms(self, code: str, seat: str, asked_ms: int, connected: bool) -> int:
        """How long the phone of `seat` has not been seen, counted from `asked_ms` at the
        earliest: 0 while one of its sockets is open here (`connected`); otherwise since the
        later of the request and the last time a process saw it (`seat.seen_ms`: socket
        opened, closed or kept while the request waited)."""
        if connected:
            return 0
        row = self.store.seat_row(code, seat)
        seen = (row.seen_ms or 0) if row is not None else 0
        return max(0, self.clock() - max(seen, asked_ms))

    def answerer(
        self,
        code: str,
        ref: str,
        verb: str,
        own_seat: str | None,
        connected: Callable[[str], bool],
    ) -> str:
        """At a casual table, who answers a phone's request for a seat: the seat's own phone,
        or the other seat once the owner is gone (`seat_answer`); its actor label. `own_seat`
        is the asking phone's seat, `connected(seat)` whether a socket of it is open here."""
        asked = self.store.seat_request(code, ref)
        if asked is None or asked.status != "waiting":
            raise NotFound("no_such_request", "No waiting request has this id.")
        if self.tournament.table_info(code) is not None:
            raise Forbidden("judge_needed", "At an event table a judge answers.")
        if not own_seat:
            raise Forbidden("forbidden", "Only a seat of this table answers.")
        state = self.store.snapshot(code).state
        away_ms = int(self.config.get("SEAT_AWAY_SECONDS", 60)) * 1000
        unseen = self.unseen_ms(code, asked.seat, int(asked.created_ms), connected(asked.seat))
        seat_answer(state, asked.seat, own_seat, verb, unseen, away_ms)  # RuleError: 409
        return f"seat {own_seat}"

    def grant(self, code: str, ref: str, by: str, ended: SeatEnded = None) -> str:
        """Give a waiting phone its seat (moving it from the phone that had it): the seat.
        Whatever its phone typed, an event seat given carries the pairing's name and ID."""
        info = self.tournament.table_info(code)
        seat, _old = self.tables.grant_request(
            code,
            ref,
            by,
            self.clock(),
            ended=ended,
            identity=lambda s, name, pid: carried_identity(pairing_of(info, s), name, pid),
        )
        return seat

    def refuse(self, code: str, ref: str, by: str) -> str:
        """Refuse a waiting request (its token never works): the seat."""
        return self.tables.refuse_request(code, ref, by, self.clock())

    def judge_of(self, staff: Staff, code: str) -> str:
        """The actor label of a judge or organiser of table `code`'s event."""
        role = self.tournament.role(staff, self.tournament.table_event(code))
        if role is None:
            raise Forbidden("forbidden", "You are not staff of this table's event.")
        return f"{role} {staff.username}"

    # -- moves ----------------------------------------------------------------------------------

    def disown(self, code: str, seat: str | None) -> str:
        """The seat's phone says "this is not my phone any more" (casual tables)."""
        if not seat:
            raise Unauthenticated("bad_token", "Send your seat's token.")
        if self.tournament.table_info(code) is not None:
            raise Forbidden("judge_needed", "At an event table a judge moves seats.")
        self.tables.disown(code, seat, self.clock())
        return seat

    def release(self, code: str, seat: str, by: str, ended: SeatEnded = None) -> None:
        """A judge frees a seat: its phone's token stops working."""
        if seat not in ("A", "B"):
            raise NotFound("unknown_seat", "The seat must be A or B.")
        self.tables.release_seat(code, seat, by, self.clock(), ended=ended)

    def recover(
        self, code: str, recovery: str, device: str, asker: Asker, ended: SeatEnded = None
    ) -> dict[str, Any]:
        """A one-phone table's recovery: both seats move to the phone that has its code."""
        typed = normal_recovery_code(recovery)
        if not typed or self.store.table_recovery(code) != hash_token(typed):
            # A wrong code spends one of the asker's few "miss" tokens, as an unknown code does.
            asker.spend_miss()
            raise Forbidden("bad_recovery", "This is not the table's recovery code.")
        tokens = {seat: secrets.token_urlsafe(32) for seat in ("A", "B")}
        fresh = self.tables.recover(code, hash_token(typed), tokens, device, self.clock(), ended)
        state = self.store.snapshot(code).state
        names = {seat: state.seats[seat].name for seat in ("A", "B")}
        return {"seats": tokens, "names": names, "recovery": fresh}
