"""The event store on a real database: append, idempotency, concurrency, the hash chain."""

from __future__ import annotations

import json
import threading

import pytest

from server.core.errors import NotFound
from server.rules import Actor, RuleError, get_ruleset, replay
from server.rules.base import SYSTEM_ACTOR as SYSTEM
from server.store import EventStore, db
from server.store.events import GENESIS, _event_of, chain_hash, hash_token
from server.store.models import CommandRow, EventRow, SeatRow, TableRow
from tests.tables import tables_of

T0 = 1_764_484_800_000
DECK = {"main": 40, "extra": 15, "side": 15}


def seat(s: str) -> Actor:
    return Actor("seat", s, f"Player {s}")


def new_table(store: EventStore) -> str:
    code = tables_of(store).create_table(get_ruleset(), T0)
    tables_of(store).join(code, "A", "Yugi", "", T0)
    tables_of(store).join(code, "B", "Kaiba", "", T0)
    return code


def test_create_table_writes_the_first_event(store: EventStore):
    code = tables_of(store).create_table(get_ruleset(match_minutes=30), T0)
    assert len(code) == 6 and set(code) <= set("23456789ABCDEFGHJKMNPQRSTUVWXYZ")
    [first] = store.events_since(code, 0)
    assert first["seq"] == 1 and first["type"] == "table.created"
    snap = store.snapshot(code)
    assert snap.seq == 1 and snap.state.code == code
    assert snap.state.ruleset.match_minutes == 30


def test_join_stores_only_the_token_hash(store: EventStore):
    code = tables_of(store).create_table(get_ruleset(), T0)
    joined = tables_of(store).join(code, None, "Yugi", "P-1", T0)
    events = store.events_since(code, 1)
    assert joined.seat == "A" and joined.seq == 2 and events[0]["type"] == "seat.joined"
    with db.connection_context():
        row = SeatRow.select().join(TableRow).where(TableRow.code == code).get()
    assert row.token_hash == hash_token(joined.token) and joined.token not in row.token_hash
    assert store.seat_actor(code, joined.token) == Actor("seat", "A", "Yugi")
    assert store.seat_actor(code, "forged") is None


def test_join_refuses_a_taken_seat_and_a_full_table(store: EventStore):
    code = tables_of(store).create_table(get_ruleset(), T0)
    tables_of(store).join(code, "B", "Kaiba", "", T0)
    with pytest.raises(RuleError) as taken:
        tables_of(store).join(code, "B", "Joey", "", T0)
    assert taken.value.code == "seat_taken"
    assert tables_of(store).join(code, None, "Yugi", "", T0).seat == "A"
    with pytest.raises(RuleError) as full:
        tables_of(store).join(code, None, "Joey", "", T0)
    assert full.value.code == "table_full"
    assert store.snapshot(code).seq == 3


def test_unknown_table(store: EventStore):
    with pytest.raises(NotFound) as err:  # the edge answers 404 (server/api/http.py: status_of)
        tables_of(store).append("ZZZZZZ", "deck.declare", DECK, seat("A"), "c1", T0)
    assert err.value.code == "no_such_table"
    assert not store.exists("ZZZZZZ")


def test_many_tables_read_at_once_are_each_tables_latest_state(store: EventStore, another_store):
    """A round's pages read every table: `snapshots` asks the seqs at once, and gives each
    table's state at that seq (from memory when this process holds it, else from its log)."""
    codes = [new_table(store) for _ in range(3)]
    tables_of(store).append(codes[1], "deck.declare", DECK, seat("A"), "c1", T0)
    other = another_store()  # another process: nothing in its memory
    for reader in (store, other):
        found = reader.snapshots([*codes, "ZZZZZZ"])
        assert sorted(found) == sorted(codes)  # a code with no table is left out
        for code in codes:
            assert found[code].seq == store.snapshot(code).seq
            assert found[code].state == store.snapshot(code).state
    # Moved on by another process: the one read sees the new seq, not its memory's.
    tables_of(other).append(codes[0], "deck.declare", DECK, seat("B"), "c2", T0)
    assert store.snapshots(codes)[codes[0]].state.decks["B"].registered is not None


def test_append_writes_events_and_moves_the_sequence(store: EventStore):
    code = new_table(store)
    result = tables_of(store).append(code, "deck.declare", DECK, seat("A"), "c1", T0 + 5)
    assert result.seq == 4 and not result.duplicate
    assert [e["type"] for e in result.events] == ["deck.declared"]
    assert result.events[0]["actor"] == {"role": "seat", "seat": "A", "name": "Player A"}
    assert store.events_since(code, 3) == result.events
    assert store.snapshot(code).state.decks["A"].registered is not None


