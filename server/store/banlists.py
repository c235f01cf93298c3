"""Ban lists (R2.5) an organiser loads: stored by name, optionally for one event.

A list is read from CSV (`card,status` per line), JSON or the community's `lflist.conf` (one of
its lists, chosen by its header; entries by passcode, see docs/banlists.md); statuses may be
written in English, Japanese or Chinese. A table holds its own copy of the entries (the
`banlist.set` event in its log), so changing a stored list never changes a match under way.
"""

from __future__ import annotations

import csv
import io
import json
from typing import Any

from peewee import BigIntegerField, CharField, IntegerField

from server.core.errors import DomainError, NotFound
from server.rules import RuleError
from server.rules.cardfiles import is_lflist, pick_lflist
from server.rules.decklist import BanList, fold

from .models import BaseModel, JSONField, db

MAX_ENTRIES = 2000
MAX_NAME = 80
MAX_FILE = 500_000
STATUS_WORDS = {
    "forbidden": "forbidden",
    "banned": "forbidden",
    "0": "forbidden",
    "禁止": "forbidden",
    "禁止カード": "forbidden",
    "禁卡": "forbidden",
    "limited": "limited",
    "1": "limited",
    "制限": "limited",
    "制限カード": "limited",
    "限制": "limited",
    "限制卡": "limited",
    "semi_limited": "semi_limited",
    "semi-limited": "semi_limited",
    "semi limited": "semi_limited",
    "semilimited": "semi_limited",
    "2": "semi_limited",
    "準制限": "semi_limited",
    "準制限カード": "semi_limited",
    "準限制": "semi_limited",
    "准限制": "semi_limited",
}


class BanListRow(BaseModel):
    """A loaded ban list: its unique name, its entries [[card, status], ...], its event."""

    name = CharField(max_length=MAX_NAME, unique=True)
    entries = JSONField()
    event_id = IntegerField(null=True, index=True)
    created_ms = BigIntegerField()

    class Meta:
        table_name = "banlist"


def status_of(word: str, line: int) -> str:
    """forbidden, limited or semi_limited from any of the accepted spellings."""
    key = fold(word).replace("_", " ").strip()
    found = STATUS_WORDS.get(key) or STATUS_WORDS.get(key.replace(" ", "_"))
    if found is None:
        raise DomainError("invalid", f"Line {line}: unknown status {word!r}.", {"line": line})
    return found


def parse_file(text: str, filename: str = "", list_name: str = "") -> list[tuple[str, str]]:
    """The entries of a CSV, JSON or lflist.conf ban list; errors name their line (CSV,
    lflist.conf) or entry (JSON)."""
    return read(text, filename, list_name)[0]


def read(
    text: str, filename: str = "", list_name: str = ""
) -> tuple[list[tuple[str, str]], dict[str, str]]:
    """A ban list's entries and the card names its file gives by passcode (an lflist.conf's
    comments; none for CSV and JSON). `list_name` picks an lflist.conf's list by its header
    (none: the file's only list)."""
    if len(text) > MAX_FILE:
        raise DomainError("invalid", "A ban-list file is at most 500 kB.")
    stripped = text.lstrip("\ufeff").strip()
    names: dict[str, str] = {}
    if filename.lower().endswith(".conf") or is_lflist(stripped):
        try:
            chosen = pick_lflist(stripped, list_name)
        except RuleError as exc:
            raise DomainError("invalid", exc.message, dict(exc.details)) from None
        entries, names = chosen.ban_entries(), dict(chosen.names)
    elif filename.lower().endswith(".json") or stripped.startswith(("{", "[")):
        entries = _parse_json(stripped)
    else:
        entries = _parse_csv(stripped)
    if not entries:
        raise DomainError("invalid", "The ban list has no entries.")
    if len(entries) > MAX_ENTRIES:
        raise DomainError("invalid", f"A ban list has at most {MAX_ENTRIES} entries.")
    try:
        BanList.build("check", entries)
    except RuleError as exc:
        raise DomainError("invalid", exc.message, dict(exc.details)) from None
    return entries, names


