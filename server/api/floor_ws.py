"""The judges' floor websocket, `/ws/floor/<event_id>`: every table of an event, live.

One feed per event is shared by all of that event's floor sockets in this process. The feed
listens to the hub for each of the event's tables and only marks a table dirty; every
`FLOOR_INTERVAL_MS` (500 ms) it rebuilds the summaries of the dirty tables (`projections.floor`)
from the store's cached state and hands the changed ones to each socket, which keeps only the
latest summary per table until it sends. So however busy a table is, a judge's screen gets at
most ~2 updates of it a second, and 500 busy tables cost one summary each per interval.
"""

from __future__ import annotations

import json
import logging
import threading
import time
from collections.abc import Callable
from typing import Any

from flask import Blueprint, Flask, current_app, request

from server.api.context import Services, services
from server.core.errors import error_body
from server.projections.floor import summarise
from server.rules.view import calls_view, own_disputes, people_view, shared_view
from server.runtime.stalls import span
from server.service.hub import Hub
from server.store import EventStore
from server.store.tournament import Staff, Tournament

from .access import session_grant
from .encoding import encode, encode_with, json_array
from .identity import COOKIE, current_staff, origin_allowed, tournament
from .keepalive import CLOSE_POLICY
from .session import GuardedServer, Session, websocket_route

log = logging.getLogger(__name__)

bp = Blueprint("floor_ws", __name__)

YIELD_EVERY = 25
CLOSE_FORBIDDEN = 4003


class Subscriber:
    """One floor socket's mailbox: the latest summary of each changed table, not yet sent.
    `wake` is called when the mailbox stops being empty (the socket's writer then sends)."""

    def __init__(self, wake: Callable[[], None] = lambda: None) -> None:
        self._lock = threading.Lock()
        self._pending: dict[str, str] = {}  # table code -> its summary, encoded
        self._full = False
        self._wake = wake

    def push(self, summaries: dict[str, str]) -> None:
        with self._lock:
            empty = not self._pending and not self._full
            self._pending.update(summaries)
        if empty:
            self._wake()

    def reload(self) -> None:
        """Ask for a full floor message (the event's tables changed: a new round)."""
        with self._lock:
            empty = not self._pending and not self._full
            self._full = True
        if empty:
            self._wake()

    def take(self) -> tuple[bool, list[str]]:
        with self._lock:
            full, items = self._full, list(self._pending.values())
            self._pending.clear()
            self._full = False
            return full, items


