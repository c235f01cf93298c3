"""The judges' floor websocket, `/ws/floor/<event_id>`: every table of an event, live.

One feed per event is shared by all of that event's floor sockets in this process. The feed
listens to the hub for each of the event's tables and only marks a table dirty; every
`FLOOR_INTERVAL_MS` (500 ms) it rebuilds the summaries of the dirty tables (`projections.floor`)
from the store's cached state and hands the changed ones to each socket, which keeps only the
latest summary per table until it sends. So however busy a table is, a judge's screen gets at
most ~2 updates of it a second, and 500 busy tables cost one summary each per interval.
"""

from __future__ import annotations

import json
import logging
from typing import Any

from flask import Blueprint, Flask, current_app, request

from server.api.context import Services, services
from server.core.errors import error_body
from server.service.tournament import Staff

from .access import session_grant
from .encoding import encode, encode_with, json_array
from .floor_feeds import Feed, FeedRegistry, Subscriber
from .identity import COOKIE, current_staff, origin_allowed, tournament
from .keepalive import CLOSE_POLICY
from .session import GuardedServer, Session, websocket_route

log = logging.getLogger(__name__)

bp = Blueprint("floor_ws", __name__)

YIELD_EVERY = 25
CLOSE_FORBIDDEN = 4003


class FloorSession(Session):
    """A judge's floor socket: the event's tables when it opens, the changed ones after.

    The feed hands summaries to the `Subscriber` and wakes the writer, which sends what
    gathered since its last write as one message."""

    name = "floor"

    def __init__(
        self,
        ws: GuardedServer,
        found: Services,
        config: dict[str, Any],
        event_id: int,
        staff: Staff | None,
        role: str,
    ) -> None:
        super().__init__(ws, config, found.pinger)
        self.found = found
        self.role = role
        self.tournament = tournament()  # the writer runs outside the request's app context
        self.event_id = event_id
        self.staff = staff
        self.registry: FeedRegistry = found.floor
        self.sub = Subscriber(self._wake)
        self.feed: Feed | None = None

    def _wake(self) -> None:
        self.queue("tables")

    def started(self) -> None:
        self.feed = self.registry.attach(self.event_id, self.sub)
        self.queue("full")

    def finish(self) -> None:
        if self.feed is not None:
            self.registry.detach(self.feed, self.sub)
        self.sub.close()

    def write(self, kind: str, payload: Any) -> None:
        reload, items = self.sub.take()
        if kind == "full" or reload:
            self._full()
        elif items:
            message = {"type": "tables", "now_ms": self.found.clock()}
            self.ws.send(encode_with(message, tables=json_array(items)))

    def _full(self) -> None:
        assert self.feed is not None
        ev = self.tournament.event(self.event_id)
        rnd = self.tournament.current_round(self.event_id)
        message = {
            "type": "floor",
            "event": {
                "id": ev.id,
                "name": ev.name,
                "round": rnd.number,
                # Started and not ended: a judge may re-pair it (docs/tournament.md).
                "playing": rnd.started_ms is not None and rnd.ended_ms is None,
            },
            "role": self.role,
            "user": self.staff.username if self.staff else "",
            "now_ms": self.found.clock(),
            "tables": self.feed.tables(),
        }
        self.ws.send(encode(message))

    def revoke(self) -> None:
        """The login that opened this socket ended (a logout, an expired session)."""
        self.alive = False
        self.send({"type": "error", "error": error_body("revoked", "Your access has ended.")})
        self.close(CLOSE_FORBIDDEN, "access revoked")

    def handle(self, raw: str | bytes) -> bool:
        try:
            message = json.loads(raw)
        except (ValueError, UnicodeDecodeError, RecursionError):
            return True
        if not isinstance(message, dict):
            return True
        t = message.get("t")
        if message.get("type") == "ping" and isinstance(t, int | float):
            self.send({"type": "pong", "t": t, "now_ms": self.found.clock()})
        return True


def _send(ws: Any, message: dict[str, Any]) -> None:
    ws.send(encode(message))


@websocket_route(bp, "/ws/floor/<int:event_id>")
def floor_socket(ws: GuardedServer, event_id: int) -> None:
    """A judge's or organiser's floor view of one event."""
    found = services()
    config = current_app.config
    if not origin_allowed(request.headers.get("Origin"), request.host, config["ALLOWED_ORIGINS"]):
        _send(ws, {"type": "error", "error": error_body("bad_origin", "Origin refused.")})
        ws.close(reason=CLOSE_POLICY, message="origin not allowed")
        return
    staff = current_staff()
    role = tournament().role(staff, event_id)
    if role is None:
        code = "not_logged_in" if staff is None else "forbidden"
        _send(ws, {"type": "error", "error": error_body(code)})
        ws.close(reason=CLOSE_FORBIDDEN, message=code)
        return
    session = FloorSession(ws, found, config, event_id, staff, role)
    grant = session_grant(request.cookies.get(COOKIE))  # a logout or expiry closes the socket
    forget = found.grants.add(grant, session.revoke) if grant else (lambda: None)
    try:
        session.run()
    finally:
        forget()


def init_app(app: Flask) -> None:
    """Bind the floor socket to `app`."""
    app.register_blueprint(bp)
