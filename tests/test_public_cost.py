"""A public page costs the floor what changed, not the whole event: a table's write that leaves
its part of the event as it was (its result, a judge's decision, a disqualification, what the
hall clock counts) does not rebuild the event's projection; a result rebuilds it at most once
every PROJECTION_REBUILD_SECONDS (the views in between get the one before); a summary reads a
table's log again only when it moved on; and every public page of an event is rate-limited
per client address. (The pinned measurement at 2,000 players: `reliability/public_cost.py`.)"""

from __future__ import annotations

from typing import Any

import pytest

from server import create_app
from server.rules import Actor
from tests.tables import tables_of
from tests.test_swiss_api import Org, register


class Seconds:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def paired(org: Org, tables: int = 2) -> tuple[int, str]:
    ev = org.event(tables=tables)
    register(org, ev, 2 * tables)
    assert org.call("POST", f"/api/events/{ev}/swiss/pair").status_code == 200
    assert org.call("POST", f"/api/events/{ev}/round/start").status_code == 200
    return ev, org.call("GET", f"/api/events/{ev}").json["slug"]


def codes(org: Org, ev: int) -> list[str]:
    return [t["code"] for t in org.summary(ev)["rounds"][0]["tables"]]


def write(org: Org, code: str, cmd: str, args: dict[str, Any], actor: Actor) -> None:
    """A command at a live table, published as the table service does for any phone."""
    services = org.app.extensions["duel_table"]
    tables_of(services.tables.store).append(code, cmd, args, actor, None, 1)
    services.hub.publish(code, services.tables.store.snapshot(code).seq)


@pytest.fixture
def org(app_config: dict[str, Any]) -> Any:
    app = create_app({**app_config, "PROJECTION_REBUILD_SECONDS": 5})
    try:
        yield Org(app, app.test_client())
    finally:
        app.extensions["duel_table"].close()


def cache(org: Org) -> Any:
    return org.app.extensions["duel_table"].events


def test_a_tables_write_that_leaves_its_part_does_not_rebuild(org: Org):
    ev, slug = paired(org)
    anyone = org.app.test_client()
    first = anyone.get(f"/api/e/{slug}")
    builds = cache(org).builds
    code = codes(org, ev)[0]
    # A seat taken, a player's call and a judge's answer: the table's log moves on, its
    # result does not.
    services = org.app.extensions["duel_table"]
    tables_of(services.tables.store).join(code, "A", "P1", "", 1)
    write(org, code, "judge.call", {"reason": "help"}, Actor(role="seat", seat="A"))
    write(org, code, "judge.ack", {"call": 1}, Actor(role="judge", name="j"))
    again = anyone.get(f"/api/e/{slug}")
    hall = anyone.get(f"/api/hall/{slug}")
    assert cache(org).builds == builds  # before: every write of the round rebuilt it
    assert again.headers["X-Projection"] == first.headers["X-Projection"]
    assert hall.status_code == 200


def test_results_rebuild_at_most_once_in_the_wait(org: Org):
    ev, slug = paired(org)
    seconds = cache(org).clock = Seconds()
    anyone = org.app.test_client()
    assert [t["result"] for t in anyone.get(f"/api/e/{slug}").json["tables"]] == [None, None]
    builds = cache(org).builds
    first, second = codes(org, ev)
    judge = Actor(role="judge", name="j")
    write(org, first, "result.set", {"match_winner": "A"}, judge)
    # Within the wait: the one before, not a rebuild per result.
    assert [t["result"] for t in anyone.get(f"/api/e/{slug}").json["tables"]] == [None, None]
    write(org, second, "result.set", {"match_winner": "B"}, judge)
    assert anyone.get(f"/api/hall/{slug}").json["tables"]["playing"] == 2
    assert cache(org).builds == builds
    seconds.now += 5
    assert [t["result"] for t in anyone.get(f"/api/e/{slug}").json["tables"]] == ["A", "B"]
    assert anyone.get(f"/api/hall/{slug}").json["tables"]["playing"] == 0
    assert cache(org).builds == builds + 1  # both results in one rebuild


def test_a_staff_change_rebuilds_at_once(org: Org):
    ev, slug = paired(org)
    cache(org).clock = Seconds()  # no time passes
    anyone = org.app.test_client()
    assert anyone.get(f"/api/e/{slug}").json["standings"] is None
    org.call("PATCH", f"/api/events/{ev}/swiss", {"public": True})
    assert anyone.get(f"/api/e/{slug}").json["standings"] is not None


def test_a_summary_reads_only_the_tables_that_moved(org: Org, monkeypatch):
    ev, _ = paired(org, tables=4)
    swiss = org.app.extensions["duel_table"].swiss
    store = org.app.extensions["duel_table"].tables.store
    read: list[str] = []
    real, real_fresh = store.snapshot, store.fresh

    def counted(code: str) -> Any:
        read.append(code)
        return real(code)

    def counted_fresh(code: str, at_least: int = 0) -> Any:
        read.append(code)
        return real_fresh(code, at_least)

    with org.app.app_context():
        swiss.summary(ev)
        monkeypatch.setattr(store, "snapshot", counted)
        monkeypatch.setattr(store, "fresh", counted_fresh)
        swiss.summary(ev)
        assert read == []  # before: three reads of every table's log per summary
        code = codes(org, ev)[2]
        tables_of(store).append(
            code, "result.set", {"match_winner": "A"}, Actor(role="judge", name="j"), None, 1
        )
        read.clear()
        table = swiss.summary(ev)["rounds"][0]["tables"][2]
        assert read == [code] and table["result"] == "A"


def test_every_public_page_of_an_event_is_rate_limited(app_config: dict[str, Any]):
    app = create_app({**app_config, "HTTP_RATE_PER_MINUTE": 1, "HTTP_RATE_BURST": 3})
    try:
        org = Org(app, app.test_client())
        ev, slug = paired(org)
        org.call("PATCH", f"/api/events/{ev}/swiss", {"public": True})
        for path in (
            f"/api/hall/{slug}",
            f"/e/{slug}/hall",
            f"/e/{slug}",
            f"/e/{slug}/standings",
            f"/api/e/{slug}",
            f"/api/e/{slug}/find?q=P1",
        ):
            reader = app.test_client()
            address = f"192.0.2.{len(path)}"
            answers = []
            for _ in range(4):
                with reader.get(path, environ_base={"REMOTE_ADDR": address}) as answer:
                    answers.append(answer.status_code)
            assert answers == [200, 200, 200, 429], (path, answers)
    finally:
        app.extensions["duel_table"].close()
