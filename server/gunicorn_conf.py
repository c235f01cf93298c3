"""Gunicorn settings used by `make run` and `python -m server serve`.

One gevent worker holds thousands of websockets (each is a greenlet, about 40 KiB). The gevent
worker monkey-patches the standard library itself, after the fork and before it imports the
app, so this file imports nothing of the app and the app is never preloaded in the master.
"""

import importlib.util
import os
import resource
from pathlib import Path

bind = f"{os.environ.get('HOST', '0.0.0.0')}:{os.environ.get('PORT', '8000')}"
wsgi_app = "server:create_app()"
worker_class = "gevent"
workers = int(os.environ.get("WEB_CONCURRENCY", "1"))
# gevent's default is 1000 connections a worker; a tournament hall needs more sockets than that:
# 5,000 tables are 10,000 phone sockets before judges, spectators and HTTP requests.
worker_connections = 12000

# Every socket is a file descriptor, and the usual soft limit is 1,024: raise it to the hard one.
_soft, _hard = resource.getrlimit(resource.RLIMIT_NOFILE)
if _hard == resource.RLIM_INFINITY:
    _hard = 1 << 20
if _soft != resource.RLIM_INFINITY and _soft < _hard:
    try:
        resource.setrlimit(resource.RLIMIT_NOFILE, (_hard, _hard))
    except (ValueError, OSError):
        pass
preload_app = False
timeout = 30
graceful_timeout = 10
keepalive = 5
accesslog = os.environ.get("ACCESS_LOG", "-") or None
errorlog = "-"
loglevel = os.environ.get("LOG_LEVEL", "info").lower()
# gunicorn's control socket has one default path per user, which two servers on one machine
# (a test run beside `make run`) would fight over: only on request.
control_socket = os.environ.get("GUNICORN_CONTROL_SOCKET", "") or "gunicorn.ctl"
control_socket_disable = not os.environ.get("GUNICORN_CONTROL_SOCKET")


def post_fork(server, worker):
    """Make psycopg2 wait on gevent instead of blocking the worker's only thread."""
    if os.environ.get("DATABASE_URL", "").startswith(("postgres://", "postgresql")):
        from psycogreen.gevent import patch_psycopg

        patch_psycopg()


def post_worker_init(worker):
    """Collector thresholds for a long-lived worker (`runtime/gctune.py`); after gevent's patch,
    so the periodic full collection runs on a green thread."""
    from server.runtime import gctune

    # The full collection waits for a quiet minute, measured in the tables' turns.
    gctune.tune(gctune.full_seconds_from_env(), young_every=gctune.young_seconds_from_env())


def when_ready(server):
    """Say where to open the app, on this computer and on a phone on the same network, as web
    development servers do (`server/core/addresses.py`, loaded by its path: nothing of the app is
    imported in the master)."""
    spec = importlib.util.spec_from_file_location(
        "duel_table_addresses", Path(__file__).parent / "core" / "addresses.py"
    )
    if spec is None or spec.loader is None:
        return
    addresses = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(addresses)
    host = os.environ.get("HOST", "0.0.0.0")
    port = int(os.environ.get("PORT", "8000"))
    public_url = os.environ.get("PUBLIC_URL", "").strip()
    print(addresses.banner(port, host, public_url), flush=True)