def test_a_repeated_command_id_is_applied_once(store: EventStore):
    code = new_table(store)
    first = tables_of(store).append(code, "deck.declare", DECK, seat("A"), "same", T0)
    again = tables_of(store).append(code, "deck.declare", DECK, seat("A"), "same", T0 + 100)
    assert again.duplicate and again.seq == first.seq and again.events == []
    assert store.snapshot(code).seq == first.seq
    with db.connection_context():
        assert CommandRow.select().count() >= 1
        assert EventRow.select().join(TableRow).where(TableRow.code == code).count() == 4


def test_a_refused_command_changes_nothing_and_may_be_sent_again(store: EventStore):
    code = new_table(store)
    with pytest.raises(RuleError) as err:
        tables_of(store).append(code, "deck.declare", {**DECK, "main": 39}, seat("A"), "c1", T0)
    assert err.value.code == "deck_size"
    assert store.snapshot(code).seq == 3
    ok = tables_of(store).append(code, "deck.declare", DECK, seat("A"), "c1", T0)
    assert ok.seq == 4 and not ok.duplicate


def test_the_cached_state_equals_a_replay_of_the_log(store: EventStore, another_store):
    code = new_table(store)
    tables_of(store).append(code, "deck.declare", DECK, seat("A"), "a", T0)
    tables_of(store).append(code, "deck.declare", DECK, seat("B"), "b", T0)
    tables_of(store).append(code, "deck.confirm", {"seat": "B"}, seat("A"), "c", T0)
    from server.rules import Event

    events = [Event.from_dict(e) for e in store.events_since(code, 0)]
    assert replay(events) == store.snapshot(code).state
    # A store with an empty cache (another process) reads the same state from the log.
    assert another_store().snapshot(code).state == store.snapshot(code).state


def test_two_stores_like_two_processes_see_each_others_writes(store: EventStore, another_store):
    code = new_table(store)
    other = another_store()
    store.snapshot(code)
    tables_of(other).append(code, "deck.declare", DECK, seat("A"), "x1", T0)
    result = tables_of(store).append(code, "deck.declare", DECK, seat("B"), "x2", T0)
    assert result.seq == 5
    assert store.snapshot(code).state == other.snapshot(code).state
    assert tables_of(other).append(code, "deck.declare", DECK, seat("B"), "x2", T0).duplicate


