"""The one error shape of HTTP and websocket answers: {"code", "message", "details"}.

Below the edge a refusal is a `DomainError`: a stable code, a message, details, and its kind
(the class: `NotFound`, `Conflict`, ...), never an HTTP status. The edge's error handler
(`server/api/http.py: status_of`) chooses the status from the kind, in one place. `AppError`
is the edge's own refusal, which names its status where it is raised.
"""

from __future__ import annotations

from typing import Any


class DomainError(Exception):
    """A refusal with a stable code, raised below the edge; the plain kind is "invalid"."""

    def __init__(self, code: str, message: str = "", details: dict[str, Any] | None = None) -> None:
        super().__init__(message or code)
        self.code = code
        self.message = message or code.replace("_", " ")
        self.details = details or {}


class Unauthenticated(DomainError):
    """Who is asking is not known (a wrong login, an unknown token)."""


class Forbidden(DomainError):
    """Who is asking may not do this."""


class NotFound(DomainError):
    """What is named does not exist."""


class Conflict(DomainError):
    """The request is well formed but the state it meets refuses it."""


class Busy(DomainError):
    """Try again in a moment."""


class TooMany(DomainError):
    """A cap is reached (waiting requests, attempts): answer one first, or wait."""


class AppError(DomainError):
    """A refusal raised at the edge, with the HTTP status it answers with."""

    def __init__(
        self,
        code: str,
        message: str = "",
        details: dict[str, Any] | None = None,
        status: int = 400,
    ) -> None:
        super().__init__(code, message, details)
        self.status = status


def error_body(code: str, message: str = "", details: dict[str, Any] | None = None) -> dict:
    """Build the error object shared by HTTP bodies and websocket frames."""
    return {"code": code, "message": message or code.replace("_", " "), "details": details or {}}
