"""The Swiss tournament's rows: an event's registered players, and their repository
(`SwissRows`: rows in, rows or plain data out, no decision). Its append-only log (`swiss_log`:
registrations, pairings, re-pairings, drops, the top cut) is kept by `server/store/logs.py`
(`SwissLog`, `TournamentLogs`); the use cases that write and read them are the Swiss service's
(`server/service/swiss.py`)."""

from __future__ import annotations

from typing import TypeAlias

from peewee import (
    BigIntegerField,
    CharField,
    ForeignKeyField,
    IntegerField,
    IntegrityError,
    TextField,
    fn,
)

from server.core.errors import Conflict

from .logs import SwissLog
from .models import BaseModel, db
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


# A registered player's row, handed on as it is (the edge reads its fields): named here so that
# the services hold it without naming the model.
PlayerRecord: TypeAlias = SwissPlayer


class SwissRows:
    """The Swiss players' repository: each method one persistence operation (one transaction
    where it writes several rows), on the app's database. Which players to register, and
    when, is the Swiss service's."""

    def players_of(self, event_id: int) -> list[SwissPlayer]:
        """The event's registered players."""
        with db.connection_context():
            return list(SwissPlayer.select().where(SwissPlayer.event == event_id))

    def add_player(
        self,
        event_id: int,
        name: str,
        player_id: str,
        decklist: str,
        entered_round: int,
        now_ms: int,
    ) -> SwissPlayer:
        """Register a player under the event's next number, in one transaction (Conflict
        already_done: the player ID is registered)."""
        with db.connection_context():
            try:
                with db.atomic():
                    last = (
                        SwissPlayer.select(fn.MAX(SwissPlayer.number))
                        .where(SwissPlayer.event == event_id)
                        .scalar()
                    )
                    return SwissPlayer.create(
                        event=event_id,
                        number=(last or 0) + 1,
                        name=name,
                        player_id=player_id,
                        decklist=decklist,
                        entered_round=entered_round,
                        created_ms=now_ms,
                    )
            except IntegrityError:
                raise Conflict(
                    "already_done",
                    "A player with this ID is registered.",
                ) from None

    def add_players(
        self, event_id: int, listed: list[tuple[str, str]], entered_round: int, now_ms: int
    ) -> int:
        """Register every (name, player ID) under the event's next numbers, all or none in
        one transaction (Conflict import_registered: a player ID is registered). The number
        registered last before them."""
        with db.connection_context():
            try:
                with db.atomic():
                    last = int(
                        SwissPlayer.select(fn.MAX(SwissPlayer.number))
                        .where(SwissPlayer.event == event_id)
                        .scalar()
                        or 0
                    )
                    for i, (name, pid) in enumerate(listed, start=1):
                        SwissPlayer.create(
                            event=event_id,
                            number=last + i,
                            name=name,
                            player_id=pid,
                            entered_round=entered_round,
                            created_ms=now_ms,
                        )
            except IntegrityError:
                raise Conflict("import_registered", "A player ID is already registered.") from None
        return last

    def player_with_id(self, event_id: int, player_id: str) -> SwissPlayer | None:
        """The player registered with exactly this ID (one indexed look-up), or None."""
        with db.connection_context():
            return SwissPlayer.get_or_none(
                (SwissPlayer.event == event_id) & (SwissPlayer.player_id == player_id)
            )

    def player(self, event_id: int, number: int) -> SwissPlayer | None:
        with db.connection_context():
            return SwissPlayer.get_or_none(
                (SwissPlayer.event == event_id) & (SwissPlayer.number == number)
            )

    def set_decklist(self, player_row_id: int, text: str) -> None:
        with db.connection_context():
            SwissPlayer.update(decklist=text).where(SwissPlayer.id == player_row_id).execute()
