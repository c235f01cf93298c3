"""The LP ledger by range (R1.4: the ledger is the score sheet, and every viewer of the table
may read it): `GET /api/tables/<code>/ledger?from=<position>&limit=<n>`, 50 rows at most."""

from __future__ import annotations

from typing import Any

import pytest
from access_world import ROLES, World, make_world
from flask import Flask
from flask.testing import FlaskClient
from sheet_match import StoreTable, pad

from server import services


@pytest.fixture
def long_table(app: Flask) -> StoreTable:
    """A casual table with 120 confirmed entries in its first duel."""
    with app.app_context():
        t = StoreTable(services().tables.store, staff_start=False).join().register()
        t.start_duel(first="A")
        pad(t, 120)
    return t


def ledger(client: FlaskClient, code: str, query: str = "") -> Any:
    answer = client.get(f"/api/tables/{code}/ledger{query}")
    assert answer.status_code == 200, answer.get_json()
    return answer.get_json()


def test_the_ranges_cover_the_whole_ledger_in_order(client: FlaskClient, long_table: StoreTable):
    whole = client.get(f"/api/tables/{long_table.code}").get_json()["state"]["ledger"]
    assert len(whole) == 120
    pages = [ledger(client, long_table.code, f"?from={start}&limit=50") for start in (0, 50, 100)]
    assert [len(p["rows"]) for p in pages] == [50, 50, 20]
    assert [p["from"] for p in pages] == [0, 50, 100]
    assert {p["total"] for p in pages} == {120}
    assert [row for p in pages for row in p["rows"]] == whole  # the same rows as the full state
    assert pages[0]["rows"][0]["entry"] == long_table.entries[0]["entry"]


def test_no_from_is_the_last_page(client: FlaskClient, long_table: StoreTable):
    last = ledger(client, long_table.code)
    assert (last["from"], last["limit"], last["total"], len(last["rows"])) == (70, 50, 120, 50)
    assert last["rows"][-1]["entry"] == long_table.entries[-1]["entry"]
    assert last["seq"] == client.get(f"/api/tables/{long_table.code}").get_json()["seq"]
    short = ledger(client, long_table.code, "?limit=7")
    assert (short["from"], len(short["rows"])) == (113, 7)


def test_the_limit_is_capped_and_past_the_end_is_empty(client: FlaskClient, long_table: StoreTable):
    capped = ledger(client, long_table.code, "?from=3&limit=1000")
    assert (capped["limit"], len(capped["rows"]), capped["rows"][0]) == (
        50,
        50,
        ledger(client, long_table.code, "?from=3&limit=1")["rows"][0],
    )
    beyond = ledger(client, long_table.code, "?from=500")
    assert (beyond["rows"], beyond["total"]) == ([], 120)


def test_an_empty_ledger(client: FlaskClient):
    code = client.post("/api/tables", json={}).get_json()["code"]
    assert ledger(client, code) | {"code": ""} == {
        "code": "",
        "seq": 1,
        "from": 0,
        "limit": 50,
        "total": 0,
        "rows": [],
    }


@pytest.mark.parametrize(
    "query",
    ["?from=-1", "?from=x", "?from=1.5", "?from=%2B3", "?from=%205", "?from=", "?limit=0",
     "?limit=-5", "?limit=ten", "?limit=1e3", "?from=99999999999", "?page=2", "?from=%EF%BC%91"],
)  # fmt: skip
def test_bad_ranges_are_refused_with_a_code(
    client: FlaskClient, long_table: StoreTable, query: str
) -> None:
    answer = client.get(f"/api/tables/{long_table.code}/ledger{query}")
    body = answer.get_json()
    assert (answer.status_code, body["code"]) == (400, "invalid"), body


def test_an_unknown_table_is_404(client: FlaskClient):
    answer = client.get("/api/tables/ZZZZZZ/ledger?from=0")
    assert (answer.status_code, answer.get_json()["code"]) == (404, "no_such_table")


@pytest.fixture
def world(app: Flask, clock) -> World:
    return make_world(app, clock())


@pytest.mark.parametrize("spectators", [True, False])
def test_each_kind_of_viewer_reads_the_ledger_as_it_reads_the_table(world: World, spectators: bool):
    """Seats of this table, its event's judges and organiser always; a stranger, another
    table's seat and another event's judge only while the event lets spectators watch."""
    world.spectators(spectators)
    url = f"/api/tables/{world.code}/ledger?from=0&limit=10"
    seen = {}
    for role in ROLES:
        answer = world.request(role, "GET", url)
        body = answer.get_json()
        ok = answer.status_code == 200
        seen[role] = answer.status_code if ok else (answer.status_code, body["code"])
        if answer.status_code == 200:
            assert (body["total"], body["rows"]) == (0, [])
            assert world.request(role, "GET", f"/api/tables/{world.code}").status_code == 200
    refused = (403, "spectators_off")
    assert seen == {
        "spectator": 200 if spectators else refused,
        "seat": 200,
        "other_seat": 200 if spectators else refused,
        "judge": 200,
        "other_judge": 200 if spectators else refused,
        "organiser": 200,
    }


def test_access_is_decided_before_the_query_is_read(world: World):
    world.spectators(False)
    answer = world.request("spectator", "GET", f"/api/tables/{world.code}/ledger?from=-1")
    assert (answer.status_code, answer.get_json()["code"]) == (403, "spectators_off")
