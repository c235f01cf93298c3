"""Running an event on the day: the tables a round would end with still playing, and the
hall clock (a public page per event for a projector, with the organiser's message on it; its
data is served from the event's public projection, server/api/event_page.py).

Its own blueprint beside `staff`, with the same login and CSRF checks."""

from __future__ import annotations

from flask import Blueprint, Flask, Response, jsonify

from server.api.context import services

from . import identity
from .http import load_body
from .ratelimit import rate_limit

bp = Blueprint("running", __name__)
bp.before_request(identity.check_request)


@bp.get("/api/events/<int:event_id>/round/unfinished")
def unfinished(event_id: int) -> Response:
    """The current round's tables whose match is not over: "End round" names them."""
    identity.require_role(event_id, "organiser", "judge")
    t = identity.tournament()
    return jsonify({"round": t.current_round(event_id).number, "tables": t.unfinished(event_id)})


@bp.post("/api/events/<int:event_id>/hall/message")
def hall_message(event_id: int) -> Response:
    """Show a message on the event's hall clock (an empty text takes it down)."""
    identity.require_role(event_id, "organiser")
    body = load_body()
    message = identity.tournament().set_hall_message(event_id, body["text"], services().clock())
    return jsonify({"message": message})


@bp.get("/e/<slug>/hall")
def hall_page(slug: str) -> Response:
    """The hall clock page (public; the slug is the one printed on the table cards)."""
    from .web import _send

    rate_limit()
    return _send("hall.html")


def init_app(app: Flask) -> None:
    """Create the hall's table and register the routes (after `staff.init_app`)."""
    app.register_blueprint(bp)
