"""The open sockets of each grant (a staff login, a seat's token) in this process: ending the
grant closes every socket it opened. One `Grants` per app (`Services.grants`), stopped with it."""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Iterable

log = logging.getLogger(__name__)


# A grant: ("staff", session token hash) for a judge's or organiser's login, ("seat", code,
# seat) for a seat's token. Ending the grant closes every socket it opened.
Grant = tuple[str, ...]
SWEEP_SECONDS = 2.0


class Grants:
    """The open sockets of each grant, in this process, and a sweeper that closes those whose
    staff session has ended in any process (logged out elsewhere, or expired)."""

    def __init__(self) -> None:
        self._open: dict[Grant, dict[int, Callable[[], None]]] = {}
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None
        self._stop = threading.Event()
        # Given the staff grants held here, answers those still valid (set by `init_app`).
        self.check: Callable[[Iterable[Grant]], set[Grant]] | None = None

    def add(self, grant: Grant, close: Callable[[], None]) -> Callable[[], None]:
        """Remember an open socket's `close`; returns the function that forgets it."""
        with self._lock:
            self._open.setdefault(grant, {})[id(close)] = close
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

        return forget

    def revoke(self, grant: Grant) -> int:
        """Close every socket `grant` opened here; how many."""
        with self._lock:
            closers = list(self._open.pop(grant, {}).values())
        for close in closers:
            try:
                close()
            except Exception:
                log.exception("closing a revoked socket failed")
        return len(closers)

    def held(self) -> list[Grant]:
        with self._lock:
            return list(self._open)

    def sweep(self) -> int:
        """Close the sockets of staff sessions and seat tokens that ended (in any process);
        how many."""
        held = self.held()
        if not held or self.check is None:
            return 0
        valid = self.check(held)
        return sum(self.revoke(g) for g in held if g not in valid)

    def _run(self) -> None:
        while not self._stop.wait(SWEEP_SECONDS):
            try:
                self.sweep()
            except Exception:
                log.exception("sweeping staff sockets failed")

    def stop(self) -> None:
        """Stop the sweeper (the app is closing)."""
        self._stop.set()

    @property
    def stopped(self) -> bool:
        return self._stop.is_set()
