"""The open sockets of each grant (a staff login, a seat's token) in this process: ending the
grant closes every socket it opened. One `Grants` per app (`Services.grants`), stopped with it.

The sweep asks the database about what may have changed, not about every socket: the staff
logins (a few; they also expire), the seats of the tables whose seats changed since the last
sweep (a seat event on the table's log, heard by its sockets here from any process), and a
rolling slice of ROLL_PER_SWEEP other seats, so a change missed meanwhile (a hub outage) is still
caught. An idle hall of 5,000 seat sockets asks about ROLL_PER_SWEEP of them, in one query."""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Iterable

from server.runtime.stalls import span

log = logging.getLogger(__name__)


# A grant: ("staff", session token hash) for a judge's or organiser's login, ("seat", code,
# seat) for a seat's token. Ending the grant closes every socket it opened.
Grant = tuple[str, ...]
SWEEP_SECONDS = 2.0
# Seat grants re-checked each sweep although nothing said their table changed: at 5,000 seat
# sockets each is checked again within 100 sweeps (200 s).
ROLL_PER_SWEEP = 50


class Grants:
    """The open sockets of each grant, in this process, and a sweeper that closes those whose
    staff session has ended in any process (logged out elsewhere, or expired)."""

    def __init__(self) -> None:
        self._open: dict[Grant, dict[int, Callable[[], None]]] = {}
        self._table: dict[Grant, str] = {}  # a seat grant's table code
        self._changed: set[str] = set()  # tables whose seats changed since the last sweep
        self._roll = 0  # where the rolling slice of seat grants goes on from
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None
        self._stop = threading.Event()
        # Given the staff grants held here, answers those still valid (set by `init_app`).
        self.check: Callable[[Iterable[Grant]], set[Grant]] | None = None

    def add(
        self, grant: Grant, close: Callable[[], None], table: str | None = None
    ) -> Callable[[], None]:
        """Remember an open socket's `close` (a seat's with its table's code, so that the sweep
        checks it when that table's seats change); returns the function that forgets it."""
        with self._lock:
            self._open.setdefault(grant, {})[id(close)] = close
            if table is not None:
                self._table[grant] = table
            if self._thread is None and self.check is not None and not self._stop.is_set():
                self._thread = threading.Thread(target=self._run, name="grants", daemon=True)
                self._thread.start()

        def forget() -> None:
            with self._lock:
                held = self._open.get(grant)
                if held is not None:
                    held.pop(id(close), None)
                    if not held:
                        del self._open[grant]
                        self._table.pop(grant, None)

        return forget

    def changed(self, table: str) -> None:
        """A table's seats changed (a seat joined, moved, was released or disowned): the next
        sweep checks the seat grants held for it."""
        with self._lock:
            self._changed.add(table)

    def revoke(self, grant: Grant) -> int:
        """Close every socket `grant` opened here; how many."""
        with self._lock:
            closers = list(self._open.pop(grant, {}).values())
            self._table.pop(grant, None)
        for close in closers:
            try:
                close()
            except Exception:
                log.exception("closing a revoked socket failed")
        return len(closers)

    def held(self) -> list[Grant]:
        with self._lock:
            return list(self._open)

    def due(self) -> list[Grant]:
        """The grants the next sweep asks about: every staff login, every grant held without a
        table, the seat grants of the tables whose seats changed, and ROLL_PER_SWEEP others."""
        with self._lock:
            changed, self._changed = self._changed, set()
            due: list[Grant] = []
            rest: list[Grant] = []
            for grant in self._open:
                table = self._table.get(grant)
                if grant[0] != "seat" or table is None or table in changed:
                    due.append(grant)
                else:
                    rest.append(grant)
            if rest:
                start = self._roll % len(rest)
                due += (rest[start:] + rest[:start])[:ROLL_PER_SWEEP]
                self._roll = start + ROLL_PER_SWEEP
        return due

    def sweep(self) -> int:
        """Close the sockets of staff sessions and seat tokens that ended (in any process);
        how many."""
        if self.check is None:
            return 0
        due = self.due()
        if not due:
            return 0
        valid = self.check(due)
        return sum(self.revoke(g) for g in due if g not in valid)

    def _run(self) -> None:
        while not self._stop.wait(SWEEP_SECONDS):
            try:
                with span("grants sweep"):  # named in the long run's stall report
                    self.sweep()
            except Exception:
                log.exception("sweeping staff sockets failed")

    def stop(self) -> None:
        """Stop the sweeper (the app is closing)."""
        self._stop.set()

    @property
    def stopped(self) -> bool:
        return self._stop.is_set()
