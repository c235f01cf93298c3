"""Deck lists and ban lists over HTTP, and the event's list put in force at its tables.

- `POST /api/tables/<code>/decklist/check` (a seat's token as `Authorization: Bearer ...`):
  the problems of a pasted list (or a `.ydk` file's text, or a `ydke://` link) against the
  table's ban list, for live feedback, with its cards' names in the reader's language; writes
  nothing.
- `GET /api/banlists`: the loaded lists a casual table may pick.
- `GET /api/cards/suggest?q=...` and `GET /api/cards/names?codes=...`: loaded card names, in
  the reader's language, for the deck-list box and for lists shown by passcode.
- `POST /api/tables/<code>/banlist` (a seat's token): a casual table picks a list by name (or
  none) before any deck list is registered; the server sends its entries as `banlist.set`.

`read_list` is the one reading of a deck list at the edge (the check above, and whatever else
takes a list): it adds the loaded card names (`server.store.cards`) that make a card one card
under every language's name and its passcode. Seats never send ban-list entries or card names:
the server looks them up. An event's tables get
the event's list (the organiser's upload sets it at once; a table opened later gets it before
its first deck list is registered).
"""

from __future__ import annotations

from flask import Blueprint, Flask, Response, jsonify, request

from server.api.context import services
from server.core.errors import AppError
from server.rules import Actor, RuleError
from server.rules.cardfiles import is_passcode
from server.rules.decklist import PARTS, BanList, DeckList, check, fold, parse
from server.service.lists import CARD_LANGS

from .http import load_body, load_query
from .identity import tournament
from .lang import request_lang
from .ratelimit import rate_limit

bp = Blueprint("decklists", __name__, url_prefix="/api")


def seat_of_request(code: str) -> Actor:
    """The seat whose token is in the Authorization header; 401 otherwise."""
    header = request.headers.get("Authorization", "")
    scheme, _, token = header.partition(" ")
    actor = None
    if scheme.lower() == "bearer" and token.strip():
        actor = services().tables.seat_actor(code, token.strip())
    if actor is None:
        raise AppError("bad_token", "Send your seat's token: Authorization: Bearer ...", status=401)
    return actor


def event_of(code: str) -> int | None:
    """The event of a table (None: a casual table)."""
    return tournament().table_event(code)


def event_banlist(code: str) -> tuple[str, list[list[str]]] | None:
    """The ban list of the table's event, if it is an event table and one is loaded."""
    return services().lists.of_event(event_of(code))


def _set(code: str, name: str, entries: list[list[str]], now_ms: int) -> int:
    """Append banlist.set as the server; publish; the new seq."""
    args = {"name": name, "entries": entries}
    return services().tables.system(code, "banlist.set", args, None, now_ms).seq


def ensure_event_banlist(code: str, now_ms: int) -> None:
    """Before a deck list is registered at an event table: the event's list is in force."""
    loaded = event_banlist(code)
    if loaded is None:
        return
    state = services().tables.snapshot(code).state
    in_force = state.banlist
    if in_force is not None and in_force.name == loaded[0]:
        return
    if any(d.cards for d in state.decks.values()):
        return  # too late to change (R2.5); the core keeps the list registered against
    try:
        _set(code, loaded[0], loaded[1], now_ms)
    except RuleError:
        pass


def set_event_banlist(codes: list[str], name: str, entries: list[list[str]], now_ms: int):
    """Put a list in force at each table; tables with lists registered refuse (by code)."""
    applied, refused = 0, {}
    for code in codes:
        try:
            _set(code, name, entries, now_ms)
            applied += 1
        except RuleError as exc:
            refused[code] = exc.code
    return applied, refused


def names_for(text: str, banlist: BanList | None) -> dict[str, str]:
    """The loaded card names a list needs (its cards' and the ban list's): folded name or
    passcode -> the card's passcode key. Empty while no names are loaded."""
    if not services().lists.cards_loaded():
        return {}
    keys: set[str] = set()
    try:
        deck = parse(text)
        keys |= {fold(c) for p in PARTS for c in deck.part(p)}
    except RuleError:
        pass  # check() names what cannot be read
    if banlist is not None:
        keys |= set(banlist.limits)
    return services().lists.resolve(keys)


