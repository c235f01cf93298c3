"""One deck per player for the whole event (R2.6, R1.6): a list registered once for the event
binds every table the player sits at. Pure: the edge reads both lists through the table's own
parse (`decklist.check`) and asks here whether they are the same deck."""

from __future__ import annotations

from .base import RuleError
from .decklist import PARTS, DeckList, fold


def cards_of(deck: DeckList) -> dict[str, dict[str, int]]:
    """Each part's cards by their matching key (spelling, width and case do not matter)."""
    found: dict[str, dict[str, int]] = {}
    for part in PARTS:
        keyed: dict[str, int] = {}
        for card, n in deck.part(part).items():
            keyed[fold(card)] = keyed.get(fold(card), 0) + n
        found[part] = keyed
    return found


def same_list(a: DeckList, b: DeckList) -> bool:
    """Whether two lists are the same deck: the same cards, as often, in each part."""
    return cards_of(a) == cards_of(b)


def differences(registered: DeckList, given: DeckList) -> list[dict[str, object]]:
    """Every card whose copies differ between the event's list and another, by part (named as
    the event's list spells it, else as the other does)."""
    mine, theirs = cards_of(registered), cards_of(given)
    spelled = {fold(c): c for d in (given, registered) for p in PARTS for c in d.part(p)}
    found: list[dict[str, object]] = []
    for part in PARTS:
        for key in sorted(set(mine[part]) | set(theirs[part])):
            want, got = mine[part].get(key, 0), theirs[part].get(key, 0)
            if want != got:
                card = spelled.get(key, key)
                found.append({"part": part, "card": card, "registered": want, "given": got})
    return found


def require_event_list(registered: DeckList | None, given: DeckList) -> None:
    """A table takes only the player's list registered for the event (R2.6): another is
    refused with `deck_not_event_list`, naming what differs."""
    if registered is None or same_list(registered, given):
        return
    diff = differences(registered, given)
    raise RuleError(
        "deck_not_event_list",
        "R2.6: one deck per event: this is not the deck list registered for you at this event "
        f"({len(diff)} card(s) differ). Register the same list, or ask a judge.",
        differences=diff,
    )
