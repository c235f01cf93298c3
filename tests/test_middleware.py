"""WSGI middleware: the websocket compression offer is dropped before the handshake."""

from __future__ import annotations

from server.api.middleware import DeclineWebSocketCompression


def seen_environ(environ: dict) -> dict:
    seen: dict = {}

    def app(env, start_response):
        seen.update(env)
        return []

    DeclineWebSocketCompression(app)(environ, lambda *a: None)
    return seen


def test_upgrade_requests_lose_the_extensions_header():
    env = seen_environ(
        {"HTTP_UPGRADE": "WebSocket", "HTTP_SEC_WEBSOCKET_EXTENSIONS": "permessage-deflate"}
    )
    assert "HTTP_SEC_WEBSOCKET_EXTENSIONS" not in env


def test_other_requests_are_untouched():
    env = seen_environ({"HTTP_SEC_WEBSOCKET_EXTENSIONS": "x", "PATH_INFO": "/"})
    assert env["HTTP_SEC_WEBSOCKET_EXTENSIONS"] == "x"
