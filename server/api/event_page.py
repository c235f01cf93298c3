"""The players' event page and the public projection of an event, kept per event.

Every public view of an event (the players' page `/e/<slug>`, its data `/api/e/<slug>`, the
public standings `/e/<slug>/standings`, the hall clock's data `/api/hall/<slug>`) is served from
one projection per event, built once and
kept until the event's data changes: a table of its current round writes (the hub's publish of
that table, from any process), or a staff route changes the event (any successful write under
`/api/events/<id>/...`, published as `event:<id>` so every process hears it). A view never
rebuilds it; the rendered texts (the JSON, the standings page per language) are kept beside it.

What is public: the round, its tables and their players' names, each player's record, and the
standings only once the organiser publishes them. Never a player's ID: a player finds themselves
by name or by their ID (matched here, never sent back), and only their own phone shows it.
"""

from __future__ import annotations

from flask import Blueprint, Flask, Response, jsonify, request

from server.api.context import services
from server.core.errors import AppError
from server.core.jsontext import compact_encoder
from server.projections.event import EventCache, fold

from .http import load_query, public_base_here, qr_svg
from .ratelimit import rate_limit

bp = Blueprint("event_page", __name__)

MAX_FOUND = 10
_encode = compact_encoder()


def cache() -> EventCache:
    return services().events


def _event_id(slug: str) -> int:
    return int(services().swiss.event_by_slug(slug).id)


@bp.get("/api/e/<slug>")
def event_data(slug: str) -> Response:
    """The event's public projection (the players' page polls it; `version` tells a change)."""
    rate_limit()
    event_id = _event_id(slug)
    entry = cache().get(event_id)
    text = cache().text(event_id, "json", lambda e: _encode(e.data))
    response = Response(text, mimetype="application/json")
    response.headers["Cache-Control"] = "no-store"
    response.headers["X-Projection"] = str(id(entry))  # the same projection, view after view
    return response


@bp.get("/api/hall/<slug>")
def hall_clock(slug: str) -> Response:
    """The hall clock's data (public): round, deadline, table counts, the organiser's message,
    from the event's projection; `now_ms` is this answer's own."""
    rate_limit()  # a projector polls once a second; a flood from one address is refused
    event_id = _event_id(slug)
    entry = cache().get(event_id)
    # The players' page as a phone opens it (the hall shows it as text and a QR code).
    link = f"{public_base_here()[0]}/e/{slug}"
    response = jsonify({**entry.hall, "now_ms": services().clock(), "link": link})
    response.headers["Cache-Control"] = "no-store"
    response.headers["X-Projection"] = str(id(entry))
    return response


@bp.get("/api/e/<slug>/qr.svg")
def players_page_qr(slug: str) -> Response:
    """A QR code of the players' page at the address a phone opens (the hall shows it)."""
    rate_limit()
    _event_id(slug)  # 404 for an unknown event
    svg = qr_svg(f"{public_base_here()[0]}/e/{slug}", scale=10)
    response = Response(svg, mimetype="image/svg+xml")
    response.headers["Cache-Control"] = "no-store"
    return response


@bp.get("/api/e/<slug>/find")
def find(slug: str) -> Response:
    """Players matching a name (part of it) or exactly an ID: numbers and names only. A search
    that matches no name (an ID, or nobody) spends one of the address's "miss" tokens, the
    join's budget for wrong IDs, whether the ID is found or not, and is refused (429) past
    them whatever it would find: tried ID after ID, it told whose an ID was (a 3-digit ID in
    43 s), and with it a round's seat could be taken from a card's photo."""
    rate_limit()
    q = fold(load_query()["q"])
    entry = cache().get(_event_id(slug))
    by_name = {p["number"] for p in entry.data["players"] if len(q) >= 2 and q in fold(p["name"])}
    by_id = None
    if not by_name:
        misses = services().misses
        if not misses.take(request.remote_addr or "?"):
            raise AppError("rate_limited", "Too many searches that found no name.", status=429)
        by_id = entry.ids.get(q)
    found = [
        {"number": p["number"], "name": p["name"], "by_id": p["number"] == by_id}
        for p in entry.data["players"]
        if p["number"] == by_id or p["number"] in by_name
    ]
    return jsonify({"players": found[:MAX_FOUND]})


@bp.get("/e/<slug>")
def players_page(slug: str) -> Response:
    """The players' event page: find yourself, see where you sit this round."""
    from .web import _send

    rate_limit()
    _event_id(slug)  # 404 for an unknown event
    return _send("event.html")


def _after(response: Response) -> Response:
    """A staff write to an event (any 2xx under /api/events/<id>/) changes its projection."""
    if request.method in ("POST", "PATCH", "PUT", "DELETE") and response.status_code < 400:
        event_id = (request.view_args or {}).get("event_id")
        if isinstance(event_id, int):
            cache().invalidate(event_id)
    return response


def init_app(app: Flask) -> None:
    """Register the routes; a staff write to an event drops its projection (`Services.events`)."""
    app.after_request(_after)
    app.register_blueprint(bp)
