"""The heads ledger: each table's log length and head hash, kept outside the database.

A log cut back (its last events deleted, the table's seq and its signed heads with them) is a
sound chain: nothing inside the database says it was longer. So after every committed write
the server appends `code seq hash` to a file beside its signing key (`KEY_DIR`, apart from
`DATA_DIR` by default), and `verify` names a table whose log is shorter than the ledger's
length for it, or whose hash at that length is another (a cut log grown again). A line lost
to a crash between the commit and the append only makes the ledger a length behind: it never
says more than was written, so it raises no false alarm.

The file only grows (one line of about 90 bytes per write); it is read once when the server
starts and by `verify`. Its first line names the time it began: a table with events but no
line, made before then, is from before the ledger (unanchored), and after then is a table
whose lines were taken away.
"""

from __future__ import annotations

import hashlib
import logging
import os
import threading
from collections.abc import Iterable
from pathlib import Path
from typing import Any

HEADER = "# duel-table heads v1 since "


def ledger_path(config: dict[str, Any], key_dir: Path) -> Path:
    """The ledger of the database `config` names (DATABASE_URL, else DATA_DIR's SQLite file),
    in `key_dir`: one file per database, so servers of other databases never mix theirs."""
    url = str(config.get("DATABASE_URL") or "").strip()
    where = url or str(Path(str(config["DATA_DIR"])).resolve() / "duel.db")
    digest = hashlib.sha256(where.encode("utf-8")).hexdigest()[:16]
    return key_dir / f"heads-{digest}.log"


class HeadLedger:
    """The longest recorded head of each table: loaded from the file, kept in step with what
    this process appends to it (a lower bound of what another process sharing it wrote)."""

    def __init__(self, path: Path, since_ms: int, heads: dict[str, tuple[int, str]]) -> None:
        self.path = path
        self.since_ms = since_ms
        self._heads = heads
        self._lock = threading.Lock()

    @classmethod
    def open(cls, path: str | Path, now_ms: int, create: bool = True) -> HeadLedger | None:
        """The ledger in `path`, begun (at `now_ms`) when there is none and `create`; None
        when there is none and not `create` (the verify command: nothing to check against)."""
        path = Path(path)
        if not path.exists():
            if not create:
                return None
            path.parent.mkdir(parents=True, exist_ok=True)
            try:
                fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
            except FileExistsError:
                pass  # another process began it first: read theirs
            else:
                with os.fdopen(fd, "w", encoding="ascii") as out:
                    out.write(f"{HEADER}{now_ms}\n")
        since, heads = read(path)
        return cls(path, since if since is not None else now_ms, heads)

    def head(self, code: str) -> tuple[int, str] | None:
        """The longest head recorded for `code`: (seq, hash)."""
        return self._heads.get(code)

    def refresh(self) -> None:
        """Read the file again: what other processes sharing it (other workers, other hosts'
        servers) appended since, kept for the next look-ups."""
        _since, heads = read(self.path)
        with self._lock:
            for code, (seq, digest) in heads.items():
                known = self._heads.get(code)
                if known is None or known[0] < seq:
                    self._heads[code] = (seq, digest)

    def record(self, heads: Iterable[tuple[str, int, str]]) -> None:
        """Append committed heads (code, seq, hash) in one write."""
        lines = []
        with self._lock:
            for code, seq, digest in heads:
                lines.append(f"{code} {seq} {digest}\n")
                known = self._heads.get(code)
                if known is None or known[0] < seq:
                    self._heads[code] = (seq, digest)
        if not lines:
            return
        try:
            # O_APPEND: one write of a few lines lands whole even with another process
            # appending to the same file.
            fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
            try:
                os.write(fd, "".join(lines).encode("ascii"))
            finally:
                os.close(fd)
        except OSError:
            # The write itself is committed: a ledger behind is a weaker check, not a wrong one.
            logging.getLogger(__name__).exception("could not append to the heads ledger")


def read(path: Path) -> tuple[int | None, dict[str, tuple[int, str]]]:
    """The ledger's start time and the longest head of each table in it (a torn last line,
    from a crash mid-append, is skipped)."""
    since: int | None = None
    heads: dict[str, tuple[int, str]] = {}
    with path.open("r", encoding="ascii", errors="replace") as lines:
        for line in lines:
            if line.startswith(HEADER):
                try:
                    since = int(line[len(HEADER) :].strip())
                except ValueError:
                    pass
                continue
            parts = line.split()
            if len(parts) != 3 or not parts[1].isdigit() or len(parts[2]) != 64:
                continue
            code, seq, digest = parts[0], int(parts[1]), parts[2]
            known = heads.get(code)
            if known is None or known[0] < seq:
                heads[code] = (seq, digest)
    return since, heads
