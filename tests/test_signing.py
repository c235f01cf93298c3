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
from server.store.models import EventRow, TableRow
from server.store.signing import Signer, message

ROOT = Path(__file__).resolve().parent.parent


def rechain_edit(code: str, old: str, new: str) -> int:
    """Change the first event whose data holds `old` to `new` and recompute every later hash,
    as a careful attacker with the database file would; the seq edited."""
    table = TableRow.get(TableRow.code == code)
    rows = list(EventRow.select().where(EventRow.table == table.id).order_by(EventRow.seq))
    edited = next(r.seq for r in rows if old in r.data)
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
        store = services().store
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
        store = services().store
        t = play_match(store)
        assert store.verify(t.code).ok
        rechain_edit(t.code, '"amount":2500', '"amount":250')
        result = store.verify(t.code)
        assert not result.ok
        assert "signed head" in (result.problem or "")


def test_the_verify_command_checks_the_signatures(app: Flask, app_config: dict[str, Any]):
    with app.app_context():
        t = play_match(services().store)
    env = {
        **os.environ,
        "DATA_DIR": app_config["DATA_DIR"],
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
        key = first.extensions["duel_table"].store.signer.public_hex
    finally:
        first.extensions["duel_table"].close()
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    again = create_app({**app_config, "SIGNING_KEY_FILE": str(path)})
    try:
        assert again.extensions["duel_table"].store.signer.public_hex == key
    finally:
        again.extensions["duel_table"].close()
    signer = Signer.load(path)
    assert signer.check("ABC", 3, "0" * 64, signer.sign("ABC", 3, "0" * 64))
    assert message("ABC", 3, "0" * 64) != message("ABC", 4, "0" * 64)


def test_a_log_changed_under_the_cache_alerts_the_judges(app: Flask, client):
    with app.app_context():
        store = services().store
        t = play_match(store)
        cached_lp = store.fresh(t.code).state.lp
        rechain_edit(t.code, '"amount":2500', '"amount":250')
    assert client.get(f"/t/{t.code}/sheet").status_code == 200
    with app.app_context():
        state = store.snapshot(t.code).state
        [alarm] = [c for c in state.calls if "changed under the server" in c.reason]
        assert alarm.seat is None and alarm.status == "open"
        from server.floor import alerts_of
        from server.rules import view

        alerts = alerts_of(view(state, privileged=True))
        assert any(a["kind"] == "judge_call" for a in alerts)
        assert cached_lp is not None


def test_the_export_carries_the_signed_heads_and_the_key(app: Flask, client):
    with app.app_context():
        t = play_match(services().store)
    body = client.get(f"/api/tables/{t.code}/export.json").get_json()
    assert body["public_key"] and len(body["signed_heads"]) >= 4
    heads = client.get(f"/api/tables/{t.code}/heads").get_json()
    assert heads["heads"] == body["signed_heads"]
