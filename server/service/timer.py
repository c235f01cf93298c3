"""The server's timer: writes what falls due (time called, overtime flags) as "tick" commands.

Every process may run one. The command id is `tick:<deadline>`, so whichever process reaches a
deadline first writes it and the others get a duplicate answer that changes nothing.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable

from server.rules.base import SYSTEM_ACTOR
from server.runtime.stalls import span
from server.service.tables import Order, TableService

log = logging.getLogger(__name__)


BATCH = 2000  # tables ticked as one group (a big hall's round)
MIN_WAIT = 0.005  # seconds: a deadline just past is swept again this soon, not at once
BATCHES = 5  # at most this many groups a sweep (10,000 tables), so a sweep always ends


def run_due(tables: TableService, now_ms: int) -> int:
    """Tick every table whose deadline has passed, through the table service, as groups of
    up to `BATCH` tables (time is called at every table of a round in the same second): their
    commits overlap their deciding, and each table is published once it is stored; return how
    many wrote events."""
    written = 0
    for _ in range(BATCHES):
        due = tables.store.due(now_ms, limit=BATCH)
        orders: list[Order] = [
            (code, "tick", {}, SYSTEM_ACTOR, f"tick:{due_ms}") for code, due_ms in due
        ]
        try:
            answers = tables.append_many(orders, now_ms, publish=True)
        except Exception:
            log.exception("ticking %d tables failed", len(orders))
            return written
        moved = 0
        for code, answer in answers.items():
            if isinstance(answer, Exception):
                log.warning("tick refused at table %s: %s", code, getattr(answer, "code", answer))
            elif answer.events:
                moved += 1
        written += moved
        if len(due) < BATCH or not moved:  # all due ticked, or nothing moved: next sweep
            break
    return written


class Timer:
    """A daemon thread (a greenlet under gevent) calling `run_due` every `interval_ms`."""

    def __init__(
        self, tables: TableService, clock: Callable[[], int], interval_ms: int = 250
    ) -> None:
        self.tables, self.clock = tables, clock
        self.interval = max(10, interval_ms) / 1000
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="table-timer", daemon=True)

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        if self._thread.is_alive():
            self._thread.join(timeout=5)

    def _run(self) -> None:
        wait = self.interval
        while not self._stop.wait(wait):
            wait = self.interval
            try:
                with span("timer sweep"):
                    wait = self.sweep()
            except Exception:
                log.exception("timer round failed")

    def sweep(self) -> float:
        """Write what fell due; return the seconds to sleep before the next sweep."""
        written = run_due(self.tables, self.clock())
        due = self.tables.store.next_due()
        if due is not None and due <= self.clock() and not written:
            # Still due after a sweep that moved nothing: a table whose tick is refused stays
            # due, and is asked again an interval later, not every few ms.
            return self.interval
        return self.until_next(due)

    def until_next(self, due_ms: int | None) -> float:
        """Seconds to sleep before the next sweep: until the earliest deadline (so time is
        called within a few ms of it, not up to an interval later), at most `interval`."""
        if due_ms is None:
            return self.interval
        return min(self.interval, max(MIN_WAIT, (due_ms - self.clock()) / 1000))
