"""The official score sheet on the web: the printable page, several tables' sheets for a round,
and the exports (the hash-chained log as JSON, the LP ledger as CSV).

Everything is computed from the table's event log by `projections.sheet`; this module only reads the
store, checks the chain and renders.
"""

from __future__ import annotations

import csv
import io
import re
from datetime import UTC, datetime, tzinfo
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from flask import (
    Blueprint,
    Flask,
    Response,
    current_app,
    jsonify,
    render_template,
    request,
)

from server.api.context import services
from server.api.identity import current_staff
from server.api.lang import request_t
from server.api.ratelimit import rate_limit
from server.core.errors import AppError
from server.core.i18n import say
from server.projections.sheet import (
    Chain,
    Sheet,
    build_sheet,
    iso_text,
    label,
    ledger_rows,
    public_log,
    score_text,
    time_text,
)

bp = Blueprint("sheets", __name__)

# What `verify` says of a broken chain (the store's words, for logs and the command line), as
# the catalogue's keys: the sheet says it in its reader's language.
PROBLEMS = {
    "missing event": "sheet.problem.missing_event",
    "prev_hash does not match": "sheet.problem.prev_hash",
    "unreadable event": "sheet.problem.unreadable",
    "hash does not match": "sheet.problem.hash",
    "log shorter than the table's seq": "sheet.problem.short",
    "missing signed head": "sheet.problem.missing_signed_head",
    "events after the last signed head": "sheet.problem.after_last_signed",
    "the signed head does not match the log": "sheet.problem.signed_head_mismatch",
    "no key to check the signed heads": "sheet.problem.no_key",
    "bad signature on the head": "sheet.problem.bad_signature",
    "log shorter than its recorded length": "sheet.problem.cut",
    "the log does not match its recorded head": "sheet.problem.recorded_head",
    "no recorded length outside the log": "sheet.problem.unrecorded",
}
MAX_CODES = 100  # one round of a large event; a bigger print is split by the organiser
CODE = re.compile(r"[0-9A-Z]{1,16}")


def request_tz() -> tzinfo:
    """The time zone the sheet is written in: `?tz=Area/City`, else the venue's (config
    TIME_ZONE), else the server's own."""
    name = request.args.get("tz", "").strip() or current_app.config["TIME_ZONE"]
    if not name:
        return datetime.now().astimezone().tzinfo or ZoneInfo("UTC")
    try:
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError):
        raise AppError("invalid", "Unknown time zone.", {"tz": [name]}) from None


def staff_names() -> bool:
    """Whether this request may see staff accounts' names in a record: a logged-in judge or
    organiser; the public sees the role alone."""
    return current_staff() is not None


def table_sheet(code: str) -> tuple[Sheet, list[dict[str, Any]]]:
    """A table's sheet and log, with the chain checked over the same events that are shown."""
    tables = services().tables
    # A log changed under the cache: alarm the judges.
    services().tables.audit(code, services().clock())
    for _ in range(3):
        check = tables.verify(code)
        log = tables.log(code)
        if not check.ok or check.count == len(log):
            break  # otherwise an event arrived between the two reads: read again
    head = str(log[-1]["hash"]) if log else ""
    chain = Chain(check.ok, check.count, head, check.seq, check.problem)
    return build_sheet(log, chain, staff_names()), log


def parse_codes(raw: str) -> list[str]:
    """Table codes from `A,B C`: upper-cased, in order, each once."""
    codes: list[str] = []
    for part in re.split(r"[\s,;]+", raw.upper()):
        if part and part not in codes:
            codes.append(part)
    if len(codes) > MAX_CODES:
        raise AppError("invalid", f"At most {MAX_CODES} tables at once.", {"codes": [len(codes)]})
    return codes


def render_sheets(codes: list[str], tz: tzinfo | None = None) -> str:
    """The printable sheets of several tables, one per page, in the order given (an unknown
    code prints as a page saying so). For the organiser's print of a round."""
    sheets: list[tuple[str, Sheet | None]] = []
    for code in codes:
        if not CODE.fullmatch(code) or not services().tables.exists(code):
            sheets.append((code, None))
        else:
            sheets.append((code, table_sheet(code)[0]))
    events = {code: table_event(code) for code, sheet in sheets if sheet is not None}
    return render_template("sheets.html", sheets=sheets, events=events, **_helpers(tz))


def table_event(code: str) -> dict[str, Any] | None:
    """An event table's event name, round and table number (None: a casual table)."""
    return services().tournament.table_info(code)


