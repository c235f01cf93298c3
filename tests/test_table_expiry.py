"""Casual tables per address are bounded (429 too_many_tables) and tables nobody joined expire;
a table with anything played is never deleted. (Before: 851 tables in 55 s from one address,
and 20,000 of them stayed: RSS +37 MB, database +60 MB.)"""

from __future__ import annotations

from typing import Any

from flask import Flask

from server import create_app, services

HOUR_MS = 3_600_000


def make_app(app_config: dict[str, Any], **extra: Any) -> Flask:
    return create_app({**app_config, **extra})


def create(app: Flask, address: str = "10.1.0.1") -> Any:
    return app.test_client().post("/api/tables", json={}, environ_base={"REMOTE_ADDR": address})


def codes(app: Flask) -> set[str]:
    from server.store.models import TableRow

    with app.app_context(), services().tables.store.db.connection_context():
        return {str(r.code) for r in TableRow.select(TableRow.code)}


def test_an_address_opens_a_bounded_number_of_tables(app_config: dict[str, Any]):
    app = make_app(app_config, CASUAL_TABLES_PER_ADDRESS_PER_HOUR=5)
    assert [create(app).status_code for _ in range(5)] == [201] * 5
    refused = create(app)
    assert refused.status_code == 429
    assert refused.get_json()["code"] == "too_many_tables"
    assert refused.get_json()["details"] == {"per_hour": 5}
    assert create(app, "10.1.0.2").status_code == 201  # another address is not held back


def test_tables_nobody_joined_expire_and_played_ones_stay(app_config: dict[str, Any], clock):
    app = make_app(app_config, UNJOINED_TABLE_HOURS=24)
    client = app.test_client()
    empty = create(app).get_json()["code"]
    joined = create(app).get_json()["code"]
    client.post(f"/api/tables/{joined}/join", json={"name": "Yugi"})
    clock.advance(24 * HOUR_MS + 1)
    fresh = create(app).get_json()["code"]  # a new table sweeps the old empty ones
    # (On the shared PostgreSQL test database other tests' tables stand beside these.)
    assert {empty, joined, fresh} & codes(app) == {joined, fresh}
    assert client.get(f"/api/tables/{empty}").status_code == 404
    assert client.get(f"/api/tables/{joined}").status_code == 200
    # The one that was joined stays however old: its log has more than its creation.
    clock.advance(100 * 24 * HOUR_MS)
    create(app)
    assert joined in codes(app) and fresh not in codes(app)
