"""WSGI middleware."""

from __future__ import annotations

from collections.abc import Callable, Iterable
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
