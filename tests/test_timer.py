"""The server's timer: what falls due is written once, whichever process sees it first."""

from __future__ import annotations

from server.rules import Actor, get_ruleset
from server.service.hub import LocalHub
from server.service.tables import TableService
from server.service.timer import run_due
from server.store import EventStore, db
from tests.tables import tables_of

T0 = 1_764_484_800_000
MIN = 60_000
DECK = {"main": 40, "extra": 15, "side": 15}


def running_table(store: EventStore, minutes: int = 1) -> str:
    code = tables_of(store).create_table(get_ruleset(match_minutes=minutes), T0)
    for seat, name in (("A", "Yugi"), ("B", "Kaiba")):
        tables_of(store).join(code, seat, name, "", T0)
    for seat in "AB":
        tables_of(store).append(code, "deck.declare", DECK, Actor("seat", seat), f"d{seat}", T0)
    tables_of(store).append(code, "deck.confirm", {"seat": "B"}, Actor("seat", "A"), "cA", T0)
    tables_of(store).append(code, "deck.confirm", {"seat": "A"}, Actor("seat", "B"), "cB", T0)
    tables_of(store).append(code, "clock.start", {}, Actor("judge", name="J"), "go", T0)
    return code


def test_nothing_is_due_before_the_deadline(store: EventStore):
    code = running_table(store)
    hub = LocalHub()
    published: list[int] = []
    hub.subscribe(code, lambda c, seq: published.append(seq))
    assert run_due(TableService(store, hub), T0 + 30_000) == 0
    assert published == []


def test_time_is_called_once_even_by_two_processes(store: EventStore):
    code = running_table(store)
    hub = LocalHub()
    published: list[int] = []
    hub.subscribe(code, lambda c, seq: published.append(seq))
    before = store.snapshot(code).seq
    # (On a shared PostgreSQL test database other tests' tables may fall due too.)
    assert run_due(TableService(store, hub), T0 + MIN + 1) >= 1
    after = store.snapshot(code)
    assert after.seq > before and published == [after.seq]
    assert after.state.time.called
    # A second process with its own cache, at the same moment: nothing more is written.
    run_due(TableService(EventStore(db), hub), T0 + MIN + 1)
    assert store.snapshot(code).seq == after.seq and published == [after.seq]
