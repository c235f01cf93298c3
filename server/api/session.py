"""One websocket session for the table socket and the judges' floor socket alike.

- **The reader** (`GuardedServer`): simple-websocket's reader thread reads 4 KiB at a time and
  parses every frame already buffered before it reads again; under gevent a `recv` that finds
  data returns without switching, so a client that keeps the buffer full (a flood of text,
  pings, binary, garbage) keeps the worker's only thread in that loop: nothing else runs, not
  even the flood limit or the heartbeat. This reader counts every frame (control frames and
  fragments too) and every byte against the socket's budget **before** anything parses the
  JSON, closes the socket (1008) as soon as the budget is spent, and yields to the loop after
  every read and every `YIELD_EVERY` frames.
- **The writer** (`DeadlineSocket`): one thread per socket writes; a write that cannot finish
  within `WS_WRITE_TIMEOUT_SECONDS` closes the socket, and its kernel buffer is bounded.
- **Budgets per identity** (`Sessions`, `server/api/sockets.py`): sockets per client address,
  spectators per table, live sockets per seat (the oldest is closed) and a seat's message
  budget shared by its sockets.

The only place that touches simple-websocket's internals is `GuardedServer`
(`tests/test_session.py` fails if the methods it replaces change upstream).
"""

from __future__ import annotations

import logging
import queue
import select
import socket
import threading
import time
import weakref
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterator
from functools import wraps
from typing import Any

from flask import Blueprint, Response, current_app, request
from simple_websocket import ConnectionClosed
from wsproto.events import BytesMessage, Ping, Pong, TextMessage
from wsproto.utilities import LocalProtocolError

from server.core.compat import (
    ReplacedReader,
    clear_pong,
    drop_queued,
    feed,
    pong_received,
    queued,
    raw_socket,
    recv_chunk,
    replace_socket,
    serving_mode,
    shutdown,
    wake_reader,
    wrap_connection,
)
from server.core.errors import error_body
from server.core.jsontext import phone_text
from server.runtime.memtrim import TRIMMER

from .buckets import TokenBucket
from .context import services
from .keepalive import CLOSE_POLICY, Pinger, send_ping
from .opens import pass_budget
from .sockets import Sessions

log = logging.getLogger(__name__)
encode = phone_text

YIELD_EVERY = 8  # frames parsed between two yields to the loop
MAX_QUEUED = 64  # messages read and not yet handled: past it the handler cannot keep up


def yield_now() -> None:
    """Let the other green threads run (gevent patches `time.sleep`)."""
    time.sleep(0)


class FrameBudget:
    """Frames (data, control, fragments) and bytes a socket may send: two token buckets."""

    def __init__(self, config: dict[str, Any]) -> None:
        self.frames = TokenBucket(config["WS_FRAMES_PER_SECOND"], config["WS_FRAMES_BURST"])
        self.bytes = TokenBucket(config["WS_BYTES_PER_SECOND"], config["WS_BYTES_BURST"])

    def take_bytes(self, n: int) -> bool:
        return self.bytes.take(n)

    def take_frame(self) -> bool:
        return self.frames.take()


class _CountedConnection:
    """wsproto's connection, whose `events()` spends the budget on each frame and yields to
    the loop every few frames; everything else passes through."""

    def __init__(self, raw: Any, owner: GuardedServer) -> None:
        self._raw = raw
        # Weak: the owner holds this connection (`owner.ws`), a cycle otherwise.
        self._owner = weakref.ref(owner)

    def events(self) -> Iterator[Any]:
        owner = self._owner()
        if owner is None:  # the socket is gone: nothing more is read for it
            return
        for n, event in enumerate(self._raw.events(), start=1):
            if isinstance(event, TextMessage | BytesMessage | Ping | Pong):
                if not owner.budget.take_frame() or queued(owner) > MAX_QUEUED:
                    owner.over_budget = "too many frames"
                    return
            yield event
            if n % YIELD_EVERY == 0:
                yield_now()

    def __getattr__(self, name: str) -> Any:
        return getattr(self._raw, name)


