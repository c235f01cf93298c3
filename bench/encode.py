"""Encoding a table state for a phone: CPython's C encoder (made once) against orjson.

    PYTHONPATH=. .venv/bin/python -m bench.encode

A finished three-duel match (`tests/sheet_match.py: play_match`), its public view plus seat A's,
encoded by both; prints the size and the best of 7 x 2,000 calls of each (docs/decisions.md).
"""

from __future__ import annotations

import sys
import tempfile
import timeit
from pathlib import Path


def main() -> None:
    root = Path(__file__).resolve().parent.parent
    sys.path.insert(0, str(root / "tests"))
    from sheet_match import play_match

    from server.core.compat import c_json_encoder, phone_text
    from server.rules.view import seat_view, view
    from server.store import EventStore, bind, db, open_database

    tmp = tempfile.mkdtemp()
    bind(open_database(f"sqlite:///{tmp}/bench.db", Path(tmp)))
    store = EventStore(db)
    snap = store.snapshot(play_match(store).code)
    value = view(snap.state, None) | seat_view(snap.state, "A", False)
    before = c_json_encoder()
    assert phone_text(value) == before(value)
    print(f"{len(before(value).encode())} bytes, {snap.seq} events")
    for name, encode in [("C encoder made once", before), ("orjson (phone_text)", phone_text)]:
        best = min(timeit.repeat(lambda e=encode: e(value), number=2000, repeat=7)) / 2000
        print(f"{name}: {best * 1e6:.1f} us")
    store.close()


if __name__ == "__main__":
    main()
