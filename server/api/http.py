"""HTTP routes of docs/protocol.md, the one JSON error shape, and the security headers."""

from __future__ import annotations

import io
import json
import logging
import socket
import time
from typing import Any
from urllib.parse import urlsplit

import segno
from flask import Blueprint, Flask, Response, current_app, jsonify, request
from marshmallow import ValidationError
from werkzeug.exceptions import HTTPException
from werkzeug.wrappers import Response as BaseResponse

from server.api.context import services
from server.core.addresses import is_loopback, public_base, reaches_phones
from server.core.errors import (
    AppError,
    Busy,
    Conflict,
    DomainError,
    Forbidden,
    NotFound,
    TooMany,
    Unauthenticated,
    error_body,
)
from server.rules import RuleError, event_for, get_ruleset, view
from server.rules.view import ledger_row

from .access import viewer
from .ratelimit import rate_limit
from .schemas import BODIES, LEDGER_PAGE_MAX, QUERIES
from .seats import join, recover

log = logging.getLogger(__name__)

bp = Blueprint("api", __name__, url_prefix="/api")

CSP = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "connect-src 'self' ws: wss:; object-src 'none'; base-uri 'none'; form-action 'self'; "
    "frame-ancestors 'none'"
)
SECURITY_HEADERS = {
    "Content-Security-Policy": CSP,
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "X-Frame-Options": "DENY",
    "Cross-Origin-Opener-Policy": "same-origin",
    "Permissions-Policy": "camera=(), microphone=(), geolocation=()",
}
# RuleError codes that are about the input rather than the table's state.
BAD_REQUEST_CODES = {"unknown_ruleset", "invalid"}


def jsonable(details: Any) -> Any:
    """Marshmallow's messages with every key a string (list indexes come as ints)."""
    if isinstance(details, dict):
        return {str(k): jsonable(v) for k, v in details.items()}
    if isinstance(details, list | tuple):
        return [jsonable(v) for v in details]
    return details


def error_response(
    status: int, code: str, message: str = "", details: dict[str, Any] | None = None
) -> Response:
    response = jsonify(error_body(code, message, jsonable(details)))
    response.status_code = status
    return response


def load_body() -> dict[str, Any]:
    """The request's JSON object, loaded by its endpoint's schema (`BODIES`, the one list of
    every route's body); an empty body is `{}`."""
    schema = BODIES[request.endpoint or ""]()
    if not request.get_data(cache=True):
        body: Any = {}
    else:
        try:
            body = request.get_json(silent=True)
            # A lone surrogate (the escape \ud800) decodes, but can be neither stored nor sent back.
            json.dumps(body, ensure_ascii=False).encode("utf-8")
        except (ValueError, RecursionError):
            body = None  # RecursionError: thousands of nested brackets in a small body
        if body is None:
            raise AppError("bad_json", "The body is not valid JSON.")
    if not isinstance(body, dict):
        raise AppError("invalid", "The body must be a JSON object.")
    return schema.load(body)


def load_query() -> dict[str, Any]:
    """The request's query string, loaded by its endpoint's schema (`QUERIES`)."""
    return QUERIES[request.endpoint or ""]().load(request.args.to_dict())


def public_state(code: str) -> tuple[int, dict[str, Any]]:
    snap = services().tables.snapshot(code)
    return snap.seq, {**view(snap.state, None), "seq": snap.seq}


