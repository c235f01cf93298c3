"""A record that proves itself: signed chain heads at each confirmed result and at the match's
end, checked by `verify`; a log changed under the server's cache raises an alarm."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
from pathlib import Path
from typing import Any

from flask import Flask
from sheet_match import play_match

from server import create_app, services
from server.store.events import chain_hash
from server.store.models import EventRow, HeadSignature, TableRow
from server.store.signing import SIGN_AT, Signer, message

ROOT = Path(__file__).resolve().parent.parent


def rechain_edit(code: str, old: str, new: str, after: int = 0) -> int:
    """Change the first event (after seq `after`) whose data holds `old` to `new` and recompute
    every later hash, as a careful attacker with the database file would; the seq edited."""
    table = TableRow.get(TableRow.code == code)
    rows = list(EventRow.select().where(EventRow.table == table.id).order_by(EventRow.seq))
    edited = next(r.seq for r in rows if old in r.data and r.seq > after)
    prev = rows[edited - 2].hash
    for row in rows[edited - 1 :]:
        data = row.data.replace(old, new, 1) if row.seq == edited else row.data
        digest = chain_hash(
            prev, code, row.seq, row.type, json.loads(data), json.loads(row.actor), row.at_ms
        )
        EventRow.update(data=data, prev_hash=prev, hash=digest).where(
            EventRow.id == row.id
        ).execute()
        prev = digest
    return edited


def test_heads_are_signed_at_each_confirmed_result_and_the_match_end(app: Flask):
    with app.app_context():
        store = services().tables.store
        t = play_match(store)
        heads = store.signed_heads(t.code)
        log = {e["seq"]: e for e in store.log(t.code)}
        kinds = {e["type"] for h in heads for e in [log[h["seq"]]]}
        assert len(heads) >= 4  # three duels' results and the match
        for h in heads:
            assert log[h["seq"]]["hash"] == h["hash"]
            assert store.signer.check(t.code, h["seq"], h["hash"], h["signature"])
        assert kinds & {"duel.final", "match.decided", "match.confirmed"}
        assert store.verify(t.code).ok


def test_a_rechained_edit_is_caught_by_verify(app: Flask):
    with app.app_context():
        store = services().tables.store
        t = play_match(store)
        assert store.verify(t.code).ok
        rechain_edit(t.code, '"amount":2500', '"amount":250')
        result = store.verify(t.code)
        assert not result.ok
        assert "signed head" in (result.problem or "")


def test_the_verify_command_checks_the_signatures(app: Flask, app_config: dict[str, Any]):
    with app.app_context():
        t = play_match(services().tables.store)
    env = {
        **os.environ,
        "DATA_DIR": app_config["DATA_DIR"],
        "KEY_DIR": app_config["KEY_DIR"],
        "DATABASE_URL": app_config["DATABASE_URL"],
    }

    def verify() -> subprocess.CompletedProcess:
        return subprocess.run(
            [sys.executable, "-m", "server", "verify", "--code", t.code],
            cwd=ROOT, env=env, capture_output=True, text=True, timeout=120,
        )  # fmt: skip

    assert verify().returncode == 0
    with app.app_context():
        rechain_edit(t.code, '"amount":2500', '"amount":250')
    done = verify()
    assert done.returncode == 1 and "signed head" in done.stdout


def test_the_key_is_made_once_outside_the_database_at_the_configured_path(
    app_config: dict[str, Any], tmp_path: Path
):
    path = tmp_path / "keys" / "head.pem"
    first = create_app({**app_config, "SIGNING_KEY_FILE": str(path)})
    try:
        key = first.extensions["duel_table"].tables.store.signer.public_hex
    finally:
        first.extensions["duel_table"].close()
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    again = create_app({**app_config, "SIGNING_KEY_FILE": str(path)})
    try:
        assert again.extensions["duel_table"].tables.store.signer.public_hex == key
    finally:
        again.extensions["duel_table"].close()
    signer = Signer.load(path)
    assert signer.check("ABC", 3, "0" * 64, signer.sign("ABC", 3, "0" * 64))
    assert message("ABC", 3, "0" * 64) != message("ABC", 4, "0" * 64)


def test_a_log_changed_under_the_cache_alerts_the_judges(app: Flask, client):
    with app.app_context():
        store = services().tables.store
        t = play_match(store)
        cached_lp = store.fresh(t.code).state.lp
        rechain_edit(t.code, '"amount":2500', '"amount":250')
    assert client.get(f"/t/{t.code}/sheet").status_code == 200
    with app.app_context():
        state = store.snapshot(t.code).state
        # The alarm says it in a code and values (each screen words it), no sentence.
        [alarm] = [c for c in state.calls if c.code == "log_changed"]
        assert alarm.seat is None and alarm.status == "open" and alarm.reason == ""
        assert dict(alarm.params)["seq"] > 0 and len(dict(alarm.params)["expected"]) == 12
        from server.projections.floor import alerts_of
        from server.rules import view

        alerts = alerts_of(view(state, privileged=True))
        assert any(a["kind"] == "judge_call" for a in alerts)
        assert cached_lp is not None


def test_the_export_carries_the_signed_heads_and_the_key(app: Flask, client):
    with app.app_context():
        t = play_match(services().tables.store)
    body = client.get(f"/api/tables/{t.code}/export.json").get_json()
    assert body["public_key"] and len(body["signed_heads"]) >= 4
    heads = client.get(f"/api/tables/{t.code}/heads").get_json()
    assert heads["heads"] == body["signed_heads"]


def run_verify(app_config: dict[str, Any], *extra: str) -> subprocess.CompletedProcess:
    """`python -m server verify` on the test app's database, as an organiser would run it."""
    env = {
        **os.environ,
        "DATA_DIR": app_config["DATA_DIR"],
        "KEY_DIR": app_config["KEY_DIR"],
        "DATABASE_URL": app_config["DATABASE_URL"],
    }
    return subprocess.run(
        [sys.executable, "-m", "server", "verify", *extra],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=120,
    )  # fmt: skip


