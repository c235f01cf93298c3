"""The bare relay: the server stack of Duel Table with nothing of Duel Table in it.

Flask + flask-sock under gunicorn's gevent worker (the project's server/gunicorn_conf.py), the
client's permessage-deflate offer declined the same way as the real server, no database. Each
message a socket sends is relayed as is to the other sockets of the same table, but for the phones'
heartbeat: a ping is answered with a pong, as the server does. `python -m bench` measures it at the
same load as the real server: the floor the server's latency is judged by.

    gunicorn -c server/gunicorn_conf.py 'bench.relay:create_app()'
"""

from __future__ import annotations

import json
import threading
import time
from typing import Any

from flask import Flask
from flask_sock import Sock
from simple_websocket import ConnectionClosed

from server.api.keepalive import CLOSE_POLICY, Pinger, send_ping
from server.api.middleware import DeclineWebSocketCompression
from server.core.compat import clear_pong, pong_received

PING = '{"type": "ping"'  # how the bench's phones begin a ping (json.dumps)


def create_app() -> Flask:
    app = Flask(__name__)
    # The same socket options and keep-alive pings as the real server's defaults
    # (WS_MAX_MESSAGE_BYTES, WS_PING_SECONDS, WS_PONG_SECONDS: one pinger for every socket).
    app.config["SOCK_SERVER_OPTIONS"] = {"max_message_size": 8192}
    sock = Sock(app)
    tables: dict[str, list[Any]] = {}
    pinger = Pinger(20, pong_seconds=8)

    class Peer:
        """One socket and the lock that keeps its frames whole (its sends come from the other
        sockets' green threads and from the pinger)."""

        def __init__(self, ws: Any) -> None:
            self.ws, self.lock = ws, threading.Lock()

        def send(self, message: Any) -> None:
            with self.lock:
                self.ws.send(message)

        def ping(self) -> None:
            with self.lock:
                clear_pong(self.ws)
                send_ping(self.ws)

        def answered(self) -> bool:
            return pong_received(self.ws)

        def expire(self) -> None:
            threading.Thread(
                target=self.ws.close, args=(CLOSE_POLICY, "Ping/Pong timeout"), daemon=True
            ).start()

    @app.get("/health")
    def health() -> dict[str, bool]:
        return {"ok": True}

    @sock.route("/ws/table/<code>")
    def relay(ws: Any, code: str) -> None:
        peers = tables.setdefault(code, [])
        me = Peer(ws)
        peers.append(me)
        pinger.add(me)
        try:
            while True:
                message = ws.receive()
                if message is None:
                    continue
                if isinstance(message, str) and message.startswith(PING):
                    # The phones' heartbeat, answered as the server does (api/ws.py).
                    t = json.loads(message).get("t")
                    me.send(json.dumps({"type": "pong", "t": t, "now_ms": int(time.time() * 1000)}))
                    continue
                for peer in list(peers):
                    if peer is not me:
                        try:
                            peer.send(message)
                        except (ConnectionClosed, OSError):
                            pass
        except ConnectionClosed:
            pass
        finally:
            pinger.discard(me)
            peers.remove(me)
            if not peers:
                tables.pop(code, None)

    app.wsgi_app = DeclineWebSocketCompression(app.wsgi_app)  # type: ignore[method-assign]
    return app
