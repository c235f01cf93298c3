"""The web app's files: `/` and `/t/<code>` both get index.html; the client routes."""

from __future__ import annotations

import gzip

from flask import Blueprint, Flask, Response, current_app, request, send_from_directory
from werkzeug.exceptions import NotFound

bp = Blueprint("web", __name__)

# Text files are sent gzip-compressed to clients that accept it (a phone's first load on a slow
# network is about a third of the bytes). Compressed bodies are kept by ETag (path, mtime, size).
_TEXT = ("text/", "application/manifest+json", "application/json", "image/svg+xml")
_MIN_BYTES = 1024
_gzipped: dict[str, bytes] = {}


def _accepts_gzip() -> bool:
    return any(
        part.split(";")[0].strip() == "gzip"
        for part in request.headers.get("Accept-Encoding", "").lower().split(",")
    )


def _compress(response: Response) -> Response:
    etag, _ = response.get_etag()
    mimetype = response.mimetype or ""
    if response.status_code != 200 or not etag or not mimetype.startswith(_TEXT):
        return response
    response.vary.add("Accept-Encoding")
    if not _accepts_gzip() or (response.content_length or 0) < _MIN_BYTES:
        return response
    source = response.response  # the open file (a WSGI file wrapper)
    try:
        raw = b"".join(chunk if isinstance(chunk, bytes) else chunk.encode() for chunk in source)
    finally:
        close = getattr(source, "close", None)
        if close is not None:
            close()
    response.direct_passthrough = False
    body = _gzipped.get(etag)
    if body is None:
        body = gzip.compress(raw, compresslevel=6, mtime=0)
        if len(_gzipped) > 500:
            _gzipped.clear()
        _gzipped[etag] = body
    response.set_data(body)
    response.headers["Content-Encoding"] = "gzip"
    response.headers.pop("Accept-Ranges", None)
    response.set_etag(etag + "-gz")
    return response.make_conditional(request)  # type: ignore[return-value]


def _send(path: str) -> Response:
    response = send_from_directory(current_app.config["WEB_DIR"], path, max_age=0)
    if path.endswith(".js") or path.endswith(".mjs"):
        response.mimetype = "text/javascript"
    elif path.endswith(".webmanifest"):
        response.mimetype = "application/manifest+json"
    return _compress(response)


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
