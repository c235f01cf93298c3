"""SQLite's WAL checkpoints, off the worker's event loop.

In WAL mode SQLite copies the log back into the database file (a checkpoint, with an fsync of
the database file under synchronous=FULL) inside whichever COMMIT pushes the log past 1,000
pages. Under gevent that COMMIT blocks every socket of the worker: at 2,500 tables (about 400
commits a second) that came to a few checkpoints a second, each holding the loop for tens of
milliseconds. So a server process turns the automatic checkpoint off on its connections and runs
a PASSIVE checkpoint (it never waits for, nor blocks, readers and writers) every `every_ms` on a
connection of its own, in a real OS thread (gevent's thread pool when the worker is patched):
SQLite releases the GIL while it copies and syncs, so the loop keeps serving meanwhile.

A writer starts the log file over once every frame in it has been copied and no reader is
inside it; on a busy worker some reader nearly always is, so the log grows for a while between
restarts (measured at 2,500 tables: up to ~35,000 frames, ~140 MB, each round copying what was
written since the last in 2-45 ms, off the loop). `journal_size_limit` (64 MiB) gives the disk
space back after each restart.

Each process that writes runs one; SQLite serialises concurrent checkpoints itself.
"""

from __future__ import annotations

import logging
import sqlite3
import threading
import time
from collections.abc import Callable

from peewee import Database

from server.runtime.stalls import span

from .group import blocking_runner
from .models import is_sqlite

log = logging.getLogger(__name__)


class Checkpointer:
    """Checkpoint the SQLite file at `path` every `every_ms` milliseconds until stopped."""

    def __init__(self, path: str, every_ms: int) -> None:
        self.path = path
        self.interval = max(50, every_ms) / 1000
        self._stop = threading.Event()
        self._conn: sqlite3.Connection | None = None
        self.runs = 0

    def checkpoint(self) -> tuple[int, int, int]:
        """One PASSIVE checkpoint: (busy, frames in the log, frames checkpointed)."""
        if self._conn is None:
            self._conn = sqlite3.connect(self.path, timeout=30, check_same_thread=False)
        with span("checkpoint"):
            row = self._conn.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchone()
        self.runs += 1
        return int(row[0]), int(row[1]), int(row[2])

    def _run(self, call: Callable[[], tuple[int, int, int]]) -> None:
        while not self._stop.wait(self.interval):
            try:
                call()
            except Exception:
                log.exception("checkpoint of %s failed", self.path)
                time.sleep(self.interval)
        if self._conn is not None:
            self._conn.close()

    def start(self) -> None:
        # A green thread under gevent, handing each checkpoint to a real thread (`blocking_runner`).
        run = blocking_runner()

        def call() -> tuple[int, int, int]:
            return run(self.checkpoint)  # type: ignore[no-any-return]

        thread = threading.Thread(target=self._run, args=(call,), name="sqlite-checkpoint")
        thread.daemon = True
        thread.start()

    def stop(self) -> None:
        self._stop.set()


def start_checkpointer(database: Database, every_ms: int) -> Checkpointer | None:
    """Run `database`'s checkpoints on a `Checkpointer` (SQLite files only; the database was
    opened with `open_database(..., autocheckpoint=False)`)."""
    path = getattr(database, "database", None)
    if not is_sqlite(database) or not isinstance(path, str) or path in ("", ":memory:"):
        return None
    if every_ms <= 0:
        return None
    checkpointer = Checkpointer(path, every_ms)
    checkpointer.start()
    return checkpointer
