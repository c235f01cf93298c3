"""Group commit: the commands decided while one commit is on its way share the next one.

The event store decides a command in memory, against its table's latest state (committed, or
still waiting for its commit), and hands the rows to a `GroupCommit`. One committer takes every
waiting item at once and writes them in one transaction on a connection of its own: one COMMIT,
one fsync of the log, for all of them. The caller waits for its item's outcome, so a reply still
goes out only after its events are durable.

Under gevent the committer is a green thread that runs each SQLite transaction in gevent's
thread pool: SQLite releases the GIL while it writes and syncs, so the loop serves the sockets
meanwhile, and what they decide in that time makes the next group. (Committing on the loop held
every socket of the worker for each fsync: measured at 2,500 tables, about a third of the loop's
busy time.) PostgreSQL's driver is made cooperative by psycogreen, so its groups run on the green
thread itself. Without gevent the committer is an ordinary thread.
"""

from __future__ import annotations

import functools
import logging
import threading
from collections.abc import Callable, Sequence
from typing import Any, Generic, TypeVar

from server.runtime.stalls import span

log = logging.getLogger(__name__)

T = TypeVar("T")


def patched() -> bool:
    """Tell whether gevent has patched `threading` in this process."""
    try:
        from gevent import monkey
    except ImportError:
        return False
    return bool(monkey.is_module_patched("threading"))


def blocking_runner() -> Callable[[Callable[[], Any]], Any]:
    """Run a blocking call where it does not hold the event loop: gevent's thread pool when the
    process is patched, else in the calling thread."""
    if patched():
        from gevent import get_hub

        pool = get_hub().threadpool
        return lambda call: pool.apply(call)
    return lambda call: call()


class GroupCommit(Generic[T]):
    """Collect items; one committer writes all that are waiting with `write(items)`.

    `write` is called with a non-empty list, one call at a time, in the order the items came;
    `settle(items)` runs after it on the committer (for bookkeeping that must precede the
    waiters), then every item's `done` event is set. `run` runs `write` (by default
    `blocking_runner()`)."""

    def __init__(
        self,
        write: Callable[[Sequence[T]], None],
        settle: Callable[[Sequence[T]], None],
        done: Callable[[T], threading.Event],
        run: Callable[[Callable[[], Any]], Any] | None = None,
    ) -> None:
        self._write = write
        self._settle = settle
        self._done = done
        self._run = run
        self._items: list[T] = []
        self._wake = threading.Condition()
        self._thread: threading.Thread | None = None
        self._closed = False
        self.groups = 0
        self.largest = 0

    def submit(self, item: T) -> None:
        """Queue `item` for the next group (starting the committer on first use)."""
        with self._wake:
            if self._closed:
                raise RuntimeError("the store is closed")
            self._items.append(item)
            if self._thread is None:
                self._thread = threading.Thread(target=self._loop, name="group-commit")
                self._thread.daemon = True
                self._thread.start()
            self._wake.notify()

    def close(self) -> None:
        """Stop the committer once what is queued is written."""
        with self._wake:
            self._closed = True
            self._wake.notify()

    def _timed_write(self, items: Sequence[T]) -> None:
        with span("group commit", f"{len(items)} commands"):
            self._write(items)

    def _loop(self) -> None:
        run = self._run or blocking_runner()
        while True:
            with self._wake:
                while not self._items and not self._closed:
                    self._wake.wait()
                if not self._items:
                    return
                items, self._items = self._items, []
            self.groups += 1
            self.largest = max(self.largest, len(items))
            try:
                run(functools.partial(self._timed_write, items))
            except BaseException:
                # `write` settles each item's outcome itself; this is a bug, not a lost commit.
                log.exception("group commit failed")
            try:
                self._settle(items)
            finally:
                for item in items:
                    self._done(item).set()
