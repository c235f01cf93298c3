"""Opening the database for the app and the command line: the store of the tables' logs, its
checkpointer, the server's signing key and heads ledger, the auditor, migrations. The app
factory (`server/__init__.py`) and the scripts (`server/cli/`, `python -m server migrate`) call
these, so that nothing at the edge reaches into the store itself."""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

from server.store import EventStore, Verification, bind, db, open_database, upgrade
from server.store.checkpoint import Checkpointer, start_checkpointer
from server.store.ledger import HeadLedger, ledger_path
from server.store.migrations import version_of
from server.store.signing import Auditor, Signer, key_dir, key_path, old_key_path

from .tables import TableService

__all__ = [
    "EventStore",
    "Verification",
    "connect",
    "load_keys",
    "migrate",
    "open_store",
    "open_to_verify",
    "start_auditor",
    "table_codes",
]

log = logging.getLogger(__name__)


def open_store(config: dict[str, Any]) -> tuple[EventStore, Checkpointer | None]:
    """The app's store over the database `config` names, its schema brought up to date
    (`server/store/migrations.py`), and its checkpointer (SQLite files, when
    `SQLITE_CHECKPOINT_MS` is set)."""
    checkpoint_ms = config["SQLITE_CHECKPOINT_MS"]
    database = open_database(
        config["DATABASE_URL"], config["DATA_DIR"], autocheckpoint=checkpoint_ms <= 0
    )
    bind(database)
    store = EventStore(db, cache_size=config["STATE_CACHE_SIZE"])
    return store, start_checkpointer(database, checkpoint_ms)


def load_keys(store: EventStore, config: dict[str, Any], now_ms: int) -> None:
    """Give the store the server's signing key (made at the first start) and its heads
    ledger: the record proves itself, and a log changed under the cache raises alarms."""
    path = key_path(config)
    if not config["SIGNING_KEY_FILE"] and not path.exists() and old_key_path(config).exists():
        # A key made by an earlier release beside the database: still this server's key (the
        # phones' receipts and the cards' claims were signed with it), used where it is until
        # the operator moves it.
        path = old_key_path(config)
        log.warning(
            "The signing key is beside the database (%s): move it to %s.", path, key_dir(config)
        )
    store.signer = Signer.load_or_create(path)
    store.ledger = HeadLedger.open(ledger_path(config, key_dir(config)), now_ms)


def start_auditor(tables: TableService, clock: Callable[[], int]) -> Auditor:
    """The thread that checks the cached logs against the database and calls a judge."""
    auditor = Auditor(tables, clock)
    auditor.start()
    return auditor


def connect(config: dict[str, Any]) -> None:
    """Open the database `config` names for a script, its schema brought up to date."""
    bind(open_database(config["DATABASE_URL"], config["DATA_DIR"]))


def migrate(config: dict[str, Any]) -> tuple[int | None, int]:
    """Bring the database `config` names to the latest schema: (version before, after)."""
    database = open_database(config["DATABASE_URL"], config["DATA_DIR"])
    before = version_of(database)
    return before, upgrade(database)


def open_to_verify(config: dict[str, Any], warn: Callable[[str], None]) -> EventStore:
    """A store over the database `config` names, with the signing key and the heads ledger
    where they are (never made): `warn` is told what cannot be checked without them."""
    connect(config)
    store = EventStore(db)
    path = key_path(config)
    if not config["SIGNING_KEY_FILE"] and not path.exists() and old_key_path(config).exists():
        path = old_key_path(config)  # an earlier release's place, beside the database
    if path.exists():
        store.signer = Signer.load(path)
    else:  # a table with signed heads is reported unchecked; the others by their chain only
        warn(f"No signing key at {path}: signed heads cannot be checked.")
    where = ledger_path(config, key_dir(config))
    store.ledger = HeadLedger.open(where, 0, create=False)
    if store.ledger is None:  # no log's length can be checked: a cut log goes unseen
        warn(f"No heads ledger at {where}: cut logs cannot be found.")
    return store


def table_codes(store: EventStore) -> list[str]:
    """Every table's code, oldest first."""
    return store.codes()
