"""The tournament's rows: events, staff accounts and their roles, rounds, the tables of a round,
staff logins, and their repository (`TournamentRows`: one method a persistence operation, rows
in, plain data or the row out, no decision). The use cases over them (logins, rounds, results)
are the tournament service's (`server/service/tournament.py`).

A casual table has none of this: it has no event, and nobody logs in to use it. An event owns a
set of tables per round (made through the table service, so they get normal codes and logs);
its staff are judge and organiser accounts, each with a hashed password. A staff login is a
random cookie token kept hashed in `StaffSession`, with the CSRF token of that login.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, TypeAlias, cast

from peewee import (
    BigIntegerField,
    BooleanField,
    CharField,
    ForeignKeyField,
    IntegerField,
    IntegrityError,
)

from server.core.errors import Conflict

from .models import BaseModel, JSONField, TableRow, db


class Account(BaseModel):
    """A judge or organiser. `kind` is what the account may be: an organiser can create events."""

    username = CharField(max_length=40, unique=True)
    password_hash = CharField(max_length=255)
    kind = CharField(max_length=16)  # judge | organiser
    created_ms = BigIntegerField()

    class Meta:
        table_name = "account"


class TournamentEvent(BaseModel):
    """A tournament: its rules and settings. `slug` makes the stable seat links of table cards."""

    name = CharField(max_length=80)
    date = CharField(max_length=10)
    ruleset = JSONField()
    table_count = IntegerField()
    spectators = BooleanField(default=True)
    # R1.1: players must give a player ID to join this event's tables.
    require_player_id = BooleanField(default=False)
    slug = CharField(max_length=24, unique=True)
    created_ms = BigIntegerField()
    # Which printing of the table cards holds: their seat claims are signed with it, and an
    # organiser who re-issues the cards (a lost or photographed card) makes every older one void.
    cards_issue = IntegerField(default=1)

    class Meta:
        table_name = "tournament"


class EventStaff(BaseModel):
    """An account's role at one event: judge or organiser."""

    event = ForeignKeyField(TournamentEvent, backref="staff", on_delete="CASCADE")
    account = ForeignKeyField(Account, backref="events", on_delete="CASCADE")
    role = CharField(max_length=16)

    class Meta:
        table_name = "event_staff"
        indexes = ((("event", "account"), True),)


class Round(BaseModel):
    """One round of an event: its own tables, started at one server instant, then ended."""

    event = ForeignKeyField(TournamentEvent, backref="rounds", on_delete="CASCADE")
    number = IntegerField()
    started_ms = BigIntegerField(null=True)
    ended_ms = BigIntegerField(null=True)

    class Meta:
        table_name = "round"
        indexes = ((("event", "number"), True),)


class EventTable(BaseModel):
    """Table `number` of a round, and the code of its live table."""

    round = ForeignKeyField(Round, backref="tables", on_delete="CASCADE")
    number = IntegerField()
    code = CharField(max_length=16, unique=True)
    a_name = CharField(max_length=64, default="")
    a_id = CharField(max_length=64, default="")
    b_name = CharField(max_length=64, default="")
    b_id = CharField(max_length=64, default="")

    class Meta:
        table_name = "event_table"
        indexes = ((("round", "number"), True),)

    @property
    def paired(self) -> bool:
        return bool(self.a_name or self.b_name)

    def pairing(self) -> dict[str, dict[str, str]]:
        return {
            "A": {"name": self.a_name, "player_id": self.a_id},
            "B": {"name": self.b_name, "player_id": self.b_id},
        }


class StaffSession(BaseModel):
    """A login: the hash of its cookie token, and its CSRF token."""

    token_hash = CharField(max_length=64, unique=True)
    account = ForeignKeyField(Account, backref="sessions", on_delete="CASCADE")
    csrf = CharField(max_length=64)
    expires_ms = BigIntegerField(index=True)

    class Meta:
        table_name = "staff_session"


TOURNAMENT_MODELS = [Account, TournamentEvent, EventStaff, Round, EventTable, StaffSession]


