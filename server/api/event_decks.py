"""One deck list per player per event over HTTP (R2.6, R1.6), and its hold on every table.

- `POST /api/e/<slug>/decklist` (public, rate-limited): a player registers their list from the
  players' page with their player ID, once, before their first round starts.
- `GET` / `PUT /api/events/<id>/swiss/players/<n>/decklist`: the organiser and judges read a
  player's registered list; the organiser registers or replaces it (until their first round).
- `GET /api/tables/<code>/decklist/event` (a seat's token): the list registered for the seat's
  player, which the table's registration form offers.
- the pre-step `event.deck` of `deck.register` at an event table: a registered list is the only
  one the table takes (`deck_not_event_list`); the first list a table registers for a player
  with none becomes their list for the event.

Every list is read by the table's own parse, through `read_list` alone.
"""

from __future__ import annotations

from typing import Any, Protocol

from flask import Blueprint, Flask, Response, jsonify, request

from server.api.context import services
from server.core.errors import AppError, DomainError, NotFound
from server.rules import Actor, RuleError
from server.rules.decklist import BanList, DeckList
from server.rules.event_deck import differences, require_event_list, same_list
from server.rules.registration import decks_confirmed
from server.rules.state import BETWEEN, REGISTRATION
from server.service.swiss import SwissService

from . import decklists
from .decklists import seat_of_request
from .http import load_body
from .identity import check_request, require_role, tournament
from .ratelimit import rate_limit

bp = Blueprint("event_decks", __name__)
bp.before_request(check_request)


class Registered(Protocol):
    """A player registered at an event, as the Swiss service gives them (`player`)."""

    number: int
    name: str
    decklist: str


def swiss() -> SwissService:
    return services().swiss


def read_list(text: str, banlist: BanList | None) -> tuple[DeckList, list[dict[str, object]]]:
    """A deck list as the table reads it (`deck.register` and the check endpoint: pasted text, a
    `.ydk` file's text or a `ydke://` link, by passcode where card names are loaded): the cards
    and every problem. The one way an event's list is read."""
    deck, problems, _shown = decklists.read_list(text, banlist, "en")
    return deck, problems


def _event_banlist(event_id: int) -> BanList | None:
    loaded = services().lists.of_event(event_id)
    return BanList.build(loaded[0], [(c, s) for c, s in loaded[1]]) if loaded else None


def legal_list(text: str, event_id: int) -> DeckList:
    """The list's cards, or `deck_illegal` naming every problem (as at the table)."""
    deck, found = read_list(text, _event_banlist(event_id))
    if found:
        raise DomainError(
            "deck_illegal", " ".join(str(p["message"]) for p in found), {"problems": found}
        )
    return deck


def _listing(p: Registered) -> dict[str, Any]:
    deck = read_list(p.decklist, None)[0] if p.decklist else None
    return {
        "player": p.number,
        "name": p.name,
        "text": p.decklist or None,
        "cards": deck.to_dict() if deck else None,
        "counts": deck.counts() if deck else None,
    }


@bp.post("/api/e/<slug>/decklist")
def register_own(slug: str) -> tuple[Response, int]:
    """A player registers their deck list for the event from their phone (their player ID
    says who they are): once, before their first round starts."""
    rate_limit()
    body = load_body()
    ev = swiss().event_by_slug(slug)
    # Each try spends one of the address's few "miss" tokens, whatever it finds: the player ID
    # is what this route trusts, so it is guessed no faster here than at a table's join or the
    # players' search (docs/security.md).
    misses = services().misses
    if not misses.take(request.remote_addr or "?"):
        raise AppError("rate_limited", "Too many deck registrations; try again later.", status=429)
    player = swiss().player_by_id(ev.id, body["player_id"])
    if player is None:
        raise NotFound("no_such_player", "No player of this event has that player ID.")
    legal_list(body["text"], ev.id)
    swiss().set_decklist(ev.id, player.number, body["text"], "player", "player", services().clock())
    listing = _listing(swiss().player(ev.id, player.number))
    listing.pop("name", None)  # the phone knows whom it registered; a guess learns no name
    return jsonify(listing), 201


