"""R1.1 and R7.5 in Chromium.

R1.1: the organiser ticks "players must give their player ID"; a phone at that event's table
sees the player ID marked required, is stopped without one (in its language), and sits with one.
R7.5: a seat's failed deck check after duel 1 holds the table; the judge's table page shows a
"Clear the deck check" button with a note, and clearing it lets the table go on.
"""

from __future__ import annotations

import asyncio
import uuid
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from playwright.sync_api import Page, expect
from websockets.asyncio.client import connect

from tests.staff_actions import PASSWORD, Staff, create_organiser, seat_claim
from tests.ws_helpers import Phone, http

CHECKLIST = ["handshake", "side_shown", "shuffled", "cut"]
LAPTOP = {"viewport": {"width": 1280, "height": 900}}


def login(page: Page, username: str) -> None:
    page.get_by_test_id("login-user").fill(username)
    page.get_by_test_id("login-pass").fill(PASSWORD)
    page.get_by_test_id("login-go").click()


def test_r1_1_organiser_requires_a_player_id_and_the_phone_asks_for_it(live_server, new_context):
    organiser = f"org{uuid.uuid4().hex[:6]}"
    create_organiser(live_server, organiser)
    staff = Staff(live_server).login(organiser)
    event = staff.create_event("Spring Cup", 1)
    org: Page = new_context(**LAPTOP).new_page()
    org.goto(f"/organiser/e/{event['id']}")
    login(org, organiser)
    box = org.get_by_test_id("require-player-id")
    expect(box).not_to_be_checked()
    box.check()
    expect(box).to_be_checked()
    org.wait_for_function(
        "async (id) => (await (await fetch(`/api/events/${id}`)).json()).require_player_id",
        arg=event["id"],
    )

    code = event["tables"][0]["code"]
    claim = seat_claim(live_server, event["slug"], 1, "A")
    phone: Page = new_context(
        viewport={"width": 390, "height": 844}, is_mobile=True, locale="ja-JP"
    ).new_page()
    phone.add_init_script("localStorage.setItem('dt.lang', 'ja')")
    phone.goto(f"/t/{code}?seat=A&claim={claim}")
    expect(phone.get_by_test_id("player-id-input")).to_have_attribute("required", "")
    expect(phone.get_by_test_id("player-id-label")).to_contain_text("必須")
    phone.get_by_test_id("name-input").fill("遊戯")
    phone.get_by_test_id("player-id-input").fill("")
    phone.get_by_test_id("take-seat-A").click()
    expect(phone.get_by_test_id("join-error")).to_have_text(
        "このイベントではプレイヤーIDが必要です。"
    )
    phone.get_by_test_id("player-id-input").fill("0123456789")
    phone.get_by_test_id("take-seat-A").click()
    expect(phone.get_by_test_id("clock")).to_be_visible()
    status, body = http(live_server, "GET", f"/api/tables/{code}/event")
    assert status == 200 and body["require_player_id"] is True, body


async def _fail_deck_check(server: Any, code: str, claims: dict[str, str]) -> None:
    """Both seats sit and play duel 1 (B concedes); after it, A's deck check fails."""
    tokens = {}
    for seat in "AB":
        body = {"name": f"Seat {seat}", "seat": seat, "claim": claims[seat]}
        status, joined = http(server, "POST", f"/api/tables/{code}/join", body)
        assert status == 201, joined
        tokens[seat] = joined["token"]
    url = f"{server.ws_url}/ws/table/{code}"
    origin = {"Origin": server}
    async with (
        connect(url, additional_headers=origin) as wa,
        connect(url, additional_headers=origin) as wb,
    ):
        p = {"A": Phone(wa), "B": Phone(wb)}
        await p["A"].hello(tokens["A"])
        await p["B"].hello(tokens["B"])
        for seat in "AB":
            await p[seat].ok("deck.declare", {"main": 40, "extra": 15, "side": 15})
        await p["A"].ok("deck.confirm", {"seat": "B"})
        await p["B"].ok("deck.confirm", {"seat": "A"})
        for seat in "AB":
            reply = await p[seat].command("pregame.check", {"items": CHECKLIST})
            assert reply["ok"], reply
        await p["A"].ok("rps.pick", {"hand": "rock"})
        await p["B"].ok("rps.pick", {"hand": "scissors"})
        await p["A"].ok("duel.choose", {"order": "first"})
        await p["A"].ok("duel.draw")
        await p["B"].ok("duel.draw")
        await p["B"].ok("duel.concede")
        await p["A"].ok("result.confirm", {"duel": 1})
        await p["B"].ok("result.confirm", {"duel": 1})
        await p["A"].ok("deck.check", {"ok": False, "note": "41 cards"})


def test_r7_5_judge_clears_a_failed_deck_check(live_server, new_context):
    suffix = uuid.uuid4().hex[:6]
    organiser, judge = f"org{suffix}", f"judge{suffix}"
    create_organiser(live_server, organiser)
    staff = Staff(live_server).login(organiser)
    event = staff.create_event("Winter Cup", 1)
    staff.add_judge(event["id"], judge)
    staff.pair_by_hand(event, {1: ("Seat A", "Seat B")})
    status, body = staff.request("POST", f"/api/events/{event['id']}/round/start")
    assert status == 200, body
    status, detail = staff.request("GET", f"/api/events/{event['id']}")
    assert status == 200, detail
    code, claims = detail["tables"][0]["code"], detail["tables"][0]["claims"]
    with ThreadPoolExecutor(1) as pool:
        pool.submit(asyncio.run, _fail_deck_check(live_server, code, claims)).result(timeout=120)
    jdg: Page = new_context(**LAPTOP).new_page()
    jdg.goto(f"/judge/e/{event['id']}/t/{code}")
    login(jdg, judge)
    failed = jdg.get_by_test_id("deck-failed-A")
    expect(failed).to_be_visible(timeout=10_000)
    expect(jdg.get_by_test_id("deck-failed-B")).to_have_count(0)
    jdg.get_by_test_id("deck-clear-note-A").fill("recounted: 40")
    jdg.get_by_test_id("deck-clear-A").click()
    expect(failed).to_have_count(0)
    expect(jdg.get_by_test_id("judge-log")).to_contain_text("deck.cleared")
    status, seen = staff.request("GET", f"/api/tables/{code}")
    assert status == 200, seen
    assert seen["state"]["decks"]["A"]["check_failed"] is False
