"""The bare relay: the server stack of Duel Table with nothing of Duel Table in it.

Flask + flask-sock under gunicorn's gevent worker (the project's server/gunicorn_conf.py), the
client's permessage-deflate offer declined the same way as the real server, no database. Each
message a socket sends is relayed as is to the other sockets of the same table. `python -m bench`
measures it at the same load as the real server: the floor the server's latency is judged by.

    gunicorn -c server/gunicorn_conf.py 'bench.relay:create_app()'
"""

from __future__ import annotations

from typing import Any

from flask import Flask
from flask_sock import Sock
from simple_websocket import ConnectionClosed

from server.middleware import DeclineWebSocketCompression


def create_app() -> Flask:
    app = Flask(__name__)
    # The same socket options as the real server's defaults (WS_PING_SECONDS, message size).
    app.config["SOCK_SERVER_OPTIONS"] = {"ping_interval": 20, "max_message_size": 8192}
    sock = Sock(app)
    tables: dict[str, list[Any]] = {}

    @app.get("/health")
    def health() -> dict[str, bool]:
        return {"ok": True}

    @sock.route("/ws/table/<code>")
    def relay(ws: Any, code: str) -> None:
        peers = tables.setdefault(code, [])
        peers.append(ws)
        try:
            while True:
                message = ws.receive()
                if message is None:
                    continue
                for peer in list(peers):
                    if peer is not ws:
                        try:
                            peer.send(message)
                        except (ConnectionClosed, OSError):
                            pass
        except ConnectionClosed:
            pass
        finally:
            peers.remove(ws)
            if not peers:
                tables.pop(code, None)

    app.wsgi_app = DeclineWebSocketCompression(app.wsgi_app)  # type: ignore[method-assign]
    return app