class Feed:
    """One event's tables as floor summaries, kept fresh from the hub."""

    def __init__(self, event_id: int, registry: FeedRegistry) -> None:
        self.event_id = event_id
        self.registry = registry
        self._lock = threading.Lock()
        self.codes: dict[str, int] = {}
        self.pairings: dict[str, dict[str, dict[str, str]]] = {}
        self.summaries: dict[str, dict[str, Any]] = {}
        self._phase_since: dict[str, tuple[str, int]] = {}
        self._dirty: dict[str, int] = {}  # table code -> the latest seq published
        self._subs: set[Subscriber] = set()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    # -- hub side ----------------------------------------------------------------------------

    def _on_publish(self, code: str, seq: int) -> None:
        with self._lock:
            self._dirty[code] = max(seq, self._dirty.get(code, 0))

    def _summarise(self, code: str, seq: int = 0) -> dict[str, Any] | None:
        try:
            snap = self.registry.store.fresh(code, seq)
        except Exception:
            log.exception("floor: cannot read table %s", code)
            return None
        # The summary reads no deck list, pick or ledger: the view without them.
        v = shared_view(snap.state) | people_view(snap.state, None, True)
        v["calls"] = calls_view(snap.state, None, True)  # judges read the calls' reasons
        v |= own_disputes(snap.state, None, True)  # and the rejections' reasons
        now = self.registry.clock()
        seen = self._phase_since.get(code)
        if seen is None or seen[0] != v["phase"]:
            seen = (v["phase"], now)
            self._phase_since[code] = seen
        return summarise(
            v,
            number=self.codes.get(code),
            seq=snap.seq,
            phase_since_ms=seen[1],
            pairing=self.pairings.get(code),
            no_show_ms=self.registry.no_show_ms,
        )

    def load(self) -> None:
        """(Re)read the event's tables and subscribe to each."""
        codes = self.registry.tournament.codes(self.event_id)
        self.pairings = self.registry.tournament.pairings(self.event_id)
        hub = self.registry.hub
        for code in set(self.codes) - set(codes):
            hub.unsubscribe(code, self._on_publish)
        for code in set(codes) - set(self.codes):
            hub.subscribe(code, self._on_publish)
        self.codes = codes
        fresh = {}
        for code in codes:
            s = self._summarise(code)
            if s is not None:
                fresh[code] = s
        self.summaries = fresh

    def flush(self) -> int:
        """Rebuild the dirty tables' summaries; hand the changed ones to every socket."""
        with self._lock:
            dirty, self._dirty = self._dirty, {}
        changed: dict[str, str] = {}
        for n, (code, seq) in enumerate(dirty.items(), start=1):
            if n % YIELD_EVERY == 0:
                # Let the sockets run between slices: a flush of a few hundred busy tables
                # would otherwise hold a gevent worker for tens of milliseconds at a time.
                time.sleep(0)
            if code not in self.codes:
                continue
            s = self._summarise(code, seq)
            if s is None:
                continue
            old = self.summaries.get(code)
            if old is None or old["seq"] != s["seq"]:
                self.summaries[code] = s
                # Encoded once here, not once per floor socket.
                changed[code] = encode(s)
        if changed:
            with self._lock:
                subs = list(self._subs)
            for sub in subs:
                sub.push(changed)
        return len(changed)

    def _run(self) -> None:
        while not self._stop.wait(self.registry.interval):
            try:
                with span("floor flush"):
                    self.flush()
            except Exception:
                log.exception("floor feed of event %s failed", self.event_id)

    # -- socket side --------------------------------------------------------------------------

    def attach(self, sub: Subscriber) -> None:
        with self._lock:
            first = not self._subs
            self._subs.add(sub)
        if first:
            self.load()
            self._stop.clear()
            self._thread = threading.Thread(
                target=self._run, name=f"floor-{self.event_id}", daemon=True
            )
            self._thread.start()

    def detach(self, sub: Subscriber) -> bool:
        """Remove a socket; True when it was the last one (the feed then stops)."""
        with self._lock:
            self._subs.discard(sub)
            last = not self._subs
        if last:
            self._stop.set()
            for code in self.codes:
                self.registry.hub.unsubscribe(code, self._on_publish)
            self.codes = {}
        return last

    def reset(self) -> None:
        """The event's tables changed (pairings, a new round): reload, send everything."""
        with self._lock:
            if not self._subs:
                return
            subs = list(self._subs)
        self.load()
        for sub in subs:
            sub.reload()

    def tables(self) -> list[dict[str, Any]]:
        return sorted(self.summaries.values(), key=lambda s: s["number"] or 0)


class FeedRegistry:
    """The feeds of one app, by event id."""

    def __init__(
        self,
        tournament: Tournament,
        store: EventStore,
        hub: Hub,
        clock: Callable[[], int],
        interval_ms: int,
    ) -> None:
        self.tournament, self.store, self.hub, self.clock = tournament, store, hub, clock
        self.interval = interval_ms / 1000
        self.no_show_ms: int | None = None
        self._feeds: dict[int, Feed] = {}
        self._lock = threading.Lock()

    def attach(self, event_id: int, sub: Subscriber) -> Feed:
        with self._lock:
            feed = self._feeds.get(event_id)
            if feed is None:
                feed = self._feeds[event_id] = Feed(event_id, self)
        feed.attach(sub)
        return feed

    def detach(self, feed: Feed, sub: Subscriber) -> None:
        with self._lock:
            if feed.detach(sub) and self._feeds.get(feed.event_id) is feed:
                del self._feeds[feed.event_id]

    def reset(self, event_id: int) -> None:
        with self._lock:
            feed = self._feeds.get(event_id)
        if feed is not None:
            feed.reset()


