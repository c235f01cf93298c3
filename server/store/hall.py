"""The hall clock's data: what a projector in the hall may show of an event's current round.

Public by design: the round, its deadline, table numbers and counts, and the organiser's
message. Never players' names, IDs, LP or calls."""

from __future__ import annotations

from typing import Any

from peewee import BigIntegerField, CharField, ForeignKeyField

from server.core.errors import NotFound

from .models import BaseModel, db
from .tournament import Tournament, TournamentEvent

MAX_MESSAGE = 200


class HallMessage(BaseModel):
    """The organiser's message on an event's hall clock (one per event; empty: none)."""

    event = ForeignKeyField(TournamentEvent, unique=True, on_delete="CASCADE")
    text = CharField(max_length=MAX_MESSAGE, default="")
    at_ms = BigIntegerField()

    class Meta:
        table_name = "hall_message"


def event_by_slug(slug: str) -> TournamentEvent:
    with db.connection_context():
        ev = TournamentEvent.get_or_none(TournamentEvent.slug == slug)
    if ev is None:
        raise NotFound("no_such_event", "No such event.")
    return ev


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


def hall_view(
    tournament: Tournament, ev: TournamentEvent, parts: dict[str, Any] | None = None
) -> dict[str, Any]:
    """The hall clock of the event's current round (part of the event's public projection,
    server/api/event_page.py), from the tables' parts (`swiss.TablePart`) where given, else
    from their states."""
    rnd = tournament.current_round(ev.id)
    match_ms = int(float(ev.ruleset["match_minutes"]) * 60_000)
    started = rnd.started_ms
    total, playing, extra, called = 0, 0, [], 0
    for table in tournament.in_play(ev.id):  # a top cut's unused tables are not counted
        total += 1
        if started is None:
            continue
        part = (parts or {}).get(table["code"])
        if part is None:
            from .swiss import part_of

            part = part_of(tournament.store.snapshot(table["code"]).state)
        if part.over:
            continue
        playing += 1
        if part.called:
            called += 1
            if part.extra:  # finishing the turn, extra turns
                extra.append(table["number"])
    return {
        "event": {"name": ev.name},
        "round": rnd.number,
        "started_ms": started,
        "ended_ms": rnd.ended_ms,
        "match_ms": match_ms,
        "deadline_ms": started + match_ms if started is not None else None,
        "tables": {"total": total, "playing": playing, "time_called": called, "extra": extra},
        "message": message(ev.id),
    }
