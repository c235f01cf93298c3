"""What the store keeps of a log in memory: its latest snapshot (a table's `Snapshot`, an event's
tournament log's), in a small LRU."""

from __future__ import annotations

import threading
from collections import OrderedDict
from dataclasses import dataclass
from typing import Any, Generic, Protocol, TypeVar

from server.rules import TableState

# Envelopes a snapshot keeps, so broadcasts need not read them back.
RECENT = 64


@dataclass(frozen=True)
class Snapshot:
    """A table's state as of sequence number `seq`, and the hash of that event."""

    seq: int
    state: TableState
    last_hash: str
    # The last few envelopes up to `seq`, so broadcasts need not read them back.
    recent: tuple[dict[str, Any], ...] = ()
    # The table's row id, so a command on a cached table needs no read to find it.
    table_id: int = 0

    def since(self, seq: int) -> list[dict[str, Any]] | None:
        """The envelopes after `seq` from memory, or None when they are not all here."""
        if seq >= self.seq:
            return []
        if not self.recent or self.recent[0]["seq"] > seq + 1:
            return None
        # `recent` holds consecutive seqs.
        return list(self.recent[seq + 1 - self.recent[0]["seq"] :])


class Sequenced(Protocol):
    """What the LRU keeps: a log's state as of a sequence number."""

    @property
    def seq(self) -> int: ...


S = TypeVar("S", bound=Sequenced)
K = TypeVar("K")


class KeyedLRU(Generic[K, S]):
    """A small thread-safe LRU map of a log's key -> its latest snapshot (any log: a table's,
    an event's tournament log)."""

    def __init__(self, size: int) -> None:
        self._size = max(1, size)
        self._items: OrderedDict[K, S] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, code: K) -> S | None:
        with self._lock:
            snap = self._items.get(code)
            if snap is not None:
                self._items.move_to_end(code)
            return snap

    def offer(self, code: K, snap: S) -> None:
        """Keep `snap` unless a newer snapshot is already cached."""
        with self._lock:
            old = self._items.get(code)
            if old is None or old.seq <= snap.seq:
                self._items[code] = snap
            self._items.move_to_end(code)
            while len(self._items) > self._size:
                self._items.popitem(last=False)

    def codes(self) -> list[K]:
        with self._lock:
            return list(self._items)

    def drop(self, code: K) -> None:
        with self._lock:
            self._items.pop(code, None)

    def clear(self) -> None:
        with self._lock:
            self._items.clear()


class LRU(KeyedLRU[str, Snapshot]):
    """A small thread-safe LRU map of table code -> Snapshot."""
