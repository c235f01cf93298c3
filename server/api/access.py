"""Who is asking, and what each may read or do: the one place every HTTP route and both
sockets ask.

A request is one of:

- a **seat**: the phone holding a seat's token (`Authorization: Bearer <token>`) at *this* table;
- **staff**: a judge's or organiser's login (the `dt_staff` cookie), with a role at the
  table's event, or none there;
- a **spectator**: anyone else.

Every route of the app's URL map has a decision in `POLICIES` (a test walks the map). A route
the map has and the table does not is refused: a new route is closed until it is decided.

Policies:

- ``public``: no table's data (the app shell, the clock, login, the list of banlists).
- ``table``: one table's data (`<code>` in the path). Anyone while the table's event lets
  spectators watch (always at a casual table); otherwise its seats and its event's staff.
- ``tables``: several tables' data (`?codes=`): each code as ``table``.
- ``seat``: acts for a seat: the route itself requires the token of a seat at this table.
- ``join``: taking a seat (anyone with the code; the seat-claim rules live with the join).
- ``staff``: a staff route that checks the role at the event itself; a login is required
  first (except the login itself).
- ``socket``: a websocket; it authorises in its `hello` with `socket_actor` / the floor's check.
- ``overlay``: a table's stream overlay summary: anyone while the table's staff show it on the
  overlay (`overlay.set`, public facts only), nobody otherwise (`404 overlay_off`, spectators
  or not: a broadcast tool has no login, and showing a table is its staff's decision).
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from flask import Flask, g, request

from server.api.context import Services, services
from server.core.errors import AppError
from server.core.tokens import hash_token
from server.rules import Actor

from .claims import claim_ok
from .grants import Grant
from .identity import COOKIE, current_staff, spectators_allowed, staff_actor
from .ratelimit import charge
from .sheets import CODE, parse_codes

log = logging.getLogger(__name__)

PUBLIC, TABLE, TABLES, SEAT, JOIN, STAFF, SOCKET, OVERLAY = (
    "public",
    "table",
    "tables",
    "seat",
    "join",
    "staff",
    "socket",
    "overlay",
)

POLICIES: dict[str, str] = {
    # tables, for phones
    "seats.request_status": JOIN,  # the route checks the request's own token
    "seats.cancel_request": JOIN,  # the route checks the request's own token
    "seats.confirm_request": SEAT,  # the other seat of a casual table
    "seats.refuse_request": SEAT,  # the other seat of a casual table
    "seats.judge_refuse_request": STAFF,
    "seats.approve_request": STAFF,  # the route checks the role at the table's event
    "seats.release_seat": STAFF,
    "seats.disown_seat": SEAT,  # the seat's own phone: "this is not my phone any more"
    "api.recover_table": JOIN,  # anyone with the code and the one-phone table's recovery code
    "api.create_table": PUBLIC,
    "api.get_table": TABLE,
    "api.join_table": JOIN,
    "api.table_qr": TABLE,
    "api.table_invite": TABLE,  # the invite link: as visible as the table (its QR the same)
    "api.table_log": TABLE,
    "api.table_ledger": TABLE,  # the ledger by range: as visible as the table itself
    "api.server_time": PUBLIC,
    "api.venue": PUBLIC,  # the venue's time zone
    "api.addresses": PUBLIC,  # the base of the addresses printed for phones (as on the cards)
    "table_ws.table_socket": SOCKET,
    "decklists.check_list": SEAT,
    "decklists.list_banlists": PUBLIC,
    "decklists.pick_banlist": SEAT,
    "decklists.suggest_cards": PUBLIC,  # card names an organiser loaded: no table's data
    "decklists.card_names": PUBLIC,
    "event_decks.seat_list": SEAT,  # the list registered for this seat's player at the event
    # the score sheet and the exports
    "sheets.sheet_page": TABLE,
    "sheets.sheets_page": TABLES,
    "sheets.export_json": TABLE,
    "sheets.ledger_csv": TABLE,
    "sheets.signed_heads": TABLE,
    # staff
    "staff.login": PUBLIC,
    "staff.logout": STAFF,
    "staff.me": STAFF,
    "staff.session": PUBLIC,  # who is logged in, or nobody
    "staff.list_events": STAFF,
    "staff.create_event": STAFF,
    "staff.get_event": STAFF,
    "staff.upload_banlist": STAFF,
    "staff.reissue_cards": STAFF,
    "staff.patch_event": STAFF,
    "staff.add_judge": STAFF,
    "staff.remove_judge": STAFF,
    "staff.set_pairings": STAFF,
    "staff.start_round": STAFF,
    "staff.end_round": STAFF,
    "staff.next_round": STAFF,
    "staff.table_result": STAFF,
    "staff.results_csv": STAFF,
    "staff.staff_table": STAFF,
    "staff.table_event": TABLE,
    "staff.next_table": SEAT,  # a seat's own phone: where its player sits in the next round
    "staff.seat_link": PUBLIC,  # the event's secret slug; answers only a redirect
    "staff.cards": STAFF,
    "staff.printed_pairings": STAFF,
    "staff.table_link": PUBLIC,  # the event's secret slug; answers only a redirect
    "staff.judge_page": PUBLIC,  # the page shell; its data come from staff routes
    "staff.organiser_page": PUBLIC,
    "floor_ws.floor_socket": SOCKET,
    "running.unfinished": STAFF,
    "running.hall_message": STAFF,
    "swiss.get_swiss": STAFF,
    "swiss.register_player": STAFF,
    "swiss.drop_player": STAFF,
    "swiss.import_players": STAFF,
    "swiss.check_in": STAFF,
    "swiss.event_results_csv": STAFF,
    "event_decks.staff_view": STAFF,
    "event_decks.organiser_sets": STAFF,
    "swiss.pair_next": STAFF,
    "swiss.repair": STAFF,
    "swiss.enter_result": STAFF,
    "swiss.settings": STAFF,
    "swiss.start_cut": STAFF,
    "swiss.next_cut": STAFF,
    "swiss.standings_csv": STAFF,
    "swiss.printable": STAFF,
    "swiss.public_page": PUBLIC,  # shown only when the organiser makes the standings public
    # the hall clock: round, time left and table counts, no names (for a projector, no login)
    "event_page.hall_clock": PUBLIC,
    "running.hall_page": PUBLIC,
    "event_page.event_data": PUBLIC,  # the public projection: no player ID in it
    "event_page.find": PUBLIC,
    # a player's own deck list for the event: their player ID says who (rate-limited, once)
    "event_decks.register_own": PUBLIC,
    "event_page.players_page": PUBLIC,
    "event_page.players_page_qr": PUBLIC,  # the players' page's address as a QR code (the hall)
    # the app shell and its files
    "openapi.spec": PUBLIC,
    # the stream overlay: the page shell, its summary while shown, and showing it
    "overlay.overlay_page": PUBLIC,
    "overlay.overlay_data": OVERLAY,
    "overlay.set_overlay": STAFF,  # the route checks the role at the table's event
    "protocol_schema.schema": PUBLIC,
    "web.index": PUBLIC,
    "web.table_page": PUBLIC,
    "web.asset": PUBLIC,
    "static": PUBLIC,
}


@dataclass(frozen=True)
class Viewer:
    """Who is asking about one table: the seat whose token was sent, or the staff role at the
    table's event (judge / organiser), or neither (a spectator)."""

    code: str
    seat: Actor | None = None
    staff: Actor | None = None

    @property
    def is_staff(self) -> bool:
        return self.staff is not None

    @property
    def actor(self) -> Actor | None:
        return self.seat or self.staff


