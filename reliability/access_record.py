"""The access checks of the secrets, seats and the record (part of `reliability.access`):
every route of the URL map has a decision, a secret pick cannot be recovered by hashing, code
look-ups cost per code, a moved seat's old token and socket end at once, a logout closes the
judge's socket, and a re-chained edit of the database is caught by `verify`."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
import uuid
from pathlib import Path
from typing import Any

from .http import request
from .proc import ServerProcess
from .table_client import Ws, table

ROOT = Path(__file__).resolve().parent.parent
HANDS = ("rock", "paper", "scissors")
CHECKLIST = ["handshake", "side_shown", "shuffled", "cut"]


def check_routes(server: ServerProcess, report: Any) -> None:
    """Every route of the app's URL map has an explicit access decision."""
    from server import create_app
    from server.api.access import POLICIES

    routes = server.backend.data_dir / "routes"
    app = create_app(
        {"DATA_DIR": str(routes), "KEY_DIR": str(routes / "keys"), "TIMER_ENABLED": False}
    )
    try:
        endpoints = {r.endpoint for r in app.url_map.iter_rules()}
    finally:
        app.extensions["duel_table"].close()
    missing = sorted(endpoints - set(POLICIES))
    report.record("routes_decided", not missing, {"routes": len(endpoints), "missing": missing})
    report.counts["routes_decided"] = len(endpoints) - len(missing)


def check_salt(server: ServerProcess, report: Any) -> None:
    """Hash the three possible hands against the public log, the export and the sheet head."""
    from server.store.events import chain_hash

    code, tokens = table(server)
    phones = {s: Ws(server, code, tokens[s]) for s in "AB"}
    try:
        for ws in phones.values():
            ws.hello()
        for ws in phones.values():
            ws.command("deck.declare", {"main": 40, "extra": 15, "side": 15})
        for s, ws in phones.items():
            ws.command("deck.confirm", {"seat": "B" if s == "A" else "A"})
        for ws in phones.values():
            ws.command("pregame.check", {"items": CHECKLIST})
        phones["A"].command("rps.pick", {"hand": "paper"})
    finally:
        for ws in phones.values():
            ws.close()
    tried = recovered = 0
    for path in (f"/api/tables/{code}/log", f"/api/tables/{code}/export.json"):
        body = request(server.base, "GET", path)[2]
        for e in body["events"]:
            if e["type"] != "rps.picked":
                continue
            for hand in HANDS:
                tried += 1
                data = {**e["data"], "hand": hand}
                digest = chain_hash(
                    e["prev_hash"], code, e["seq"], e["type"], data, e["actor"], e["at_ms"]
                )
                recovered += digest == e["hash"]
    report.record("salted_pick_unrecoverable", tried >= 6 and recovered == 0, {"tried": tried})
    report.counts["salt_guesses_tried"] = tried


def check_lookup_cost(server: ServerProcess, report: Any) -> None:
    """With the production limits: `/sheets?codes=` spends a token per code, `/event` is
    limited, and unknown codes spend the few miss tokens."""
    codes = ",".join(f"Z{uuid.uuid4().hex[:5].upper()}" for _ in range(100))
    looked = 0
    for _ in range(20):
        status = request(server.base, "GET", f"/sheets?codes={codes}")[0]
        if status == 429:
            break
        looked += 100
    event_probes = 0
    for _ in range(1000):
        guess = "Z" + uuid.uuid4().hex[:5].upper()
        status = request(server.base, "GET", f"/api/tables/{guess}/event")[0]
        event_probes += 1
        if status == 429:
            break
    ok = looked <= 300 and event_probes < 1000
    note = {"codes_before_429": looked, "event_probes_before_429": event_probes}
    report.record("code_lookups_cost_per_code", ok, note)
    report.counts["codes_looked_up_before_429"] = looked
    report.counts["event_probes_before_429"] = event_probes


def check_seat_move(server: ServerProcess, report: Any) -> None:
    """A casual table: a new phone takes seat B with the confirmation of B's own phone (the
    seat's owner); B's old token stops and its socket closes at once."""
    code, tokens = table(server)
    old = Ws(server, code, tokens["B"])
    old.hello()
    asked = request(
        server.base,
        "POST",
        f"/api/tables/{code}/join",
        {"seat": "B", "name": "Seat B", "takeover": True},
    )[2]
    confirm = f"/api/tables/{code}/seat-requests/{asked['request']}/confirm"
    status = request(server.base, "POST", confirm, {}, {"Authorization": f"Bearer {tokens['B']}"})[
        0
    ]
    closed = old.close_code(timeout=5)
    still = request(
        server.base,
        "POST",
        f"/api/tables/{code}/decklist/check",
        {"text": "1 Kuriboh"},
        {"Authorization": f"Bearer {tokens['B']}"},
    )[0]
    log = request(server.base, "GET", f"/api/tables/{code}/log")[2]["events"]
    ok = status == 200 and closed == 4003 and still == 401 and log[-1]["type"] == "seat.moved"
    report.record("seat_move_revokes", ok, {"confirm": status, "close": closed, "old": still})
    report.counts["seat_moves"] = int(ok)


