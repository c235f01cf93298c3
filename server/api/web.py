"""The web app's files: `/` and `/t/<code>` both get index.html; the client routes."""

from __future__ import annotations

from flask import Blueprint, Flask, Response, current_app, send_from_directory
from werkzeug.exceptions import NotFound

bp = Blueprint("web", __name__)


def _send(path: str) -> Response:
    response = send_from_directory(current_app.config["WEB_DIR"], path, max_age=0)
    if path.endswith(".js") or path.endswith(".mjs"):
        response.mimetype = "text/javascript"
    elif path.endswith(".webmanifest"):
        response.mimetype = "application/manifest+json"
    return response


@bp.get("/")
def index() -> Response:
    """The app shell."""
    return _send("index.html")


@bp.get("/t/<code>")
def table_page(code: str) -> Response:
    """A table's page: the same shell, which reads the code from the address."""
    return _send("index.html")


@bp.get("/<path:path>")
def asset(path: str) -> Response:
    """Any other file of web/ (never a path outside it)."""
    if path.startswith("api/") or path.startswith("ws/"):
        raise NotFound()
    return _send(path)


def init_app(app: Flask) -> None:
    """Serve web/ from `app`."""
    app.register_blueprint(bp)
