"""Fixtures shared by tests/ and e2e/: the database under test and a real running server.

Set TEST_DATABASE_URL=postgresql://postgres@127.0.0.1:5432/test to run everything on
PostgreSQL (its tables are dropped and created once per test session); otherwise each app and
server gets a fresh SQLite file.
"""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest

from clients.testing import LiveServer, isolated_database, start_server, stop_server


def _own_database(url: str, worker: str) -> str:
    """For a run on PostgreSQL split over pytest-xdist workers: each worker gets a database of
    its own beside the one named (`test` -> `test_gw0`, created if missing), since each drops and
    creates its tables at the start. Servers started by the tests inherit it."""
    if not url or not worker:
        return url
    from urllib.parse import urlsplit, urlunsplit

    import psycopg2

    parts = urlsplit(url)
    name = f"{parts.path.lstrip('/') or 'postgres'}_{worker}"
    connection = psycopg2.connect(url)
    try:
        connection.autocommit = True
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1 FROM pg_database WHERE datname = %s", (name,))
            if cursor.fetchone() is None:
                cursor.execute(f'CREATE DATABASE "{name}"')
    finally:
        connection.close()
    return urlunsplit(parts._replace(path=f"/{name}"))


TEST_DATABASE_URL = _own_database(
    os.environ.get("TEST_DATABASE_URL", ""), os.environ.get("PYTEST_XDIST_WORKER", "")
)
if TEST_DATABASE_URL:
    os.environ["TEST_DATABASE_URL"] = TEST_DATABASE_URL


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Every test in e2e/ drives a browser: mark it `browser`; every test on a real server
    process (the `live_server` fixture) takes seconds: mark it `slow` (pyproject.toml's
    markers, and `make test-fast`, which leaves both out); every test whose phones are in a
    network namespace of their own (the `phones_net` fixture): `netns` (`make test` runs them
    alone)."""
    for item in items:
        if "e2e" in item.path.parts:
            item.add_marker(pytest.mark.browser)
        if "live_server" in getattr(item, "fixturenames", ()):
            item.add_marker(pytest.mark.slow)
        if "phones_net" in getattr(item, "fixturenames", ()):
            item.add_marker(pytest.mark.netns)


@pytest.fixture(scope="session")
def database_url() -> Iterator[str]:
    """Empty for SQLite files, or TEST_DATABASE_URL with freshly created tables."""
    if not TEST_DATABASE_URL:
        yield ""
        return
    from server.store import db, open_database, upgrade

    database = open_database(TEST_DATABASE_URL, "")
    db.initialize(database)
    with db.connection_context():
        # Every table of the test database, whoever's models made it: a clean session.
        db.execute_sql("DROP SCHEMA public CASCADE")
        db.execute_sql("CREATE SCHEMA public")
    upgrade(database)
    yield TEST_DATABASE_URL


@pytest.fixture(scope="session")
def live_server(
    tmp_path_factory: pytest.TempPathFactory, database_url: str
) -> Iterator[LiveServer]:
    """A real server (gunicorn, gevent worker) on a free port with its own database."""
    url = isolated_database(database_url, "live_server")
    server, process = start_server(tmp_path_factory.mktemp("live"), url)
    try:
        yield server
    finally:
        stop_server(process)
