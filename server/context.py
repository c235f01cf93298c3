"""What the edge's views and sockets share, bound to one app: `services()` finds it. Built by
`create_app` (server/__init__.py); kept apart from it so that the views can import it without
importing the app factory that imports them."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from flask import current_app

from server.service import TableService


def now_ms() -> int:
    """Server time in milliseconds since the Unix epoch."""
    return time.time_ns() // 1_000_000


@dataclass
class Services:
    """What the views need, bound to one app: the store, the hub, the clock, the timer."""

    store: Any
    hub: Any
    clock: Callable[[], int]
    http_limiter: Any = None
    timer: Any = None
    checkpointer: Any = None
    pinger: Any = None
    auditor: Any = None

    @property
    def tables(self) -> TableService:
        """The one write path of every table: append, then publish (server/service.py)."""
        return TableService(self.store, self.hub)

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
        self.store.close()
        self.hub.close()


def services() -> Services:
    """The services of the current app."""
    return current_app.extensions["duel_table"]