@bp.post("/tables")
def create_table() -> tuple[Response, int, dict[str, str]]:
    """Open a new table. An address opens a bounded number of casual tables (429
    too_many_tables past them), and tables nobody joined are deleted after a while (a few at
    each new table): before, one address made 851 tables in 55 s, and 20,000 of them stayed."""
    rate_limit()
    body = load_body()
    overrides = {"match_minutes": body["match_minutes"]} if "match_minutes" in body else {}
    ruleset = get_ruleset(body.get("ruleset", "ocg-2008"), **overrides)
    config = current_app.config
    limiter = services().table_creates
    if limiter is not None and not limiter.take(request.remote_addr or "?"):
        per_hour = int(config["CASUAL_TABLES_PER_ADDRESS_PER_HOUR"])
        raise AppError(
            "too_many_tables",
            "This address has opened enough tables for now; join one, or try again later.",
            {"per_hour": per_hour},
            status=429,
        )
    found = services()
    unjoined_ms = int(config.get("UNJOINED_TABLE_HOURS", 24)) * 3_600_000
    now = found.clock()
    swept = found.swept_ms
    if unjoined_ms and (swept is None or now - swept >= SWEEP_EVERY_MS):
        # At most once a minute: a burst of new tables costs no look-up each.
        found.swept_ms = now
        found.tables.sweep_unjoined(now - unjoined_ms, SWEEP_AT_A_TIME)
    code = found.tables.create_table(ruleset, found.clock())
    join_url = f"/t/{code}"
    return jsonify({"code": code, "join_url": join_url}), 201, {"Location": join_url}


@bp.get("/tables/<code>")
def get_table(code: str) -> Response:
    """The public view of a table; with a seat's token (`Authorization: Bearer`), that seat's
    view, its own player ID with it (the score sheet's page asks so for its own seat)."""
    rate_limit()
    code = code.upper()
    seat = viewer(code).seat
    if seat is None or seat.seat is None:
        seq, state = public_state(code)
    else:
        snap = services().tables.snapshot(code)
        seq, state = snap.seq, {**view(snap.state, seat.seat), "seq": snap.seq}
    return jsonify({"code": code, "seq": seq, "state": state})


@bp.post("/tables/<code>/join")
def join_table(code: str) -> tuple[Response, int]:
    """Take a seat; the token is shown only in this answer."""
    rate_limit()
    code = code.upper()
    body = load_body()
    answer, status = join(code, body)  # at once, or a request waiting for approval (202)
    return jsonify(answer), status


@bp.post("/tables/<code>/recover")
def recover_table(code: str) -> Response:
    """A one-phone table moves to a new phone with its recovery code: both seats' new tokens
    (shown only in this answer) and a new recovery code; the old phone's tokens end."""
    rate_limit()
    return jsonify(recover(code.upper(), load_body()))


@bp.get("/tables/<code>/qr.svg")
def table_qr(code: str) -> Response:
    """A QR code of the table's join link."""
    rate_limit()  # a 404 here would also tell a guesser which codes exist
    code = code.upper()
    if not services().tables.exists(code):
        raise AppError("no_such_table", "No table has this code.", status=404)
    base, _ = public_base_here()
    return Response(qr_svg(f"{base}/t/{code}"), mimetype="image/svg+xml")


def public_base_here() -> tuple[str, str]:
    """The base URL of every public address made for this request, and where it came from
    (`server.core.addresses.public_base`): PUBLIC_URL, the LAN address for a page opened on
    127.0.0.1, else the page's own."""
    conf = current_app.config
    return public_base(request.host_url, conf["HOST"], conf["PUBLIC_URL"])


def qr_svg(url: str, scale: int = 4) -> bytes:
    """A QR code of `url` as SVG (medium error correction, a two-module quiet zone)."""
    buffer = io.BytesIO()
    segno.make(url, error="m").save(buffer, kind="svg", scale=scale, border=2, xmldecl=False)
    return buffer.getvalue()


@bp.get("/addresses")
def addresses() -> Response:
    """The base of the addresses this page would print (`{"base", "from", "phones"}`):
    `phones` false when a phone could not open them (a loopback address: no LAN, no PUBLIC_URL),
    for the organiser's page to warn before printing."""
    rate_limit()
    base, source = public_base_here()
    return jsonify({"base": base, "from": source, "phones": reaches_phones(base)})


