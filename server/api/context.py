"""What the edge's views and sockets share, bound to one app: `services()` finds it. Built by
`create_app` (server/__init__.py); kept apart from it so that the views can import it without
importing the app factory that imports them."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field

from flask import current_app

from server.api.buckets import KeyedLimiter
from server.api.encoding import ViewTexts
from server.api.grants import Grants
from server.api.keepalive import Pinger
from server.runtime.offload import Offload
from server.service.hub import Hub
from server.service.tables import TableService
from server.service.timer import Timer
from server.store import EventStore
from server.store.checkpoint import Checkpointer
from server.store.signing import Auditor


def now_ms() -> int:
    """Server time in milliseconds since the Unix epoch."""
    return time.time_ns() // 1_000_000


@dataclass
class Services:
    """What the views need, bound to one app: the store, the hub, the clock, the timer."""

    store: EventStore
    hub: Hub
    clock: Callable[[], int]
    http_limiter: KeyedLimiter
    timer: Timer | None = None
    checkpointer: Checkpointer | None = None
    pinger: Pinger | None = None
    auditor: Auditor | None = None
    # The open sockets of each staff login and seat token, and their sweeper (`api/grants.py`).
    grants: Grants = field(default_factory=Grants)
    # The OS threads that password hashes run on under gevent (`server/runtime/offload.py`).
    offload: Offload = field(default_factory=Offload)
    # What the table socket encoded of the store's snapshots (`api/encoding.py`).
    views: ViewTexts = field(default_factory=ViewTexts)

    # The one write path of every table: decide, store, publish (server/service/tables.py).
    tables: TableService = field(init=False)

    def __post_init__(self) -> None:
        self.tables = TableService(self.store, self.hub)

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
        self.store.close()
        self.hub.close()


def services() -> Services:
    """The services of the current app."""
    return current_app.extensions["duel_table"]