@bp.get("/api/events/<int:event_id>/swiss/players/<int:number>/decklist")
def staff_view(event_id: int, number: int) -> Response:
    """A player's registered list, for the event's organiser and judges."""
    require_role(event_id, "organiser", "judge")
    return jsonify(_listing(swiss().player(event_id, number)))


@bp.put("/api/events/<int:event_id>/swiss/players/<int:number>/decklist")
def organiser_sets(event_id: int, number: int) -> Response:
    """The organiser registers a player's list (the sheet handed in at the desk, R1.6), or
    replaces it before the player's first round starts."""
    staff = require_role(event_id, "organiser")
    body = load_body()
    legal_list(body["text"], event_id)
    swiss().set_decklist(
        event_id, number, body["text"], "organiser", staff.username, services().clock()
    )
    return jsonify(_listing(swiss().player(event_id, number)))


def _seat_player(code: str, seat: str | None) -> tuple[int, Registered] | None:
    """The event and registered player of a seat of an event table (from the pairing)."""
    if seat not in ("A", "B"):
        return None
    info = tournament().table_info(code)
    if info is None or not info.get("pairing"):
        return None
    pid = info["pairing"][seat]["player_id"]
    event_id = int(info["event"]["id"])
    found = swiss().player_by_id(event_id, pid) if pid else None
    return (event_id, found) if found is not None else None


@bp.get("/api/tables/<code>/decklist/event")
def seat_list(code: str) -> Response:
    """The list registered for this seat's player at the table's event (`text` null: none)."""
    rate_limit()
    code = code.upper()
    actor = seat_of_request(code)
    found = _seat_player(code, actor.seat)
    if found is None:
        return jsonify({"player": None, "text": None, "cards": None, "counts": None})
    return jsonify(_listing(found[1]))


def bind_event_deck(code: str, args: dict[str, Any], actor: Actor, now_ms: int) -> dict[str, Any]:
    """Before `deck.register` at an event table: the seat's player's list for the event is the
    only one taken (R2.6); a player with none gets this one, when the table will take it."""
    found = _seat_player(code, actor.seat)
    if found is None:
        return args
    event_id, player = found
    state = services().tables.snapshot(code).state
    given, problems = read_list(str(args.get("text") or ""), state.banlist)
    open_ = state.phase == REGISTRATION or (state.phase == BETWEEN and not decks_confirmed(state))
    again = False
    if player.decklist:
        registered = read_list(player.decklist, state.banlist)[0]
        if same_list(registered, given):
            return args
        # The table that gave the player their list may still correct it before its first
        # duel (R2.8): the list is the event's from that duel on.
        again = open_ and swiss().decklist_source(event_id, player.number) == ("table", code)
        if not again:
            require_event_list(registered, given)
    if not problems and open_:
        try:
            swiss().set_decklist(
                event_id, player.number, str(args["text"]), "table", code, now_ms, replace=again
            )
        except DomainError as exc:  # registered meanwhile: that one binds
            raise RuleError(exc.code, exc.message, **dict(exc.details or {})) from None
    return args


def event_lists(code: str, view: dict[str, Any]) -> dict[str, Any]:
    """For a judge's deck check: each seat's list registered for the event and whether the
    table's registered list is the same deck (what differs, when not)."""
    found: dict[str, Any] = {}
    for seat in ("A", "B"):
        mine = _seat_player(code, seat)
        if mine is None or not mine[1].decklist:
            found[seat] = None
            continue
        registered = read_list(mine[1].decklist, None)[0]
        at_table = ((view["decks"][seat].get("cards")) or {}).get("registered")
        same = diff = None
        if at_table:
            table_deck = DeckList.from_dict(at_table)
            same = same_list(registered, table_deck)
            diff = differences(registered, table_deck)
        found[seat] = {"cards": registered.to_dict(), "same": same, "differences": diff}
    return found


def init_app(app: Flask) -> None:
    """Register the routes."""
    app.register_blueprint(bp)