def _organiser(server: ServerProcess, username: str, password: str) -> None:
    env = {**os.environ, **server.backend.env()}
    subprocess.run(
        [sys.executable, "-m", "server", "create-organiser", username, "--password", password],
        cwd=ROOT,
        env=env,
        check=True,
        capture_output=True,
        timeout=60,
    )


def check_logout(server: ServerProcess, report: Any) -> None:
    """An organiser's socket at an event table closes when the login logs out."""
    import http.cookiejar
    import urllib.request

    user, password = f"org{uuid.uuid4().hex[:6]}", "correct horse battery"
    _organiser(server, user, password)
    jar = http.cookiejar.CookieJar()
    opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(jar))

    def call(method: str, path: str, body: Any, csrf: str = "") -> Any:
        req = urllib.request.Request(
            server.base + path, data=json.dumps(body).encode(), method=method
        )
        req.add_header("Content-Type", "application/json")
        req.add_header("Origin", server.base)
        if csrf:
            req.add_header("X-CSRF-Token", csrf)
        with opener.open(req, timeout=10) as answer:
            return json.loads(answer.read())

    csrf = call("POST", "/api/auth/login", {"username": user, "password": password})["csrf"]
    event = call(
        "POST",
        "/api/events",
        {"name": "Cup", "date": "2026-12-01", "tables": 1, "require_player_id": False},
        csrf,
    )
    code = event["tables"][0]["code"]
    cookie = "; ".join(f"{c.name}={c.value}" for c in jar)
    ws = Ws(server, code, None, origin=server.base)
    ws.ws.close()
    from websockets.sync.client import connect

    ws.ws = connect(
        f"{server.ws_base}/ws/table/{code}",
        additional_headers={"Origin": server.base, "Cookie": cookie},
        open_timeout=5,
        compression=None,
        legacy=True,
    )
    role = ws.hello().get("role")
    call("POST", "/api/auth/logout", {}, csrf)
    started = time.monotonic()
    closed = ws.close_code(timeout=10)
    note = {"role": role, "close": closed, "seconds": round(time.monotonic() - started, 2)}
    ok = role == "organiser" and closed == 4003
    report.record("logout_closes_sockets", ok, note)
    report.counts["sockets_closed_by_logout"] = int(closed == 4003)


def check_rechained_edit(server: ServerProcess, report: Any) -> None:
    """Play a match into a database of its own, change an applied entry and re-chain every
    later hash: `python -m server verify` must exit 1."""
    sys.path.insert(0, str(ROOT / "tests"))
    from sheet_match import play_match

    from server import create_app, services
    from server.store.events import chain_hash
    from server.store.models import EventRow, TableRow

    data_dir = server.backend.data_dir / "rechain"
    keys = str(data_dir / "keys")
    app = create_app(
        {"DATA_DIR": str(data_dir), "KEY_DIR": keys, "TIMER_ENABLED": False, "DATABASE_URL": ""}
    )
    try:
        with app.app_context():
            code = play_match(services().tables.store).code
            table = TableRow.get(TableRow.code == code)
            rows = list(EventRow.select().where(EventRow.table == table.id).order_by(EventRow.seq))
            edited = next(r.seq for r in rows if '"amount":2500' in r.data)
            prev = rows[edited - 2].hash
            for row in rows[edited - 1 :]:
                data = row.data.replace('"amount":2500', '"amount":250', 1)
                digest = chain_hash(
                    prev, code, row.seq, row.type, json.loads(data), json.loads(row.actor),
                    row.at_ms,
                )  # fmt: skip
                EventRow.update(data=data, prev_hash=prev, hash=digest).where(
                    EventRow.id == row.id
                ).execute()
                prev = digest
    finally:
        app.extensions["duel_table"].close()
    env = {**os.environ, "DATA_DIR": str(data_dir), "KEY_DIR": keys, "DATABASE_URL": ""}
    done = subprocess.run(
        [sys.executable, "-m", "server", "verify", "--code", code],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    ok = done.returncode == 1 and "signed head" in done.stdout
    report.record("rechained_edit_caught", ok, done.stdout.strip()[:300])
    report.counts["rechained_edits_caught"] = int(ok)