def bearer() -> str | None:
    """The seat token of an `Authorization: Bearer ...` header."""
    header = request.headers.get("Authorization", "")
    if header.startswith("Bearer "):
        return header[7:].strip() or None
    return None


def viewer(code: str, token: str | None = None) -> Viewer:
    """Who this request is at table `code` (the request's bearer token unless `token`)."""
    code = code.upper()
    token = token if token is not None else bearer()
    seat = services().tables.seat_actor(code, token) if token else None
    return Viewer(code, seat=seat, staff=staff_actor(code))


def may_read(v: Viewer) -> bool:
    """Whether `v` may read the table: its seats and staff always; others while spectators may
    watch (a casual table always lets them)."""
    return v.seat is not None or v.is_staff or spectators_allowed(v.code)


def may_see_pairing(v: Viewer) -> bool:
    """Names and player IDs of an event table's pairing: its staff and its seats only."""
    return v.seat is not None or v.is_staff


def require_read(code: str) -> Viewer:
    """The viewer of `code`, refused with 403 `spectators_off` when not allowed to read."""
    v = viewer(code)
    if not may_read(v):
        raise AppError("spectators_off", "This table is not open to spectators.", status=403)
    return v


def socket_actor(code: str, token: str | None) -> Actor | None:
    """For the table socket's `hello`: the seat (token) or staff actor, or None for a spectator.

    Raises `AppError` "bad_token" for an unknown token and "spectators_off" for a spectator the
    table does not admit."""
    if token:
        seat = services().tables.seat_actor(code, token)
        if seat is None:
            raise AppError("bad_token", "Unknown token.", status=401)
        return seat
    v = viewer(code, token="")
    if not may_read(v):
        raise AppError("spectators_off", "This table is not open to spectators.", status=403)
    return v.staff


