"""The hash chain (R1.4: the score sheet must be complete and ordered): a real match verifies;
an edited, a deleted and a reordered event are each caught at the right seq; and the
`python -m server verify` command's output and exit codes."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from sheet_match import StoreTable, play_match

from server.__main__ import main
from server.store import EventStore, bind, db, open_database
from server.store.models import EventRow, TableRow

ROOT = Path(__file__).resolve().parent.parent


def rows(code: str) -> dict[int, EventRow]:
    with db.connection_context():
        table = TableRow.get(TableRow.code == code)
        return {r.seq: r for r in EventRow.select().where(EventRow.table == table.id)}


def edit(code: str, seq: int, **values: object) -> None:
    row = rows(code)[seq]
    with db.connection_context():
        EventRow.update(**values).where(EventRow.id == row.id).execute()


def delete(code: str, seq: int) -> None:
    row = rows(code)[seq]
    with db.connection_context():
        EventRow.delete().where(EventRow.id == row.id).execute()


def swap(code: str, first: int, second: int) -> None:
    """Exchange two events' places in the log (their seq numbers), in one transaction."""
    found = rows(code)
    a, b = found[first], found[second]
    with db.connection_context(), db.atomic():
        EventRow.update(seq=-1).where(EventRow.id == a.id).execute()
        EventRow.update(seq=first).where(EventRow.id == b.id).execute()
        EventRow.update(seq=second).where(EventRow.id == a.id).execute()


def seq_of(code: str, type_: str, nth: int = 0) -> int:
    return [s for s, r in sorted(rows(code).items()) if r.type == type_][nth]


@pytest.fixture
def match(store: EventStore) -> StoreTable:
    return play_match(store)


def test_the_chain_of_a_real_match_verifies(store: EventStore, match: StoreTable):
    result = store.verify(match.code)
    log = store.log(match.code)
    assert result.ok and result.seq is None and result.problem is None
    assert result.count == len(log) > 100
    assert log[0]["prev_hash"] == "0" * 64
    assert all(e["prev_hash"] == p["hash"] for p, e in zip(log, log[1:], strict=False))


def test_an_edited_lp_entry_is_caught_at_its_seq(store: EventStore, match: StoreTable):
    seq = seq_of(match.code, "lp.applied", 2)
    data = json.loads(rows(match.code)[seq].data)
    data["lp"]["A"] += 1000  # a player "finds" 1000 LP after the fact
    edit(match.code, seq, data=json.dumps(data, separators=(",", ":"), sort_keys=True))
    result = store.verify(match.code)
    assert (result.ok, result.seq, result.problem) == (False, seq, "hash does not match")


def test_an_edit_with_a_recomputed_hash_breaks_the_next_link(store: EventStore, match: StoreTable):
    from server.store.events import chain_hash

    seq = seq_of(match.code, "lp.applied", 0)
    row = rows(match.code)[seq]
    data = json.loads(row.data)
    data["note"] = "changed later"
    digest = chain_hash(
        row.prev_hash, match.code, seq, row.type, data, json.loads(row.actor), row.at_ms
    )
    edit(match.code, seq, data=json.dumps(data), hash=digest)
    result = store.verify(match.code)
    assert (result.ok, result.seq, result.problem) == (False, seq + 1, "prev_hash does not match")


@pytest.mark.parametrize("where", ["first", "middle", "result"])
def test_a_deleted_event_is_caught_at_its_seq(store: EventStore, match: StoreTable, where: str):
    seq = {
        "first": 1,
        "middle": seq_of(match.code, "lp.applied", 5),
        "result": seq_of(match.code, "duel.final", 1),
    }[where]
    delete(match.code, seq)
    result = store.verify(match.code)
    assert (result.ok, result.seq, result.problem) == (False, seq, "missing event")


def test_a_deleted_last_event_is_caught(store: EventStore, match: StoreTable):
    last = max(rows(match.code))
    delete(match.code, last)
    result = store.verify(match.code)
    assert (result.ok, result.seq) == (False, last)
    assert result.problem == "log shorter than the table's seq"


def test_reordered_events_are_caught_at_the_first_moved_one(store: EventStore, match: StoreTable):
    first = seq_of(match.code, "lp.applied", 3)
    swap(match.code, first, first + 2)
    result = store.verify(match.code)
    assert (result.ok, result.seq, result.problem) == (False, first, "prev_hash does not match")


