"""What the edge's views and sockets share, bound to one app: `services()` finds it. Built by
`create_app` (server/__init__.py); kept apart from it so that the views can import it without
importing the app factory that imports them."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Protocol

from flask import current_app

from server.api.buckets import KeyedLimiter
from server.api.encoding import ViewTexts
from server.api.floor_feeds import FeedRegistry
from server.api.grants import Grants
from server.api.keepalive import Pinger
from server.api.logins import LoginThrottle
from server.api.sockets import Sessions
from server.projections.event import EventCache
from server.runtime.offload import Offload
from server.service.hub import Hub
from server.service.lists import Lists
from server.service.seats import SeatService
from server.service.swiss import SwissService
from server.service.tables import TableService
from server.service.timer import Timer
from server.service.tournament import Tournament


class Stoppable(Protocol):
    """A thread of the app's that stops with it (the checkpointer, the auditor)."""

    def stop(self) -> None: ...


def now_ms() -> int:
    """Server time in milliseconds since the Unix epoch."""
    return time.time_ns() // 1_000_000


@dataclass
class Services:
    """Everything the views and sockets use, bound to one app and built in one place, the app
    factory (`server/__init__.py: create_app`): the application layer's services (tables,
    tournament, Swiss, seats), the floor's feeds and the event pages' cache, and the edge's own
    per-app state (limiters, sockets, grants). Found through `services()`."""

    # The one write path of every table: decide, store, publish (server/service/tables.py).
    tables: TableService
    # Logins, events, rounds, pairings, judges' results (server/service/tournament.py).
    tournament: Tournament
    # The Swiss tournament of each event (server/service/swiss.py).
    swiss: SwissService
    # Seat claims, joins (R1.1), requests, moves, recovery (server/service/seats.py).
    seats: SeatService
    # Ban lists and card names (server/service/lists.py).
    lists: Lists
    hub: Hub
    clock: Callable[[], int]
    http_limiter: KeyedLimiter
    # Each event's public projection, dropped when the event changes (projections/event.py).
    events: EventCache
    # The floor sockets' feeds, one per event watched (api/floor_feeds.py).
    floor: FeedRegistry
    # Staff logins' throttle per account and address (api/logins.py).
    logins: LoginThrottle
    # Who holds which sockets in this process (api/sockets.py).
    sessions: Sessions
    # The budget of wrong IDs and unknown codes per address (`api/access.py`).
    misses: KeyedLimiter
    # Casual tables made per address, and seat requests per address (None: unlimited).
    table_creates: KeyedLimiter | None = None
    seat_asks: KeyedLimiter | None = None
    timer: Timer | None = None
    checkpointer: Stoppable | None = None
    pinger: Pinger | None = None
    auditor: Stoppable | None = None
    # The open sockets of each staff login and seat token, and their sweeper (`api/grants.py`).
    grants: Grants = field(default_factory=Grants)
    # The OS threads that password hashes run on under gevent (`server/runtime/offload.py`).
    offload: Offload = field(default_factory=Offload)
    # What the table socket encoded of the store's snapshots (`api/encoding.py`).
    views: ViewTexts = field(default_factory=ViewTexts)
    # When the unjoined casual tables were last swept (`api/http.py`).
    swept_ms: int | None = None

    def close(self) -> None:
        """Stop the timer, the checkpointer, the pinger, the group committer and the hub (tests
        create many apps in one process)."""
        if self.timer is not None:
            self.timer.stop()
        if self.pinger is not None:
            self.pinger.stop()
        if self.auditor is not None:
            self.auditor.stop()
        if self.checkpointer is not None:
            self.checkpointer.stop()
        self.grants.stop()
        self.offload.close()
        self.views.close()
        self.tables.close()
        self.hub.close()


def services() -> Services:
    """The services of the current app."""
    return current_app.extensions["duel_table"]
