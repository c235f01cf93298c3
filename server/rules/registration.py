"""Deck lists at the table (R1.6, R2.1-R2.7, R6.8): the ban list in force, registering a list
card by card, and side decking by card when a list is registered.

A registered list also sets the deck's counts, so everything that works on counts (the
opponent's confirmation, R6.2; the after-duel check, R7.5) works the same for both ways of
registering a deck."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from .args import Lines, Text, spec
from .base import (
    JUDGES,
    SEAT,
    SYSTEM,
    Event,
    RuleError,
    SheetLine,
    Tx,
    Words,
    command,
    handler,
    require,
    row,
)
from .cardfiles import is_passcode
from .decklist import PARTS, BanList, DeckList, check, describe, exchange, spelling
from .state import BETWEEN, REGISTRATION, Counts, Deck, TableState, put
from .twokey import alone

MAX_TEXT = 8000
MAX_BANLIST = 2000


def decks_confirmed(s: TableState) -> bool:
    """Both seats' decks declared (or registered) and confirmed by the opponent."""
    return all(d.registered and d.confirmed for d in s.decks.values())


def open_registration(tx: Tx, message: str) -> None:
    """Declarations belong before the first duel (R2.8); a duel-loss penalty before it leaves
    them still open between duels, until both are confirmed."""
    s = tx.state
    late = s.phase == BETWEEN and not decks_confirmed(s)
    require(s.phase == REGISTRATION or late, "wrong_phase", message, phase=s.phase)


def round_started(s: TableState) -> bool:
    """An event table's round has started (its clock was started by staff); a casual table
    has no round to wait for."""
    return not s.ruleset.staff_start or s.clock.started_ms is not None


def wait_for_round(tx: Tx) -> None:
    """At an event table, decks are registered before the round, but rock-paper-scissors and
    the duel wait for the round's start (the organiser starts every table's clock at once)."""
    require(
        round_started(tx.state),
        "round_not_started",
        "The round has not started yet: register your deck, then wait for the round to start.",
    )


MAX_LIST_NAME = 80
MOVES = ("main_in", "main_out", "extra_in", "extra_out")


def counts_of(deck: DeckList) -> Counts:
    return Counts(**deck.counts())


# --- the ban list in force (R2.5) ---------------------------------------------------------


@command(
    "banlist.set",
    SYSTEM | JUDGES,
    spec(name=Text(80, default="")),
    {"name": ""},
    pre=("banlist.entries",),
)
@row(
    "J, X",
    'J: `{"name": "2026-10"}` (the server adds the stored entries); X: `{"name", "entries": '
    "[[card, status], ...]}`",
    "the ban list in force (R2.5), only before any deck list is registered "
    '(`lists_registered`); `""`: none',
)
def set_banlist(tx: Tx, args: Mapping[str, Any]) -> None:
    """Put a ban list in force at the table (an empty name: none), before any deck list is
    registered. Seats never send entries: the server looks a list up by name and sends it."""
    require(
        not any(d.cards for d in tx.state.decks.values()),
        "lists_registered",
        "R2.5: the ban list is set before any deck list is registered.",
    )
    name = args.get("name") or ""
    require(
        isinstance(name, str) and len(name) <= MAX_LIST_NAME,
        "invalid",
        f"A ban list's name has at most {MAX_LIST_NAME} characters.",
    )
    raw = args.get("entries") or []
    require(
        isinstance(raw, list | tuple) and len(raw) <= MAX_BANLIST,
        "invalid",
        f"A ban list has at most {MAX_BANLIST} entries.",
    )
    entries: list[list[str]] = []
    for item in raw:
        require(
            isinstance(item, list | tuple)
            and len(item) == 2
            and all(isinstance(x, str) for x in item),
            "invalid",
            "Each ban-list entry is [card name, status].",
        )
        entries.append([str(item[0]).strip(), str(item[1]).strip()])
    require(bool(name) or not entries, "invalid", "A ban list needs a name.")
    BanList.build(name, [(c, st) for c, st in entries])  # refuses an unknown status
    current = tx.state.banlist
    if current is None and not name:
        raise RuleError("already_done", "No ban list is in force.")
    tx.emit("banlist.set", name=name, entries=entries)


@handler(
    "banlist.set",
    {"name": "str", "entries": "list"},
    words=Words(params={"n": ("count", "entries")}),
)
def _banlist_set(s: TableState, e: Event) -> TableState:
    name = str(e.data.get("name") or "")
    if not name:
        return s.evolve(banlist=None)
    entries = [(str(c), str(st)) for c, st in e.data.get("entries") or []]
    return s.evolve(banlist=BanList.build(name, entries))


# --- registering a deck list (R1.6, R2.1-R2.5) --------------------------------------------


