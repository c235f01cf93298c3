"""Judges and organisers over HTTP: login, events, judges, pairings, rounds, exports, cards.

A staff login is a cookie (`dt_staff`: HttpOnly, SameSite=Lax, Secure over HTTPS) naming a
server-side session. Every state-changing request must carry that session's CSRF token in the
`X-CSRF-Token` header and, when the browser sends one, a same-site `Origin`. A seat token opens
nothing here. Staff see only the events they belong to. Judges act at a table over the table
websocket (`hello` without a token: the cookie makes them "judge" or "organiser" there).
"""

from __future__ import annotations

import base64
import csv
import io
import unicodedata
from typing import Any
from urllib.parse import urlsplit

from flask import Blueprint, Flask, Response, jsonify, redirect, request
from markupsafe import escape

from server.api.context import services
from server.core.addresses import reaches_phones
from server.core.errors import AppError, DomainError, error_body
from server.core.names import same_player_id
from server.projections.sheet import csv_safe, filled_log
from server.rules import RULESETS, Actor, view
from server.rules.base import event_words
from server.service.tournament import Staff, parse_pairings

from .access import end_session, may_see_pairing, viewer
from .claims import card_claim, claim_for, claim_ok
from .decklists import set_event_banlist
from .event_decks import event_lists
from .http import load_body, public_base_here, qr_svg
from .identity import COOKIE, check_request, current_staff, require_role, require_staff, tournament
from .lang import request_t
from .logins import login_keys, retry_after
from .ratelimit import charge, rate_limit

bp = Blueprint("staff", __name__)
bp.before_request(check_request)


# -- schemas ----------------------------------------------------------------------------------


def _me(staff: Staff) -> dict[str, Any]:
    return {"username": staff.username, "kind": staff.kind, "csrf": staff.csrf}


# -- login ----------------------------------------------------------------------------------------


@bp.post("/api/auth/login")
def login() -> Response:
    """Log in; sets the session cookie and returns the CSRF token."""
    if not services().http_limiter.take("login:" + (request.remote_addr or "?")):
        raise AppError("rate_limited", "Too many attempts; wait a moment.", status=429)
    body = load_body()
    throttle = services().logins
    keys = login_keys(body["username"], request.remote_addr or "?")
    wait = throttle.attempt(keys)
    if wait > 0:
        return _throttled(wait)
    token, staff = tournament().login(body["username"], body["password"], services().clock())
    throttle.succeeded(keys)
    response = jsonify(_me(staff))
    response.set_cookie(
        COOKIE,
        token,
        httponly=True,
        samesite="Lax",
        secure=request.is_secure,
        path="/",
        max_age=16 * 3600,
    )
    return response


def _throttled(wait: float) -> Response:
    """429 login_throttled, with how long to wait (the header and `details.retry_after`)."""
    seconds = retry_after(wait)
    body = error_body(
        "login_throttled",
        "Too many failed logins; wait and try again.",
        {"retry_after": int(seconds)},
    )
    response = jsonify(body)
    response.status_code = 429
    response.headers["Retry-After"] = seconds
    return response


@bp.post("/api/auth/logout")
def logout() -> Response:
    """Close the session."""
    require_staff()
    tournament().logout(request.cookies.get(COOKIE, ""))
    end_session(request.cookies.get(COOKIE, ""))  # its judge sockets close now
    response = jsonify({"ok": True})
    response.delete_cookie(COOKIE, path="/", httponly=True, samesite="Lax")
    return response


@bp.get("/api/auth/session")
def session() -> Response:
    """Who is logged in (`me`, with the CSRF token), or `me: null`: what a staff page asks
    first, answered 200 either way (a login screen is no error)."""
    staff = current_staff()
    return jsonify({"me": _me(staff) if staff else None})


@bp.get("/api/auth/me")
def me() -> Response:
    """Who is logged in, with the CSRF token for later requests."""
    return jsonify(_me(require_staff()))


# -- events -------------------------------------------------------------------------------------


@bp.get("/api/events")
def list_events() -> Response:
    """The events this account is staff of."""
    staff = require_staff()
    return jsonify({"events": tournament().events_of(staff), "rulesets": sorted(RULESETS)})