def _parse_csv(text: str) -> list[tuple[str, str]]:
    sample = text[:2000]
    delimiter = "\t" if "\t" in sample else (";" if sample.count(";") > sample.count(",") else ",")
    entries: list[tuple[str, str]] = []
    try:
        rows = list(csv.reader(io.StringIO(text), delimiter=delimiter))
    except csv.Error as exc:  # a field over the csv module's limit (131,072 characters)
        raise DomainError("invalid", f"Not a ban-list CSV: {exc}.") from None
    for lineno, row in enumerate(rows, start=1):
        cells = [c.strip() for c in row]
        if not any(cells) or cells[0].startswith("#"):
            continue
        if lineno == 1 and fold(cells[0]) in ("card", "name", "card name"):
            continue  # a header
        if len(cells) < 2 or not cells[0] or not cells[1]:
            raise DomainError("invalid", f"Line {lineno}: give card,status.", {"line": lineno})
        if len(cells[0]) > 80:
            raise DomainError("invalid", f"Line {lineno}: a card name is at most 80 characters.")
        entries.append((cells[0], status_of(cells[1], lineno)))
    return entries


def _parse_json(text: str) -> list[tuple[str, str]]:
    try:
        data: Any = json.loads(text)
    except ValueError as exc:
        raise DomainError("invalid", f"Not valid JSON: {exc}.") from None
    except RecursionError:  # thousands of nested brackets
        raise DomainError("invalid", "Not valid JSON: nested too deeply.") from None
    if isinstance(data, dict) and "entries" in data:
        data = data["entries"]
    entries: list[tuple[str, str]] = []
    if isinstance(data, dict):  # {"forbidden": [...], "limited": [...], "semi_limited": [...]}
        for word, cards in data.items():
            if word in ("name", "event"):
                continue
            status = status_of(str(word), 0)
            if not isinstance(cards, list) or not all(isinstance(c, str) for c in cards):
                raise DomainError("invalid", f"{word}: give a list of card names.")
            entries += [(c.strip(), status) for c in cards]
    elif isinstance(data, list):
        for n, item in enumerate(data, start=1):
            if isinstance(item, dict):
                item = [item.get("card") or item.get("name"), item.get("status")]
            if not (
                isinstance(item, list) and len(item) == 2 and all(isinstance(x, str) for x in item)
            ):
                raise DomainError("invalid", f"Entry {n}: give [card, status].", {"entry": n})
            entries.append((item[0].strip(), status_of(item[1], n)))
    else:
        raise DomainError("invalid", "A JSON ban list is an object or a list.")
    return entries


def save(name: str, entries: list[tuple[str, str]], event_id: int | None, now_ms: int) -> int:
    """Store (or replace) the list called `name`; returns its number of entries."""
    name = name.strip()
    if not 0 < len(name) <= MAX_NAME:
        raise DomainError("invalid", f"A ban list's name has 1 to {MAX_NAME} characters.")
    data = [[c, s] for c, s in entries]
    with db.connection_context(), db.atomic():
        row = BanListRow.get_or_none(BanListRow.name == name)
        if row is None:
            BanListRow.create(name=name, entries=data, event_id=event_id, created_ms=now_ms)
        else:
            row.entries, row.event_id, row.created_ms = data, event_id, now_ms
            row.save()
    return len(data)


def entries_of(name: str) -> list[list[str]]:
    """The stored entries of the list `name`; 404 no_such_banlist."""
    with db.connection_context():
        row = BanListRow.get_or_none(BanListRow.name == name)
    if row is None:
        raise NotFound("no_such_banlist", "No ban list has this name.")
    return [list(e) for e in row.entries]


def of_event(event_id: int | None) -> tuple[str, list[list[str]]] | None:
    """The list most recently loaded for an event (name, entries), if any."""
    if event_id is None:
        return None
    with db.connection_context():
        row = (
            BanListRow.select()
            .where(BanListRow.event_id == event_id)
            .order_by(BanListRow.created_ms.desc(), BanListRow.id.desc())
            .first()
        )
    return (row.name, [list(e) for e in row.entries]) if row else None


def listing() -> list[dict[str, Any]]:
    """Every stored list: name, number of entries, event."""
    with db.connection_context():
        rows = BanListRow.select().order_by(BanListRow.name)
        return [{"name": r.name, "size": len(r.entries), "event_id": r.event_id} for r in rows]
