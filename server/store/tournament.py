"""The tournament's rows: events, staff accounts and their roles, rounds, the tables of a round,
staff logins. Rows in and out only: the use cases over them (logins, rounds, results) are the
tournament service's (`server/service/tournament.py`).

A casual table has none of this: it has no event, and nobody logs in to use it. An event owns a
set of tables per round (made through the table service, so they get normal codes and logs);
its staff are judge and organiser accounts, each with a hashed password. A staff login is a
random cookie token kept hashed in `StaffSession`, with the CSRF token of that login.
"""

from __future__ import annotations

from peewee import BigIntegerField, BooleanField, CharField, ForeignKeyField, IntegerField

from .models import BaseModel, JSONField


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
