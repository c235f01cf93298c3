"""The server's timer: what falls due is written once, whichever process sees it first."""

from __future__ import annotations

from server.rules import Actor, get_ruleset
from server.service.hub import LocalHub
from server.service.tables import TableService
from server.service.timer import run_due
from server.store import EventStore
from tests.tables import tables_of

T0 = 1_764_484_800_000
MIN = 60_000
DECK = {"main": 40, "extra": 15, "side": 15}


def running_table(store: EventStore, minutes: int = 1) -> str:
    code = ready_table(store, minutes)
    tables_of(store).append(code, "clock.start", {}, Actor("judge", name="J"), "go", T0)
    return code


def ready_table(store: EventStore, minutes: int = 1) -> str:
    """Both seats sat and their decks counted: the clock waits for its start."""
    code = tables_of(store).create_table(get_ruleset(match_minutes=minutes), T0)
    for seat, name in (("A", "Yugi"), ("B", "Kaiba")):
        tables_of(store).join(code, seat, name, "", T0)
    for seat in "AB":
        tables_of(store).append(code, "deck.declare", DECK, Actor("seat", seat), f"d{seat}", T0)
    tables_of(store).append(code, "deck.confirm", {"seat": "B"}, Actor("seat", "A"), "cA", T0)
    tables_of(store).append(code, "deck.confirm", {"seat": "A"}, Actor("seat", "B"), "cB", T0)
    return code


def test_nothing_is_due_before_the_deadline(store: EventStore):
    code = running_table(store)
    hub = LocalHub()
    published: list[int] = []
    hub.subscribe(code, lambda c, seq: published.append(seq))
    assert run_due(TableService(store, hub), T0 + 30_000) == 0
    assert published == []


def test_time_is_called_once_even_by_two_processes(store: EventStore, another_store):
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
    run_due(TableService(another_store(), hub), T0 + MIN + 1)
    assert store.snapshot(code).seq == after.seq and published == [after.seq]


def test_r5_1_time_called_at_every_table_at_once_is_written_as_groups(
    store: EventStore, monkeypatch
):
    """R5.1: every clock of a round reaches its deadline in the same second. The timer decides
    the tables one after another while the committer writes those decided (no commit of its
    own for each table), and publishes each table's seq once, as soon as it is stored."""
    import threading

    import server.service.timer as timer

    monkeypatch.setattr(timer, "BATCH", 4)
    codes = [running_table(store) for _ in range(10)]
    hub = LocalHub()
    published: dict[str, list[int]] = {code: [] for code in codes}
    for code in codes:
        hub.subscribe(code, lambda c, seq: published[c].append(seq))
    service = TableService(store, hub)
    # The committer is held until its batch is decided whole (as it would be when deciding is
    # quicker than a commit): then a batch takes at most two commits, its first table's alone
    # and the rest's. Without grouping each table would take its own.
    decided, moved = [0], threading.Condition()
    real_decide, real_write = service._decide, store._group._write

    def counting_decide(*args):
        made = real_decide(*args)
        with moved:
            decided[0] += 1
            moved.notify_all()
        return made

    def held_write(group):
        with moved:
            end = min(len(codes), -(-decided[0] // 4) * 4)
            moved.wait_for(lambda: decided[0] >= end, timeout=5)
        real_write(group)

    monkeypatch.setattr(service, "_decide", counting_decide)
    monkeypatch.setattr(store._group, "_write", held_write)
    groups = store._group.groups
    assert run_due(service, T0 + MIN + 1) >= 10
    for code in codes:
        snap = store.snapshot(code)
        assert snap.state.time.called and published[code] == [snap.seq]
    assert store._group.groups - groups <= 6  # three batches, at most two commits each


def test_a_round_start_refused_at_one_table_starts_the_others(store: EventStore):
    from tests.tables import tables_of as service

    ready = running_table(store)  # its clock already runs: starting it again is refused
    fresh = [ready_table(store) for _ in range(2)]
    orders = [
        (code, "clock.start", {}, Actor("judge", name="J"), "again") for code in [ready, *fresh]
    ]
    answers = service(store).append_many(orders, T0 + 1)
    assert getattr(answers[ready], "code", None) is not None
    for code in fresh:
        assert not isinstance(answers[code], Exception) and answers[code].events
        assert store.snapshot(code).state.clock.status == "running"
    # The same orders again: answered as duplicates, nothing written.
    again = service(store).append_many(orders, T0 + 2)
    assert all(getattr(again[c], "duplicate", False) for c in fresh)


def test_the_timer_wakes_at_the_next_deadline_not_a_whole_interval_later(store: EventStore):
    """R5.1: time is called at the deadline. The timer sleeps until the earliest deadline of
    any table (at most its interval), so a phone is not told up to an interval late."""
    from server.service.timer import Timer

    running_table(store)
    found = store.next_due()
    # (On a shared PostgreSQL test database another test's table may fall due earlier.)
    assert found is not None and found <= T0 + MIN  # the table's match time runs out then
    due = T0 + MIN
    now = {"ms": due - 40}
    timer = Timer(tables_of(store), lambda: now["ms"], interval_ms=250)
    assert timer.until_next(due) == 0.04
    now["ms"] = due + 3  # late already: the next sweep follows almost at once
    assert timer.until_next(due) == 0.005
    assert timer.until_next(None) == 0.25 and timer.until_next(due + 60_000) == 0.25


def test_a_fault_at_one_table_does_not_keep_the_others_waiting(store: EventStore, monkeypatch):
    """A bug met deciding one table's tick is that table's answer (logged): the hall's other
    clocks are still called and published."""
    codes = [running_table(store) for _ in range(3)]
    hub = LocalHub()
    service = TableService(store, hub)
    real = service._decide

    def faulty(snap, cmd, args, actor, now_ms):
        if snap.state.code == codes[1]:
            raise KeyError("a bug")
        return real(snap, cmd, args, actor, now_ms)

    monkeypatch.setattr(service, "_decide", faulty)
    orders = [(code, "tick", {}, Actor("system"), f"tick:{T0 + MIN}") for code in codes]
    answers = service.append_many(orders, T0 + MIN + 1, publish=True)
    assert getattr(answers[codes[1]], "code", None) == "internal"
    for code in (codes[0], codes[2]):
        assert store.snapshot(code).state.time.called
    assert not store.snapshot(codes[1]).state.time.called


def test_a_table_still_due_after_a_sweep_that_moved_nothing_waits_the_interval(
    store: EventStore, monkeypatch
):
    """A tick refused (or a fault) leaves its table due: the timer asks again an interval
    later, not every 5 ms; once something moves, it wakes at the next deadline again."""
    from server.service import timer as timer_module

    code = running_table(store)
    now = {"ms": T0 + MIN + 1}
    timer = timer_module.Timer(tables_of(store), lambda: now["ms"], interval_ms=250)
    monkeypatch.setattr(timer_module, "run_due", lambda tables, now_ms: 0)  # nothing moves
    assert timer.sweep() == 0.25
    monkeypatch.undo()
    assert timer.sweep() <= 0.25  # the tick is written: the next deadline decides
    assert store.snapshot(code).state.time.called