def test_a_tampered_table_leaves_the_others_sound(store: EventStore, match: StoreTable):
    other = StoreTable(store).join().register()
    delete(match.code, 10)
    assert store.verify(other.code).ok
    assert store.verify(match.code).seq == 10


# --- the command line --------------------------------------------------------------------


@pytest.fixture
def sqlite_store(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> EventStore:
    """A store on its own SQLite file, which the command reads through the environment."""
    data_dir = tmp_path / "cli"
    monkeypatch.setenv("DATA_DIR", str(data_dir))
    monkeypatch.setenv("DATABASE_URL", "")
    # Its own key directory: a key another test left in the session's would be read as this
    # database's, which signed nothing.
    monkeypatch.setenv("KEY_DIR", str(tmp_path / "keys"))
    bind(open_database("", str(data_dir)))
    return EventStore(db)


def test_verify_exits_0_when_every_chain_holds(sqlite_store, capsys):
    play_match(sqlite_store)
    StoreTable(sqlite_store).join()
    assert main(["verify"]) == 0
    out, err = capsys.readouterr()
    assert out == ""
    assert "2 table(s) checked, 0 broken" in err


def test_verify_names_each_broken_table_and_its_first_broken_link(sqlite_store, capsys):
    sound = play_match(sqlite_store)
    edited = play_match(sqlite_store)
    deleted = StoreTable(sqlite_store).join().register()
    seq = seq_of(edited.code, "lp.applied", 4)
    edit(edited.code, seq, at_ms=rows(edited.code)[seq].at_ms + 1)  # the time moved
    delete(deleted.code, 3)
    assert main(["verify"]) == 1
    lines = capsys.readouterr().out.splitlines()
    assert sorted(lines) == sorted(
        [
            f"{edited.code}: BROKEN at seq {seq}: hash does not match",
            f"{deleted.code}: BROKEN at seq 3: missing event",
        ]
    )
    assert main(["verify", "--code", sound.code]) == 0
    assert main(["verify", "--code", deleted.code.lower()]) == 1
    assert capsys.readouterr().out.splitlines() == [
        f"{deleted.code}: BROKEN at seq 3: missing event"
    ]


def test_verify_of_an_unknown_table_exits_2(sqlite_store, capsys):
    assert main(["verify", "--code", "ZZZZZZ"]) == 2
    assert "no such table" in capsys.readouterr().err


@pytest.mark.slow
def test_python_m_server_verify_exit_codes(sqlite_store, tmp_path: Path):
    match = play_match(sqlite_store)
    env = {**os.environ, "DATA_DIR": str(tmp_path / "cli"), "DATABASE_URL": ""}
    command = [sys.executable, "-m", "server", "verify"]
    done = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    swap(match.code, 5, 6)
    done = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=60)
    assert done.returncode == 1
    assert done.stdout == f"{match.code}: BROKEN at seq 5: prev_hash does not match\n"


# --- a log cut back (R1.4: the sheet is complete) -------------------------------------------


