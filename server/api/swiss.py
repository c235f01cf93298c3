"""The tournament over HTTP: players, Swiss pairings, results, standings, the top cut.

Staff routes take the staff login and CSRF token (the same checks as `staff.py`). The public
standings and bracket (for players' phones and the hall projector) answer only when the
organiser made them public.
"""

from __future__ import annotations

import csv
import io
from fractions import Fraction
from typing import Any

from flask import Blueprint, Flask, Response, current_app, jsonify
from markupsafe import escape

from server.api.context import services
from server.core.errors import AppError
from server.projections.sheet import csv_safe
from server.rules import Actor
from server.service.swiss import SwissService

from . import event_page
from .event_decks import legal_list
from .http import load_body
from .identity import check_request, require_role, tournament
from .lang import request_t
from .ratelimit import rate_limit
from .staff import BOM, _refresh_floor

bp = Blueprint("swiss", __name__)
bp.before_request(check_request)


def swiss() -> SwissService:
    return services().swiss


def _actor(event_id: int, *roles: str) -> str:
    return require_role(event_id, *roles).username


@bp.get("/api/events/<int:event_id>/swiss")
def get_swiss(event_id: int) -> Response:
    """Players, rounds, open tables, standings and the bracket of an event."""
    require_role(event_id, "judge", "organiser")
    found = swiss().summary(event_id)
    no_show_ms = int(current_app.config.get("NO_SHOW_MINUTES", 5)) * 60_000
    found["cycle"]["no_shows"] = tournament().no_shows(event_id, services().clock(), no_show_ms)
    return jsonify(found)


@bp.post("/api/events/<int:event_id>/swiss/players")
def register_player(event_id: int) -> tuple[Response, int]:
    """Register a player (a late entry plays from the next round)."""
    actor = _actor(event_id, "organiser")
    body = load_body()
    if body["decklist"].strip():
        legal_list(body["decklist"], event_id)  # read as the tables read it (R1.6, R2.6)
    found = swiss().register(
        event_id, body["name"], body["player_id"], body["decklist"], actor, services().clock()
    )
    return jsonify(found), 201


@bp.post("/api/events/<int:event_id>/swiss/players/import")
def import_players(event_id: int) -> tuple[Response, int]:
    """Register a whole player list (name, player ID a line; a spreadsheet's CSV or a paste):
    every player or, at the first problem (named by its line), none."""
    actor = _actor(event_id, "organiser")
    body = load_body()
    found = swiss().import_players(event_id, body["text"], actor, services().clock())
    return jsonify(found), 201


@bp.post("/api/events/<int:event_id>/swiss/players/<int:number>/checkin")
def check_in(event_id: int, number: int) -> Response:
    """Check a player in at the desk (`present`), or out again before they are paired."""
    actor = _actor(event_id, "organiser", "judge")
    body = load_body()
    first = swiss().check_in(event_id, number, body["present"], actor, services().clock())
    return jsonify({"player": number, "checked_in": body["present"], "round": first or None})


@bp.post("/api/events/<int:event_id>/swiss/players/<int:number>/drop")
def drop_player(event_id: int, number: int) -> Response:
    """Drop a player: not paired again, still counted in others' tie-breakers."""
    actor = _actor(event_id, "organiser", "judge")
    after = swiss().drop(event_id, number, actor, services().clock())
    return jsonify({"player": number, "dropped_after": after})


@bp.post("/api/events/<int:event_id>/swiss/pair")
def pair_next(event_id: int) -> Response:
    """Pair the next Swiss round (only when every result of the last one is in)."""
    actor = _actor(event_id, "organiser")
    found = swiss().pair_next(event_id, actor, services().clock())
    _refresh_floor(event_id)
    return jsonify(found)


@bp.post("/api/events/<int:event_id>/swiss/repair")
def repair(event_id: int) -> Response:
    """Pair the current round again (recorded; the first pairing stays). Before its start the
    organiser may; after it, a judge confirms (`confirm`), and the round restarts on fresh
    tables."""
    staff = require_role(event_id, "organiser", "judge")
    actor = Actor(role=tournament().role(staff, event_id) or "judge", name=staff.username)
    body = load_body()
    found = swiss().repair(event_id, actor, bool(body["confirm"]), services().clock())
    services().tables.announce(found.pop("seqs", {}))
    _refresh_floor(event_id)
    return jsonify(found)


@bp.post("/api/events/<int:event_id>/swiss/result")
def enter_result(event_id: int) -> Response:
    """A judge's result for a table (a no-show is a loss): A, B, draw or loss (both)."""
    staff = require_role(event_id, "organiser", "judge")
    actor = Actor(role=tournament().role(staff, event_id) or "judge", name=staff.username)
    body = load_body()
    code, seq = swiss().enter_result(
        event_id, body["round"], body["table"], body["result"], actor, services().clock()
    )
    services().tables.announce({code: seq})
    _refresh_floor(event_id)
    return jsonify({"ok": True, "code": code})