@bp.get("/tables/<code>/invite")
def table_invite(code: str) -> Response:
    """The link the other phone opens (the one in the QR code): `{"url", "from"}`."""
    rate_limit()
    code = code.upper()
    if not services().tables.exists(code):
        raise AppError("no_such_table", "No table has this code.", status=404)
    base, source = public_base_here()
    return jsonify({"url": f"{base}/t/{code}", "from": source})


@bp.get("/tables/<code>/log")
def table_log(code: str) -> Response:
    """The whole event log, each entry with its chain hashes (secret picks hidden)."""
    rate_limit()
    code = code.upper()
    judged = services().tables.snapshot(code).state.ruleset.staff_start
    events = [event_for(entry, None, judged=judged) for entry in services().tables.log(code)]
    return jsonify({"code": code, "events": events})


@bp.get("/tables/<code>/ledger")
def table_ledger(code: str) -> Response:
    """A range of the confirmed LP ledger (R1.4): `?from=<position>&limit=<n>`, the last page
    when `from` is absent; `total` says how many rows the ledger has, `seq` at which state."""
    rate_limit()
    code = code.upper()
    query = load_query()
    snap = services().tables.snapshot(code)
    ledger = snap.state.ledger
    limit = min(query["limit"], LEDGER_PAGE_MAX)
    start = query.get("start", max(0, len(ledger) - limit))
    rows = [ledger_row(r) for r in ledger[start : start + limit]]
    total = len(ledger)
    return jsonify(
        {"code": code, "seq": snap.seq, "from": start, "limit": limit, "total": total, "rows": rows}
    )


@bp.get("/time")
def server_time() -> Response:
    """The server's clock, for phones to estimate their offset."""
    return jsonify({"now_ms": services().clock()})


@bp.get("/venue")
def venue() -> Response:
    """The venue's time zone (config TIME_ZONE; null when not set): every page writes the
    event's times in it, in its reader's language."""
    return jsonify({"tz": current_app.config["TIME_ZONE"] or None})


# The one place a refusal from below the edge gets its HTTP status: by its kind. A plain
# DomainError is a bad request; an AppError (raised at the edge) names its own status.
STATUS_OF_KIND: dict[type[DomainError], int] = {
    Unauthenticated: 401,
    Forbidden: 403,
    NotFound: 404,
    Conflict: 409,
    Busy: 503,
    TooMany: 429,
    DomainError: 400,
}


def status_of(exc: DomainError) -> int:
    """The HTTP status of a refusal: its own if raised at the edge, else its kind's."""
    if isinstance(exc, AppError):
        return exc.status
    return next(STATUS_OF_KIND[k] for k in type(exc).__mro__ if k in STATUS_OF_KIND)


def handle_app_error(exc: DomainError) -> Response:
    status = status_of(exc)
    response = error_response(status, exc.code, exc.message, exc.details)
    if status == 413:
        stop_reading()
    return response


def stop_reading() -> None:
    """After a refused body: end the connection's reading side, so the server does not read
    (and throw away) the rest of the body to reach a next request on the same connection, a
    long loop that never yields while the client keeps sending. The answer is still sent."""
    sock = request.environ.get("gunicorn.socket")
    if sock is not None:
        try:
            sock.shutdown(socket.SHUT_RD)
        except OSError:
            pass


def handle_rule_error(exc: RuleError) -> Response:
    status = 400 if exc.code in BAD_REQUEST_CODES else 409
    return error_response(status, exc.code, exc.message, dict(exc.details))


def handle_validation_error(exc: ValidationError) -> Response:
    details = exc.messages if isinstance(exc.messages, dict) else {"_schema": exc.messages}
    return error_response(400, "invalid", "Some fields are not valid.", details)


def handle_http_error(exc: HTTPException) -> BaseResponse:
    response = exc.get_response()  # keeps headers such as Allow
    code = "not_found" if exc.code == 404 else (exc.name or "error").lower().replace(" ", "_")
    if exc.code == 413:  # a body without a length, cut off at the route's limit
        code = "too_large"
        stop_reading()
    response.set_data(json.dumps(error_body(code, exc.description or "")))
    response.mimetype = "application/json"
    return response


