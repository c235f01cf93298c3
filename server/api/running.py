"""Running an event on the day: the tables a round would end with still playing, and the
hall clock (a public page per event for a projector, with the organiser's message on it).

Its own blueprint beside `staff`, with the same login and CSRF checks."""

from __future__ import annotations

import threading
import time
from typing import Any

from flask import Blueprint, Flask, Response, jsonify

from server.api.context import services
from server.store import hall

from . import identity
from .http import load_body

bp = Blueprint("running", __name__)
bp.before_request(identity.check_request)

HALL_CACHE_SECONDS = 0.5  # many screens on one event cost one read of its tables per interval
_hall_cache: dict[str, tuple[float, dict[str, Any]]] = {}
_hall_lock = threading.Lock()


@bp.get("/api/events/<int:event_id>/round/unfinished")
def unfinished(event_id: int) -> Response:
    """The current round's tables whose match is not over: "End round" names them."""
    identity.require_role(event_id, "organiser", "judge")
    t = identity.tournament()
    return jsonify({"round": t.current_round(event_id).number, "tables": t.unfinished(event_id)})


@bp.get("/api/hall/<slug>")
def hall_clock(slug: str) -> Response:
    """The hall clock's data (public): round, deadline, table counts, the organiser's message."""
    now = services().clock()
    with _hall_lock:
        cached = _hall_cache.get(slug)
    if cached and time.monotonic() - cached[0] < HALL_CACHE_SECONDS:
        body = cached[1]
    else:
        ev = hall.event_by_slug(slug)
        body = hall.hall_view(identity.tournament(), ev, now)
        with _hall_lock:
            _hall_cache[slug] = (time.monotonic(), body)
    response = jsonify({**body, "now_ms": now})
    response.headers["Cache-Control"] = "no-store"
    return response


@bp.post("/api/events/<int:event_id>/hall/message")
def hall_message(event_id: int) -> Response:
    """Show a message on the event's hall clock (an empty text takes it down)."""
    identity.require_role(event_id, "organiser")
    body = load_body()
    message = hall.set_message(event_id, body["text"], services().clock())
    slug = identity.tournament().event(event_id).slug
    with _hall_lock:
        _hall_cache.pop(slug, None)
    return jsonify({"message": message})


@bp.get("/e/<slug>/hall")
def hall_page(slug: str) -> Response:
    """The hall clock page (public; the slug is the one printed on the table cards)."""
    from .web import _send

    return _send("hall.html")


def init_app(app: Flask) -> None:
    """Create the hall's table and register the routes (after `staff.init_app`)."""
    app.register_blueprint(bp)
