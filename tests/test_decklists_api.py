"""Deck lists and ban lists at the edge: the live check endpoint, picking and uploading ban
lists, the `load-banlist` command line, and who sees which list (R1.6, R2.5, R2.6, R6.8)."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import uuid
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient
from websockets.asyncio.client import connect

from server.rules.base import event_words
from server.store import banlists
from tests.staff_actions import ROOT, Staff, create_organiser, seat_claim
from tests.ws_helpers import Phone, http

EXAMPLE = ROOT / "server" / "banlists" / "example-2026-10.csv"
FILLER = [f"3 Card {i}" for i in range(12)] + ["1 Card 12"]  # 37 cards
LEGAL = "\n".join(["Main Deck", *FILLER, "3 Kuriboh", "Side Deck", "2 Mirror Force", "3 Raigeki"])
FORBIDDEN = "\n".join(["Main", *FILLER, "2 Kuriboh", "1 強欲な壺"])


def seats(client: FlaskClient) -> tuple[str, str, str]:
    code = client.post("/api/tables", json={}).json["code"]
    a = client.post(f"/api/tables/{code}/join", json={"name": "Yugi"}).json["token"]
    b = client.post(f"/api/tables/{code}/join", json={"name": "Kaiba"}).json["token"]
    return code, a, b


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


@pytest.fixture
def example(app: Flask) -> str:
    """The example list, loaded as `example`."""
    with app.app_context():
        banlists.save("example", banlists.parse_file(EXAMPLE.read_text("utf-8")), None, 1)
    return "example"


# --- the check endpoint (R1.6, R2.1-R2.5) -------------------------------------------------


def test_r2_5_check_names_the_forbidden_card_and_writes_nothing(client: FlaskClient, example):
    code, a, _ = seats(client)
    picked = client.post(f"/api/tables/{code}/banlist", json={"name": example}, headers=bearer(a))
    assert picked.status_code == 200 and picked.json["size"] == 18
    seq = client.get(f"/api/tables/{code}").json["seq"]
    answer = client.post(
        f"/api/tables/{code}/decklist/check", json={"text": FORBIDDEN}, headers=bearer(a)
    )
    assert answer.status_code == 200
    body = answer.json
    assert body["counts"] == {"main": 40, "extra": 0, "side": 0}
    assert body["banlist"] == "example"
    assert [(p["rule"], p["code"], p["card"]) for p in body["problems"]] == [
        ("R2.5", "forbidden", "強欲な壺")
    ]
    assert body["problems"][0]["message"].startswith("R2.5: 強欲な壺 is forbidden")
    assert body["cards"]["main"]["強欲な壺"] == 1
    assert client.get(f"/api/tables/{code}").json["seq"] == seq


def test_r2_1_r2_4_check_lists_every_problem(client: FlaskClient):
    code, a, _ = seats(client)
    text = "\n".join(["4 Kuriboh", "Side", "１ ＫＵＲＩＢＯＨ"])
    body = client.post(
        f"/api/tables/{code}/decklist/check", json={"text": text}, headers=bearer(a)
    ).json
    assert [p["rule"] for p in body["problems"]] == ["R2.1", "R2.4"]
    assert body["banlist"] is None


def test_r1_6_check_needs_a_seat_token_of_this_table(client: FlaskClient):
    code, a, _ = seats(client)
    other, _, _ = seats(client)
    url = f"/api/tables/{code}/decklist/check"
    assert client.post(url, json={"text": LEGAL}).status_code == 401
    assert client.post(url, json={"text": LEGAL}, headers=bearer("nope")).status_code == 401
    foreign = client.post(
        f"/api/tables/{other}/decklist/check", json={"text": LEGAL}, headers=bearer(a)
    )
    assert foreign.status_code == 401 and foreign.json["code"] == "bad_token"
    assert client.post(url, json={}, headers=bearer(a)).status_code == 400
    assert client.post(url, json={"text": "x" * 8001}, headers=bearer(a)).status_code == 400


def test_r2_5_a_casual_table_picks_a_list_or_none(client: FlaskClient, example):
    code, a, _ = seats(client)
    assert client.get("/api/banlists").json["banlists"] == [
        {"name": "example", "size": 18, "event_id": None}
    ]
    missing = client.post(f"/api/tables/{code}/banlist", json={"name": "nope"}, headers=bearer(a))
    assert missing.status_code == 404 and missing.json["code"] == "no_such_banlist"
    assert client.post(f"/api/tables/{code}/banlist", json={"name": example}).status_code == 401
    client.post(f"/api/tables/{code}/banlist", json={"name": example}, headers=bearer(a))
    assert client.get(f"/api/tables/{code}").json["state"]["banlist"]["name"] == "example"
    cleared = client.post(f"/api/tables/{code}/banlist", json={"name": ""}, headers=bearer(a))
    assert cleared.status_code == 200
    assert client.get(f"/api/tables/{code}").json["state"]["banlist"] is None
    log = client.get(f"/api/tables/{code}/log").json["events"]
    assert [e["actor"]["role"] for e in log if e["type"] == "banlist.set"] == ["system"] * 2


# --- the ban-list file formats and the loader ---------------------------------------------


@pytest.mark.parametrize(
    ("text", "name"),
    [
        ('{"forbidden": ["Pot of Greed"], "limited": ["死者蘇生"], "semi_limited": []}', "x.json"),
        ('[["Pot of Greed", "forbidden"], {"card": "死者蘇生", "status": "制限"}]', "x.json"),
        ("card;status\nPot of Greed;banned\n死者甦生;限制", "x.csv"),
        ("Pot of Greed\tforbidden\n死者蘇生\tlimited", "x.txt"),
    ],
)
def test_r2_5_ban_list_files_csv_and_json(text: str, name: str):
    entries = banlists.parse_file(text, name)
    assert entries[0] == ("Pot of Greed", "forbidden") and entries[1][1] == "limited"


@pytest.mark.parametrize(
    "text",
    ["card,status\nPot of Greed,sometimes", "Pot of Greed", "{nope", "[1, 2]", "card,status\n"],
)
def test_r2_5_bad_ban_list_files_are_refused(text: str):
    from server.core.errors import DomainError

    with pytest.raises(DomainError) as info:
        banlists.parse_file(text)
    assert info.value.code == "invalid"


def load(data_dir: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "DATA_DIR": str(data_dir), "DATABASE_URL": ""}
    return subprocess.run(
        [sys.executable, "-m", "server", "load-banlist", *args],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )


@pytest.mark.slow
def test_r2_5_load_banlist_command_line(tmp_path: Path):
    done = load(tmp_path, str(EXAMPLE), "--name", "2026-10", "--event", "3")
    assert done.returncode == 0, done.stderr
    assert "18 cards for event 3" in done.stdout
    again = load(tmp_path, str(EXAMPLE), "--name", "2026-10")  # replaces it
    assert again.returncode == 0
    bad = tmp_path / "bad.csv"
    bad.write_text("Pot of Greed,never\n", encoding="utf-8")
    refused = load(tmp_path, str(bad), "--name", "bad")
    assert refused.returncode == 1 and "unknown status" in refused.stderr
    assert load(tmp_path, str(tmp_path / "missing.csv"), "--name", "m").returncode == 1
    from server.store import bind, open_database

    bind(open_database("", str(tmp_path)))
    assert banlists.listing() == [{"name": "2026-10", "size": 18, "event_id": None}]
    assert ["Pot of Greed", "forbidden"] in banlists.entries_of("2026-10")


# --- privacy on a live server: opponent counts only, judges every list --------------------


async def _privacy(server: Any, code: str, tokens: dict[str, str], judge: Staff) -> None:
    url = f"{server.ws_url}/ws/table/{code}"
    origin = {"Origin": server}
    async with (
        connect(url, additional_headers=origin) as wa,
        connect(url, additional_headers=origin) as wb,
        connect(url, additional_headers={**origin, "Cookie": judge.cookie}) as wj,
    ):
        a, b, j = Phone(wa), Phone(wb), Phone(wj)
        await a.hello(tokens["A"])
        await b.hello(tokens["B"])
        assert (await j.hello())["role"] == "judge"
        refused = await a.command("deck.register", {"text": FORBIDDEN})
        assert refused["ok"] is False and refused["error"]["code"] == "deck_illegal"
        problems = refused["error"]["details"]["problems"]
        assert [(p["rule"], p["card"]) for p in problems] == [("R2.5", "強欲な壺")]
        seq = await a.ok("deck.register", {"text": LEGAL})
        seen_b, seen_a, seen_j = [await p.until_seq(seq) for p in (b, a, j)]
        registered = [e for e in seen_b["events"] if e["type"] == "deck.registered"][0]
        assert "cards" not in registered["data"]
        assert registered["data"]["counts"] == {"main": 40, "extra": 0, "side": 5}
        assert seen_b["state"]["decks"]["A"]["cards"] is None
        assert seen_b["state"]["decks"]["A"]["declared"]["main"] == 40
        assert seen_a["state"]["decks"]["A"]["cards"]["registered"]["main"]["Kuriboh"] == 3
        assert seen_j["state"]["decks"]["A"]["cards"]["current"]["side"]["Raigeki"] == 3
        judged = [e for e in seen_j["events"] if e["type"] == "deck.registered"][0]
        assert judged["data"]["cards"]["side"] == {"Mirror Force": 2, "Raigeki": 3}


def test_r1_6_opponent_sees_counts_only_and_judges_see_the_lists(live_server):
    suffix = uuid.uuid4().hex[:6]
    create_organiser(live_server, f"org{suffix}")
    org = Staff(live_server).login(f"org{suffix}")
    event = org.create_event("Cup", 2)
    org.add_judge(event["id"], f"judge{suffix}")
    judge = Staff(live_server).login(f"judge{suffix}")
    text = EXAMPLE.read_text("utf-8")
    status, loaded = org.request(
        "POST", f"/api/events/{event['id']}/banlist", {"name": f"ev{suffix}", "text": text}
    )
    assert status == 200 and loaded["applied"] == 2 and loaded["size"] == 18, loaded
    status, _ = judge.request(
        "POST", f"/api/events/{event['id']}/banlist", {"name": "x", "text": text}
    )
    assert status == 403  # the organiser's job
    code = event["tables"][0]["code"]
    tokens = {}
    for seat, name in (("A", "Yugi"), ("B", "Kaiba")):
        claim = seat_claim(live_server, event["slug"], 1, seat)
        body = {"name": name, "seat": seat, "claim": claim}
        _, joined = http(live_server, "POST", f"/api/tables/{code}/join", body)
        tokens[seat] = joined["token"]
    status, picked = http(live_server, "POST", f"/api/tables/{code}/banlist", {"name": ""})
    assert status == 401  # no token; with one, an event table refuses (its event's list)
    asyncio.run(_privacy(live_server, code, tokens, judge))
    _, public = http(live_server, "GET", f"/api/tables/{code}")
    assert public["state"]["decks"]["A"]["cards"] is None
    assert public["state"]["banlist"]["name"] == f"ev{suffix}"
    _, log = http(live_server, "GET", f"/api/tables/{code}/log")
    assert all("cards" not in e["data"] for e in log["events"] if e["type"] == "deck.registered")
    _, export = http(live_server, "GET", f"/api/tables/{code}/export.json")
    assert "Kuriboh" not in json.dumps(export, ensure_ascii=False)
    status, detail = judge.request("GET", f"/api/staff/tables/{code}")
    assert status == 200
    assert detail["state"]["decks"]["A"]["cards"]["registered"]["main"]["Kuriboh"] == 3
    # The judges' log comes with every event's declared words (web/js/words.js words it from
    # them), each event still with its seq and hash.
    assert detail["words"] == json.loads(json.dumps(event_words()))
    assert all("hash" in e and "seq" in e for e in detail["log"]) and detail["log"]
    status, ev = org.request("GET", f"/api/events/{event['id']}")
    assert ev["banlist"] == {"name": f"ev{suffix}", "size": 18}
