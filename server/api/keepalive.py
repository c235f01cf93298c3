"""Server pings, so idle sockets survive proxies: one green thread for every socket.

simple-websocket can ping each socket itself (its `ping_interval`), but then each socket's reader
waits on a selector with a timeout at every wake: measured at 2,500 tables that was 5-8% of the
worker's CPU, more than the pings themselves. Here one thread walks the sockets in slices, so
each socket is pinged about every `interval` seconds and the pings of thousands of sockets are
spread over the interval. The browser's own websocket answers pings by itself.

A socket is also pinged as soon as it opens, and a ping not answered within `pong_seconds`
closes the socket (1008): that is how the server notices a peer that does not read (its pong
never comes, however little the server sends it), within `pong_seconds` of its first ping
(the deadline is checked every `EXPIRE_EVERY` seconds). A phone on bad Wi-Fi answers once the
radio is back: TCP retransmits the ping, and after a 3 s gap its backed-off timer fires at most
about 3 s later, so the default (8 s) keeps such a phone; one that is cut anyway reconnects and
resyncs.
"""

from __future__ import annotations

import logging
import threading
import time
from typing import Any, Protocol

from server.core.compat import send_ping_frame
from server.runtime.stalls import span

log = logging.getLogger(__name__)

SLICES = 20
EXPIRE_EVERY = 0.25  # seconds between two looks at the pongs due
# A websocket closed for breaking policy: no pong, a flood, a refused origin (RFC 6455).
CLOSE_POLICY = 1008


class Pingable(Protocol):
    def ping(self) -> None:
        """Queue a ping for the socket's writer (or send it, if the caller is the writer)."""

    def answered(self) -> bool:
        """Whether the last ping's pong came."""

    def expire(self) -> None:
        """Close the socket: its pong did not come in time."""


class Pinger:
    """Ping every added socket about every `interval` seconds until stopped."""

    def __init__(self, interval: float, pong_seconds: float = 0) -> None:
        self.interval = interval
        self.pong_seconds = pong_seconds or interval
        self._sockets: set[Pingable] = set()
        # Sockets pinged and not answered yet, with the time their pong is due.
        self._waiting: dict[Pingable, float] = {}
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        # This round's sockets, and how far it has got: a copy made once a round, not a
        # shorter copy every tick (thousands of references for the collector to walk).
        self._round: list[Pingable] = []
        self._next = 0
        self._per_tick = 0

    def add(self, sock: Pingable) -> None:
        """Watch `sock`, and ping it now (its pong is due within `pong_seconds`)."""
        with self._lock:
            self._sockets.add(sock)
            if self._thread is None and not self._stop.is_set():
                self._thread = threading.Thread(target=self._run, name="ws-pinger", daemon=True)
                self._thread.start()
        self._ping([sock])

    def discard(self, sock: Pingable) -> None:
        with self._lock:
            self._sockets.discard(sock)
            self._waiting.pop(sock, None)

    def _ping(self, socks: list[Pingable]) -> None:
        due = time.monotonic() + self.pong_seconds
        for sock in socks:
            with self._lock:
                if sock in self._waiting:
                    continue  # the last ping is still out: its deadline stands
                self._waiting[sock] = due
            try:
                sock.ping()
            except Exception:
                log.exception("ping failed")

    def expire(self) -> int:
        """Close the sockets whose pong is overdue; how many."""
        now = time.monotonic()
        with self._lock:
            overdue = []
            for sock, due in list(self._waiting.items()):
                if sock.answered():
                    del self._waiting[sock]
                elif due <= now:
                    del self._waiting[sock]
                    self._sockets.discard(sock)
                    overdue.append(sock)
        for sock in overdue:
            try:
                sock.expire()
            except Exception:
                log.exception("closing an unanswered socket failed")
        return len(overdue)

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
        self._ping(live)
        return len(live)

    def _run(self) -> None:
        step = self.interval / SLICES
        next_tick = time.monotonic() + step
        while not self._stop.wait(min(step, EXPIRE_EVERY)):
            self.expire()
            if time.monotonic() >= next_tick:
                next_tick += step
                with span("pinger slice"):
                    self.tick()


def send_ping(ws: Any) -> None:
    """Ping a simple-websocket socket from its writer (the caller cleared its pong flag)."""
    send_ping_frame(ws)
