"""What the edge does before the rules decide a command, when its declaration asks for it.

A declaration (server/rules/, beside its decider) names its pre-steps (`pre=("banlist.entries",)`);
each name is one function here, which may read the store or the event's data (which the pure
rules cannot) and returns the arguments the rules then decide on. tests/test_ws.py checks that
every name a declaration gives is one of these.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from server.rules import Actor, Declaration

from .context import services
from .decklists import ensure_event_banlist, labels_for, names_for
from .event_decks import bind_event_deck

# (table code, loaded arguments, sender, server time) -> the arguments the rules decide on.
PreStep = Callable[[str, dict[str, Any], Actor, int], dict[str, Any]]


def banlist_entries(code: str, args: dict[str, Any], actor: Actor, now_ms: int) -> dict[str, Any]:
    """A ban list named by a judge: the server adds its stored entries (seats and judges never
    send entries)."""
    name = str(args.get("name") or "")
    return {"name": name, "entries": services().lists.entries_of(name) if name else []}


def event_banlist(code: str, args: dict[str, Any], actor: Actor, now_ms: int) -> dict[str, Any]:
    """Before a deck list is registered at an event table, the event's list is put in force."""
    ensure_event_banlist(code, now_ms)
    return args


def card_names(code: str, args: dict[str, Any], actor: Actor, now_ms: int) -> dict[str, Any]:
    """A deck list's loaded card names (every language's name and passcode of a card -> its
    passcode), for its cards and the ban list in force, and its passcodes' English names for the
    refusal's words (`labels`); a seat's own `names` or `labels` never get here (the validator
    refuses them) and would be replaced."""
    banlist = services().tables.snapshot(code).state.banlist
    text = str(args.get("text") or "")
    names = names_for(text, banlist)
    return {**args, "names": names, "labels": labels_for(text, names)}


def event_deck(code: str, args: dict[str, Any], actor: Actor, now_ms: int) -> dict[str, Any]:
    """At an event table, the seat's player's deck list for the event binds (R2.6)."""
    return bind_event_deck(code, args, actor, now_ms)


PRESTEPS: dict[str, PreStep] = {
    "banlist.entries": banlist_entries,
    "event.banlist": event_banlist,
    "cards.names": card_names,
    "event.deck": event_deck,
}


def before(
    declared: Declaration, code: str, args: dict[str, Any], actor: Actor, now_ms: int
) -> dict[str, Any]:
    """Run the declared pre-steps of a command, in order; the arguments for the rules."""
    for name in declared.pre:
        args = PRESTEPS[name](code, args, actor, now_ms)
    return args
