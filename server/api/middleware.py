"""WSGI middleware."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from typing import Any

WSGIApp = Callable[[dict[str, Any], Callable[..., Any]], Iterable[bytes]]


class DeclineWebSocketCompression:
    """Drop `Sec-WebSocket-Extensions` from websocket upgrade requests.

    simple-websocket accepts any permessage-deflate offer and has no setting to refuse it.
    Measured with 5,000 sockets, deflate raised p99 latency from 3.6 ms to 90 ms and memory
    threefold (about 100 KiB of zlib state per socket), for ~150-byte messages that barely
    compress. Without the header the handshake simply agrees on no extension.
    """

    def __init__(self, app: WSGIApp) -> None:
        self.app = app

    def __call__(self, environ: dict[str, Any], start_response: Callable[..., Any]):
        if environ.get("HTTP_UPGRADE", "").lower() == "websocket":
            environ.pop("HTTP_SEC_WEBSOCKET_EXTENSIONS", None)
        return self.app(environ, start_response)


# An unread body's rest up to this size is left to the server to read and discard before the
# connection's next request (a moment's work); past it, or of unknown size, the connection closes.
DRAIN_BOUND = 65536


class _CountedInput:
    """A request body stream that remembers how much of it was read, and whether to its end."""

    def __init__(self, stream: Any) -> None:
        self.stream = stream
        self.read_bytes = 0
        self.ended = False

    def _seen(self, data: bytes, asked: int | None) -> bytes:
        self.read_bytes += len(data)
        if not data and asked != 0:
            self.ended = True
        return data

    def read(self, size: int | None = -1) -> bytes:
        """Read as the wrapped stream does, counting."""
        return self._seen(self.stream.read(size), size)

    def readline(self, size: int | None = -1) -> bytes:
        """Read a line as the wrapped stream does, counting."""
        return self._seen(self.stream.readline(size), size)

    def readlines(self, hint: int | None = -1) -> list[bytes]:
        """All lines, counting."""
        lines = self.stream.readlines(hint)
        self.read_bytes += sum(len(line) for line in lines)
        if not hint or hint < 0:
            self.ended = True
        return lines

    def __iter__(self) -> Iterator[bytes]:
        while line := self.readline():
            yield line


class CloseOnUnreadBody:
    """Close the connection after an answer given before its request's body was read.

    A route may answer (401, 403, 404, 429...) without reading the body it was sent. The server
    (gunicorn) then reads and discards the rest of that body to reach the connection's next
    request, in one loop that never yields while the sender keeps sending: one client with a
    2 GB Content-Length froze the only worker until it was killed, chunked senders froze it for
    seconds. Here, when the answer starts with more than `DRAIN_BOUND` bytes of its body unread,
    or any of a body without a length (`Transfer-Encoding: chunked`), the answer says
    `Connection: close` and nothing more is read: whatever the route, method or status.
    """

    def __init__(self, app: WSGIApp) -> None:
        self.app = app

    def __call__(self, environ: dict[str, Any], start_response: Callable[..., Any]):
        chunked = "chunked" in environ.get("HTTP_TRANSFER_ENCODING", "").lower()
        try:
            length = int(environ.get("CONTENT_LENGTH") or 0)
        except ValueError:
            length = 0
        stream = environ.get("wsgi.input")
        if stream is None or (length <= 0 and not chunked):
            return self.app(environ, start_response)
        counted = _CountedInput(stream)
        environ["wsgi.input"] = counted

        def start(status: str, headers: list[tuple[str, str]], exc_info: Any = None) -> Any:
            unread = not counted.ended and (chunked or length - counted.read_bytes > DRAIN_BOUND)
            if unread:
                close_connection(start_response, stream)
            return start_response(status, headers, exc_info)

        return self.app(environ, start)


def close_connection(start_response: Callable[..., Any], stream: Any) -> None:
    """Have the server close this connection once the answer is sent, without reading the rest of
    the request's body: gunicorn's response (`start_response`'s owner) is told to close, and its
    body marked as failed, which gunicorn's parser takes as "where the next request starts is
    unknown". (Both pinned in requirements.lock; `tests/test_unread_bodies.py` runs the real
    server.)"""
    force_close = getattr(getattr(start_response, "__self__", None), "force_close", None)
    if callable(force_close):
        force_close()
    if hasattr(stream, "failed"):
        stream.failed = True
