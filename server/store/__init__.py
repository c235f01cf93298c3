"""Persistence: peewee models and the hash-chained event store."""

from .events import Appended, EventStore, Joined, Snapshot, Verification
from .models import MODELS, bind, db, is_sqlite, open_database

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
]
