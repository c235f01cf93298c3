"""A 16-player event from registration to the winner: the organiser's page registers the
players and pairs 4 Swiss rounds, the players' phones (websocket clients standing in for them)
play each match at its table and confirm the result, the standings go public, and a top 4 is
played to the winner."""

from __future__ import annotations

import asyncio
import random
import uuid
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from playwright.sync_api import Page, expect
from websockets.asyncio.client import connect

from tests.staff_actions import PASSWORD, Staff, create_organiser
from tests.ws_helpers import Phone, http

CHECKLIST = ["handshake", "side_shown", "shuffled", "cut"]


async def _play(server: Any, code: str, claims: dict[str, str], winner: str) -> None:
    """Both seats join (with their table card's claims), play a 2-0 match (the loser concedes
    each duel) and confirm it."""
    tokens = {}
    for seat in "AB":
        body = {"name": f"Seat {seat}", "seat": seat, "claim": claims[seat]}
        status, joined = http(server, "POST", f"/api/tables/{code}/join", body)
        assert status in (200, 201), joined
        tokens[joined["seat"]] = joined["token"]
    url = f"{server.ws_url}/ws/table/{code}"
    origin = {"Origin": server}
    async with (
        connect(url, additional_headers=origin) as wa,
        connect(url, additional_headers=origin) as wb,
    ):
        p = {"A": Phone(wa), "B": Phone(wb)}
        await p["A"].hello(tokens["A"])
        await p["B"].hello(tokens["B"])
        loser = "B" if winner == "A" else "A"
        for seat in "AB":
            await p[seat].ok("deck.declare", {"main": 40, "extra": 15, "side": 15})
        await p["A"].ok("deck.confirm", {"seat": "B"})
        await p["B"].ok("deck.confirm", {"seat": "A"})
        for duel in (1, 2):
            if duel == 2:
                for seat in "AB":
                    await p[seat].ok("deck.check", {"ok": True})
                for seat in "AB":
                    await p[seat].ok("between.ready")
            for seat in "AB":
                reply = await p[seat].command("pregame.check", {"items": CHECKLIST})
                assert reply["ok"], reply
            state = await _state(server, code)
            chooser = state["pregame"]["chooser"] if state.get("pregame") else None
            if chooser is None:
                await p["A"].ok("rps.pick", {"hand": "rock"})
                await p["B"].ok("rps.pick", {"hand": "scissors"})
                chooser = "A"
            await p[chooser].ok("duel.choose", {"order": "first"})
            await p["A"].ok("duel.draw")
            await p["B"].ok("duel.draw")
            await p[loser].ok("duel.concede")
            await p["A"].ok("result.confirm", {"duel": duel})
            await p["B"].ok("result.confirm", {"duel": duel})
        await p["A"].ok("match.confirm")
        await p["B"].ok("match.confirm")


async def _state(server: Any, code: str) -> dict[str, Any]:
    _, body = http(server, "GET", f"/api/tables/{code}")
    return body["state"]


def play_round(server: Any, staff: Staff, event_id: int, rng: random.Random) -> None:
    status, s = staff.request("GET", f"/api/events/{event_id}/swiss")
    assert status == 200, s
    status, detail = staff.request("GET", f"/api/events/{event_id}")  # the cards' seat claims
    assert status == 200, detail
    claims = {t["code"]: t["claims"] for t in detail["tables"]}
    # The round starts before its matches are played (they wait for it).
    status, started = staff.request("POST", f"/api/events/{event_id}/round/start", {})
    assert status == 200, started

    async def all_tables() -> None:
        await asyncio.gather(
            *(
                _play(server, t["code"], claims[t["code"]], rng.choice("AB"))
                for t in s["rounds"][-1]["tables"]
            )
        )

    # Playwright's sync API holds this thread's event loop: the phones get a thread of their own.
    with ThreadPoolExecutor(1) as pool:
        pool.submit(asyncio.run, all_tables()).result(timeout=300)