def budget_key(code: str, actor: Actor | None) -> str | None:
    """The rate budget of a request or a socket that proved who it is: its seat's, or its
    staff login's; None for the anonymous, charged to their client address."""
    if actor is None:
        return None
    if actor.role == "seat" and actor.seat:
        return f"seat:{code.upper()}:{actor.seat}"
    if actor.name:
        return f"staff:{actor.name}"
    return None


def request_budget(code: str) -> str | None:
    """The budget key of the request at `code`: its seat token's when it holds there, else its
    staff login's, else its table card's when it carries that seat's valid claim (`?seat=A&
    claim=...`: a new phone from the card's QR); None (the address's) for anyone else."""
    token = bearer()
    if token and CODE.fullmatch(code.upper()):
        key = budget_key(code, services().tables.seat_actor(code.upper(), token))
        if key is not None:
            return key
    staff = current_staff()
    if staff is not None:
        return f"staff:{staff.username}"
    return card_budget(code, request.args.get("seat", ""), request.args.get("claim", ""))


def card_budget(code: str, seat: str, claim: str) -> str | None:
    """The budget of a table card's seat when `claim` is its valid claim at table `code`, so a
    new phone at the card is never refused for what others at its address spent; None (the
    address's) otherwise. A wrong claim spends one of the address's few "miss" tokens, as a
    wrong table code does, so claims are not guessed at the card's expense."""
    code = code.upper()
    if seat not in ("A", "B") or not claim or len(claim) > 64 or not claim.isalnum():
        return None
    if not CODE.fullmatch(code) or not services().tables.exists(code):
        return None
    if claim_ok(code, seat, claim):
        return f"card:{code}:{seat}"
    limiter = services().misses
    if not limiter.take(request.remote_addr or "?"):
        raise AppError("rate_limited", "Too many wrong seat claims; try again later.", status=429)
    return None


def look_up(code: str) -> bool:
    """Whether a table has this code; a code that finds none also spends one of the address's
    few "miss" tokens (`HTTP_MISS_PER_MINUTE`), so guessing codes is slow (docs/security.md)
    while phones that know their code are not held back."""
    if services().tables.exists(code.upper()):
        return True
    limiter = services().misses
    if not limiter.take(request.remote_addr or "?"):
        raise AppError("rate_limited", "Too many unknown codes; try again later.", status=429)
    return False


