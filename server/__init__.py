"""Duel Table server: `create_app` builds the Flask app; `python -m server` serves it."""

from __future__ import annotations

import logging
import secrets
from collections.abc import Callable
from typing import Any

from flask import Flask

from server.api.context import Services, now_ms, services
from server.service.hub import Hub
from server.service.lists import Lists
from server.service.storage import EventStore
from server.service.tournament import Tournament

__all__ = [
    "Services",
    "build_services",
    "create_app",
    "now_ms",
    "script_lists",
    "script_tournament",
    "services",
]


def build_services(
    config: dict[str, Any], store: EventStore, hub: Hub, clock: Callable[[], int]
) -> Services:
    """Every service of one app, built here and nowhere else (the composition root): the table
    service over the store and the hub, the tournament and Swiss services over it, the seat
    service, the event pages' cache and the floor's feeds over those, and the edge's per-app
    limiters and socket registry. Each gets what it uses; none looks another up."""
    from server.api.buckets import KeyedLimiter
    from server.api.floor_feeds import FeedRegistry
    from server.api.logins import LoginThrottle
    from server.api.sockets import Sessions
    from server.projections.event import EventCache, project
    from server.runtime.offload import Offload
    from server.service.lists import Lists
    from server.service.seats import SeatService
    from server.service.swiss import SwissService
    from server.service.tables import TableService
    from server.service.tournament import Tournament

    offload = Offload()
    tables = TableService(store, hub)
    tournament = Tournament(store, config["PASSWORD_HASH_METHOD"], offload, tables)
    swiss = SwissService(store, tournament, config.get("SWISS_SEED"))
    events = EventCache(
        lambda event_id: project(swiss, tournament, event_id),
        part=swiss.part_now,
        min_seconds=config["PROJECTION_REBUILD_SECONDS"],
    )
    events.hub = hub
    # Through the table service, the one publisher: every process hears "event:<id>".
    events.announce = lambda key: tables.announce({key: 0})
    floor = FeedRegistry(tournament, tables, hub, clock, config.get("FLOOR_INTERVAL_MS", 500))
    # A paired seat still empty this long after the round's start is a no-show (tardiness).
    floor.no_show_ms = config.get("NO_SHOW_MINUTES", 5) * 60_000
    creates = int(config.get("CASUAL_TABLES_PER_ADDRESS_PER_HOUR", 60))
    asks = int(config.get("SEAT_REQUESTS_PER_ADDRESS_PER_MINUTE", 6))
    misses = config.get("HTTP_MISS_PER_MINUTE", 30)
    return Services(
        tables=tables,
        tournament=tournament,
        swiss=swiss,
        seats=SeatService(tables, tournament, config, clock),
        lists=Lists(),
        hub=hub,
        clock=clock,
        http_limiter=KeyedLimiter(config["HTTP_RATE_PER_MINUTE"] / 60, config["HTTP_RATE_BURST"]),
        events=events,
        floor=floor,
        logins=LoginThrottle(config),
        sessions=Sessions(config),
        misses=KeyedLimiter(misses / 60, config.get("HTTP_MISS_BURST", 30)),
        table_creates=KeyedLimiter(creates / 3600, creates) if creates else None,
        seat_asks=KeyedLimiter(asks / 60, asks) if asks else None,
        offload=offload,
    )


def create_app(config: dict[str, Any] | None = None) -> Flask:
    """Build the app: defaults, then the environment, then `config` (a test's overrides)."""
    from werkzeug.middleware.proxy_fix import ProxyFix

    from server.api import (
        access,
        decklists,
        event_decks,
        event_page,
        floor_ws,
        http,
        openapi,
        overlay,
        protocol_schema,
        running,
        seats,
        sheets,
        staff,
        swiss,
        web,
        ws,
    )
    from server.api.keepalive import Pinger
    from server.api.middleware import CloseOnUnreadBody, DeclineWebSocketCompression
    from server.core import config as settings
    from server.service.hub import make_hub
    from server.service.storage import load_keys, open_store, start_auditor
    from server.service.timer import Timer

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
    # The database, its schema brought up to date (server/store/migrations.py).
    store, checkpointer = open_store(app.config)
    clock = app.config.get("CLOCK") or now_ms
    hub = make_hub(app.config["REDIS_URL"])
    app.extensions["duel_table"] = found = build_services(app.config, store, hub, clock)
    found.checkpointer = checkpointer
    if app.config["WS_PING_SECONDS"] > 0:
        found.pinger = Pinger(app.config["WS_PING_SECONDS"], app.config["WS_PONG_SECONDS"])

    access.init_app(app, found)
    http.init_app(app)
    ws.init_app(app)
    staff.init_app(app)
    swiss.init_app(app)
    decklists.init_app(app)
    event_decks.init_app(app)
    floor_ws.init_app(app)
    running.init_app(app)
    event_page.init_app(app)
    sheets.init_app(app)
    seats.init_app(app)
    openapi.init_app(app)
    protocol_schema.init_app(app)
    overlay.init_app(app)
    web.init_app(app)

    # The record proves itself: signed heads, and alarms for a log changed under the cache.
    load_keys(store, app.config, clock())
    if app.config["TIMER_ENABLED"]:
        found.timer = Timer(found.tables, clock, app.config["TIMER_INTERVAL_MS"])
        found.timer.start()
        found.auditor = start_auditor(found.tables, clock)

    if app.config["STALL_REPORT"]:
        from server.runtime import stalls

        stalls.start(
            app.config["STALL_REPORT"],
            {
                "DATABASE": "sqlite" if not app.config["DATABASE_URL"] else "url",
                "SQLITE_CHECKPOINT_MS": checkpoint_ms,
                "checkpointer": found.checkpointer is not None,
                "TIMER_ENABLED": app.config["TIMER_ENABLED"],
                "TIMER_INTERVAL_MS": app.config["TIMER_INTERVAL_MS"],
            },
        )

    app.wsgi_app = DeclineWebSocketCompression(app.wsgi_app)  # type: ignore[method-assign]
    if app.config["PROXY_COUNT"]:
        count = app.config["PROXY_COUNT"]
        app.wsgi_app = ProxyFix(  # type: ignore[method-assign]
            app.wsgi_app, x_for=count, x_proto=count, x_host=count
        )
    # Outermost: whatever answers, a body left unread is never drained in one go.
    app.wsgi_app = CloseOnUnreadBody(app.wsgi_app)  # type: ignore[method-assign]
    return app


def script_tournament(config: dict[str, Any]) -> Tournament:
    """The tournament service of a command-line script (accounts only: no tables, its own pool
    for password hashes); a bad `PASSWORD_HASH_METHOD` raises ValueError here."""
    return Tournament(None, config["PASSWORD_HASH_METHOD"])  # type: ignore[arg-type]


def script_lists() -> Lists:
    """The ban lists and card names of a command-line script (`server/cli/`)."""
    return Lists()