@bp.patch("/api/events/<int:event_id>/swiss")
def settings(event_id: int) -> Response:
    """Number of Swiss rounds (override), top cut size, public standings."""
    actor = _actor(event_id, "organiser")
    body = load_body()
    if not body:
        raise AppError("invalid", "Nothing to change.")
    swiss().settings(event_id, body, actor, services().clock())
    return jsonify(swiss().summary(event_id))


@bp.post("/api/events/<int:event_id>/swiss/cut")
def start_cut(event_id: int) -> Response:
    """Start the top cut (4, 8, 16 or 32), seeded by the standings."""
    actor = _actor(event_id, "organiser")
    body = load_body()
    found = swiss().start_cut(event_id, body["size"], actor, services().clock())
    _refresh_floor(event_id)
    return jsonify(found)


@bp.post("/api/events/<int:event_id>/swiss/cut/next")
def next_cut(event_id: int) -> Response:
    """The next round of the top cut (every result of the last one in)."""
    actor = _actor(event_id, "organiser")
    found = swiss().next_cut(event_id, actor, services().clock())
    _refresh_floor(event_id)
    return jsonify(found)


STANDING_COLUMNS = ["rank", "name", "player_id", "points", "record", "omw", "oomw", "tiebreak"]


@bp.get("/api/events/<int:event_id>/standings.csv")
def standings_csv(event_id: int) -> Response:
    """The standings as CSV."""
    require_role(event_id, "judge", "organiser")
    out = io.StringIO()
    out.write(BOM)
    writer = csv.DictWriter(out, fieldnames=[*STANDING_COLUMNS, "dropped", "disqualified"])
    writer.writeheader()
    for row in swiss().summary(event_id)["standings"]:
        line = {k: row[k] for k in STANDING_COLUMNS} | {
            "dropped": "yes" if row["dropped"] else "",
            "disqualified": "yes" if row["disqualified"] else "",
        }
        writer.writerow({k: csv_safe(v) for k, v in line.items()})
    return Response(
        out.getvalue(),
        content_type="text/csv; charset=utf-8",
        headers={"Content-Disposition": f'attachment; filename="event-{event_id}-standings.csv"'},
    )


def id_as_text(value: str) -> str:
    """A player ID as a spreadsheet keeps it: `="0100000001"`, a formula whose value is the text
    itself, which Excel, LibreOffice Calc and Google Sheets all show with its leading zeros
    (docs/tournament.md); the ID sits inside a string literal, so it never runs."""
    return '="' + value.replace('"', '""') + '"'


def as_percent(value: Fraction) -> str:
    """A fraction as a spreadsheet reads a percentage: 1/3 -> "33.33%" (half up)."""
    hundredths = int(value * 10_000 + Fraction(1, 2))
    return f"{hundredths // 100}.{hundredths % 100:02}%"


@bp.get("/api/events/<int:event_id>/event-results.csv")
def event_results_csv(event_id: int) -> Response:
    """The whole event in one sheet: a row per player in standing order, and for every round
    (Swiss and top cut) its result, opponent, table and reason: the code, then its words in the
    reader's language (`?lang=` or Accept-Language)."""
    require_role(event_id, "organiser", "judge")
    _, tr = request_t("reason.")
    found = swiss().event_results(event_id)
    out = io.StringIO()
    out.write(BOM)
    writer = csv.writer(out)
    head = ["rank", "name", "player_id", "points", "record", "omw", "oomw", "tiebreak"]
    head += ["dropped", "disqualified"]
    for n in found["rounds"]:
        head += [f"round_{n}", f"round_{n}_opponent", f"round_{n}_table", f"round_{n}_reason"]
    writer.writerow(head)
    for row in found["rows"]:
        line = [
            csv_safe(row["rank"]),
            csv_safe(row["name"]),
            id_as_text(row["player_id"]),
            csv_safe(row["points"]),
            csv_safe(row["record"]),
            as_percent(row["omw"]),
            as_percent(row["oomw"]),
            csv_safe(row["tiebreak"]),
            "yes" if row["dropped"] else "",
            "yes" if row["disqualified"] else "",
        ]
        for n in found["rounds"]:
            cell = row["rounds"][n]
            if cell is None:
                line += ["", "", "", ""]
                continue
            result = " ".join(x for x in (cell["result"], cell.get("duels", "")) if x)
            code = cell["reason"]
            words = tr(code) if code else ""
            reason = f"{code} ({words})" if code and words != f"reason.{code}" else code
            line += [
                csv_safe(result),
                csv_safe(cell["opponent"]),
                csv_safe(cell["table"] or ""),
                csv_safe(reason),
            ]
        writer.writerow(line)
    return Response(
        out.getvalue(),
        content_type="text/csv; charset=utf-8",
        headers={"Content-Disposition": f'attachment; filename="event-{event_id}-results.csv"'},
    )


