"""The public projection of an event and its cache: what the players' page, the public
standings and the hall clock are served from (`server/api/event_page.py` says when it is built
and dropped), built from the tournament and Swiss services and the tables' logs.

What is public: the round, its tables and their players' names, each player's record, and the
standings only once the organiser publishes them. Never a player's ID: a player finds themselves
by name or by their ID (matched here, never sent back), and only their own phone shows it.
The hall clock's part (`hall_view`) has the round, its deadline, table numbers and counts, and
the organiser's message; never players' names, IDs, LP or calls.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from server.service.swiss import SwissService, part_of
from server.service.tournament import Tournament
from server.store.hall import message
from server.store.tournament import EventRecord

Built = tuple[
    dict[str, Any], dict[str, int], list[str], dict[str, Any], dict[str, Any], dict[str, Any]
]


@dataclass
class Entry:
    """One event's projection, its private lookup and the texts rendered from it."""

    data: dict[str, Any]
    ids: dict[str, int]  # a player's ID, folded -> their number (never sent)
    summary: dict[str, Any]  # the tournament's summary the public pages are rendered from
    hall: dict[str, Any]  # the hall clock's round and table counts (no names)
    parts: dict[str, Any] = field(default_factory=dict)  # each table's part it was built on
    built_s: float = 0.0  # when (time.monotonic)
    texts: dict[str, str] = field(default_factory=dict)


class EventCache:
    """The public projection of each event, rebuilt only when the event's data changed: a
    staff write to the event at once; a table's write only when it changed that table's part
    (its result, its judge's decision, a disqualification: `SwissService.part_now`), and then
    at most once every `min_seconds` (the views in between are served the one before). A
    table's LP, clock and calls cost a look at its state in memory, not a rebuild."""

    def __init__(
        self,
        build: Callable[[int], Built],
        part: Callable[[str, int], Any] | None = None,
        min_seconds: float = 0.0,
        clock: Callable[[], float] = time.monotonic,
    ):
        self._build = build
        self._part = part
        self.min_seconds = min_seconds
        self.clock = clock
        self._moved: dict[int, dict[str, int]] = {}  # per event: table code -> seq published
        self._dirty: set[int] = set()  # a table's part changed: rebuild once the wait is over
        self._entries: dict[int, Entry] = {}
        self._watched: dict[str, int] = {}  # table code (or "event:<id>") -> event id
        self._lock = threading.Lock()
        self._building: dict[int, threading.Lock] = {}
        self._changes: dict[int, int] = {}  # per event: how many changes were heard
        self.builds = 0  # how many projections were built (tests: a view does not build)
        self.hub: Any = None  # subscribed to for the tables' and the events' changes
        self.announce: Callable[[str], None] | None = None  # tells every process (the service)

    def _on_publish(self, code: str, seq: int) -> None:
        with self._lock:
            event_id = self._watched.get(code)
            if event_id is None:
                return
            if self._part is None or code.startswith("event:"):
                self._drop(event_id)
                return
            # A table's write: which tables moved is kept; a view looks at their parts.
            moved = self._moved.setdefault(event_id, {})
            moved[code] = max(seq, moved.get(code, 0))

    def _drop(self, event_id: int) -> None:
        """(Under the lock.) A projection being built while this change came is not kept."""
        self._entries.pop(event_id, None)
        self._moved.pop(event_id, None)
        self._dirty.discard(event_id)
        self._changes[event_id] = self._changes.get(event_id, 0) + 1

    def _current(self, event_id: int) -> Entry | None:
        """The event's projection when it may still be served: no table it was built on has
        another part since, or one has and it was built less than `min_seconds` ago."""
        with self._lock:
            entry = self._entries.get(event_id)
            if entry is None:
                return None
            moved = self._moved.pop(event_id, None)
        if moved and self._part is not None and event_id not in self._dirty:
            for code, seq in moved.items():
                if self._part(code, seq) != entry.parts.get(code):
                    with self._lock:
                        self._dirty.add(event_id)
                    break
        with self._lock:
            if event_id not in self._dirty:
                return entry
            if self.clock() - entry.built_s < self.min_seconds:
                return entry  # rebuilt once the wait is over: the one before meanwhile
            if self._building.get(event_id) is not None and self._building[event_id].locked():
                return entry  # another view rebuilds it: this one is served the one before
            return None

    def invalidate(self, event_id: int) -> None:
        """The event changed: drop its projection here and in every other process."""
        with self._lock:
            self._drop(event_id)
        if self.announce is not None:
            self.announce(f"event:{event_id}")

    def get(self, event_id: int) -> Entry:
        entry = self._current(event_id)
        if entry is not None:
            return entry
        with self._lock:
            gate = self._building.setdefault(event_id, threading.Lock())
        with gate:  # one build per event at a time; the others wait for it
            with self._lock:
                entry = self._entries.get(event_id)
                changes = self._changes.get(event_id, 0)
                if entry is not None and event_id not in self._dirty:
                    return entry  # built by the view this one waited for
            started = self.clock()
            data, ids, codes, summary, hall_data, parts = self._build(event_id)
            entry = Entry(data, ids, summary, hall_data, parts, started)
            with self._lock:
                self.builds += 1
                self._dirty.discard(event_id)
                for code in (*codes, f"event:{event_id}"):
                    if self._watched.get(code) != event_id and self.hub is not None:
                        self.hub.subscribe(code, self._on_publish)
                    self._watched[code] = event_id
                if self._changes.get(event_id, 0) == changes:  # else already out of date
                    self._entries[event_id] = entry
            return entry

    def text(self, event_id: int, key: str, render: Callable[[Entry], str]) -> str:
        """A text rendered from the event's projection, once per projection."""
        entry = self.get(event_id)
        found = entry.texts.get(key)
        if found is None:
            found = entry.texts[key] = render(entry)
        return found