def drop_signatures(code: str, from_seq: int = 0) -> int:
    """Delete the table's signed heads at `from_seq` and after, as an attacker with the database
    (but not the key) would to hide an edit; how many went."""
    table = TableRow.get(TableRow.code == code)
    return (
        HeadSignature.delete()
        .where((HeadSignature.table_id == table.id) & (HeadSignature.seq >= from_seq))
        .execute()
    )


def test_a_rewrite_before_the_first_signed_head_with_the_heads_dropped_is_caught(
    app: Flask, app_config: dict[str, Any]
):
    # The edit is re-chained from before the first signed head; every head it broke (all of
    # them) is deleted. Before: rc 0, "1 table(s) checked, 0 broken".
    with app.app_context():
        store = services().tables.store
        t = play_match(store)
        other = play_match(store)
        first = store.signed_heads(t.code)[0]["seq"]
        edited = rechain_edit(t.code, '"amount":1800', '"amount":180')
        assert edited < first
        assert drop_signatures(t.code) >= 4
        result = store.verify(t.code)
        assert not result.ok and "missing" in (result.problem or ""), result
        # Named at the first result whose head should have been signed.
        log = {e["seq"]: e for e in store.log(t.code)}
        assert log[result.seq]["type"] in SIGN_AT and result.seq <= first
        assert store.verify(other.code).ok
    done = run_verify(app_config)
    assert done.returncode == 1, (done.stdout, done.stderr)
    assert f"{t.code}: BROKEN" in done.stdout and other.code not in done.stdout


def test_a_rewrite_after_the_last_signed_head_is_caught(app: Flask, app_config: dict[str, Any]):
    # A judge's warning recorded after the match is over, then edited and re-chained. Before:
    # nothing signed it (only results and the match's end were), so verify passed.
    with app.app_context():
        store = services().tables.store
        t = play_match(store)
        t.do("judge", "penalty.record", seat="B", level="warning",
             infraction="procedural_error", note="slow play after the match")  # fmt: skip
        heads = store.signed_heads(t.code)
        assert heads[-1]["seq"] == store.snapshot(t.code).seq  # the final head is signed
        assert store.verify(t.code).ok
        rechain_edit(t.code, "slow play after the match", "nothing happened")
        assert not store.verify(t.code).ok
    done = run_verify(app_config, "--code", t.code)
    assert done.returncode == 1 and f"{t.code}: BROKEN" in done.stdout, done.stdout


def test_events_after_the_last_signed_head_of_a_finished_table_are_reported(
    app: Flask, app_config: dict[str, Any]
):
    # The heads of the match's end deleted and the events after the last one left re-chained:
    # a finished table whose final head is not signed.
    with app.app_context():
        store = services().tables.store
        t = play_match(store)
        heads = store.signed_heads(t.code)
        decided = heads[-3]["seq"]  # the match.decided head; the two confirmations after it
        drop_signatures(t.code, decided)
        # An LP entry after the last head left, its amount changed.
        rechain_edit(t.code, '"amount":', '"amount":1', after=heads[-4]["seq"])
        result = store.verify(t.code)
        assert not result.ok, result
    done = run_verify(app_config, "--code", t.code)
    assert done.returncode == 1 and f"{t.code}: BROKEN" in done.stdout, done.stdout


def test_deleted_head_signatures_are_reported_and_the_sheet_does_not_say_verified(
    app: Flask, app_config: dict[str, Any], client
):
    with app.app_context():
        store = services().tables.store
        t = play_match(store)
        drop_signatures(t.code)
        result = store.verify(t.code)
        assert not result.ok and "missing" in (result.problem or ""), result
    page = client.get(f"/t/{t.code}/sheet?lang=en")
    assert page.status_code == 200
    assert "Hash chain verified" not in page.get_data(as_text=True)
    done = run_verify(app_config)
    assert done.returncode == 1 and f"{t.code}: BROKEN" in done.stdout, done.stdout
    assert "missing" in done.stdout


def test_the_alarm_of_a_log_changed_under_the_cache_is_not_signed(app: Flask, client):
    # The judge's warning after the match is re-chained and its head's signature deleted; the
    # sheet's audit notices and writes its alarm. Signing the alarm's head would vouch for the
    # changed log: verify must still fail.
    with app.app_context():
        store = services().tables.store
        t = play_match(store)
        t.do("judge", "penalty.record", seat="B", level="warning",
             infraction="procedural_error", note="slow play after the match")  # fmt: skip
        store.fresh(t.code)  # the cache holds the real head
        last = store.signed_heads(t.code)[-1]["seq"]
        drop_signatures(t.code, last)
        rechain_edit(t.code, "slow play after the match", "nothing happened")
    assert client.get(f"/t/{t.code}/sheet").status_code == 200
    with app.app_context():
        log = store.log(t.code)
        assert log[-1]["type"] == "judge.called"  # the alarm
        assert store.signed_heads(t.code)[-1]["seq"] < log[-1]["seq"]
        result = store.verify(t.code)
        assert not result.ok, result
