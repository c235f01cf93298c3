"""The floor's feeds: one per event with an open floor socket, each watching the event's
tables through the hub and handing the changed tables' summaries (`server/projections/floor.py`)
to its sockets' mailboxes. Built once per app by `create_app` (`Services.floor`)."""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from typing import Any

from server.projections.floor import summarise
from server.rules.view import calls_view, own_disputes, people_view, shared_view
from server.runtime.loop import let_loop_run
from server.runtime.stalls import span
from server.service.hub import Hub
from server.service.tables import TableService
from server.service.tournament import Tournament

from .encoding import encode

log = logging.getLogger(__name__)

YIELD_EVERY = 25


def _no_wake() -> None:
    pass


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

    def close(self) -> None:
        """No more wakes: the socket is going (its wake, a bound method of the socket, would
        keep the two in a cycle that only a full collection frees)."""
        self._wake = _no_wake

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
            snap = self.registry.tables.fresh(code, seq)
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
        for n, code in enumerate(codes, start=1):
            if n % YIELD_EVERY == 0:
                let_loop_run()  # a hall's round is 2,000 tables: let the sockets run meanwhile
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
                let_loop_run()
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
        tables: TableService,
        hub: Hub,
        clock: Callable[[], int],
        interval_ms: int,
    ) -> None:
        self.tournament, self.tables, self.hub, self.clock = tournament, tables, hub, clock
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
