"""Fixtures shared by tests/ and e2e/: the database under test and a real running server.

Set TEST_DATABASE_URL=postgresql://postgres@127.0.0.1:5432/test to run everything on
PostgreSQL (its tables are dropped and created once per test session); otherwise each app and
server gets a fresh SQLite file.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent
TEST_DATABASE_URL = os.environ.get("TEST_DATABASE_URL", "")


def free_port() -> int:
    """A TCP port nobody listens on right now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="session")
def database_url() -> Iterator[str]:
    """ "" for SQLite files, or TEST_DATABASE_URL with freshly created tables."""
    if not TEST_DATABASE_URL:
        yield ""
        return
    from server.store import MODELS, db, open_database

    database = open_database(TEST_DATABASE_URL, "")
    db.initialize(database)
    with db.connection_context():
        db.drop_tables(MODELS, safe=True, cascade=True)
        db.create_tables(MODELS)
    yield TEST_DATABASE_URL


class LiveServer(str):
    """The base URL of a running server (`http://127.0.0.1:<port>`), plus how it runs."""

    port: int
    ws_url: str
    data_dir: Path
    log_path: Path

    def read_log(self) -> str:
        return self.log_path.read_text(errors="replace")


def start_server(data_dir: Path, database_url: str, extra_env: dict[str, str] | None = None):
    """Start gunicorn with the gevent worker, as `make run` does; wait until it answers."""
    port = free_port()
    data_dir.mkdir(parents=True, exist_ok=True)
    log_path = data_dir / "server.log"
    env = {
        **os.environ,
        "HOST": "127.0.0.1",
        "PORT": str(port),
        "DATA_DIR": str(data_dir),
        "DATABASE_URL": database_url,
        "REDIS_URL": "",
        "TIMER_INTERVAL_MS": "100",
        "HTTP_RATE_PER_MINUTE": "100000",
        "HTTP_RATE_BURST": "10000",
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
    return server, process


def stop_server(process: subprocess.Popen) -> None:
    process.terminate()
    try:
        process.wait(timeout=15)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


@pytest.fixture(scope="session")
def live_server(tmp_path_factory: pytest.TempPathFactory, database_url: str):
    """A real server (gunicorn, gevent worker) on a free port with its own database."""
    server, process = start_server(tmp_path_factory.mktemp("live"), database_url)
    try:
        yield server
    finally:
        stop_server(process)
