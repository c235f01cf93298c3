"""Running a real server for tests: gunicorn with the gevent worker, as `make run` does."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent


def free_port() -> int:
    """A TCP port nobody listens on right now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class LiveServer(str):
    """The base URL of a running server (`http://127.0.0.1:<port>`), plus how it runs."""

    port: int
    ws_url: str
    data_dir: Path
    log_path: Path
    database_url: str  # empty: the SQLite file in data_dir

    def read_log(self) -> str:
        return self.log_path.read_text(errors="replace")


def as_the_server(store: Any, data_dir: Path, database_url: str) -> Any:
    """A test's own store writing to a live server's database as the server does: signed with
    its key and recorded in its heads ledger (`KEY_DIR` as `start_server` sets it), so the
    server's sheets verify what the test wrote."""
    from server.store.ledger import HeadLedger, ledger_path
    from server.store.signing import Signer

    keys = data_dir / "keys"
    store.signer = Signer.load(keys / "signing-key.pem")
    config = {"DATABASE_URL": database_url, "DATA_DIR": str(data_dir)}
    store.ledger = HeadLedger.open(ledger_path(config, keys), time.time_ns() // 1_000_000)
    return store


def start_server(
    data_dir: Path, database_url: str, extra_env: dict[str, str] | None = None
) -> tuple[LiveServer, subprocess.Popen]:
    """Start gunicorn with the gevent worker, as `make run` does; wait until it answers."""
    port = free_port()
    data_dir.mkdir(parents=True, exist_ok=True)
    log_path = data_dir / f"server-{port}.log"
    env = {
        **os.environ,
        "HOST": "127.0.0.1",
        "PORT": str(port),
        "DATA_DIR": str(data_dir),
        # A throwaway server's key and heads ledger in its own directory (not the user's).
        "KEY_DIR": str(data_dir / "keys"),
        # A test's public pages show a result at their next poll (no wait between rebuilds).
        "PROJECTION_REBUILD_SECONDS": "0",
        "DATABASE_URL": database_url,
        "REDIS_URL": "",
        "TIMER_INTERVAL_MS": "100",
        "HTTP_RATE_PER_MINUTE": "100000",
        "HTTP_RATE_BURST": "10000",
        # Every test's tables and seat requests come from one address (the bounds have tests of
        # their own: tests/test_table_expiry.py, tests/test_seat_request_expiry.py).
        "CASUAL_TABLES_PER_ADDRESS_PER_HOUR": "0",
        "SEAT_REQUESTS_PER_ADDRESS_PER_MINUTE": "0",
        # Nor refused a socket because a test machine's other work held the loop up
        # (tests/test_open_budget.py).
        "WS_OPENS_MAX_LAG_MS": "0",
        "ACCESS_LOG": "",
        **(extra_env or {}),
    }
    command = [sys.executable, "-m", "server", "serve"]
    with open(log_path, "ab") as log:
        process = subprocess.Popen(command, cwd=ROOT, env=env, stdout=log, stderr=log)
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 30
    while True:
        try:
            with urllib.request.urlopen(url + "/api/time", timeout=1):
                break
        except OSError:
            if process.poll() is not None or time.monotonic() > deadline:
                process.kill()
                raise RuntimeError("server did not start:\n" + log_path.read_text()) from None
            time.sleep(0.1)
    server = LiveServer(url)
    server.port = port
    server.ws_url = f"ws://127.0.0.1:{port}"
    server.data_dir = data_dir
    server.log_path = log_path
    server.database_url = database_url
    return server, process


def stop_server(process: subprocess.Popen) -> None:
    """Stop a server started by `start_server` (graceful, then forced)."""
    process.terminate()
    try:
        process.wait(timeout=15)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


def isolated_database(database_url: str, schema: str) -> str:
    """For PostgreSQL: a fresh schema of its own, so a server's timer (which ticks every table
    it can see, at real time) never touches the fixed-clock tables of in-process tests.
    SQLite (an empty URL) needs nothing: each server gets its own file."""
    if not database_url:
        return database_url
    import psycopg2

    connection = psycopg2.connect(database_url)
    try:
        connection.autocommit = True
        with connection.cursor() as cursor:
            cursor.execute(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE')
            cursor.execute(f'CREATE SCHEMA "{schema}"')
    finally:
        connection.close()
    separator = "&" if "?" in database_url else "?"
    return f"{database_url}{separator}options=-csearch_path%3D{schema}"


class SchemaCheck:
    """Every message a table socket's server sends, checked against the schema the server
    serves (`/api/protocol/schema.json`, docs/protocol.md): the socket tests install it on the
    `websockets` clients (tests/conftest.py), so a message the schema refuses fails the test
    that received it."""

    PATH = "/api/protocol/schema.json"

    def __init__(self) -> None:
        self._validators: dict[str, Any] = {}
        self._documents: dict[str, Any] = {}
        self.refused: list[str] = []
        self.checked = 0

    def validator(self, host: str) -> Any:
        """The served schema's validator of a server's messages, fetched once per server."""
        found = self._validators.get(host)
        if found is None:
            import json

            import jsonschema_rs

            with urllib.request.urlopen(f"http://{host}{self.PATH}", timeout=10) as answer:
                document = json.load(answer)
            server_message = {**document, "oneOf": [{"$ref": "#/$defs/server"}]}
            found = self._validators[host] = jsonschema_rs.validator_for(server_message)
            self._documents[host] = document
        return found

    def details(self, host: str, parsed: Any) -> list[str]:
        """What the schema of the message's own type refuses in it (a `oneOf` over every kind
        names no field)."""
        import jsonschema_rs

        document = self._documents[host]
        kind = f"server.{parsed.get('type')}" if isinstance(parsed, dict) else ""
        if kind not in document.get("$defs", {}):
            return []
        one = jsonschema_rs.validator_for({**document, "$ref": f"#/$defs/{kind}"})
        return [f"{e.message[:300]} at {'/'.join(map(str, e.instance_path))}" for e in
                one.iter_errors(parsed)]  # fmt: skip

    def check(self, request: Any, message: Any) -> None:
        """Check one received frame of a socket opened with `request` (its handshake)."""
        if request is None or not str(request.path).startswith("/ws/table/"):
            return
        if not isinstance(message, str):
            return
        import json

        try:
            parsed = json.loads(message)
        except ValueError:
            self.refused.append(f"not JSON: {message[:200]}")
            raise AssertionError(self.refused[-1]) from None
        validator = self.validator(request.headers["Host"])
        self.checked += 1
        errors = [f"{e.message} at {'/'.join(map(str, e.instance_path))}" for e in
                  validator.iter_errors(parsed)]  # fmt: skip
        if errors:
            errors = self.details(request.headers["Host"], parsed) or errors
            self.refused.append(f"{errors[:3]} in {message[:500]}")
            raise AssertionError("the protocol schema refuses: " + self.refused[-1])

    def install(self) -> Callable[[], None]:
        """Wrap the asyncio and sync clients' `recv`; returns what undoes it."""
        from websockets.asyncio.client import ClientConnection as AsyncConnection
        from websockets.sync.client import ClientConnection as SyncConnection

        check = self.check
        async_recv, sync_recv = AsyncConnection.recv, SyncConnection.recv

        async def recv_async(conn: Any, *args: Any, **kwargs: Any) -> Any:
            message = await async_recv(conn, *args, **kwargs)
            check(getattr(conn, "request", None), message)
            return message

        def recv_sync(conn: Any, *args: Any, **kwargs: Any) -> Any:
            message = sync_recv(conn, *args, **kwargs)
            check(getattr(conn, "request", None), message)
            return message

        AsyncConnection.recv = recv_async  # type: ignore[method-assign,assignment]
        SyncConnection.recv = recv_sync  # type: ignore[method-assign,assignment]

        def undo() -> None:
            AsyncConnection.recv = async_recv  # type: ignore[method-assign]
            SyncConnection.recv = sync_recv  # type: ignore[method-assign]

        return undo


# The one check of a test session (tests/conftest.py installs it).
SCHEMA_CHECK = SchemaCheck()