class GuardedServer(ReplacedReader):
    """simple-websocket's server socket with a reader that spends a budget and yields."""

    budget: FrameBudget
    over_budget: str | None = None

    def __init__(self, environ: dict[str, Any], budget: FrameBudget, **options: Any) -> None:
        self.budget = budget
        super().__init__(environ, **options)

    connected: bool

    def handshake(self) -> None:
        super().handshake()
        wrap_connection(self, lambda raw: _CountedConnection(raw, self))

    def read_loop(self) -> None:
        """The library's reader (`Base._thread`, pinned in tests/test_compat.py) without its
        timed pings, spending the budget and yielding after every read."""
        parse = feed(self)
        while self.connected:
            try:
                data = recv_chunk(self)
                if not data:
                    raise OSError()
                if not self.budget.take_bytes(len(data)):
                    self.over_budget = "too many bytes"
                else:
                    self.connected = parse(data)
            except (OSError, LocalProtocolError):
                self.connected = False
                wake_reader(self)
                break
            if self.over_budget:
                self.cut_off(CLOSE_POLICY, self.over_budget)
                break
            yield_now()
        try:
            raw_socket(self).close()
        except OSError:
            pass

    def cut_off(self, code: int, reason: str) -> None:
        """Close now: a close frame if it can go, then the socket; wake the handler. Whatever
        the client sent and was not handled yet is dropped."""
        drop_queued(self)
        if self.connected:
            try:
                self.close(reason=code, message=reason)
            except (ConnectionClosed, OSError, LocalProtocolError):
                pass
        self.connected = False
        shutdown(self)
        wake_reader(self)


class WriteTimeout(OSError):
    """A write waited too long for the peer to read."""


class DeadlineSocket:
    """The socket as its writer sees it: `send` writes everything or, if the peer has not
    taken it within `timeout` seconds, raises `WriteTimeout` (a partial frame would corrupt
    the stream, so the socket is then shut down)."""

    def __init__(self, raw: Any, timeout: float, send_buffer: int) -> None:
        self._raw = raw
        self.timeout = timeout
        if send_buffer > 0:
            try:
                raw.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, send_buffer)
            except OSError:
                pass

    def send(self, data: bytes) -> int:
        # One send first: a frame usually fits the socket's buffer.
        view = memoryview(data)
        sent = self._raw.send(view)
        deadline = time.monotonic() + self.timeout
        while sent < len(data):
            left = deadline - time.monotonic()
            ready = left > 0 and select.select([], [self._raw], [], left)[1]
            if not ready:
                try:
                    self._raw.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass
                raise WriteTimeout("write blocked")
            sent += self._raw.send(view[sent:])
        return len(data)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._raw, name)


class WebSocketResponse(Response):
    """The answer after a websocket ends: nothing more to write (one class for all sockets; a
    class made per request is a reference cycle holding its socket through its closure)."""

    def __init__(self, mode: str) -> None:
        super().__init__()
        self.mode = mode

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        if self.mode == "gunicorn":
            raise StopIteration()
        if self.mode == "werkzeug":
            return super().__call__(*args, **kwargs)
        return []


def websocket_route(bp: Blueprint, path: str) -> Callable[[Callable[..., None]], Any]:
    """Like `flask_sock.Sock.route`, with `GuardedServer` and `DeadlineSocket`: the view gets
    the socket, then the URL's values."""

    def decorator(view: Callable[..., None]) -> Callable[..., Any]:
        @wraps(view)
        def endpoint(*args: Any, **kwargs: Any) -> Response:
            config = current_app.config
            # A seated phone's pass (`?pass=`) spends its seat's open budget, not its address's.
            given = request.args.get("pass", "")
            seat = pass_budget(str(kwargs.get("code", "")), given) if given else None
            if not sessions().opens.admit(request.remote_addr or "?", seat):
                return busy()
            options = dict(config.get("SOCK_SERVER_OPTIONS", {}))
            ws = GuardedServer(request.environ, FrameBudget(config), **options)
            timeout, buffer = config["WS_WRITE_TIMEOUT_SECONDS"], config["WS_SEND_BUFFER_BYTES"]
            replace_socket(ws, lambda raw: DeadlineSocket(raw, timeout, buffer))
            try:
                view(ws, *args, **kwargs)
            except ConnectionClosed:
                pass
            try:
                ws.close()
            except Exception:  # noqa: BLE001 - already closed, or the peer is gone
                pass

            return WebSocketResponse(serving_mode(ws))

        bp.route(path, websocket=True)(endpoint)
        return endpoint

    return decorator


def busy() -> Response:
    """The answer to an open past the budget, before any upgrade: 503, and a Retry-After of one
    to three seconds, spread so refused phones do not all come back in the same second."""
    response = Response(phone_text({"error": error_body("busy")}), 503, mimetype="application/json")
    response.headers["Retry-After"] = str(1 + time.monotonic_ns() % 3)
    return response


# -- the session ------------------------------------------------------------------------------