@bp.post("/api/events")
def create_event() -> tuple[Response, int]:
    """Create an event and its tables (organiser accounts only)."""
    staff = require_staff()
    if staff.kind != "organiser":
        raise AppError("forbidden", "Only an organiser creates events.", status=403)
    body = load_body()
    ev = tournament().create_event(
        staff,
        body["name"],
        body["date"],
        body["ruleset"],
        body["match_minutes"],
        body["tables"],
        services().clock(),
        require_player_id=body.get("require_player_id"),
    )
    return jsonify(tournament().event_detail(ev.id)), 201


@bp.get("/api/events/<int:event_id>")
def get_event(event_id: int) -> Response:
    """An event, its rounds, tables and staff."""
    require_role(event_id, "judge", "organiser")
    detail = tournament().event_detail(event_id)
    detail["my_role"] = tournament().role(current_staff(), event_id)
    loaded = services().lists.of_event(event_id)
    detail["banlist"] = {"name": loaded[0], "size": len(loaded[1])} if loaded else None
    if detail["my_role"] == "organiser":  # the seat links carry the table cards' claims
        issue = int(tournament().event(event_id).cards_issue)
        for table in detail["tables"]:
            n = table["number"]
            table["claims"] = {s: claim_for(detail["slug"], n, s, issue=issue) for s in "AB"}
    return jsonify(detail)


@bp.post("/api/events/<int:event_id>/banlist")
def upload_banlist(event_id: int) -> Response:
    """Load the event's ban list (CSV, JSON or an lflist.conf's list, docs/banlists.md); its
    tables get it at once (a table where a deck list is already registered keeps its own, R2.5)."""
    require_role(event_id, "organiser")
    lists = services().lists
    body = load_body()
    chosen = body["list"] or body["name"]
    entries, names = lists.read_banlist(body["text"], body["filename"], chosen)
    now = services().clock()
    lists.load_banlist(body["name"], entries, names, event_id, now)
    codes = [t["code"] for t in tournament().tables(event_id)]
    rows = [[c, s] for c, s in entries]
    applied, refused = set_event_banlist(codes, body["name"].strip(), rows, now)
    return jsonify(
        {"name": body["name"].strip(), "size": len(entries), "applied": applied, "refused": refused}
    )


@bp.patch("/api/events/<int:event_id>")
def patch_event(event_id: int) -> Response:
    """Change an event's settings: whether token-less spectators may watch its tables, and
    whether joining them needs a player ID (R1.1)."""
    require_role(event_id, "organiser")
    body = load_body()
    if not body:
        raise AppError("invalid", "Name a setting to change.")
    if "spectators" in body:
        tournament().set_spectators(event_id, body["spectators"])
    if "require_player_id" in body:
        tournament().set_require_player_id(event_id, body["require_player_id"])
    return jsonify(tournament().event_detail(event_id))


@bp.post("/api/events/<int:event_id>/judges")
def add_judge(event_id: int) -> tuple[Response, int]:
    """Create a judge account for the event (or add an existing judge)."""
    require_role(event_id, "organiser")
    body = load_body()
    name = tournament().add_judge(
        event_id, body["username"], body["password"] or None, services().clock()
    )
    return jsonify({"username": name, "role": "judge"}), 201


@bp.delete("/api/events/<int:event_id>/judges/<username>")
def remove_judge(event_id: int, username: str) -> Response:
    """Take a judge off the event (organiser only); the judge's open sockets close."""
    require_role(event_id, "organiser")

    for token_hash in tournament().remove_judge(event_id, username):
        services().grants.revoke(("staff", token_hash))
    _refresh_floor(event_id)
    return jsonify({"username": username, "removed": True})


@bp.post("/api/events/<int:event_id>/pairings")
def set_pairings(event_id: int) -> Response:
    """Pairings of the current round from CSV or pasted lines."""
    require_role(event_id, "organiser")
    body = load_body()
    count = tournament().set_pairings(event_id, parse_pairings(body["csv"]))
    _refresh_floor(event_id)
    return jsonify({"paired": count, "tables": tournament().tables(event_id)})


@bp.post("/api/events/<int:event_id>/round/start")
def start_round(event_id: int) -> Response:
    """Start the match clock of every table at one server instant."""
    staff = require_role(event_id, "organiser")
    found = services()
    actor = Actor(role="organiser", name=staff.username)
    result = tournament().start_round(event_id, actor, found.clock())  # published as stored
    result.pop("seqs")
    _refresh_floor(event_id)  # the floor's judges may now re-pair the round
    return jsonify(result)


