"""Server pings, so idle sockets survive proxies: one green thread for every socket.

simple-websocket can ping each socket itself (its `ping_interval`), but then each socket's reader
waits on a selector with a timeout at every wake: measured at 2,500 tables that was 5-8% of the
worker's CPU, more than the pings themselves. Here one thread walks the sockets in slices, so
each socket is pinged about every `interval` seconds and the pings of thousands of sockets are
spread over the interval. A socket that has not answered the previous ping is closed (1008), as
simple-websocket did; the browser's own websocket answers pings by itself.
"""

from __future__ import annotations

import logging
import threading
from typing import Any, Protocol

from simple_websocket import ConnectionClosed

from server.compat import ping_if_answered, shutdown, wake_reader
from server.stalls import span

log = logging.getLogger(__name__)

SLICES = 20
# A websocket closed for breaking policy: no pong, a flood, a refused origin (RFC 6455).
CLOSE_POLICY = 1008


class Pingable(Protocol):
    def ping(self) -> None:
        """Queue a ping for the socket's writer (or send it, if the caller is the writer)."""


class Pinger:
    """Ping every added socket about every `interval` seconds until stopped."""

    def __init__(self, interval: float) -> None:
        self.interval = interval
        self._sockets: set[Pingable] = set()
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        # This round's sockets, and how far it has got: a copy made once a round, not a
        # shorter copy every tick (thousands of references for the collector to walk).
        self._round: list[Pingable] = []
        self._next = 0
        self._per_tick = 0

    def add(self, sock: Pingable) -> None:
        with self._lock:
            self._sockets.add(sock)
            if self._thread is None and not self._stop.is_set():
                self._thread = threading.Thread(target=self._run, name="ws-pinger", daemon=True)
                self._thread.start()

    def discard(self, sock: Pingable) -> None:
        with self._lock:
            self._sockets.discard(sock)

    def stop(self) -> None:
        self._stop.set()

    def tick(self) -> int:
        """Ping the next slice of this round's sockets; how many were pinged."""
        with self._lock:
            if self._next >= len(self._round):
                self._round, self._next = list(self._sockets), 0
                self._per_tick = -(-len(self._round) // SLICES)
            batch = self._round[self._next : self._next + self._per_tick]
            self._next += self._per_tick
            live = [sock for sock in batch if sock in self._sockets]
        for sock in live:
            try:
                sock.ping()
            except Exception:
                log.exception("ping failed")
        return len(live)

    def _run(self) -> None:
        while not self._stop.wait(self.interval / SLICES):
            with span("pinger slice"):
                self.tick()


def send_ping(ws: Any) -> bool:
    """Ping a simple-websocket socket from its writer; False if the last ping is unanswered
    (close it with `close_unanswered`)."""
    return ping_if_answered(ws)


def close_unanswered(ws: Any) -> None:
    """Close a socket whose peer stopped answering pings, and wake its reader."""
    try:
        ws.close(reason=CLOSE_POLICY, message="Ping/Pong timeout")
    except (ConnectionClosed, OSError):
        pass
    shutdown(ws)
    wake_reader(ws)