class Session(ABC):
    """One socket: its reader loop (this thread), its single writer (a thread draining a
    bounded queue), keep-alive pings through that writer, and its close.

    Subclasses say what a message does (`handle`), what their own queued kinds write
    (`write`), and what to undo at the end (`finish`). A subclass that waits for `hello` sets
    `ready` once it came; until then the socket has `WS_HELLO_SECONDS`."""

    needs_hello = False
    name = "ws"

    def __init__(self, ws: GuardedServer, config: dict[str, Any], pinger: Pinger | None) -> None:
        self.ws = ws
        self.pinger = pinger
        self.ready = not self.needs_hello
        self.hello_seconds = config["WS_HELLO_SECONDS"]
        self.outbox: queue.Queue[tuple[str, Any] | None] = queue.Queue(config["WS_MAX_QUEUED"])
        self.writer = threading.Thread(target=self._write_loop, name=f"{self.name}-writer")
        self.alive = True

    # -- what a subclass provides --------------------------------------------------------------

    @abstractmethod
    def handle(self, raw: str | bytes) -> bool:
        """Handle one message from the client; False closes the socket."""

    def write(self, kind: str, payload: Any) -> None:  # noqa: B027 - an optional hook
        """Write a queued item of the subclass's own `kind` (on the writer thread)."""

    def finish(self) -> None:  # noqa: B027 - an optional hook
        """Undo what the session holds (subscriptions, budgets): the socket is closing."""

    def started(self) -> None:  # noqa: B027 - an optional hook
        """Called on the reader's thread once the writer runs (before the first message)."""

    # -- the writer ----------------------------------------------------------------------------

    def cut_off(self, code: int, reason: str) -> None:
        """Close from outside the socket's threads (a newer socket of the seat, a full queue)."""
        self.alive = False
        self.ws.cut_off(code, reason)

    def queue(self, kind: str, payload: Any = None) -> None:
        """Queue for the writer; a socket whose writer is this far behind is closed."""
        try:
            self.outbox.put_nowait((kind, payload))
        except queue.Full:
            self.cut_off(CLOSE_POLICY, "too slow to read")

    def send(self, message: dict[str, Any]) -> None:
        """Queue a message for the writer."""
        self.queue("send", message)

    def ping(self) -> None:
        """Queue a keep-alive ping (`keepalive.Pinger`): the writer sends it between frames."""
        clear_pong(self.ws)
        self.queue("ping")

    def answered(self) -> bool:
        """Whether the pong of the last ping came (`keepalive.Pinger`)."""
        return pong_received(self.ws)

    def expire(self) -> None:
        """The pong did not come in time: close, on a thread of its own (the close frame may
        wait for a peer that does not read; the pinger must not)."""
        threading.Thread(
            target=self.cut_off, args=(CLOSE_POLICY, "Ping/Pong timeout"), daemon=True
        ).start()

    def _write_loop(self) -> None:
        while True:
            item = self.outbox.get()
            if item is None:
                return
            kind, payload = item
            try:
                if kind == "send":
                    self.ws.send(encode(payload))
                elif kind == "ping":
                    send_ping(self.ws)
                else:
                    self.write(kind, payload)
            except (ConnectionClosed, OSError, LocalProtocolError):
                # The peer has gone or closed (wsproto refuses to send after its close): a
                # normal end of the socket, not an error of the server.
                self.alive = False
                self.ws.cut_off(CLOSE_POLICY, "write failed")
                return
            except Exception:
                log.exception("websocket writer failed (%s)", self.name)
                try:
                    self.ws.send(encode({"type": "error", "error": error_body("internal")}))
                except Exception:
                    self.alive = False
                    return

    def stop_writer(self) -> None:
        """Let the writer send what is queued, then end it."""
        try:
            self.outbox.put(None, timeout=1)
        except queue.Full:
            self.cut_off(CLOSE_POLICY, "too slow to read")
            self.outbox = queue.Queue()
            self.outbox.put(None)
        if self.writer.is_alive():
            self.writer.join(timeout=raw_socket(self.ws).timeout + 2)

    def close(self, code: int, reason: str) -> None:
        """Flush what is queued (an error frame), then the close frame."""
        self.stop_writer()
        try:
            self.ws.close(reason=code, message=reason)
        except (ConnectionClosed, OSError):
            pass

    # -- the reader ----------------------------------------------------------------------------

    def run(self) -> None:
        """Serve the socket until it closes."""
        self.writer.start()
        if self.pinger is not None:
            self.pinger.add(self)
        hello_by = time.monotonic() + self.hello_seconds
        try:
            self.started()
            while self.alive:
                if self.ready:
                    raw = self.ws.receive()
                else:
                    raw = self.ws.receive(timeout=max(0.0, hello_by - time.monotonic()))
                    if raw is None and not self.ready:
                        self.close(CLOSE_POLICY, "no hello")
                        break
                if raw is None:
                    continue
                try:
                    if not self.handle(raw):
                        break
                except Exception:
                    log.exception("websocket message failed (%s)", self.name)
                    self.send({"type": "error", "error": error_body("internal")})
        finally:
            if self.pinger is not None:
                self.pinger.discard(self)
            try:
                self.finish()
            finally:
                self.stop_writer()
                TRIMMER.closed()  # a burst of closes: give the freed heap back


def sessions() -> Sessions:
    """The current app's `Sessions` (`Services.sessions`)."""
    return services().sessions