@bp.post("/api/events/<int:event_id>/round/end")
def end_round(event_id: int) -> Response:
    """Mark the current round ended; the phones of the tables still playing are told."""
    staff = require_role(event_id, "organiser")
    found = services()
    actor = Actor(role="organiser", name=staff.username)
    number, unfinished, seqs = tournament().end_round(event_id, actor, found.clock())
    found.tables.announce(seqs)
    _refresh_floor(event_id)
    return jsonify(
        {"round": number, "ended": True, "unfinished": [t["number"] for t in unfinished]}
    )


@bp.post("/api/events/<int:event_id>/round/next")
def next_round(event_id: int) -> tuple[Response, int]:
    """Open the next round with fresh tables."""
    require_role(event_id, "organiser")
    number = tournament().next_round(event_id, services().clock())
    _refresh_floor(event_id)
    return jsonify(tournament().event_detail(event_id) | {"round": number}), 201


@bp.post("/api/events/<int:event_id>/tables/<int:number>/result")
def table_result(event_id: int, number: int) -> Response:
    """A judge's or the organiser's result for a table of the current round (a no-show, a
    penalty, a table that cannot finish): the table's one result, on its log; it closes."""
    staff = require_role(event_id, "organiser", "judge")
    actor = Actor(role=tournament().role(staff, event_id) or "judge", name=staff.username)
    body = load_body()
    code, seq = tournament().judge_result(
        event_id, None, number, body["result"], actor, services().clock()
    )
    services().tables.announce({code: seq})
    _refresh_floor(event_id)
    return jsonify({"table": number, "code": code, "result": body["result"]})


BOM = "\ufeff"  # a spreadsheet reads the CSV as UTF-8 (CJK names) only with it


RESULT_COLUMNS = [
    "round",
    "table",
    "code",
    "player_a",
    "player_a_id",
    "player_b",
    "player_b_id",
    "duels",
    "wins_a",
    "wins_b",
    "match_winner",
    "match_reason",
    "match_confirmed",
    "time_called",
    "penalties",
]


def result_row(
    number: int, round_no: int, code: str, v: dict[str, Any], pairing: dict[str, Any] | None = None
) -> dict[str, Any]:
    """One table's line of the results export, from its view (names from the pairing until the
    players take their seats)."""
    seats = {
        k: s if s["joined"] or not pairing else {**s, **pairing[k]} for k, s in v["seats"].items()
    }
    match = v["match"]
    if not match["decided"]:
        winner = ""
    elif match["winner"] is None:
        winner = "draw"
    else:
        winner = match["winner"]
    duels = " ".join(
        f"{d['no']}{'x' if d['extra'] else ''}:{d['winner'] or 'draw'}" for d in v["duels"]
    )
    penalties = "; ".join(
        f"{p['seat']} {p['level']} {p['infraction']} ({p['judge']})" for p in v["penalties"]
    )
    return {
        "round": round_no,
        "table": number,
        "code": code,
        "player_a": seats["A"]["name"],
        "player_a_id": seats["A"]["player_id"],
        "player_b": seats["B"]["name"],
        "player_b_id": seats["B"]["player_id"],
        "duels": duels,
        "wins_a": v["wins"]["A"],
        "wins_b": v["wins"]["B"],
        "match_winner": winner,
        "match_reason": match["reason"] or "",
        "match_confirmed": "yes" if v["phase"] == "match_over" else "no",
        "time_called": "yes" if v["time"]["called"] else "no",
        "penalties": penalties,
    }


@bp.get("/api/events/<int:event_id>/results.csv")
def results_csv(event_id: int) -> Response:
    """Every result of a round (the current one, or ?round=n) as CSV: the tables in play (paired
    or with a seat taken), as the floor, the hall and End round count them."""
    require_role(event_id, "organiser", "judge")
    round_no = request.args.get("round", type=int)
    tables = services().tables
    out = io.StringIO()
    out.write(BOM)
    writer = csv.DictWriter(out, fieldnames=RESULT_COLUMNS)
    writer.writeheader()
    for table in tournament().in_play(event_id, round_no):
        snap = tables.snapshot(table["code"])
        state = view(snap.state, privileged=True)  # the players' IDs are the staff's
        row = result_row(table["number"], table["round"], table["code"], state, table["pairing"])
        writer.writerow({k: csv_safe(v) for k, v in row.items()})
    name = f"event-{event_id}-round-{round_no or 'current'}.csv"
    return Response(
        out.getvalue(),
        content_type="text/csv; charset=utf-8",
        headers={"Content-Disposition": f'attachment; filename="{name}"'},
    )


# -- the judge's view of one table -------------------------------------------------------------