def labels_for(text: str, names: dict[str, str]) -> dict[str, str]:
    """A list's passcodes -> their English names (else another loaded language's), for the
    words of a refusal (the rules' messages are English; the phones word the codes)."""
    try:
        deck = parse(text, None, names)
    except RuleError:
        return {}
    keys = [c for p in PARTS for c in deck.part(p) if is_passcode(c)]
    return services().lists.names_of(keys, "en") if keys else {}


def read_list(
    text: str, banlist: BanList | None, lang: str
) -> tuple[DeckList, list[dict[str, object]], dict[str, str]]:
    """A deck list as pasted text, a `.ydk` file's text or a `ydke://` link: its cards (by
    passcode where known), every problem (R1.6, R2.1-R2.5) and its passcodes' names in `lang`."""
    names = names_for(text, banlist)
    deck, problems = check(text, banlist, names)
    keys = [c for p in PARTS for c in deck.part(p) if is_passcode(c)]
    shown = services().lists.names_of(keys, lang) if keys else {}
    return deck, problems, shown


# -- routes --------------------------------------------------------------------------------------


@bp.post("/tables/<code>/decklist/check")
def check_list(code: str) -> Response:
    """The problems of a pasted list (R1.6, R2.1-R2.5), without writing anything."""
    rate_limit()
    code = code.upper()
    seat_of_request(code)
    body = load_body()
    state = services().tables.snapshot(code).state
    banlist = state.banlist
    if banlist is None and not any(d.cards for d in state.decks.values()):
        loaded = event_banlist(code)  # the list the table will get at registration
        if loaded:
            banlist = BanList.build(loaded[0], [(c, s) for c, s in loaded[1]])
    deck, problems, names = read_list(body["text"], banlist, request_lang())
    return jsonify(
        {
            "cards": deck.to_dict(),
            "counts": deck.counts(),
            "problems": problems,
            "banlist": banlist.name if banlist else None,
            "names": names,
        }
    )


@bp.get("/cards/suggest")
def suggest_cards() -> Response:
    """Loaded card names holding the typed text, in the reader's language (`?lang=`, else
    Accept-Language), else in another loaded one: the deck-list box's suggestions."""
    rate_limit()
    query = load_query()
    lang = request_lang()
    found = services().lists.suggest(query["q"], lang)
    for other in CARD_LANGS:
        if found or other == lang:
            continue
        found = services().lists.suggest(query["q"], other)
    return jsonify({"cards": found})


@bp.get("/cards/names")
def card_names() -> Response:
    """The names of passcodes (`?codes=89631139,46986414`) in the reader's language, where a
    loaded file names them: a registered list shown on a phone or a judge's screen."""
    rate_limit()
    codes = load_query()["codes"].split(",")
    return jsonify({"names": services().lists.names_of(codes, request_lang())})


@bp.get("/banlists")
def list_banlists() -> Response:
    """The loaded ban lists (names and sizes)."""
    rate_limit()
    return jsonify({"banlists": services().lists.listing()})


@bp.post("/tables/<code>/banlist")
def pick_banlist(code: str) -> Response:
    """A seat of a casual table picks a loaded list by name (empty: none)."""
    rate_limit()
    code = code.upper()
    seat_of_request(code)
    if event_of(code) is not None:
        raise AppError("event_table", "An event table uses its event's ban list.", status=409)
    name = load_body()["name"]
    entries = services().lists.entries_of(name) if name else []
    seq = _set(code, name, entries, services().clock())
    return jsonify({"name": name or None, "size": len(entries), "seq": seq})


def init_app(app: Flask) -> None:
    """Register the routes (the tables come from `server.store.migrations`)."""
    app.register_blueprint(bp)
