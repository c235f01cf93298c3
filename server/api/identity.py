"""Who a request is: the staff login behind the `dt_staff` cookie, and the same-site checks.

The lowest module of the edge's access code: `access`, the staff and seat routes and the
sockets all ask here, and it asks none of them (docs/architecture.md).
"""

from __future__ import annotations

import hmac
from urllib.parse import urlsplit

from flask import current_app, g, request

from server.api.context import services
from server.core.errors import AppError
from server.rules import Actor
from server.service.tournament import Staff, Tournament

COOKIE = "dt_staff"
CSRF_HEADER = "X-CSRF-Token"
SAFE_METHODS = {"GET", "HEAD", "OPTIONS"}


def tournament() -> Tournament:
    """The app's tournament service."""
    return services().tournament


def current_staff() -> Staff | None:
    """The logged-in judge or organiser of this request, or None."""
    if "staff" not in g:
        g.staff = tournament().session(request.cookies.get(COOKIE), services().clock())
    return g.staff


def staff_actor(code: str) -> Actor | None:
    """The actor the request's login makes at a table (None: not staff of its event)."""
    return tournament().table_actor(current_staff(), code)


def spectators_allowed(code: str) -> bool:
    """Whether a token-less, login-less viewer may watch this table."""
    return tournament().spectators_allowed(code)


def require_staff() -> Staff:
    staff = current_staff()
    if staff is None:
        raise AppError("not_logged_in", "Log in as a judge or organiser.", status=401)
    return staff


def require_role(event_id: int, *roles: str) -> Staff:
    """The logged-in account, if it has one of `roles` at the event; judges of other events
    are told nothing about this one."""
    staff = require_staff()
    role = tournament().role(staff, event_id)
    if role is None:
        raise AppError("forbidden", "You are not staff of this event.", status=403)
    if role not in roles:
        raise AppError("forbidden", "Only the event's organiser can do that.", status=403)
    return staff


def origin_allowed(origin: str | None, host: str, allowed: list[str]) -> bool:
    """Same host as the server, or listed; no Origin at all is a non-browser client."""
    if not origin:
        return True
    if origin in allowed or "*" in allowed:
        return True
    return urlsplit(origin).netloc.lower() == host.lower()


def check_request() -> None:
    """Before every state-changing staff request: a same-site Origin and the CSRF token."""
    if request.method in SAFE_METHODS:
        return
    config = current_app.config
    if not origin_allowed(request.headers.get("Origin"), request.host, config["ALLOWED_ORIGINS"]):
        raise AppError("bad_origin", "Cross-site request refused.", status=403)
    if request.endpoint == "staff.login":
        # No session yet: a JSON body cannot be sent cross-site without a CORS preflight.
        if not request.is_json:
            raise AppError("bad_request", "Send JSON.", status=415)
        return
    staff = current_staff()
    if staff is None:
        return  # the view refuses with not_logged_in
    sent = request.headers.get(CSRF_HEADER, "")
    if not hmac.compare_digest(sent.encode(), staff.csrf.encode()):
        raise AppError("bad_csrf", "Missing or wrong CSRF token; reload the page.", status=403)