@bp.get("/api/staff/tables/<code>")
def staff_table(code: str) -> Response:
    """A table's full view and log (each event with the fields an older log lacks filled in),
    for staff of its event, and how each event is worded (its declaration's `Words`)."""
    code = code.upper()
    staff = require_staff()
    t = tournament()
    event_id = t.table_event(code)
    if t.role(staff, event_id) is None:
        raise AppError("forbidden", "You are not staff of this table's event.", status=403)
    info = t.table_info(code)
    snap = services().tables.snapshot(code)
    log = services().tables.log(code)
    state = view(snap.state, privileged=True)  # judges see every deck list
    return jsonify(
        {
            "code": code,
            "info": info,
            "seq": snap.seq,
            "state": state,
            "log": filled_log(log),
            "words": event_words(),
            "event_lists": event_lists(code, state) if event_id is not None else None,
        }
    )


# -- the players' side: pairings on the join screen, stable seat links --------------------------


@bp.get("/api/tables/<code>/event")
def table_event(code: str) -> Response:
    """The event, round, table number and pairing of an event table (404 for a casual one)."""
    rate_limit()
    info = tournament().table_info(code.upper())
    if info is None:
        raise AppError("not_event_table", "This table belongs to no event.", status=404)
    if not may_see_pairing(viewer(code)):
        # Names and player IDs: its seats and staff only. The phone holding a seat's card claim
        # (the QR's `claim`, the same in every round) gets that seat's name and whether it has
        # a player ID to type, never the ID: the ID is what tells this round's player apart.
        seat, claim = request.args.get("seat"), request.args.get("claim", "")
        pairing = info.get("pairing") or {}
        mine = pairing.get(seat) if pairing and claim_ok(code.upper(), seat, claim) else None
        own = (
            {seat: {"name": mine["name"], "id_needed": bool(mine["player_id"])}}
            if mine and seat
            else None
        )
        info = {**info, "pairing": own}
    return jsonify(info)


@bp.get("/api/tables/<code>/next")
def next_table(code: str) -> Response:
    """Where this seat's player sits in the event's current round, asked by the seat's own
    phone (its token) at an earlier round's table: `{"next": {"round", "number", "seat",
    "opponent", "code", "claim"}}`, or `{"next": null}` while that round is not paired with
    them. The claim is the table card's for that seat: the phone takes it in one tap, as if it
    had scanned the card (the pairing's player ID still decides, `seats.join`)."""
    rate_limit()
    code = code.upper()
    info = tournament().table_info(code)
    if info is None:
        raise AppError("not_event_table", "This table belongs to no event.", status=404)
    seat = viewer(code).seat
    assert seat is not None and seat.seat is not None  # the route's `seat` policy
    mine = services().tables.snapshot(code).state.seats[seat.seat]
    event_id = int(info["event"]["id"])
    current = tournament().current_round(event_id)
    matches: list[dict[str, Any]] = []
    if int(current.number) > int(info["round"]):
        for table in tournament().tables(event_id):
            for side, other in (("A", "B"), ("B", "A")):
                paired = table["pairing"][side]
                if _is_them(paired, mine.name, mine.player_id):
                    matches.append(
                        {
                            "round": int(current.number),
                            "number": table["number"],
                            "seat": side,
                            "opponent": table["pairing"][other]["name"],
                            "code": table["code"],
                            "claim": card_claim(event_id, table["number"], side),
                        }
                    )
    # Two players of one name and no IDs: the seat is not this phone's to give (a judge seats
    # them), or the one who taps first would take the other's seat with its card's claim.
    return jsonify({"next": matches[0] if len(matches) == 1 else None})


def _is_them(paired: dict[str, str], name: str, player_id: str) -> bool:
    """Whether a pairing's seat is this player: by the player ID where both have one, else by
    the name (folded as the join compares names)."""
    if not paired["name"]:
        return False
    if paired["player_id"] and player_id:
        return same_player_id(player_id, paired["player_id"])
    return paired["name"].strip().casefold() == name.strip().casefold()


@bp.post("/api/events/<int:event_id>/cards/reissue")
def reissue_cards(event_id: int) -> Response:
    """Void every printed table card of the event (a card lost or photographed): the cards page
    then prints new claims, and the old cards seat nobody (`old_claim` on the floor)."""
    require_role(event_id, "organiser")
    return jsonify({"cards_issue": tournament().reissue_cards(event_id)})


