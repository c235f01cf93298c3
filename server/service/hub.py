"""Fan-out of "table <code> is now at seq <n>" to every socket watching that table.

A message carries only (code, seq). Subscribers read the events themselves from the database by
sequence number, so a lost or repeated message only delays or repeats a cheap read: it never
loses or duplicates an event on the wire.
"""

from __future__ import annotations

import json
import logging
import os
import threading
import time
import uuid
from collections.abc import Callable
from typing import Protocol

log = logging.getLogger(__name__)

Callback = Callable[[str, int], None]
CHANNEL_PREFIX = "dueltable:table:"


class Hub(Protocol):
    """Subscribe callbacks to tables; publish a table's new sequence number to them."""

    def subscribe(self, code: str, callback: Callback) -> None: ...

    def unsubscribe(self, code: str, callback: Callback) -> None: ...

    def publish(self, code: str, seq: int) -> None: ...

    def close(self) -> None: ...


class LocalHub:
    """The in-process hub. Callbacks must not block: they only queue work for their socket."""

    def __init__(self) -> None:
        self._subs: dict[str, set[Callback]] = {}
        self._lock = threading.Lock()

    def subscribe(self, code: str, callback: Callback) -> None:
        with self._lock:
            self._subs.setdefault(code, set()).add(callback)

    def unsubscribe(self, code: str, callback: Callback) -> None:
        with self._lock:
            subs = self._subs.get(code)
            if subs is not None:
                subs.discard(callback)
                if not subs:
                    del self._subs[code]

    def subscribers(self, code: str) -> int:
        """How many callbacks watch a table (for tests and metrics)."""
        with self._lock:
            return len(self._subs.get(code, ()))

    def publish(self, code: str, seq: int) -> None:
        self._deliver(code, seq)

    def _deliver(self, code: str, seq: int) -> None:
        with self._lock:
            callbacks = list(self._subs.get(code, ()))
        for callback in callbacks:
            try:
                callback(code, seq)
            except Exception:
                log.exception("hub callback failed for table %s", code)

    def close(self) -> None:
        with self._lock:
            self._subs.clear()


class RedisHub(LocalHub):
    """Several processes: publish through Redis; one listener thread per process delivers.

    Local subscribers are told at once; the same message coming back from Redis is skipped by
    its origin id. The listener reconnects after a Redis outage; what it missed meanwhile
    reaches the sockets with the next message for that table (they read by sequence number).
    """

    def __init__(self, url: str, reconnect_seconds: float = 1.0) -> None:
        import redis

        super().__init__()
        self._origin = f"{os.getpid()}-{uuid.uuid4().hex[:8]}"
        self._redis = redis.Redis.from_url(url)
        self._reconnect_seconds = reconnect_seconds
        self._stopped = threading.Event()
        self._ready = threading.Event()
        self._thread = threading.Thread(target=self._listen, name="redis-hub", daemon=True)
        self._thread.start()

    def wait_ready(self, timeout: float = 5.0) -> bool:
        """Wait until the listener is subscribed (tests use it to avoid a start-up race)."""
        return self._ready.wait(timeout)

    def publish(self, code: str, seq: int) -> None:
        self._deliver(code, seq)
        message = json.dumps({"code": code, "seq": seq, "origin": self._origin})
        try:
            self._redis.publish(CHANNEL_PREFIX + code, message)
        except Exception:
            # Other processes catch up with the table's next message.
            log.warning("could not publish table %s seq %s to Redis", code, seq, exc_info=True)

    def _listen(self) -> None:
        while not self._stopped.is_set():
            pubsub = self._redis.pubsub(ignore_subscribe_messages=True)
            try:
                pubsub.psubscribe(CHANNEL_PREFIX + "*")
                self._ready.set()
                while not self._stopped.is_set():
                    message = pubsub.get_message(timeout=1.0)
                    if message is not None:
                        self._on_message(message.get("data"))
            except Exception:
                if self._stopped.is_set():
                    break
                log.warning("Redis hub listener lost its connection; retrying", exc_info=True)
                time.sleep(self._reconnect_seconds)
            finally:
                try:
                    pubsub.close()
                except Exception:
                    log.debug("closing the Redis pubsub failed", exc_info=True)

    def _on_message(self, data: object) -> None:
        try:
            body = json.loads(data)  # type: ignore[arg-type]
            code, seq, origin = str(body["code"]), int(body["seq"]), body.get("origin")
        except (TypeError, ValueError, KeyError):
            log.warning("ignoring a malformed hub message: %r", data)
            return
        if origin != self._origin:
            self._deliver(code, seq)

    def close(self) -> None:
        self._stopped.set()
        self._thread.join(timeout=3)
        self._redis.close()
        super().close()


def make_hub(redis_url: str) -> Hub:
    """A Redis hub when a URL is given, else the in-process one."""
    return RedisHub(redis_url) if redis_url else LocalHub()
