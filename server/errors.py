"""The one error shape of HTTP and websocket answers: {"code", "message", "details"}."""

from __future__ import annotations

from typing import Any


class AppError(Exception):
    """A refusal with a stable code, raised below the edge and turned into an error answer."""

    def __init__(
        self,
        code: str,
        message: str = "",
        details: dict[str, Any] | None = None,
        status: int = 400,
    ) -> None:
        super().__init__(message or code)
        self.code = code
        self.message = message or code.replace("_", " ")
        self.details = details or {}
        self.status = status


def error_body(code: str, message: str = "", details: dict[str, Any] | None = None) -> dict:
    """Build the error object shared by HTTP bodies and websocket frames."""
    return {"code": code, "message": message or code.replace("_", " "), "details": details or {}}