@bp.get("/s/<slug>/<int:number>/<seat>")
def seat_link(slug: str, number: int, seat: str) -> Response:
    """A table card's QR code: the seat of table `number` in the event's current round. With
    its valid claim the look-up is charged to the card's seat, not to the client address (a
    hall's phones share one): others at the address cannot keep a new phone from its seat."""
    claim = request.args.get("c", "")[:64]  # the card's seat claim (`server.api.seats`)
    code = ""
    if seat in ("A", "B") and claim.isalnum():
        try:
            code = tournament().seat_link(slug, number)
        except DomainError:
            code = ""
    if code and claim_ok(code, seat, claim):
        charge(1, f"card:{code}:{seat}")
        return redirect(f"/t/{code}?seat={seat}&claim={claim}", code=302)  # type: ignore[return-value]
    rate_limit()
    # No claim, a wrong one or another round's: no table code. A client address that keeps
    # trying spends its few "miss" tokens, as for unknown table codes (docs/security.md).
    misses = services().misses
    if not misses.take(request.remote_addr or "?"):
        raise AppError("rate_limited", "Too many wrong seat links; try again later.", status=429)
    return redirect("/?card=invalid", code=302)  # type: ignore[return-value]


@bp.get("/s/<slug>/<int:number>")
def table_link(slug: str, number: int) -> Response:
    """A table card's short address, typed when its QR will not scan: the event's page. It
    carries no claim, so it leads to no table (a round's codes are on the printed pairings, and
    a seat without its card's claim waits for a judge): walked table by table, it gave out
    every round's codes."""
    rate_limit()
    tournament().event_by_slug(slug)  # 404 no_such_event
    return redirect(f"/e/{slug}", code=302)  # type: ignore[return-value]


@bp.get("/organiser/events/<int:event_id>/pairings")
def printed_pairings(event_id: int) -> Response:
    """The current round's pairings to print or show: table, code, and each seat's player (the
    names change every round, so they are here and not on the table cards)."""
    staff = current_staff()
    if staff is None or tournament().role(staff, event_id) is None:
        return Response("Log in as staff of this event.", status=403, mimetype="text/plain")
    ev = tournament().event(event_id)
    n = tournament().current_round(event_id).number
    parts = [
        "<!doctype html><html lang='en'><head><meta charset='utf-8'>",
        f"<title>{escape(ev.name)}: round {n}</title>",
        "<link rel='icon' href='/icons/icon.svg' type='image/svg+xml'>",
        "<link rel='stylesheet' href='/css/standings.css'></head><body>",
        f"<h1>{escape(ev.name)} · Round {n} · 第 {n} 輪 · 第{n}回戦</h1>",
    ]
    if request.args.get("by") == "name":
        return Response("".join(parts + _pairings_by_name(event_id, n)), mimetype="text/html")
    parts += [
        "<table data-testid='pairings'><thead><tr><th>#</th><th>A</th><th>B</th>"
        "<th>Code · 代碼 · コード</th></tr></thead><tbody>",
    ]
    for table in tournament().tables(event_id):
        pairing = table["pairing"]
        if not (pairing["A"]["name"] or pairing["B"]["name"]):
            continue
        parts.append(
            f"<tr><td>{table['number']}</td><td>{escape(pairing['A']['name'])}</td>"
            f"<td>{escape(pairing['B']['name'])}</td><td>{escape(table['code'])}</td></tr>"
        )
    parts.append("</tbody></table></body></html>")
    return Response("".join(parts), mimetype="text/html")


def _pairings_by_name(event_id: int, round_no: int) -> list[str]:
    """The round's pairings as a hall reads them: every player A to Z (case and width do not
    matter), with their table, seat and opponent; a bye says so."""
    rows: list[tuple[str, str, str, str]] = []
    for table in tournament().tables(event_id):
        pairing = table["pairing"]
        for seat, other in (("A", "B"), ("B", "A")):
            if pairing[seat]["name"]:
                rows.append(
                    (pairing[seat]["name"], str(table["number"]), seat, pairing[other]["name"])
                )
    rp = services().swiss.state(event_id).rounds.get(round_no)
    if rp is not None and rp.bye is not None:
        player = services().swiss.player(event_id, rp.bye)
        rows.append((player.name, "", "", "Bye · 輪空 · 不戦勝"))
    rows.sort(key=lambda r: (unicodedata.normalize("NFKC", r[0]).casefold(), r[1]))
    parts = [
        "<table data-testid='pairings-by-name'><thead><tr><th>Name · 姓名 · 名前</th>"
        "<th>Table · 桌 · テーブル</th><th>Seat · 座位 · 席</th>"
        "<th>Opponent · 對手 · 対戦相手</th></tr></thead><tbody>",
    ]
    for name, number, seat, opponent in rows:
        parts.append(
            f"<tr><td>{escape(name)}</td><td>{number}</td><td>{seat}</td>"
            f"<td>{escape(opponent)}</td></tr>"
        )
    parts.append("</tbody></table></body></html>")
    return parts


