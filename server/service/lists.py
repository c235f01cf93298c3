"""Ban lists and card names, for the edge: the lists an organiser loads (`server/store/banlists.py`)
and the card names in each language (`server/store/cards.py`). The files' formats are read in
the store's parsers (and `server/rules/cardfiles.py`); nothing here decides a table's rules: a
list in force is put on a table through the table service (`banlist.set`)."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any

from server.store import banlists, cards

# The languages card names are loaded in, and a ban list's longest name (the bodies' limits).
CARD_LANGS = cards.LANGS
MAX_LIST_NAME = banlists.MAX_NAME


class Lists:
    """The ban lists and card names of one database."""

    # -- ban lists ------------------------------------------------------------------------------

    def read_banlist(
        self, text: str, filename: str = "", list_name: str = ""
    ) -> tuple[list[tuple[str, str]], dict[str, str]]:
        """A ban-list file's entries and the card names it gives by passcode."""
        return banlists.read(text, filename, list_name)

    def load_banlist(
        self,
        name: str,
        entries: list[tuple[str, str]],
        names: dict[str, str],
        event_id: int | None,
        now_ms: int,
    ) -> int:
        """Store the list `name` (for an event's tables when `event_id`) and the card names its
        file gave: how many entries."""
        count = banlists.save(name, entries, event_id, now_ms)
        cards.save_comments(names)
        return count

    def entries_of(self, name: str) -> list[list[str]]:
        """The stored entries of the list `name` (none: [])."""
        return banlists.entries_of(name)

    def of_event(self, event_id: int | None) -> tuple[str, list[list[str]]] | None:
        """The list an event's tables use: (its name, its entries), or None."""
        return banlists.of_event(event_id)

    def listing(self) -> list[dict[str, Any]]:
        """Every stored list, for the pickers."""
        return banlists.listing()

    # -- card names -----------------------------------------------------------------------------

    def read_cards(self, path: str | Path) -> list[tuple[int, int, str]]:
        """A card names file (a client's cards.cdb or a CSV), read whole."""
        return cards.read_file(path)

    def load_cards(self, lang: str, rows: Iterable[tuple[int, int, str]]) -> int:
        """Replace the card names of one language: how many cards."""
        return cards.save(lang, rows)

    def cards_loaded(self) -> bool:
        """Whether any card names are loaded."""
        return cards.loaded()

    def resolve(self, keys: Iterable[str]) -> dict[str, str]:
        """Each typed name or passcode's card, where one is known."""
        return cards.resolve(keys)

    def names_of(self, keys: Iterable[str], lang: str) -> dict[str, str]:
        """The cards' names in `lang` (falling back through the other languages)."""
        return cards.names_of(keys, lang)

    def suggest(self, text: str, lang: str) -> list[dict[str, str]]:
        """Card names in `lang` that match what was typed."""
        return cards.suggest(text, lang)