def fold(text: str) -> str:
    return " ".join(text.casefold().split())


def project(swiss: SwissService, tournament: Tournament, event_id: int) -> Built:
    """The public projection of an event: (data, ID lookup, the codes that change it, the
    summary without player IDs, for the standings page, the hall clock's data)."""
    ev = tournament.event(event_id)
    summary = swiss.summary(event_id)
    rnd = tournament.current_round(event_id)
    tables = tournament.tables(event_id)
    match_ms = int(float(ev.ruleset["match_minutes"]) * 60_000)
    rounds = summary["rounds"]
    current = rounds[-1] if rounds and rounds[-1]["number"] == rnd.number else None
    records = {row["player"]: row for row in summary["standings"]}
    players = [
        {
            "number": p["number"],
            "name": p["name"],
            "dropped": p["dropped_after"] is not None,
            "record": records[p["number"]]["record"] if p["number"] in records else "0-0-0",
            "points": records[p["number"]]["points"] if p["number"] in records else 0,
        }
        for p in summary["players"]
    ]
    standings = None
    if summary["public"]:
        standings = [
            {k: v for k, v in row.items() if k != "player_id"} for row in summary["standings"]
        ]
    data = {
        "event": {"name": ev.name, "date": ev.date, "slug": ev.slug},
        "round": {
            "number": rnd.number,
            "stage": current["stage"] if current else None,
            "paired": current is not None,
            "started_ms": rnd.started_ms,
            "ended_ms": rnd.ended_ms,
            "match_ms": match_ms,
            "deadline_ms": rnd.started_ms + match_ms if rnd.started_ms is not None else None,
        },
        "tables": [
            {
                "table": t["table"],
                "a": t["a"]["player"],
                "b": t["b"]["player"],
                "result": t["result"],
            }
            for t in (current["tables"] if current else [])
        ],
        "bye": current["bye"]["player"] if current and current["bye"] else None,
        "players": players,
        "standings": standings,
        "champion": summary["champion"],
        "swiss_rounds": summary["swiss_rounds"],
        "swiss_played": summary["swiss_played"],
    }
    ids = {fold(p["player_id"]): p["number"] for p in summary["players"] if p["player_id"]}
    public = {
        **summary,
        "players": [],
        "standings": [
            {k: v for k, v in row.items() if k != "player_id"} for row in summary["standings"]
        ],
    }
    codes = [t["code"] for t in tables]
    parts = swiss.parts(codes)  # as the summary just read them
    return data, ids, codes, public, hall_view(tournament, ev, parts), parts


def hall_view(
    tournament: Tournament, ev: EventRecord, parts: dict[str, Any] | None = None
) -> dict[str, Any]:
    """The hall clock of the event's current round (part of the event's public projection,
    server/api/event_page.py), from the tables' parts (`swiss.TablePart`) where given, else
    from their states."""
    rnd = tournament.current_round(ev.id)
    match_ms = int(float(ev.ruleset["match_minutes"]) * 60_000)
    started = rnd.started_ms
    total, playing, extra, called = 0, 0, [], 0
    for table in tournament.in_play(ev.id):  # a top cut's unused tables are not counted
        total += 1
        if started is None:
            continue
        part = (parts or {}).get(table["code"])
        if part is None:
            part = part_of(tournament.store.snapshot(table["code"]).state)
        if part.over:
            continue
        playing += 1
        if part.called:
            called += 1
            if part.extra:  # finishing the turn, extra turns
                extra.append(table["number"])
    return {
        "event": {"name": ev.name},
        "round": rnd.number,
        "started_ms": started,
        "ended_ms": rnd.ended_ms,
        "match_ms": match_ms,
        "deadline_ms": started + match_ms if started is not None else None,
        "tables": {"total": total, "playing": playing, "time_called": called, "extra": extra},
        "message": message(ev.id),
    }
