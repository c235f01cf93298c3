"""Two attacks on what the record and the hall's address must hold:
`python -m reliability.cut_and_claims` (and `python -m reliability`, unless `--skip cut`).

- **A log cut back.** A match played into a database of its own (its key and heads ledger in
  a KEY_DIR apart from it), then cut as someone with the database but not the key would: its
  last events, their signed heads and the table's seq deleted, to before duel 1's result, to
  duel 1's signed head, and after the last signed head of an unfinished table. Each time
  `python -m server verify` must exit 1 naming the table.
- **One address's budget spent.** A real server (pinned to the first CPU) with a small
  per-address budget: this process spends its address's HTTP budget and socket opens (as one
  device on a hall's Wi-Fi would), then a new phone at a table card (its QR link, the table's
  read, the join, all with the card's claim) and a seated phone reconnecting with its pass
  must still get in.
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import tempfile
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent


@dataclass
class CutClaimsReport:
    cuts: dict[str, dict[str, Any]] = field(default_factory=dict)
    budget: dict[str, Any] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)


def check_cuts(workdir: Path) -> dict[str, dict[str, Any]]:
    """Each cut, and what `python -m server verify` said of it."""
    sys.path.insert(0, str(ROOT / "tests"))
    from sheet_match import StoreTable, play_match

    from server import create_app, services
    from server.store import db
    from server.store.models import EventRow, HeadSignature, TableRow

    found: dict[str, dict[str, Any]] = {}
    for where in ("before_first_result", "to_a_signed_head", "after_last_signed"):
        data_dir, keys = workdir / "cuts" / where, workdir / "cuts" / f"{where}-keys"
        conf = {"DATA_DIR": str(data_dir), "KEY_DIR": str(keys), "DATABASE_URL": ""}
        app = create_app({**conf, "TIMER_ENABLED": False})
        try:
            with app.app_context():
                store = services().tables.store
                if where == "after_last_signed":
                    t = StoreTable(store).join().register()
                    t.do("judge", "clock.start")
                    t.start_duel(first="A")
                    t.lp("A", ("B", "damage", 8000))
                    t.results().between()
                    t.start_duel(first="B")
                    t.lp("B", ("A", "damage", 1000))
                    t.lp("A", ("B", "damage", 500))
                    keep = t.state() and len(store.log(t.code)) - 2
                else:
                    t = play_match(store)
                    log = store.log(t.code)
                    first = next(e["seq"] for e in log if e["type"] == "duel.final")
                    head = store.signed_heads(t.code)[0]["seq"]
                    keep = first - 1 if where == "before_first_result" else head
                with db.connection_context(), db.atomic():
                    table = TableRow.get(TableRow.code == t.code)
                    EventRow.delete().where(
                        (EventRow.table == table.id) & (EventRow.seq > keep)
                    ).execute()
                    HeadSignature.delete().where(
                        (HeadSignature.table_id == table.id) & (HeadSignature.seq > keep)
                    ).execute()
                    TableRow.update(seq=keep).where(TableRow.id == table.id).execute()
        finally:
            app.extensions["duel_table"].close()
        env = {**os.environ, **conf}
        done = subprocess.run(
            [sys.executable, "-m", "server", "verify"],
            cwd=ROOT, env=env, capture_output=True, text=True, timeout=120,
        )  # fmt: skip
        found[where] = {
            "returncode": done.returncode,
            "out": done.stdout.strip()[:300],
            "names_the_table": t.code in done.stdout,
            "cut_to": keep,
        }
    return found


async def _spend_and_enter(base: str, detail: dict[str, Any]) -> dict[str, Any]:
    from websockets.asyncio.client import connect
    from websockets.exceptions import InvalidStatus

    from .public_cost import Client

    ws_url = base.replace("http://", "ws://")
    a, b = detail["tables"][0], detail["tables"][1]
    anon = Client(base)
    # A seated phone first: table 2's seat A, with its card's claim; its welcome's pass.
    claim = b["claims"]["A"]
    paired = b["pairing"]["A"]
    body = {"name": paired["name"], "player_id": paired["player_id"], "seat": "A", "claim": claim}
    status, seated, _ = anon.call(
        "POST", f"/api/tables/{b['code']}/join?seat=A&claim={claim}", body
    )
    assert status in (200, 201), seated
    async with connect(f"{ws_url}/ws/table/{b['code']}") as ws:
        await ws.send(json.dumps({"type": "hello", "token": seated["token"]}))
        while (welcome := json.loads(await ws.recv()))["type"] != "welcome":
            pass
    given = welcome.get("pass", "")
    # One device spends the address's HTTP budget and its socket opens.
    spent = {"http": 0, "http_refused": 0, "opens": 0, "opens_refused": 0}
    for _ in range(400):
        status, _, _ = anon.call("GET", f"/api/tables/{a['code']}")
        spent["http" if status == 200 else "http_refused"] += 1
        if status == 429 and spent["http_refused"] >= 5:
            break
    held = []
    for _ in range(200):
        try:
            held.append(await connect(f"{ws_url}/ws/table/{a['code']}"))
            spent["opens"] += 1
        except InvalidStatus:
            spent["opens_refused"] += 1
            if spent["opens_refused"] >= 5:
                break
    # The new phone at table 1's card, seat A: QR link, read, join.
    claim = a["claims"]["A"]
    card = f"seat=A&claim={claim}"
    paired = a["pairing"]["A"]
    slug = detail["slug"]
    import http.client
    from urllib.parse import urlsplit

    where = urlsplit(base)
    conn = http.client.HTTPConnection(where.hostname or "127.0.0.1", where.port, timeout=30)
    conn.request("GET", f"/s/{slug}/{a['number']}/A?c={claim}")  # not followed: its redirect
    answer = conn.getresponse()
    link, got = answer.status, {"Location": answer.getheader("Location") or ""}
    conn.close()
    read, _, _ = anon.call("GET", f"/api/tables/{a['code']}?{card}")
    body = {"name": paired["name"], "player_id": paired["player_id"], "seat": "A", "claim": claim}
    joined, _, _ = anon.call("POST", f"/api/tables/{a['code']}/join?{card}", body)
    plain, _, _ = anon.call("GET", f"/api/tables/{a['code']}")
    # The seated phone comes back with its pass; a socket without one is refused.
    try:
        again = await connect(f"{ws_url}/ws/table/{b['code']}?pass={given}")
        await again.send(json.dumps({"type": "hello", "token": seated["token"]}))
        while (back := json.loads(await again.recv()))["type"] not in ("welcome", "error"):
            pass
        await again.close()
        reconnect = back["type"]
    except InvalidStatus as exc:
        reconnect = f"refused {exc.response.status_code}"
    for ws in held:
        await ws.close()
    return {
        **spent,
        "qr_link": link,
        "qr_link_location": got.get("Location", "")[:40],
        "read_with_claim": read,
        "join_with_claim": joined,
        "read_without_claim": plain,
        "seated_reconnect": reconnect,
    }


def check_budget(workdir: Path) -> dict[str, Any]:
    """The address's budgets spent, then a card's phone and a seated phone still get in."""
    from bench.servers import cpu_split, start_gunicorn, wait_ready

    from .public_cost import set_up

    split = cpu_split()
    env = {
        "LOG_LEVEL": "warning",
        "HTTP_RATE_PER_MINUTE": "60",
        "HTTP_RATE_BURST": "40",
        "WS_OPENS_PER_ADDRESS_PER_SECOND": "2",
        "WS_OPENS_PER_ADDRESS_BURST": "20",
    }
    run_dir = workdir / "claims"
    run_dir.mkdir(parents=True, exist_ok=True)
    server = start_gunicorn(
        "claims", "server:create_app()", run_dir, env, cpus=split[0] if split else None
    )
    try:
        if split:
            os.sched_setaffinity(0, split[1])
        wait_ready(server, "/api/time")
        detail, _ = set_up(server, 4)
        started = time.monotonic()
        found = asyncio.run(_spend_and_enter(server.url, detail))
        found["seconds"] = round(time.monotonic() - started, 1)
        found["worker_pids"] = len(server.worker_pids())
    finally:
        server.stop()
    return found


def problems(report: CutClaimsReport) -> list[str]:
    """The guarantees missed."""
    found = []
    for where, cut in report.cuts.items():
        if cut["returncode"] != 1 or not cut["names_the_table"]:
            found.append(f"cut {where}: verify said {cut}")
    b = report.budget
    if not b.get("http_refused") or not b.get("opens_refused"):
        found.append(f"the address's budgets were never spent: {b}")
    if b.get("qr_link") != 302 or "/t/" not in b.get("qr_link_location", ""):
        found.append(f"the card's QR link: {b.get('qr_link')}")
    if b.get("read_with_claim") != 200 or b.get("join_with_claim") not in (200, 201):
        found.append(
            f"the card's phone: read {b.get('read_with_claim')}, join {b.get('join_with_claim')}"
        )
    if b.get("read_without_claim") != 429:
        found.append(f"a read without a claim was not refused: {b.get('read_without_claim')}")
    if b.get("seated_reconnect") != "welcome":
        found.append(f"the seated phone's reconnect: {b.get('seated_reconnect')}")
    return found


def run(workdir: Path) -> CutClaimsReport:
    report = CutClaimsReport()
    report.cuts = check_cuts(workdir)
    report.budget = check_budget(workdir)
    report.problems = problems(report)
    return report


def summary(report: CutClaimsReport) -> str:
    cuts = ", ".join(f"{k}: rc {v['returncode']}" for k, v in report.cuts.items())
    return f"[cut] {cuts}; [claims] {report.budget}"


def main(argv: list[str] | None = None) -> int:
    workdir = Path(tempfile.mkdtemp(prefix="reliability-cut-"))
    report = run(workdir)
    print(summary(report))
    print(json.dumps(asdict(report), default=str))
    for problem in report.problems:
        print(f"  ! {problem}")
    return 1 if report.problems else 0


if __name__ == "__main__":
    sys.exit(main())