def _qr_data_uri(url: str) -> str:
    svg = qr_svg(url, scale=5)
    return "data:image/svg+xml;base64," + base64.b64encode(svg).decode("ascii")


@bp.get("/organiser/events/<int:event_id>/cards")
def cards(event_id: int) -> Response:
    """Printable table cards: per table its number and one QR code per seat (4 per A4 page)."""
    lang, tr = request_t("cards.")
    staff = current_staff()
    if staff is None or tournament().role(staff, event_id) != "organiser":
        return Response(tr("login"), status=403, mimetype="text/plain")
    ev = tournament().event(event_id)
    # Printed for phones: the LAN address or PUBLIC_URL, never the 127.0.0.1 the organiser's
    # own browser opened this page on (`public_base_here`, the one maker of public addresses).
    base, _ = public_base_here()
    parts = [
        f"<!doctype html><html lang='{escape(lang)}'><head><meta charset='utf-8'>",
        f"<title>{escape(tr('title', event=ev.name))}</title>",
        "<link rel='icon' href='/icons/icon.svg' type='image/svg+xml'>",
        "<link rel='stylesheet' href='/css/cards.css'>",
        "<script type='module' src='/js/organiser/cards.js'></script></head><body>",
        f"<p class='noprint'><button id='print' type='button'>{escape(tr('print'))}</button></p>",
    ]
    short = urlsplit(base).netloc.removeprefix("www.") + urlsplit(base).path.rstrip("/")
    if not reaches_phones(base):
        # No LAN address and no PUBLIC_URL: a phone could not open what these cards print.
        parts.append(
            f"<p class='noprint warn' role='alert' data-testid='cards-loopback'>"
            f"{escape(tr('loopback', address=base))}</p>"
        )
    slug = escape(ev.slug)
    # Printed once for the event: a card's number, short address and seat QR codes stay right
    # in every round (the round's codes and names are on the printed pairings). Its claims hold
    # until the organiser re-issues the cards; the pairing's player ID says whose round it is.
    parts.append(f"<p class='noprint' data-testid='cards-once'>{escape(tr('once'))}</p>")
    issue = int(ev.cards_issue)
    for table in tournament().tables(event_id):
        n = table["number"]
        parts.append(f"<section class='card' data-table='{n}'>")
        parts.append(f"<h1>{escape(ev.name)}</h1><p class='no'>{n}</p>")
        parts.append(
            f"<p class='addr' data-testid='card-address'>{escape(short)}/s/{slug}/{n}</p>"
            f"<p class='addr' data-testid='event-link'>{escape(short)}/e/{slug}</p>"
            "<div class='seats'>"
        )
        for seat in ("A", "B"):
            claim = claim_for(ev.slug, n, seat, issue=issue)
            url = f"{base}/s/{ev.slug}/{n}/{seat}?c={claim}"
            # In the organiser's language (`?lang=` prints the cards in another).
            parts.append(
                f"<figure><img alt='{escape(tr('qr', seat=seat))}' src='{_qr_data_uri(url)}'>"
                f"<figcaption>{escape(tr('seat', seat=seat))}</figcaption></figure>"
            )
        parts.append("</div></section>")
    parts.append("</body></html>")
    return Response("".join(parts), mimetype="text/html")


# -- the pages ------------------------------------------------------------------------------------


@bp.get("/judge")
@bp.get("/judge/<path:rest>")
def judge_page(rest: str = "") -> Response:
    """The judges' app (login, floor view, table detail)."""
    from .web import _send

    return _send("judge.html")


@bp.get("/organiser")
@bp.get("/organiser/<path:rest>")
def organiser_page(rest: str = "") -> Response:
    """The organisers' app (events, tables, judges, pairings, rounds, exports)."""
    from .web import _send

    return _send("organiser.html")


def _refresh_floor(event_id: int) -> None:
    services().floor.reset(event_id)


def init_app(app: Flask) -> None:
    """Register the staff routes."""
    app.register_blueprint(bp)
