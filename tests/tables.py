"""The table service over a bare event store, for tests that drive a store directly: the store
stores, the service decides (`server/service/tables.py`); its hub is a local one no socket
hears."""

from __future__ import annotations

import weakref
from collections.abc import Callable

from server.service.hub import LocalHub
from server.service.tables import TableService
from server.store import EventStore

_SERVICES: weakref.WeakKeyDictionary[EventStore, TableService] = weakref.WeakKeyDictionary()


def tables_of(store: EventStore, randbelow: Callable[[int], int] | None = None) -> TableService:
    """The one table service of `store` in this test (dice from `randbelow` when given)."""
    found = _SERVICES.get(store)
    if found is None or randbelow is not None:
        found = (
            TableService(store, LocalHub(), randbelow)
            if randbelow
            else TableService(store, LocalHub())
        )
        _SERVICES[store] = found
    return found