@command(
    "deck.register",
    SEAT,
    spec(text=Lines(8000, required=True)),
    {"text": "1 Kuriboh"},
    pre=("event.banlist", "event.deck", "cards.names"),
)
@row(
    "S",
    '`{"text": "<pasted list, a .ydk file\'s text or a ydke:// link, at most 8000 characters>"}`',
    "register a deck list card by card (R1.6): checked against the table's ban list (with "
    "card names loaded, a card is one card under every language's name and its passcode); any "
    "problem refuses with `deck_illegal`, `details.problems` naming every problem with its "
    "rule id (as the check endpoint); the list's counts become the declaration the opponent "
    "confirms",
)
def register(tx: Tx, args: Mapping[str, Any]) -> None:
    """Register the seat's deck list: every problem is named with its rule id, or the list
    becomes the match's deck (its counts are what the opponent confirms, R6.2)."""
    seat = tx.seat
    open_registration(tx, "Deck lists are registered before the first duel (R2.8).")
    text = args.get("text")
    require(isinstance(text, str), "invalid", "Paste the deck list as text.")
    assert isinstance(text, str)
    require(len(text) <= MAX_TEXT, "invalid", f"A deck list has at most {MAX_TEXT} characters.")
    deck, found = check(text, tx.state.banlist, card_names(args.get("names")))
    labels = card_names(args.get("labels"), keys=True)
    for problem in found:
        if problem.get("card") in labels:  # a passcode's name in the refusal's words
            problem["message"] = describe({**problem, "card": labels[str(problem["card"])]})
    if found:
        raise RuleError(
            "deck_illegal",
            " ".join(str(p["message"]) for p in found),
            problems=found,
        )
    tx.emit("deck.registered", seat=seat, cards=deck.to_dict(), counts=deck.counts())


@handler(
    "deck.registered",
    {"seat": "seat", "counts": "object", "cards": "object"},
    secret=("cards",),
    sheet=SheetLine(step="deck_counts"),
)
def _registered(s: TableState, e: Event) -> TableState:
    cards = DeckList.from_dict(e.data["cards"])
    counts = counts_of(cards)
    seat = e.data["seat"]
    deck = Deck(
        registered=counts,
        current=counts,
        cards=cards,
        current_cards=cards,
        by=seat,
        yes=alone(seat),  # the opponent confirms it like declared counts (R6.2)
    )
    return s.evolve(decks=put(s.decks, seat, deck))


def card_names(raw: Any, keys: bool = False) -> dict[str, str]:
    """The loaded card names the edge adds: folded name or passcode -> passcode key (`names`),
    or with `keys`, passcode -> name (`labels`); anything else is no names at all (a seat's own
    never gets this far: the edge replaces them)."""
    if not isinstance(raw, Mapping):
        return {}
    return {
        k: v
        for k, v in raw.items()
        if isinstance(k, str)
        and isinstance(v, str)
        and is_passcode(k if keys else v)
        and len(k) <= 200
        and len(v) <= 200
    }


# --- side decking by card (R6.8, R2.6) ----------------------------------------------------


def by_card(args: Mapping[str, Any]) -> bool:
    """Whether a side.exchange names cards (rather than counts)."""
    return any(k in args for k in MOVES)


def exchange_by_card(tx: Tx, seat: str, args: Mapping[str, Any]) -> None:
    """Move named cards between the side deck and the main or extra deck: only cards of the
    registered list, and each deck keeps its count (decklist.exchange)."""
    deck = tx.state.decks[seat]
    require(
        deck.cards is not None and deck.current_cards is not None,
        "no_list",
        "No deck list is registered: give the numbers of cards in and out.",
    )
    assert deck.cards is not None and deck.current_cards is not None
    moves: dict[str, dict[str, int]] = {}
    for key in MOVES:
        raw = args.get(key) or {}
        require(isinstance(raw, Mapping), "invalid", "Give {card name: copies}.", move=key)
        named: dict[str, int] = {}
        for card, n in raw.items():
            require(
                isinstance(card, str)
                and bool(card.strip())
                and isinstance(n, int)
                and not isinstance(n, bool)
                and 1 <= n <= 60,
                "invalid_count",
                "Copies are whole numbers from 1 to 60.",
                move=key,
            )
            name = spelling(deck.cards, card)
            named[name] = named.get(name, 0) + n
        moves[key] = named
    require(
        any(moves[k] for k in MOVES),
        "invalid",
        "The exchange moves no card.",
    )
    new = exchange(deck.current_cards, deck.cards, moves)
    counts = {
        part: {
            "in": sum(moves[f"{part}_in"].values()),
            "out": sum(moves[f"{part}_out"].values()),
        }
        for part in ("main", "extra")
    }
    tx.emit(
        "side.exchanged",
        seat=seat,
        main=counts["main"],
        extra=counts["extra"],
        cards={k: dict(sorted(v.items())) for k, v in moves.items() if v},
        current=new.to_dict(),
    )


def after_exchange(s: TableState, e: Event) -> TableState:
    """A by-card exchange's new current list (a count-only one changes nothing)."""
    current = e.data.get("current")
    if not current:
        return s
    seat = e.data["seat"]
    cards = DeckList.from_dict(current)
    return s.evolve(decks=put(s.decks, seat, replace(s.decks[seat], current_cards=cards)))


def revert(deck: Deck) -> Deck:
    """A deck as registered, at the start of a match (R2.7)."""
    return Deck(
        registered=deck.registered,
        by=deck.by,
        yes=deck.yes,
        current=deck.registered,
        cards=deck.cards,
        current_cards=deck.cards,
    )


def list_view(deck: Deck) -> dict[str, Any]:
    """A seat's registered and current lists, for its own phone and for judges."""
    return {
        "registered": deck.cards.to_dict() if deck.cards else None,
        "current": deck.current_cards.to_dict() if deck.current_cards else None,
    }


__all__ = ["PARTS", "by_card", "exchange_by_card", "list_view", "revert"]
