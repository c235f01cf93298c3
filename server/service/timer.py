"""The server's timer: writes what falls due (time called, overtime flags) as "tick" commands.

Every process may run one. The command id is `tick:<deadline>`, so whichever process reaches a
deadline first writes it and the others get a duplicate answer that changes nothing.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable

from server.rules import RuleError
from server.runtime.stalls import span
from server.service.tables import TableService

log = logging.getLogger(__name__)


def run_due(tables: TableService, now_ms: int) -> int:
    """Tick every table whose deadline has passed, through the table service; return how many
    wrote events."""
    written = 0
    for code, due_ms in tables.store.due(now_ms):
        try:
            result = tables.system(code, "tick", {}, f"tick:{due_ms}", now_ms)
        except RuleError as exc:
            log.warning("tick refused at table %s: %s", code, exc.code)
            continue
        except Exception:
            log.exception("tick failed at table %s", code)
            continue
        if result.events:
            written += 1
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
        while not self._stop.wait(self.interval):
            try:
                with span("timer sweep"):
                    run_due(self.tables, self.clock())
            except Exception:
                log.exception("timer round failed")
