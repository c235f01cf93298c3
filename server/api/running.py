"""Running an event on the day: the tables a round would end with still playing, and the
hall clock (a public page per event for a projector, with the organiser's message on it).

Its own blueprint beside `staff`, with the same login and CSRF checks."""

from __future__ import annotations

from flask import Blueprint, Flask, Response, jsonify

from . import staff

bp = Blueprint("running", __name__)
bp.before_request(staff.check_request)


@bp.get("/api/events/<int:event_id>/round/unfinished")
def unfinished(event_id: int) -> Response:
    """The current round's tables whose match is not over: "End round" names them."""
    staff.require_role(event_id, "organiser", "judge")
    t = staff.tournament()
    return jsonify({"round": t.current_round(event_id).number, "tables": t.unfinished(event_id)})


def init_app(app: Flask) -> None:
    """Register the routes (after `staff.init_app`)."""
    app.register_blueprint(bp)