def decide() -> None:
    """Before every request: apply the route's policy (refuse what has none)."""
    endpoint = request.endpoint
    if endpoint is None:
        return  # no route: the 404/405 handlers answer
    policy = POLICIES.get(endpoint)
    if policy is None:
        raise AppError("forbidden", "This route has no access decision.", status=403)
    g.access_policy = policy
    args: dict[str, Any] = request.view_args or {}
    if policy in (TABLE, JOIN):
        # Before any look-up of the code, so a code is not guessed for free: a seat's own
        # budget when its token holds at this table, a staff login's own (a hall's phones and
        # judges share one address), else the address's. A wrong token is the address's.
        charge(1, request_budget(str(args.get("code", ""))))
        look_up(str(args.get("code", "")))
        if policy == TABLE:
            g.viewer = require_read(str(args.get("code", "")))
    elif policy == TABLES:
        codes = parse_codes(request.args.get("codes", ""))
        charge(len(codes))  # one token per code looked up
        for code in codes:
            look_up(code)
            require_read(code)
    elif policy == SEAT:
        v = viewer(str(args.get("code", "")))
        if v.seat is None:
            raise AppError(
                "bad_token", "Send your seat's token: Authorization: Bearer ...", status=401
            )
        g.viewer = v
    elif policy == OVERLAY:
        code = str(args.get("code", ""))
        charge(1, request_budget(code))
        if not look_up(code) or not services().tables.snapshot(code.upper()).state.overlay:
            raise AppError("overlay_off", "This table is not shown on the overlay.", status=404)
    elif policy == STAFF and endpoint != "staff.login":
        if current_staff() is None:
            raise AppError("not_logged_in", "Log in as a judge or organiser.", status=401)


# -- open sockets and what let them in ---------------------------------------------------------
# Each app's `Grants` (`grants.py`) is `services().grants`, stopped with the app's services.


def session_grant(token: str | None) -> Grant | None:
    """The grant of a staff login cookie's token."""
    if not token:
        return None
    return ("staff", hash_token(token))


def seat_grant(token_hash: str) -> Grant:
    """The grant of a seat token (by its stored hash)."""
    return ("seat", token_hash)


def request_grant(actor: Actor | None, token: str | None = None) -> Grant | None:
    """What let this request's socket in: the staff cookie's session or the seat's token."""
    if actor is None:
        return None
    if actor.role in ("judge", "organiser"):
        return session_grant(request.cookies.get(COOKIE))
    if actor.role == "seat" and token:
        return seat_grant(hash_token(token))
    return None


def end_seat(token_hash: str | None) -> int:
    """A seat's token stopped working (released, moved): close its sockets here."""
    return services().grants.revoke(seat_grant(token_hash)) if token_hash else 0


def end_session(token: str | None) -> int:
    """A staff session ended (logout): close its sockets in this process; how many."""
    grant = session_grant(token)
    return services().grants.revoke(grant) if grant else 0


def _valid_grants(found: Services) -> Callable[[Iterable[Grant]], set[Grant]]:
    """Which of the grants still stand: a staff login not ended nor expired, a seat token still
    the seat's (the tournament's and the tables' services say)."""

    def check(grants: Iterable[Grant]) -> set[Grant]:
        grants = list(grants)
        staff = {g[1]: g for g in grants if g[0] == "staff"}
        seats = {g[1]: g for g in grants if g[0] == "seat"}
        valid: set[Grant] = set()
        if staff:
            live = found.tournament.live_sessions(list(staff), found.clock())
            valid |= {staff[h] for h in live}
        if seats:
            valid |= {seats[h] for h in found.tables.held_tokens(list(seats))}
        return valid

    return check


def init_app(app: Flask, found: Services) -> None:
    """Run `decide` before every request's view; sweep ended staff sessions' sockets."""
    app.before_request(decide)
    found.grants.check = _valid_grants(found)
