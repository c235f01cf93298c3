"""Persistence: peewee models, their migrations and the hash-chained event store."""

from .events import Appended, EventStore, Joined, Snapshot, Verification
from .migrations import bind, upgrade
from .models import MODELS, db, is_sqlite, open_database

__all__ = [
    "MODELS",
    "Appended",
    "EventStore",
    "Joined",
    "Snapshot",
    "Verification",
    "bind",
    "db",
    "is_sqlite",
    "open_database",
    "upgrade",
]
