"""The Swiss tournament's rows: an event's registered players. Its append-only log (`swiss_log`:
registrations, pairings, re-pairings, drops, the top cut) is kept by `server/store/logs.py`
(`SwissLog`, `TournamentLogs`); the use cases that write and read them are the Swiss service's
(`server/service/swiss.py`)."""

from __future__ import annotations

from peewee import BigIntegerField, CharField, ForeignKeyField, IntegerField, TextField

from .logs import SwissLog
from .models import BaseModel
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


SWISS_MODELS = [SwissPlayer, SwissLog]
