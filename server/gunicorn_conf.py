"""Gunicorn settings used by `make run` and `python -m server serve`.

One gevent worker holds thousands of websockets (each is a greenlet, about 40 KiB). The gevent
worker monkey-patches the standard library itself, after the fork and before it imports the
app, so this file imports nothing of the app and the app is never preloaded in the master.
"""

import os

bind = f"{os.environ.get('HOST', '0.0.0.0')}:{os.environ.get('PORT', '8000')}"
wsgi_app = "server:create_app()"
worker_class = "gevent"
workers = int(os.environ.get("WEB_CONCURRENCY", "1"))
# gevent's default is 1000 connections a worker; a tournament hall needs more sockets than that.
worker_connections = 10000
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
