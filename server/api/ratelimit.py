"""The HTTP routes' charge on the app's per-address limiter (the buckets: `buckets.py`)."""

from __future__ import annotations

from flask import g, request

from server.api.context import services
from server.core.errors import AppError


def _take(cost: int, key: str | None = None) -> None:
    if not services().http_limiter.take(key or request.remote_addr or "?", max(1, cost)):
        raise AppError("rate_limited", "Too many requests; try again shortly.", status=429)


def charge(cost: int = 1, key: str | None = None) -> None:
    """Spend `cost` of the HTTP tokens of `key` (a seat's or a login's budget, see
    `access.budget_key`), else of the client address (429 when it has not as many); the
    route's own `rate_limit` then charges nothing more for this request."""
    _take(cost, key)
    g.rate_charged = True


def rate_limit(cost: int = 1) -> None:
    """Refuse a client address that asks too fast (codes are not guessable): the HTTP limiter
    shared by the table routes, when the app has one; a look-up of several tables costs one
    token per table. Free when the access check has charged the request already."""
    if g.get("rate_charged"):
        return  # charged by the access check (`charge`)
    _take(cost)