# The rows a service hands on as they are today (the edge reads their fields): named here so
# that the services hold them without naming a model.
AccountRecord: TypeAlias = Account
EventRecord: TypeAlias = TournamentEvent
RoundRecord: TypeAlias = Round


@dataclass(frozen=True)
class Login:
    """A staff login read by its token's hash, with its account."""

    account_id: int
    username: str
    kind: str
    csrf: str
    expires_ms: int


class TournamentRows:
    """The tournament's repository: each method one persistence operation on the rows above
    (one transaction where it writes several), on the app's database. What to do with the
    rows is the tournament service's."""

    # -- accounts and logins ----------------------------------------------------------------

    def add_account(self, username: str, password_hash: str, kind: str, now_ms: int) -> Account:
        """A new account (Conflict username_taken: the name is someone's)."""
        try:
            with db.connection_context(), db.atomic():
                return Account.create(
                    username=username, password_hash=password_hash, kind=kind, created_ms=now_ms
                )
        except IntegrityError:
            raise Conflict("username_taken", "That username is taken.") from None

    def account_by_username(self, username: str) -> Account | None:
        with db.connection_context():
            return Account.get_or_none(Account.username == username)

    def set_password_hash(self, account_id: int, password_hash: str) -> None:
        with db.connection_context():
            Account.update(password_hash=password_hash).where(Account.id == account_id).execute()

    def open_session(
        self, token_hash: str, account_id: int, csrf: str, expires_ms: int, now_ms: int
    ) -> None:
        """Store a login, and forget the ones expired before `now_ms` (one transaction)."""
        with db.connection_context(), db.atomic():
            StaffSession.delete().where(StaffSession.expires_ms < now_ms).execute()
            StaffSession.create(
                token_hash=token_hash, account=account_id, csrf=csrf, expires_ms=expires_ms
            )

    def session_for_token(self, token_hash: str) -> Login | None:
        """The login with this token hash (expired or not), or None."""
        with db.connection_context():
            row = (
                StaffSession.select(StaffSession, Account)
                .join(Account)
                .where(StaffSession.token_hash == token_hash)
                .first()
            )
            if row is None:
                return None
            account = row.account
            return Login(
                int(account.id), account.username, account.kind, row.csrf, int(row.expires_ms)
            )

    def end_session(self, token_hash: str) -> None:
        with db.connection_context():
            StaffSession.delete().where(StaffSession.token_hash == token_hash).execute()

    def live_token_hashes(self, token_hashes: list[str], now_ms: int) -> set[str]:
        """Which of these token hashes are of logins that expire at `now_ms` or later."""
        with db.connection_context():
            rows = StaffSession.select(StaffSession.token_hash).where(
                StaffSession.token_hash.in_(token_hashes) & (StaffSession.expires_ms >= now_ms)
            )
            return {str(r.token_hash) for r in rows}

    # -- staff --------------------------------------------------------------------------------

    def role_of(self, event_id: int, account_id: int) -> str | None:
        """The account's role at the event, or None."""
        with db.connection_context():
            row = EventStaff.get_or_none(
                (EventStaff.event == event_id) & (EventStaff.account == account_id)
            )
            return str(row.role) if row else None

    def add_staff(self, event_id: int, account_id: int, role: str) -> None:
        """Make the account staff of the event (Conflict already_done: it is)."""
        with db.connection_context():
            try:
                with db.atomic():
                    EventStaff.create(event=event_id, account=account_id, role=role)
            except IntegrityError:
                raise Conflict("already_done", "That account is already staff here.") from None

    def remove_staff(self, event_id: int, username: str, role: str) -> list[str] | None:
        """Take the account named `username` off the event if it is staff there in `role`, in
        one transaction: the token hashes of its logins, or None (no such staff)."""
        with db.connection_context(), db.atomic():
            account = Account.get_or_none(Account.username == username)
            row = (
                None
                if account is None
                else EventStaff.get_or_none(
                    (EventStaff.event == event_id) & (EventStaff.account == account.id)
                )
            )
            if account is None or row is None or row.role != role:
                return None
            row.delete_instance()
            sessions = StaffSession.select(StaffSession.token_hash).where(
                StaffSession.account == account.id
            )
            return [str(s.token_hash) for s in sessions]

    def staff_of(self, event_id: int) -> list[dict[str, Any]]:
        """The event's staff (username, role), by role then name."""
        with db.connection_context():
            return [
                {"username": s.account.username, "role": s.role}
                for s in EventStaff.select(EventStaff, Account)
                .join(Account)
                .where(EventStaff.event == event_id)
                .order_by(EventStaff.role, Account.username)
            ]

    # -- events -------------------------------------------------------------------------------

    def add_event(self, fields: dict[str, Any], owner_id: int, role: str) -> TournamentEvent:
        """A new event with `fields`, its owner staff of it in `role` (one transaction)."""
        with db.connection_context(), db.atomic():
            ev = TournamentEvent.create(**fields)
            EventStaff.create(event=ev.id, account=owner_id, role=role)
            return ev

    def event(self, event_id: int) -> TournamentEvent | None:
        with db.connection_context():
            return TournamentEvent.get_or_none(TournamentEvent.id == event_id)

    def event_by_slug(self, slug: str) -> TournamentEvent | None:
        with db.connection_context():
            return TournamentEvent.get_or_none(TournamentEvent.slug == slug)

    def events_of_account(self, account_id: int) -> list[tuple[TournamentEvent, str]]:
        """The events where the account is staff, with its role there, newest first."""
        with db.connection_context():
            rows = (
                TournamentEvent.select(TournamentEvent, EventStaff.role)
                .join(EventStaff)
                .where(EventStaff.account == account_id)
                .order_by(TournamentEvent.id.desc())
                .objects()
            )
            # .objects() puts the joined role on each event row.
            return [(e, str(cast(Any, e).role)) for e in rows]

    def set_event_fields(self, event_id: int, **fields: Any) -> None:
        """Set these columns of the event (spectators, require_player_id, table_count)."""
        with db.connection_context():
            TournamentEvent.update(**fields).where(TournamentEvent.id == event_id).execute()

    def next_cards_issue(self, event_id: int) -> None:
        """Count one more printing of the event's table cards."""
        with db.connection_context():
            TournamentEvent.update(cards_issue=TournamentEvent.cards_issue + 1).where(
                TournamentEvent.id == event_id
            ).execute()

    def event_of_table(self, code: str) -> int | None:
        """The event a table belongs to (None: a casual table, or no such table)."""
        with db.connection_context():
            row = TableRow.select(TableRow.event_id).where(TableRow.code == code).first()
            return row.event_id if row else None

    # -- rounds and their tables ----------------------------------------------------------------

    def add_round(self, event_id: int, number: int) -> Round:
        with db.connection_context():
            return Round.create(event=event_id, number=number)

    def latest_round(self, event_id: int) -> Round | None:
        with db.connection_context():
            found = (
                Round.select().where(Round.event == event_id).order_by(Round.number.desc()).first()
            )
            return cast(Round | None, found)

    def round_by_number(self, event_id: int, number: int) -> Round | None:
        with db.connection_context():
            return Round.get_or_none((Round.event == event_id) & (Round.number == number))

    def rounds_of(self, event_id: int) -> list[dict[str, Any]]:
        """The event's rounds (number, started_ms, ended_ms), in order."""
        with db.connection_context():
            return [
                {"number": r.number, "started_ms": r.started_ms, "ended_ms": r.ended_ms}
                for r in Round.select().where(Round.event == event_id).order_by(Round.number)
            ]

    def set_round_started(self, round_id: int, now_ms: int) -> None:
        """Start the round at `now_ms` (a round started already keeps its instant)."""
        with db.connection_context():
            Round.update(started_ms=now_ms).where(
                (Round.id == round_id) & Round.started_ms.is_null()
            ).execute()

    def set_round_ended(self, round_id: int, now_ms: int) -> None:
        """End the round at `now_ms` (a round ended already keeps its instant)."""
        with db.connection_context():
            Round.update(ended_ms=now_ms).where(
                (Round.id == round_id) & Round.ended_ms.is_null()
            ).execute()

    def set_aside_round(self, round_id: int) -> None:
        """Take every table off the round and make it not started (one transaction)."""
        with db.connection_context(), db.atomic():
            EventTable.delete().where(EventTable.round == round_id).execute()
            Round.update(started_ms=None, ended_ms=None).where(Round.id == round_id).execute()

    def add_round_table(self, event_id: int, round_id: int, number: int, code: str) -> None:
        """Make live table `code` the event's table `number` of the round (one transaction)."""
        with db.connection_context(), db.atomic():
            TableRow.update(event_id=event_id).where(TableRow.code == code).execute()
            EventTable.create(round=round_id, number=number, code=code)

    def tables_of_round(self, round_id: int) -> list[dict[str, Any]]:
        """The round's tables by number: number, code, pairing (side -> name and ID)."""
        with db.connection_context():
            rows = (
                EventTable.select(
                    EventTable.number,
                    EventTable.code,
                    EventTable.a_name,
                    EventTable.a_id,
                    EventTable.b_name,
                    EventTable.b_id,
                )
                .where(EventTable.round == round_id)
                .order_by(EventTable.number)
                .tuples()  # a hall's round is 2,000 rows: no model object for each
            )
            return [
                {
                    "number": number,
                    "code": code,
                    "pairing": {
                        "A": {"name": a_name, "player_id": a_id},
                        "B": {"name": b_name, "player_id": b_id},
                    },
                }
                for number, code, a_name, a_id, b_name, b_id in cast(Any, rows)
            ]

    def round_table_codes(self, event_id: int, round_no: int) -> dict[int, str]:
        """Table number -> code, for round `round_no` of the event."""
        with db.connection_context():
            rows = (
                EventTable.select(EventTable.number, EventTable.code)
                .join(Round)
                .where((Round.event == event_id) & (Round.number == round_no))
                .tuples()
            )
            return {int(n): str(c) for n, c in cast(Any, rows)}

    def set_pairings(self, round_id: int, pairings: list[tuple[int, str, str, str, str]]) -> None:
        """Write each (table number, A name, A ID, B name, B ID) on the round's table of that
        number (one transaction)."""
        with db.connection_context(), db.atomic():
            for number, a_name, a_id, b_name, b_id in pairings:
                EventTable.update(a_name=a_name, a_id=a_id, b_name=b_name, b_id=b_id).where(
                    (EventTable.round == round_id) & (EventTable.number == number)
                ).execute()

    def table_info(self, code: str) -> dict[str, Any] | None:
        """Event table `code`'s event (id, name), require_player_id, round, number and
        pairing (None when nobody is paired there); None: not an event table."""
        with db.connection_context():
            row = (
                EventTable.select(EventTable, Round, TournamentEvent)
                .join(Round)
                .join(TournamentEvent)
                .where(EventTable.code == code)
                .first()
            )
            if row is None:
                return None
            return {
                "event": {"id": row.round.event.id, "name": row.round.event.name},
                "require_player_id": bool(row.round.event.require_player_id),
                "round": row.round.number,
                "number": row.number,
                "pairing": row.pairing() if row.paired else None,
            }

    def round_of_table_ended(self, code: str) -> bool:
        """Whether event table `code`'s round has an end (False: no such event table)."""
        with db.connection_context():
            row = (
                Round.select(Round.ended_ms).join(EventTable).where(EventTable.code == code).first()
            )
        return row is not None and row.ended_ms is not None

    def event_table_seqs(self, event_id: int) -> dict[str, int]:
        """Every table of the event's rounds: code -> its seq, in one query."""
        with db.connection_context():
            rows = (
                TableRow.select(TableRow.code, TableRow.seq)
                .join(EventTable, on=(EventTable.code == TableRow.code))
                .join(Round)
                .where(Round.event == event_id)
                .tuples()
            )
            return {str(code): int(seq) for code, seq in cast(Any, rows)}

    def table_seq(self, code: str) -> int | None:
        """Table `code`'s seq (None: no such table)."""
        with db.connection_context():
            seq = TableRow.select(TableRow.seq).where(TableRow.code == code).scalar()
        return None if seq is None else int(seq)