def handle_unexpected(exc: Exception) -> Response:
    log.exception("unexpected error on %s %s", request.method, request.path)
    return error_response(500, "internal", "Something went wrong on the server.")


# Tables nobody joined deleted at a new table, at most once a minute and a hundred at a time: a
# creation stays cheap, and 100 addresses at their steady rate (one a minute each) are kept up with.
SWEEP_AT_A_TIME = 100
SWEEP_EVERY_MS = 60_000


# Routes that take an uploaded file (a ban list, a round's pairings): HTTP_MAX_UPLOAD_BYTES.
UPLOAD_ENDPOINTS = {"staff.upload_banlist", "staff.set_pairings"}


# A body without a length is read this many bytes at a time, the loop let run between two.
READ_PIECE = 16384


def limit_body() -> None:
    """Refuse a body over the route's limit (413 too_large): one that says its length before
    any of it is read; one sent without a length (`Transfer-Encoding: chunked`) as soon as the
    limit is passed while it is read, piece by piece with the loop yielding between two (a
    sender on a fast link always has the next piece ready, so a read never waits, and never
    yields, by itself). A body within the limit is then served from memory."""
    config = current_app.config
    key = "HTTP_MAX_UPLOAD_BYTES" if request.endpoint in UPLOAD_ENDPOINTS else "HTTP_MAX_BODY_BYTES"
    limit = config[key]
    request.max_content_length = limit
    if request.content_length is not None:
        if request.content_length > limit:
            raise too_large(limit)
        return
    environ = request.environ
    if "chunked" not in environ.get("HTTP_TRANSFER_ENCODING", "").lower():
        return  # no body (a length is needed otherwise: werkzeug reads nothing)
    body = read_bounded(environ["wsgi.input"], limit)
    environ["wsgi.input"] = io.BytesIO(body)
    environ["CONTENT_LENGTH"] = str(len(body))
    environ.pop("wsgi.input_terminated", None)


def read_bounded(stream: Any, limit: int) -> bytes:
    """Read `stream` to its end, at most `limit` bytes (413 past them), yielding to the loop
    between two pieces."""
    parts: list[bytes] = []
    size = 0
    while True:
        piece = stream.read(min(READ_PIECE, limit + 1 - size))
        if not piece:
            return b"".join(parts)
        size += len(piece)
        if size > limit:
            raise too_large(limit)
        parts.append(piece)
        time.sleep(0)  # gevent patches time.sleep: the other green threads run


def trustworthy_origin() -> bool:
    """Whether the page's origin is a secure context: HTTPS, or a loopback address."""
    return request.is_secure or is_loopback(urlsplit(request.host_url).hostname or "")


def too_large(limit: int) -> AppError:
    return AppError(
        "too_large", f"The body is over {limit} bytes.", {"max_bytes": limit}, status=413
    )


def add_security_headers(response: Response) -> Response:
    for name, value in SECURITY_HEADERS.items():
        if name == "Cross-Origin-Opener-Policy" and not trustworthy_origin():
            continue  # ignored by browsers on plain http, and reported as an error on the page
        response.headers.setdefault(name, value)
    if request.path.startswith("/api/"):
        response.headers.setdefault("Cache-Control", "no-store")
    return response


def init_app(app: Flask) -> None:
    """Register the routes, the error handlers and the headers on `app`."""
    app.register_blueprint(bp)
    app.register_error_handler(DomainError, handle_app_error)
    app.register_error_handler(RuleError, handle_rule_error)
    app.register_error_handler(ValidationError, handle_validation_error)
    app.register_error_handler(HTTPException, handle_http_error)
    app.register_error_handler(Exception, handle_unexpected)
    app.after_request(add_security_headers)
    app.before_request(limit_body)
