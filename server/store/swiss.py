"""The Swiss tournament's rows: an event's registered players and its append-only log
(`swiss_log`: registrations, pairings, re-pairings, judges' results, drops, the top cut). The
use cases that write and replay them are the Swiss service's (`server/service/swiss.py`)."""

from __future__ import annotations

from peewee import BigIntegerField, CharField, ForeignKeyField, IntegerField, TextField

from .models import BaseModel, JSONField
from .tournament import TournamentEvent


class SwissPlayer(BaseModel):
    """A player registered at an event: `number` is the registration order (final ties)."""

    event = ForeignKeyField(TournamentEvent, backref="swiss_players", on_delete="CASCADE")
    number = IntegerField()
    name = CharField(max_length=64)
    player_id = CharField(max_length=64)
    decklist = TextField(default="")
    entered_round = IntegerField(default=1)
    created_ms = BigIntegerField()

    class Meta:
        table_name = "swiss_player"
        indexes = ((("event", "number"), True), (("event", "player_id"), True))


class SwissLog(BaseModel):
    """One entry of an event's tournament log (append-only)."""

    event = ForeignKeyField(TournamentEvent, backref="swiss_log", on_delete="CASCADE")
    seq = IntegerField()
    type = CharField(max_length=32)
    data = JSONField()
    actor = CharField(max_length=80)
    at_ms = BigIntegerField()

    class Meta:
        table_name = "swiss_log"
        indexes = ((("event", "seq"), True),)


SWISS_MODELS = [SwissPlayer, SwissLog]