@pytest.fixture
def anchored_store(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> EventStore:
    """A store as the server runs it: its signing key and heads ledger in KEY_DIR, apart from
    DATA_DIR; the command finds the same through the environment."""
    from server.store.ledger import HeadLedger, ledger_path
    from server.store.signing import Signer

    data_dir, keys = tmp_path / "data", tmp_path / "keys"
    monkeypatch.setenv("DATA_DIR", str(data_dir))
    monkeypatch.setenv("KEY_DIR", str(keys))
    monkeypatch.setenv("DATABASE_URL", "")
    # Its own key directory: a key another test left in the session's would be read as this
    # database's, which signed nothing.
    monkeypatch.setenv("KEY_DIR", str(tmp_path / "keys"))
    bind(open_database("", str(data_dir)))
    store = EventStore(db)
    store.signer = Signer.load_or_create(keys / "signing-key.pem")
    store.ledger = HeadLedger.open(ledger_path({"DATA_DIR": str(data_dir)}, keys), 0)
    return store


def cut(code: str, keep: int) -> None:
    """Cut the table's log back to its first `keep` events, as someone with the database (but
    not the key) would: the later events, their signed heads and the table's seq, so the chain
    and the signatures left still hold."""
    from server.store.models import HeadSignature

    with db.connection_context(), db.atomic():
        table = TableRow.get(TableRow.code == code)
        EventRow.delete().where((EventRow.table == table.id) & (EventRow.seq > keep)).execute()
        HeadSignature.delete().where(
            (HeadSignature.table_id == table.id) & (HeadSignature.seq > keep)
        ).execute()
        TableRow.update(seq=keep).where(TableRow.id == table.id).execute()


def unfinished(store: EventStore) -> StoreTable:
    """A table whose duel 1 is decided (its head signed) and duel 2 under way."""
    t = StoreTable(store).join().register()
    t.do("judge", "clock.start")
    t.start_duel(first="A")
    t.lp("A", ("B", "damage", 8000))
    t.results().between()
    t.start_duel(first="B")
    t.lp("B", ("A", "damage", 1000))
    t.lp("A", ("B", "damage", 500))
    return t


@pytest.mark.parametrize("where", ["before_first_result", "to_a_signed_head", "after_last_signed"])
def test_a_log_cut_back_does_not_verify(anchored_store: EventStore, capsys, where: str):
    sound = play_match(anchored_store)
    if where == "after_last_signed":
        t = unfinished(anchored_store)
        last_signed = anchored_store.signed_heads(t.code)[-1]["seq"]
        length = len(rows(t.code))
        assert length > last_signed + 2
        keep = length - 2  # the last LP entry of duel 2, unsigned, goes
    else:
        t = play_match(anchored_store)
        first_result = seq_of(t.code, "duel.final")
        first_head = anchored_store.signed_heads(t.code)[0]["seq"]
        keep = first_result - 1 if where == "before_first_result" else first_head
    assert anchored_store.verify(t.code).ok
    assert main(["verify"]) == 0
    cut(t.code, keep)
    result = anchored_store.verify(t.code)
    assert (result.ok, result.seq) == (False, keep + 1)
    assert result.problem == "log shorter than its recorded length"
    capsys.readouterr()
    assert main(["verify"]) == 1
    out, err = capsys.readouterr()
    assert out.splitlines() == [
        f"{t.code}: BROKEN at seq {keep + 1}: log shorter than its recorded length"
    ]
    assert "2 table(s) checked, 1 broken" in err
    assert anchored_store.verify(sound.code).ok


def test_a_cut_log_grown_again_does_not_verify(anchored_store: EventStore):
    """Cut after its last signed head and written on (the same length, other events): the
    hash at the recorded length is another."""
    t = unfinished(anchored_store)
    length = len(rows(t.code))
    cut(t.code, length - 2)
    anchored_store._cache.drop(t.code)  # the server restarted on the cut database
    t.lp("A", ("B", "damage", 100))
    result = anchored_store.verify(t.code)
    assert (result.ok, result.seq) == (False, length)
    assert result.problem == "the log does not match its recorded head"


def test_a_table_missing_from_the_ledger_does_not_verify(anchored_store: EventStore, tmp_path):
    """Its lines taken away: a table with events, made after the ledger began, and none."""
    from server.store.ledger import HeadLedger

    t = play_match(anchored_store)
    path = anchored_store.ledger.path
    lines = path.read_text().splitlines(keepends=True)
    path.write_text("".join(x for x in lines if not x.startswith(t.code)))
    anchored_store.ledger = HeadLedger.open(path, 0, create=False)
    result = anchored_store.verify(t.code)
    assert (result.ok, result.seq) == (False, 1)
    assert result.problem == "no recorded length outside the log"


def test_the_sheet_does_not_say_verified_for_a_cut_log(app, client):
    from server import services

    with app.app_context():
        t = play_match(services().tables.store)
        assert client.get(f"/api/tables/{t.code}/export.json").get_json()["verified"]["ok"]
        cut(t.code, seq_of(t.code, "duel.final") - 1)
        services().tables.store._cache.drop(t.code)
    body = client.get(f"/api/tables/{t.code}/export.json").get_json()
    assert body["verified"]["ok"] is False
    assert body["verified"]["problem"] == "log shorter than its recorded length"


def test_a_table_another_process_wrote_verifies(sqlite_store, tmp_path):
    """Two workers (or hosts) share one heads ledger: a table the other one wrote after this
    one read the file is found by reading it again, not named broken."""
    from server.store.ledger import HeadLedger

    path = tmp_path / "heads.log"
    writer, reader = HeadLedger.open(path, 0), HeadLedger.open(path, 0)
    sqlite_store.ledger = writer
    table = play_match(sqlite_store)
    other = EventStore(db)
    other.ledger = reader  # opened before the other process wrote
    assert other.verify(table.code).ok
