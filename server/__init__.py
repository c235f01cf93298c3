"""Duel Table server: `create_app` builds the Flask app; `python -m server` serves it."""

from __future__ import annotations

import logging
import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from flask import Flask, current_app


def now_ms() -> int:
    """Server time in milliseconds since the Unix epoch."""
    return time.time_ns() // 1_000_000


@dataclass
class Services:
    """What the views need, bound to one app: the store, the hub, the clock, the timer."""

    store: Any
    hub: Any
    clock: Callable[[], int]
    http_limiter: Any = None
    timer: Any = None
    checkpointer: Any = None
    pinger: Any = None
    auditor: Any = None

    def close(self) -> None:
        """Stop the timer, the checkpointer, the pinger, the group committer and the hub (tests
        create many apps in one process)."""
        if self.timer is not None:
            self.timer.stop()
        if self.pinger is not None:
            self.pinger.stop()
        if self.auditor is not None:
            self.auditor.stop()
        if self.checkpointer is not None:
            self.checkpointer.stop()
        self.store.close()
        self.hub.close()


def services() -> Services:
    """The services of the current app."""
    return current_app.extensions["duel_table"]


def create_app(config: dict[str, Any] | None = None) -> Flask:
    """Build the app: defaults, then the environment, then `config` (a test's overrides)."""
    from werkzeug.middleware.proxy_fix import ProxyFix

    from server import config as settings
    from server.api import (
        access,
        decklists,
        floor_ws,
        http,
        openapi,
        seats,
        sheets,
        staff,
        web,
        ws,
    )
    from server.api.keepalive import Pinger
    from server.api.ratelimit import KeyedLimiter
    from server.hub import make_hub
    from server.middleware import DeclineWebSocketCompression
    from server.store import EventStore, bind, db, open_database
    from server.store.checkpoint import start_checkpointer
    from server.store.signing import Auditor, Signer, key_path
    from server.timer import Timer

    app = Flask(__name__, static_folder=None)
    app.config.update(settings.DEFAULTS)
    app.config.update(settings.from_env())
    app.config.update(config or {})
    if not app.config["SECRET_KEY"]:
        # Sessions then last as long as the process; set SECRET_KEY in production.
        app.config["SECRET_KEY"] = secrets.token_hex(32)
    # Pings come from one `Pinger` for all sockets (`server/api/keepalive.py`), not from each
    # socket's reader.
    app.config["SOCK_SERVER_OPTIONS"] = {"max_message_size": app.config["WS_MAX_MESSAGE_BYTES"]}
    logging.basicConfig(
        level=app.config["LOG_LEVEL"].upper(),
        format="%(asctime)s %(levelname)s %(name)s: %(message)s",
    )

    checkpoint_ms = app.config["SQLITE_CHECKPOINT_MS"]
    database = open_database(
        app.config["DATABASE_URL"], app.config["DATA_DIR"], autocheckpoint=checkpoint_ms <= 0
    )
    bind(database)
    store = EventStore(db, cache_size=app.config["STATE_CACHE_SIZE"])
    clock = app.config.get("CLOCK") or now_ms
    hub = make_hub(app.config["REDIS_URL"])
    limiter = KeyedLimiter(app.config["HTTP_RATE_PER_MINUTE"] / 60, app.config["HTTP_RATE_BURST"])
    app.extensions["duel_table"] = found = Services(store, hub, clock, limiter)
    found.checkpointer = start_checkpointer(database, checkpoint_ms)
    if app.config["WS_PING_SECONDS"] > 0:
        found.pinger = Pinger(app.config["WS_PING_SECONDS"])

    access.init_app(app)
    http.init_app(app)
    ws.init_app(app)
    staff.init_app(app)
    decklists.init_app(app)
    floor_ws.init_app(app)
    sheets.init_app(app)
    seats.init_app(app)
    openapi.init_app(app)
    web.init_app(app)

    # The record proves itself: signed heads, and alarms for a log changed under the cache.
    store.signer = Signer.load_or_create(key_path(app.config))
    store.on_alarm = hub.publish
    if app.config["TIMER_ENABLED"]:
        found.timer = Timer(store, hub, clock, app.config["TIMER_INTERVAL_MS"])
        found.timer.start()
        found.auditor = Auditor(store, clock)
        found.auditor.start()

    app.wsgi_app = DeclineWebSocketCompression(app.wsgi_app)  # type: ignore[method-assign]
    if app.config["PROXY_COUNT"]:
        count = app.config["PROXY_COUNT"]
        app.wsgi_app = ProxyFix(  # type: ignore[method-assign]
            app.wsgi_app, x_for=count, x_proto=count, x_host=count
        )
    return app