class FloorSession(Session):
    """A judge's floor socket: the event's tables when it opens, the changed ones after.

    The feed hands summaries to the `Subscriber` and wakes the writer, which sends what
    gathered since its last write as one message."""

    name = "floor"

    def __init__(
        self,
        ws: GuardedServer,
        found: Services,
        config: dict[str, Any],
        event_id: int,
        staff: Staff | None,
        role: str,
    ) -> None:
        super().__init__(ws, config, found.pinger)
        self.found = found
        self.role = role
        self.tournament = tournament()  # the writer runs outside the request's app context
        self.event_id = event_id
        self.staff = staff
        self.registry: FeedRegistry = current_app.extensions["duel_table_floor"]
        self.sub = Subscriber(self._wake)
        self.feed: Feed | None = None

    def _wake(self) -> None:
        self.queue("tables")

    def started(self) -> None:
        self.feed = self.registry.attach(self.event_id, self.sub)
        self.queue("full")

    def finish(self) -> None:
        if self.feed is not None:
            self.registry.detach(self.feed, self.sub)

    def write(self, kind: str, payload: Any) -> None:
        reload, items = self.sub.take()
        if kind == "full" or reload:
            self._full()
        elif items:
            message = {"type": "tables", "now_ms": self.found.clock()}
            self.ws.send(encode_with(message, tables=json_array(items)))

    def _full(self) -> None:
        assert self.feed is not None
        ev = self.tournament.event(self.event_id)
        rnd = self.tournament.current_round(self.event_id)
        message = {
            "type": "floor",
            "event": {
                "id": ev.id,
                "name": ev.name,
                "round": rnd.number,
                # Started and not ended: a judge may re-pair it (docs/tournament.md).
                "playing": rnd.started_ms is not None and rnd.ended_ms is None,
            },
            "role": self.role,
            "user": self.staff.username if self.staff else "",
            "now_ms": self.found.clock(),
            "tables": self.feed.tables(),
        }
        self.ws.send(encode(message))

    def revoke(self) -> None:
        """The login that opened this socket ended (a logout, an expired session)."""
        self.alive = False
        self.send({"type": "error", "error": error_body("revoked", "Your access has ended.")})
        self.close(CLOSE_FORBIDDEN, "access revoked")

    def handle(self, raw: str | bytes) -> bool:
        try:
            message = json.loads(raw)
        except (ValueError, UnicodeDecodeError, RecursionError):
            return True
        if not isinstance(message, dict):
            return True
        t = message.get("t")
        if message.get("type") == "ping" and isinstance(t, int | float):
            self.send({"type": "pong", "t": t, "now_ms": self.found.clock()})
        return True


def _send(ws: Any, message: dict[str, Any]) -> None:
    ws.send(encode(message))


@websocket_route(bp, "/ws/floor/<int:event_id>")
def floor_socket(ws: GuardedServer, event_id: int) -> None:
    """A judge's or organiser's floor view of one event."""
    found = services()
    config = current_app.config
    if not origin_allowed(request.headers.get("Origin"), request.host, config["ALLOWED_ORIGINS"]):
        _send(ws, {"type": "error", "error": error_body("bad_origin", "Origin refused.")})
        ws.close(reason=CLOSE_POLICY, message="origin not allowed")
        return
    staff = current_staff()
    role = tournament().role(staff, event_id)
    if role is None:
        code = "not_logged_in" if staff is None else "forbidden"
        _send(ws, {"type": "error", "error": error_body(code)})
        ws.close(reason=CLOSE_FORBIDDEN, message=code)
        return
    session = FloorSession(ws, found, config, event_id, staff, role)
    grant = session_grant(request.cookies.get(COOKIE))  # a logout or expiry closes the socket
    forget = found.grants.add(grant, session.revoke) if grant else (lambda: None)
    try:
        session.run()
    finally:
        forget()


def init_app(app: Flask) -> None:
    """Bind the floor socket to `app` (after `staff.init_app`)."""
    found: Services = app.extensions["duel_table"]
    app.extensions["duel_table_floor"] = FeedRegistry(
        app.extensions["duel_table_tournament"],
        found.store,
        found.hub,
        found.clock,
        app.config.get("FLOOR_INTERVAL_MS", 500),
    )
    # A paired seat still empty this long after the round's start is a no-show (tardiness).
    app.extensions["duel_table_floor"].no_show_ms = app.config.get("NO_SHOW_MINUTES", 5) * 60_000
    app.register_blueprint(bp)