def test_a_16_player_event_to_the_winner(live_server, new_context):
    organiser = f"org{uuid.uuid4().hex[:6]}"
    create_organiser(live_server, organiser)
    staff = Staff(live_server).login(organiser)
    event = staff.create_event("Winter Cup", 8)
    rng = random.Random(24)

    page: Page = new_context(viewport={"width": 1280, "height": 900}).new_page()
    page.set_default_timeout(20_000)
    page.goto(f"/organiser/e/{event['id']}")
    page.get_by_test_id("login-user").fill(organiser)
    page.get_by_test_id("login-pass").fill(PASSWORD)
    page.get_by_test_id("login-go").click()
    expect(page.get_by_test_id("swiss")).to_be_visible()
    for i in range(1, 17):
        page.get_by_test_id("player-name").fill(f"Duelist {i:02}")
        page.get_by_test_id("player-id").fill(f"{i:010}")
        page.get_by_test_id("player-add").click()
        expect(page.get_by_test_id(f"player-{i}")).to_contain_text(f"Duelist {i:02}")
    expect(page.get_by_test_id("swiss-progress")).to_contain_text("0 of 4")

    for round_no in range(1, 5):
        page.get_by_test_id("swiss-pair").click()
        expect(page.get_by_test_id("swiss-tables")).to_be_visible()
        # A round counts as played once its results are in, not when it is paired.
        expect(page.get_by_test_id("swiss-progress")).to_contain_text(f"{round_no - 1} of 4")
        expect(page.get_by_test_id("swiss-progress")).to_contain_text("open tables: 8")
        expect(page.get_by_test_id("swiss-pair")).to_be_disabled()
        play_round(live_server, staff, event["id"], rng)
        page.reload()
        expect(page.get_by_test_id("swiss-progress")).to_contain_text("open tables: 0")
        expect(page.get_by_test_id("swiss-progress")).to_contain_text(f"{round_no} of 4")
        expect(page.get_by_test_id("result-1")).not_to_contain_text("open")

    # standings: 16 rows, points add up to 3 per match, the public page for the projector
    status, s = staff.request("GET", f"/api/events/{event['id']}/swiss")
    assert len(s["standings"]) == 16 and sum(r["points"] for r in s["standings"]) == 4 * 8 * 3
    met = [
        frozenset((t["a"]["player"], t["b"]["player"])) for r in s["rounds"] for t in r["tables"]
    ]
    assert len(met) == len(set(met)) == 32  # no rematch in 4 rounds
    expect(page.get_by_test_id("standing-1")).to_contain_text(s["standings"][0]["name"])
    page.get_by_test_id("swiss-public").check()
    expect(page.get_by_test_id("public-link")).to_be_visible()
    projector = new_context(viewport={"width": 1280, "height": 900}).new_page()
    projector.goto(f"/e/{event['slug']}/standings")
    expect(projector.get_by_test_id("standings")).to_contain_text(s["standings"][15]["name"])

    # top 4: 1 v 4, 2 v 3, then the final
    page.get_by_test_id("cut-size").select_option("4")
    page.get_by_test_id("cut-start").click()
    expect(page.get_by_test_id("bracket")).to_be_visible()
    top = [r["name"] for r in s["standings"]][:4]
    expect(page.get_by_test_id("swiss-table-1")).to_contain_text(top[0])
    expect(page.get_by_test_id("swiss-table-1")).to_contain_text(top[3])
    play_round(live_server, staff, event["id"], rng)
    page.reload()
    page.get_by_test_id("cut-next").click()
    expect(page.get_by_test_id("swiss-tables").locator("tbody tr")).to_have_count(1)
    play_round(live_server, staff, event["id"], rng)
    page.reload()
    expect(page.get_by_test_id("champion")).to_be_visible()
    status, s = staff.request("GET", f"/api/events/{event['id']}/swiss")
    projector.reload()
    expect(projector.get_by_test_id("champion")).to_contain_text(s["champion"]["name"])
    expect(projector.get_by_test_id("bracket")).to_be_visible()