def _page(title: str, summary: dict[str, Any], refresh: bool, public: bool = False) -> Response:
    return Response(_page_text(title, summary, refresh, public), mimetype="text/html")


def _page_text(title: str, summary: dict[str, Any], refresh: bool, public: bool) -> str:
    """Standings and the bracket as a printable (and projector) page in the reader's language
    (`?lang=` or Accept-Language, the catalogue's `standings.*`); every name escaped."""
    lang, tr = request_t("standings.")
    parts = [
        f"<!doctype html><html lang='{escape(lang)}'><head><meta charset='utf-8'>",
        "<meta name='viewport' content='width=device-width, initial-scale=1'>",
        "<meta http-equiv='refresh' content='30'>" if refresh else "",
        f"<title>{escape(title)}</title>",
        "<link rel='icon' href='/icons/icon.svg' type='image/svg+xml'>",
        "<link rel='stylesheet' href='/css/standings.css'>",
        f"</head><body><h1>{escape(title)}</h1>",
    ]
    if summary["champion"]:
        winner = tr("champion", name=summary["champion"]["name"])
        parts.append(f"<p class='champion' data-testid='champion'>{escape(winner)}</p>")
    cut = [r for r in summary["rounds"] if r["stage"] == "cut"]
    if cut:
        parts.append(f"<h2>{escape(tr('top_cut'))}</h2>")
        parts.append("<div class='bracket' data-testid='bracket'>")
        for r in cut:
            parts.append(f"<section><h3>{escape(tr('round', n=r['number']))}</h3><ol>")
            for t in r["tables"]:
                win = t["result"]
                a = f"<b>{escape(t['a']['name'])}</b>" if win == "A" else escape(t["a"]["name"])
                b = f"<b>{escape(t['b']['name'])}</b>" if win == "B" else escape(t["b"]["name"])
                parts.append(f"<li>{a} – {b}</li>")
            parts.append("</ol></section>")
        parts.append("</div>")
    # A player's ID is for staff (the printable page), never on the public one.
    heads = ("rank", "player", *(("player_id",) if not public else ()), "points", "record")
    heads += ("omw", "oomw", "tiebreak")
    parts.append(
        "<table data-testid='standings'><thead><tr>"
        + "".join(f"<th>{escape(tr('col.' + h))}</th>" for h in heads)
        + "</tr></thead><tbody>"
    )
    marks = {"disqualified": escape(tr("disqualified")), "dropped": escape(tr("dropped"))}
    for row in summary["standings"]:
        n = row["tiebreak"]  # points, OMW% and OOMW% fields, each at most 999
        tb = f"{n // 1_000_000} {n // 1000 % 1000:03} {n % 1000:03}"
        out = "disqualified" if row["disqualified"] else "dropped" if row["dropped"] else None
        dropped = f" {marks[out]}" if out else ""
        pid = "" if public else f"<td>{escape(row['player_id'])}</td>"
        parts.append(
            f"<tr><td>{row['rank']}</td><td>{escape(row['name'])}{dropped}</td>"
            f"{pid}<td>{row['points']}</td><td>{row['record']}</td>"
            f"<td>{row['omw'] / 10:.1f}%</td><td>{row['oomw'] / 10:.1f}%</td><td>{tb}</td></tr>"
        )
    parts.append("</tbody></table></body></html>")
    return "".join(parts)


@bp.get("/organiser/events/<int:event_id>/standings")
def printable(event_id: int) -> Response:
    """The standings and bracket, printable."""
    require_role(event_id, "judge", "organiser")
    ev = tournament().event(event_id)
    return _page(f"{ev.name} · {ev.date}", swiss().summary(event_id), refresh=False)


@bp.get("/e/<slug>/standings")
def public_page(slug: str) -> Response:
    """The public standings and bracket (players' phones, the hall projector), if public:
    rendered once per language from the event's cached projection (`event_page`)."""
    rate_limit()
    ev = swiss().event_by_slug(slug)
    cached = event_page.cache()
    if not cached.get(ev.id).summary["public"]:
        raise AppError("not_public", "The organiser has not published the standings.", status=404)
    lang, _ = request_t("standings.")
    title = f"{ev.name} · {ev.date}"
    text = cached.text(
        ev.id, f"standings:{lang}", lambda e: _page_text(title, e.summary, True, public=True)
    )
    return Response(text, mimetype="text/html")


def init_app(app: Flask) -> None:
    app.register_blueprint(bp)