def test_concurrent_commands_get_contiguous_sequence_numbers(store: EventStore, another_store):
    code = new_table(store)
    stores = [store, another_store()]
    errors: list[BaseException] = []
    seqs: list[int] = []
    lock = threading.Lock()

    def worker(n: int) -> None:
        try:
            for i in range(10):
                who = seat("A" if (n + i) % 2 else "B")
                result = tables_of(stores[n % 2]).append(
                    code, "deck.declare", DECK, who, f"{n}-{i}", T0
                )
                with lock:
                    seqs.append(result.seq)
        except BaseException as exc:  # pragma: no cover - reported below
            errors.append(exc)

    threads = [threading.Thread(target=worker, args=(n,)) for n in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    assert sorted(seqs) == list(range(4, 84))
    assert store.snapshot(code).seq == 83
    assert store.verify(code).ok


def test_concurrent_retries_of_one_command_apply_it_once(store: EventStore):
    code = new_table(store)
    results = []

    def send() -> None:
        results.append(tables_of(store).append(code, "deck.declare", DECK, seat("A"), "retry", T0))

    threads = [threading.Thread(target=send) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len({r.seq for r in results}) == 1
    assert sum(not r.duplicate for r in results) == 1
    assert store.snapshot(code).seq == 4


def test_the_hash_chain_links_every_event(store: EventStore):
    code = new_table(store)
    tables_of(store).append(code, "deck.declare", DECK, seat("A"), "a", T0)
    log = store.log(code)
    assert log[0]["prev_hash"] == GENESIS
    for before, after in zip(log, log[1:], strict=False):
        assert after["prev_hash"] == before["hash"]
    first = log[0]
    assert first["hash"] == chain_hash(
        GENESIS, code, 1, first["type"], first["data"], first["actor"], first["at_ms"]
    )
    assert store.verify(code).ok and store.verify(code).count == 4


@pytest.mark.parametrize(
    ("column", "value", "problem"),
    [
        ("data", '{"seat":"B","name":"Mallory","player_id":""}', "hash does not match"),
        ("at_ms", T0 + 1, "hash does not match"),
        ("type", "seat.left", "hash does not match"),
        ("prev_hash", "f" * 64, "prev_hash does not match"),
    ],
)
def test_verify_names_the_first_tampered_event(store: EventStore, column, value, problem):
    code = new_table(store)
    tables_of(store).append(code, "deck.declare", DECK, seat("A"), "a", T0)
    with db.connection_context():
        table_id = TableRow.get(TableRow.code == code).id
        EventRow.update({column: value}).where(
            (EventRow.table == table_id) & (EventRow.seq == 3)
        ).execute()
    result = store.verify(code)
    assert not result.ok and result.seq == 3 and result.problem == problem


def test_verify_notices_a_deleted_event(store: EventStore):
    code = new_table(store)
    tables_of(store).append(code, "deck.declare", DECK, seat("A"), "a", T0)
    with db.connection_context():
        table_id = TableRow.get(TableRow.code == code).id
        EventRow.delete().where((EventRow.table == table_id) & (EventRow.seq == 2)).execute()
    result = store.verify(code)
    assert not result.ok and result.seq == 2 and result.problem == "missing event"


def test_due_lists_tables_whose_timer_passed(store: EventStore):
    code = new_table(store)
    for who in "AB":
        tables_of(store).append(code, "deck.declare", DECK, seat(who), f"d{who}", T0)
    tables_of(store).append(code, "deck.confirm", {"seat": "B"}, seat("A"), "cA", T0)
    tables_of(store).append(code, "deck.confirm", {"seat": "A"}, seat("B"), "cB", T0)
    tables_of(store).append(code, "clock.start", {}, Actor("judge", name="J"), "start", T0)
    assert code not in [c for c, _ in store.due(T0 + 1000)]
    due = dict(store.due(T0 + 41 * 60_000))
    assert code in due
    tick = tables_of(store).append(
        code, "tick", {}, Actor("system"), f"tick:{due[code]}", T0 + 41 * 60_000
    )
    assert tick.events and tick.events[0]["type"]
    again = tables_of(store).append(
        code, "tick", {}, Actor("system"), f"tick:{due[code]}", T0 + 41 * 60_000
    )
    assert again.duplicate


def test_commands_waiting_for_a_commit_share_the_next_one(store: EventStore, another_store):
    """Group commit: what is decided while a commit is on its way is written in one transaction,
    each command still answered only after it is stored, in order and chained."""
    codes = [new_table(store) for _ in range(4)]
    gate, entered = threading.Event(), threading.Event()
    write = store._write_group

    def held_write(group):
        entered.set()
        gate.wait(5)
        write(group)

    store._write_group = held_write  # type: ignore[method-assign]
    store._group._write = held_write
    groups_before = store._group.groups
    results: dict[str, int] = {}
    first = threading.Thread(
        target=lambda: results.update(
            first=tables_of(store).append(codes[0], "deck.declare", DECK, seat("A"), "g0", T0).seq
        )
    )
    first.start()
    assert entered.wait(5)
    # The committer is busy with the first command: these three wait and go together.
    threads = [
        threading.Thread(
            target=lambda c=c, s=s: results.update(
                {
                    f"{c}{s}": tables_of(store)
                    .append(c, "deck.declare", DECK, seat(s), f"g{c}{s}", T0)
                    .seq
                }
            )
        )
        for c, s in ((codes[1], "A"), (codes[1], "B"), (codes[2], "A"))
    ]
    for t in threads:
        t.start()
    deadline = threading.Event()
    while len(store._group._items) < 3 and not deadline.wait(0.01):
        pass
    assert results == {}  # nobody is answered before the commit
    gate.set()
    for t in [first, *threads]:
        t.join(5)
    assert store._group.groups - groups_before == 2 and store._group.largest == 3
    assert results == {"first": 4, f"{codes[1]}A": 4, f"{codes[1]}B": 5, f"{codes[2]}A": 4}
    for code in codes:
        assert store.verify(code).ok
    assert another_store().snapshot(codes[1]).state.decks["B"].registered is not None


def test_a_command_decided_on_a_state_another_process_moved_past_is_decided_again(
    store: EventStore, another_store
):
    code = new_table(store)
    other = another_store()  # another process: its own cache
    store.snapshot(code)  # cached at seq 3
    tables_of(other).append(
        code, "deck.declare", DECK, seat("A"), "elsewhere", T0
    )  # seq 4, not in cache
    result = tables_of(store).append(code, "deck.declare", DECK, seat("B"), "here", T0)
    assert result.seq == 5 and not result.duplicate
    assert [e["type"] for e in store.events_since(code, 3)] == ["deck.declared"] * 2
    assert store.verify(code).ok
    assert store.snapshot(code).state == other.snapshot(code).state


def test_a_failed_group_write_is_retried_one_by_one_and_loses_nothing(store: EventStore):
    code = new_table(store)
    write_all, calls = store.writer.write_all, []

    def hiccup(group):
        calls.append(("group", len(group)))
        raise OSError("disk hiccup")

    def one(group):
        calls.append(("one", len(group)))
        write_all(group)

    store.writer.write_together = hiccup  # type: ignore[method-assign]
    store.writer.write_all = one  # type: ignore[method-assign]
    assert tables_of(store).append(code, "deck.declare", DECK, seat("A"), "once", T0).seq == 4
    assert calls == [("group", 1), ("one", 1)]
    assert tables_of(store).append(code, "deck.declare", DECK, seat("A"), "once", T0).duplicate
    assert store.verify(code).ok and store.snapshot(code).seq == 4


def test_a_command_that_cannot_be_stored_is_refused_and_the_table_is_unchanged(
    store: EventStore,
):
    code = new_table(store)

    def broken(group):
        raise OSError("disk full")

    store.writer.write_together = store.writer.write_all = broken  # type: ignore[method-assign]
    with pytest.raises(OSError):
        tables_of(store).append(code, "deck.declare", DECK, seat("A"), "lost", T0)
    del store.writer.write_together, store.writer.write_all
    assert store.snapshot(code).seq == 3
    assert tables_of(store).append(code, "deck.declare", DECK, seat("A"), "lost", T0).seq == 4


def test_the_hashed_text_is_sorted_compact_json_of_the_event():
    # One encoder makes the text every chain hash covers; it must stay the text the logs
    # already written were hashed from: json.dumps(sort_keys, compact, non-ASCII kept).
    from server.store.chain import canonical, canonical_text, dumps

    data = {"z": [1, {"b": "é", "a": None}], "note": '「ライフ」 ok "q"', "n": -1.5}
    actor = {"role": "seat", "seat": "A", "name": "遊戯"}
    sorted_text = json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    assert dumps(data) == sorted_text
    event = {"actor": actor, "at_ms": 7, "code": "ABC\u00e9", "data": data, "seq": 12}
    expected = json.dumps(
        {**event, "type": "lp.confirmed"}, sort_keys=True, separators=(",", ":"), ensure_ascii=False
    )
    assert canonical("ABC\u00e9", 12, "lp.confirmed", data, actor, 7) == expected
    assert canonical_text("ABC\u00e9", 12, "lp.confirmed", dumps(data), dumps(actor), 7) == expected


def test_a_snapshot_gives_the_envelopes_after_a_seq_from_memory_or_says_it_cannot():
    from server.rules import EMPTY
    from server.store.events import Snapshot

    recent = tuple({"seq": n, "type": "x"} for n in range(5, 9))
    snap = Snapshot(8, EMPTY, GENESIS, recent)
    assert [e["seq"] for e in snap.since(4)] == [5, 6, 7, 8]
    assert [e["seq"] for e in snap.since(6)] == [7, 8]
    assert snap.since(8) == [] and snap.since(9) == []
    assert snap.since(3) is None  # seq 4 is not in memory


def test_the_seat_a_join_takes_is_the_rules_choice():
    from server.rules import choose_seat, create_events, decide

    empty = replay(create_events("ABC234", get_ruleset(), T0))
    assert choose_seat(empty) == "A" and choose_seat(empty, "B") == "B"
    joined = decide(empty, "seat.join", {"seat": "A", "name": "Yugi"}, SYSTEM, T0, lambda n: 0)
    state = replay(joined, empty)
    assert choose_seat(state) == "B"
    with pytest.raises(RuleError) as taken:
        choose_seat(state, "A")
    assert taken.value.code == "seat_taken"
    both = replay(
        decide(state, "seat.join", {"seat": "B", "name": "Kaiba"}, SYSTEM, T0, lambda n: 0), state
    )
    with pytest.raises(RuleError) as full:
        choose_seat(both)
    assert full.value.code == "table_full"


def test_the_writer_is_chosen_once_and_its_connections_are_set_up_as_the_pools(
    store: EventStore,
):
    from server.store.models import is_sqlite
    from server.store.writers import PostgresWriter, SqliteWriter

    expected = SqliteWriter if is_sqlite(db) else PostgresWriter
    assert type(store.writer) is expected
    code = new_table(store)
    tables_of(store).append(code, "deck.declare", DECK, seat("A"), "w1", T0)
    assert tables_of(store).append(code, "deck.declare", DECK, seat("A"), "w1", T0).duplicate
    if expected is SqliteWriter:
        own = store.writer.connect()
        try:
            with db.connection_context():
                for name in ("synchronous", "foreign_keys", "busy_timeout", "journal_mode"):
                    pooled = db.execute_sql(f"PRAGMA {name}").fetchone()[0]
                    assert own.execute(f"PRAGMA {name}").fetchone()[0] == pooled, name
        finally:
            own.close()


def test_the_store_asks_the_database_kind_once_and_uses_no_private_peewee_call():
    from pathlib import Path

    store_dir = Path(__file__).resolve().parent.parent / "server" / "store"
    events = (store_dir / "events.py").read_text()
    assert "is_sqlite" not in events
    for path in store_dir.glob("*.py"):
        text = path.read_text()
        assert "._connect(" not in text and "super(PooledDatabase" not in text, path.name


def test_a_link_hashed_before_the_chain_had_one_encoder_still_verifies():
    # The hash below was made by the earlier `chain_hash` (json.dumps of the event): logs
    # already stored carry such hashes, so the chain's text must not change.
    from types import SimpleNamespace

    from server.store.chain import dumps, verify_chain

    data = {"note": '「ライフ」 "q"', "n": -1.5, "z": [1, {"b": "é", "a": None}]}
    actor = {"role": "seat", "seat": "A", "name": "遊戯"}
    stored = "8509834ae516dfa424e14155e1742df801dd9b74cdadc6b40e9272e17266c5fe"
    assert chain_hash(GENESIS, "ABC234", 1, "lp.confirmed", data, actor, T0) == stored
    row = SimpleNamespace(
        seq=1, type="lp.confirmed", data=dumps(data), actor=dumps(actor), at_ms=T0,
        prev_hash=GENESIS, hash=stored,
    )  # fmt: skip
    assert verify_chain("ABC234", [row], 1).ok
    assert verify_chain("ABC234", [row], 2).problem == "log shorter than the table's seq"
    broken = SimpleNamespace(**{**vars(row), "hash": "0" * 64})
    assert verify_chain("ABC234", [broken], 1).problem == "hash does not match"


def test_each_event_is_applied_once_by_the_rules_never_by_the_store(
    store: EventStore, monkeypatch: pytest.MonkeyPatch
):
    """The service appends the rules' decision (events and the state after them); the store
    chains and keeps that state, applying nothing again, and it is the state a replay of the
    stored log gives."""
    code = new_table(store)
    store.snapshot(code)  # cached: nothing to catch up from the database below

    def applied(*_args: object) -> None:
        raise AssertionError("the store applied an event")

    monkeypatch.setattr("server.store.events.apply", applied)
    done = tables_of(store).append(code, "deck.declare", DECK, seat("A"), "once", T0)
    assert done.events and not done.duplicate
    monkeypatch.undo()
    held = store.fresh(code)
    assert held.seq == done.seq
    log = store.log(code)
    assert held.state == replay(_event_of(e) for e in log)


def test_a_closed_store_and_its_pool_leave_no_connection_open(database_url, another_store):
    """What the test fixtures close after every test: a store's own connections (its writer's
    and its duplicate check's) and its pool's. On PostgreSQL, left open, a whole run's passed
    the server's 100 clients."""
    if not database_url:
        pytest.skip("PostgreSQL counts its clients")

    def clients() -> int:
        with db.connection_context():
            row = db.execute_sql(
                "SELECT count(*) FROM pg_stat_activity"
                " WHERE datname = current_database() AND pid <> pg_backend_pid()"
            ).fetchone()
        return int(row[0])

    db.obj.close_all()
    before = clients()
    other = another_store()
    code = new_table(other)
    tables_of(other).append(code, "deck.declare", DECK, seat("A"), "c1", T0)
    assert clients() >= before + 2  # the writer's and the duplicate check's connections
    other.close()
    db.obj.close_all()
    assert clients() == before
