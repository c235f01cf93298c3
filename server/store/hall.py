"""The hall clock's rows: the organiser's message (what a projector in the hall shows of an
event's current round is built by `server/projections/event.py: hall_view`).

Public by design: the round, its deadline, table numbers and counts, and the organiser's
message. Never players' names, IDs, LP or calls."""

from __future__ import annotations

from typing import Any

from peewee import BigIntegerField, CharField, ForeignKeyField

from .models import BaseModel, db
from .tournament import TournamentEvent

MAX_MESSAGE = 200


class HallMessage(BaseModel):
    """The organiser's message on an event's hall clock (one per event; empty: none)."""

    event = ForeignKeyField(TournamentEvent, unique=True, on_delete="CASCADE")
    text = CharField(max_length=MAX_MESSAGE, default="")
    at_ms = BigIntegerField()

    class Meta:
        table_name = "hall_message"


def set_message(event_id: int, text: str, now_ms: int) -> dict[str, Any] | None:
    """Show `text` on the hall clock (an empty text takes the message down)."""
    with db.connection_context(), db.atomic():
        HallMessage.delete().where(HallMessage.event == event_id).execute()
        if text:
            HallMessage.create(event=event_id, text=text, at_ms=now_ms)
    return {"text": text, "at_ms": now_ms} if text else None


def message(event_id: int) -> dict[str, Any] | None:
    with db.connection_context():
        row = HallMessage.get_or_none(HallMessage.event == event_id)
    return {"text": row.text, "at_ms": row.at_ms} if row and row.text else None
