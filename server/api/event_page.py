"""The players' event page and the public projection of an event, kept per event.

Every public view of an event (the players' page `/e/<slug>`, its data `/api/e/<slug>`, the
public standings `/e/<slug>/standings`, the hall clock's data `/api/hall/<slug>`) is served from
one projection per event, built once and
kept until the event's data changes: a table of its current round writes (the hub's publish of
that table, from any process), or a staff route changes the event (any successful write under
`/api/events/<id>/...`, published as `event:<id>` so every process hears it). A view never
rebuilds it; the rendered texts (the JSON, the standings page per language) are kept beside it.

What is public: the round, its tables and their players' names, each player's record, and the
standings only once the organiser publishes them. Never a player's ID: a player finds themselves
by name or by their ID (matched here, never sent back), and only their own phone shows it.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from flask import Blueprint, Flask, Response, current_app, jsonify, request

from server.api.context import services
from server.core.errors import AppError
from server.core.jsontext import compact_encoder
from server.store import hall
from server.store.swiss import SwissService
from server.store.tournament import Tournament

from .http import load_query, public_base_here, qr_svg
from .ratelimit import rate_limit

bp = Blueprint("event_page", __name__)

MAX_FOUND = 10
_encode = compact_encoder()


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
    return data, ids, codes, public, hall.hall_view(tournament, ev, parts), parts


def cache() -> EventCache:
    return current_app.extensions["duel_table_event_cache"]


def _event_id(slug: str) -> int:
    swiss: SwissService = current_app.extensions["duel_table_swiss"]
    return int(swiss.event_by_slug(slug).id)


@bp.get("/api/e/<slug>")
def event_data(slug: str) -> Response:
    """The event's public projection (the players' page polls it; `version` tells a change)."""
    rate_limit()
    event_id = _event_id(slug)
    entry = cache().get(event_id)
    text = cache().text(event_id, "json", lambda e: _encode(e.data))
    response = Response(text, mimetype="application/json")
    response.headers["Cache-Control"] = "no-store"
    response.headers["X-Projection"] = str(id(entry))  # the same projection, view after view
    return response


@bp.get("/api/hall/<slug>")
def hall_clock(slug: str) -> Response:
    """The hall clock's data (public): round, deadline, table counts, the organiser's message,
    from the event's projection; `now_ms` is this answer's own."""
    rate_limit()  # a projector polls once a second; a flood from one address is refused
    event_id = _event_id(slug)
    entry = cache().get(event_id)
    # The players' page as a phone opens it (the hall shows it as text and a QR code).
    link = f"{public_base_here()[0]}/e/{slug}"
    response = jsonify({**entry.hall, "now_ms": services().clock(), "link": link})
    response.headers["Cache-Control"] = "no-store"
    response.headers["X-Projection"] = str(id(entry))
    return response


@bp.get("/api/e/<slug>/qr.svg")
def players_page_qr(slug: str) -> Response:
    """A QR code of the players' page at the address a phone opens (the hall shows it)."""
    rate_limit()
    _event_id(slug)  # 404 for an unknown event
    svg = qr_svg(f"{public_base_here()[0]}/e/{slug}", scale=10)
    response = Response(svg, mimetype="image/svg+xml")
    response.headers["Cache-Control"] = "no-store"
    return response


@bp.get("/api/e/<slug>/find")
def find(slug: str) -> Response:
    """Players matching a name (part of it) or exactly an ID: numbers and names only. A search
    that matches no name (an ID, or nobody) spends one of the address's "miss" tokens, the
    join's budget for wrong IDs, whether the ID is found or not, and is refused (429) past
    them whatever it would find: tried ID after ID, it told whose an ID was (a 3-digit ID in
    43 s), and with it a round's seat could be taken from a card's photo."""
    rate_limit()
    q = fold(load_query()["q"])
    entry = cache().get(_event_id(slug))
    by_name = {p["number"] for p in entry.data["players"] if len(q) >= 2 and q in fold(p["name"])}
    by_id = None
    if not by_name:
        misses = current_app.extensions.get("duel_table_misses")
        if misses is not None and not misses.take(request.remote_addr or "?"):
            raise AppError("rate_limited", "Too many searches that found no name.", status=429)
        by_id = entry.ids.get(q)
    found = [
        {"number": p["number"], "name": p["name"], "by_id": p["number"] == by_id}
        for p in entry.data["players"]
        if p["number"] == by_id or p["number"] in by_name
    ]
    return jsonify({"players": found[:MAX_FOUND]})


@bp.get("/e/<slug>")
def players_page(slug: str) -> Response:
    """The players' event page: find yourself, see where you sit this round."""
    from .web import _send

    rate_limit()
    _event_id(slug)  # 404 for an unknown event
    return _send("event.html")


def _after(response: Response) -> Response:
    """A staff write to an event (any 2xx under /api/events/<id>/) changes its projection."""
    if request.method in ("POST", "PATCH", "PUT", "DELETE") and response.status_code < 400:
        event_id = (request.view_args or {}).get("event_id")
        if isinstance(event_id, int):
            cache().invalidate(event_id)
    return response


def init_app(app: Flask) -> None:
    """After `swiss.init_app`: the cache over the tournament, invalidated by the hub."""
    swiss = app.extensions["duel_table_swiss"]
    tournament = app.extensions["duel_table_tournament"]
    found = EventCache(
        lambda event_id: project(swiss, tournament, event_id),
        part=swiss.part_now,
        min_seconds=app.config["PROJECTION_REBUILD_SECONDS"],
    )
    found.hub = app.extensions["duel_table"].hub
    # Through the table service, the one publisher: every process hears "event:<id>".
    found.announce = lambda key: app.extensions["duel_table"].tables.announce({key: 0})
    app.extensions["duel_table_event_cache"] = found
    app.after_request(_after)
    app.register_blueprint(bp)
