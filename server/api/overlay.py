"""The stream overlay of a feature match: `/t/<code>/overlay`, a page for a broadcast tool's
browser source (transparent, 1920x1080 or a lower third), and the summary it polls.

A judge or the organiser of the table's event shows the table on it (`POST
/api/tables/<code>/overlay`, the command `overlay.set` on the table's log); while it is not
shown, its summary answers `404 overlay_off` to everyone (the access module's `overlay`
policy). The summary is `server.rules.overlay.overlay_view`: no player ID, no hidden value.
"""

from __future__ import annotations

from flask import Blueprint, Flask, Response, jsonify

from server.api.context import services
from server.core.errors import AppError
from server.rules.overlay import overlay_view

from . import identity
from .http import load_body
from .ratelimit import rate_limit

bp = Blueprint("overlay", __name__)
bp.before_request(identity.check_request)


@bp.get("/t/<code>/overlay")
def overlay_page(code: str) -> Response:
    """The overlay page (public: it shows nothing until the table is shown on it)."""
    rate_limit()
    from .web import _send

    return _send("overlay.html")


@bp.get("/api/tables/<code>/overlay.json")
def overlay_data(code: str) -> Response:
    """What the overlay shows of a table its staff show on it; `now_ms` is this answer's own."""
    snap = services().tables.snapshot(code.upper())
    response = jsonify({**overlay_view(snap.state), "seq": snap.seq, "now_ms": services().clock()})
    response.headers["Cache-Control"] = "no-store"
    return response


@bp.post("/api/tables/<code>/overlay")
def set_overlay(code: str) -> Response:
    """A judge or the organiser of the table's event shows it on the overlay, or stops."""
    code = code.upper()
    identity.require_staff()
    actor = identity.staff_actor(code)
    if actor is None:
        raise AppError("forbidden", "You are not staff of this table's event.", status=403)
    on = load_body()["on"]
    found = services()
    done = found.tables.command(code, "overlay.set", {"on": on}, actor, None, found.clock())
    return jsonify({"code": code, "overlay": on, "url": f"/t/{code}/overlay", "seq": done.seq})


def init_app(app: Flask) -> None:
    """Register the overlay's routes."""
    app.register_blueprint(bp)
