"""The sweep of open sockets' grants follows what changed: it asks the database about the staff
logins, the seats of the tables whose seats changed, and a bounded rolling slice of the others,
in one query per kind, however many seat sockets are open (an idle hall of 5,000 sockets
stalled every phone once a second on a sweep that asked about every one). Counts, no timing."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from typing import Any

from flask import Flask

from server.api.access import seat_grant, session_grant
from server.api.grants import ROLL_PER_SWEEP, Grant, Grants
from server.store.chain import hash_token
from server.store.models import db

TABLES = 60  # 120 seat sockets: more than a sweep's rolling slice


def recording(valid: set[Grant] | None = None) -> tuple[list[list[Grant]], Any]:
    asked: list[list[Grant]] = []

    def check(grants: Iterable[Grant]) -> set[Grant]:
        grants = list(grants)
        asked.append(grants)
        return set(grants) if valid is None else {g for g in grants if g in valid}

    return asked, check


def held(n: int, grants: Grants) -> list[Grant]:
    made = [seat_grant(f"{i:064x}") for i in range(n)]
    for i, grant in enumerate(made):
        grants.add(grant, lambda: None, f"T{i // 2:05d}")  # two seats a table
    return made


def test_an_idle_hall_is_asked_about_a_bounded_slice_whatever_its_size() -> None:
    for n in (200, 5000):
        grants = Grants()
        asked, grants.check = recording()
        held(n, grants)
        staff = session_grant("a judge's cookie")
        assert staff is not None
        grants.add(staff, lambda: None)
        assert grants.sweep() == 0
        [once] = asked
        assert staff in once  # a login is always asked about: it expires
        assert len(once) == ROLL_PER_SWEEP + 1


def test_the_seats_of_a_changed_table_are_asked_about_at_the_next_sweep() -> None:
    grants = Grants()
    closed: list[str] = []
    made = held(500, grants)
    moved = made[300]  # table T00150's seat A, moved to another phone in another process
    grants.add(moved, lambda: closed.append("moved"), "T00150")
    asked, grants.check = recording(valid=set(made) - {moved})
    grants.changed("T00150")
    assert grants.sweep() == 2 and closed == ["moved"]  # both its sockets here
    assert {moved, made[301]} <= set(asked[0])
    assert grants.sweep() == 0 and moved not in asked[1]  # not changed again: not asked again


def test_every_seat_is_asked_about_again_within_its_turn_of_the_roll() -> None:
    """A change the sweep did not hear of (a hub outage) is still caught in time."""
    grants = Grants()
    made = held(400, grants)
    asked, grants.check = recording()
    for _ in range(-(-len(made) // ROLL_PER_SWEEP)):
        grants.sweep()
    assert {g for once in asked for g in once} == set(made)
    assert all(len(once) == ROLL_PER_SWEEP for once in asked)


@contextmanager
def counting_queries() -> Iterator[list[tuple[str, int]]]:
    """Each SQL statement the database runs meanwhile, with how many parameters it binds."""
    target = db.obj
    seen: list[tuple[str, int]] = []
    real = target.execute_sql

    def execute_sql(sql: str, params: Any = None, *args: Any, **kwargs: Any) -> Any:
        seen.append((sql, len(params or ())))
        return real(sql, params, *args, **kwargs)

    target.execute_sql = execute_sql
    try:
        yield seen
    finally:
        del target.execute_sql


def test_a_sweep_of_many_seat_sockets_runs_one_bounded_query(app: Flask) -> None:
    client = app.test_client()
    grants: Grants = app.extensions["duel_table"].grants
    tokens: list[tuple[str, str]] = []
    for _ in range(TABLES):
        code = client.post("/api/tables", json={}).get_json()["code"]
        for name in ("Yugi", "Kaiba"):
            join = client.post(f"/api/tables/{code}/join", json={"name": name}).get_json()
            tokens.append((code, join["token"]))
    closed: list[str] = []
    forgets = [
        grants.add(seat_grant(hash_token(token)), lambda c=code: closed.append(c), code)
        for code, token in tokens
    ]
    try:
        with app.app_context(), counting_queries() as queries:
            assert grants.sweep() == 0
        reads = [(sql, n) for sql, n in queries if sql.lstrip().upper().startswith("SELECT")]
        assert len(reads) == 1  # one query for the seats, none per socket
        assert reads[0][1] <= ROLL_PER_SWEEP  # about a slice, not the 120 open
        # A seat released where this process did not hear it: its table's change is.
        code, token = tokens[7]
        found = app.extensions["duel_table"]
        with app.app_context():
            found.tables.release_seat(code, "B", "judge", found.clock())
        grants.changed(code)
        with app.app_context():
            assert grants.sweep() == 1
        assert closed == [code]
    finally:
        for forget in forgets:
            forget()