def _helpers(tz: tzinfo | None) -> dict[str, Any]:
    tz = tz or UTC
    now = services().clock()
    lang, t = request_t("sheet.")
    _, words = request_t()

    def rules(ruleset: dict[str, Any]) -> str:
        name = str(ruleset.get("name", ""))
        found = words(f"run.ruleset.{name}")
        return name if found == f"run.ruleset.{name}" else found

    return {
        "lang": lang,
        "t": t,
        "say": lambda value: say(words, value),
        "who": lambda text: say(words, label(str(text))),
        "rules": rules,
        "problem": lambda text: words(PROBLEMS[text]) if text in PROBLEMS else str(text or ""),
        "score": lambda sheet, m: score_text(
            {s: sheet.name(s) for s in ("A", "B")}, m.winner, m.wins
        ),
        "hm": lambda ms: time_text(ms, tz),
        "iso": lambda ms: iso_text(ms, tz),
        # The date in the reader's way of writing one (the catalogue's `sheet.date`).
        "day": lambda ms: t(
            "date", y=iso_text(ms, tz)[:4], m=iso_text(ms, tz)[5:7], d=iso_text(ms, tz)[8:10]
        ),
        "printed_ms": now,
        "tz_name": datetime.fromtimestamp(now / 1000, tz).strftime("%Z (UTC%z)"),
    }


def _no_store(response: Response) -> Response:
    response.headers["Cache-Control"] = "no-store"
    return response


@bp.get("/t/<code>/sheet")
def sheet_page(code: str) -> Response | tuple[str, int]:
    """The score sheet of one table, ready to print."""
    rate_limit()
    code = code.upper()
    tz = request_tz()
    if not CODE.fullmatch(code) or not services().tables.exists(code):
        return render_template("sheets.html", sheets=[(code, None)], **_helpers(tz)), 404
    return _no_store(Response(render_sheets([code], tz), mimetype="text/html"))


@bp.get("/sheets")
def sheets_page() -> Response:
    """Several tables' sheets for one print: `/sheets?codes=K7QF2M,ABC234`."""
    codes = parse_codes(request.args.get("codes", ""))
    rate_limit(len(codes))  # one token per code looked up
    if not codes:
        raise AppError("invalid", "Name the tables: ?codes=CODE1,CODE2", {"codes": ["missing"]})
    return _no_store(Response(render_sheets(codes, request_tz()), mimetype="text/html"))


@bp.get("/api/tables/<code>/export.json")
def export_json(code: str) -> Response:
    """The whole log with its hashes and the chain's check, to keep or to verify elsewhere."""
    rate_limit()
    code = code.upper()
    sheet, log = table_sheet(code)
    chain = sheet.chain
    body = {
        "code": code,
        "exported_ms": services().clock(),
        "hash": "sha256(prev_hash + canonical JSON of {actor, at_ms, code, data, seq, type})",
        "genesis": "0" * 64,
        "head": chain.head,
        "count": len(log),
        "verified": {
            "ok": chain.ok,
            "count": chain.count,
            "seq": chain.seq,
            "problem": chain.problem,
        },
        "events": public_log(log, staff_names()),
        "signed_heads": services().tables.signed_heads(code),
        "public_key": services().tables.public_key(),
    }
    response = jsonify(body)
    response.headers["Content-Disposition"] = f'attachment; filename="duel-table-{code}.json"'
    return _no_store(response)


@bp.get("/api/tables/<code>/ledger.csv")
def ledger_csv(code: str) -> Response:
    """The confirmed LP entries as CSV, safe to open in a spreadsheet."""
    rate_limit()
    code = code.upper()
    tz = request_tz()
    sheet, _log = table_sheet(code)
    buffer = io.StringIO()
    csv.writer(buffer, lineterminator="\r\n").writerows(ledger_rows(sheet, tz))
    response = Response(buffer.getvalue(), mimetype="text/csv")
    response.headers["Content-Type"] = "text/csv; charset=utf-8"
    response.headers["Content-Disposition"] = f'attachment; filename="duel-table-{code}-ledger.csv"'
    return _no_store(response)


@bp.get("/api/tables/<code>/heads")
def signed_heads(code: str) -> Response:
    """The table's signed chain heads and the key that signed them: a phone keeps the ones it
    was shown as receipts, and the sheet page checks them against the log."""
    rate_limit()
    code = code.upper()
    tables = services().tables
    heads, key = tables.signed_heads(code), tables.public_key()
    return _no_store(jsonify({"code": code, "public_key": key, "heads": heads}))


def init_app(app: Flask) -> None:
    """Register the sheet's pages and exports on `app`."""
    app.register_blueprint(bp)
