"""The organiser's round cycle and a player's "where do I sit" page, in real Chromium.

The organiser's page shows the current step first with the next action as its one primary
button, and every button it offers is accepted. A player opens the event's public link on a
360x640 phone in Traditional Chinese, finds themselves by player ID and sees this round's table,
seat, opponent and clock; when the next round is paired the page shows it by itself.

    EVENT_SCREENSHOTS=docs/screenshots .venv/bin/pytest e2e/test_players_page.py

also saves the README's screenshots (organiser-cycle.png, event-seat-zh-Hant-360x640.png).
"""

from __future__ import annotations

import os
import re
import uuid
from pathlib import Path

from playwright.sync_api import Browser, Page, expect

from tests.staff_actions import PASSWORD, Staff, create_organiser

LAPTOP = {"viewport": {"width": 1280, "height": 900}}
SMALL = {"viewport": {"width": 360, "height": 640}, "is_mobile": True, "has_touch": True}
NAMES = ["陳小明", "林美玲", "王大同", "張家豪", "李文華", "黃志偉", "吳佩珊", "劉建國"]


def login(page: Page, username: str) -> None:
    page.get_by_test_id("login-user").fill(username)
    page.get_by_test_id("login-pass").fill(PASSWORD)
    page.get_by_test_id("login-go").click()


def accepted(org: Page) -> None:
    """The last action the page offered was not refused, and no "null" shows anywhere."""
    msg = org.get_by_test_id("org-msg")
    if msg.inner_text().strip():
        expect(msg).not_to_have_class("staff-toast bad")
    assert "null" not in org.inner_text("body")


def test_the_round_cycle_and_where_a_player_sits(live_server, browser: Browser):
    shots = os.environ.get("EVENT_SCREENSHOTS")
    suffix = uuid.uuid4().hex[:6]
    organiser = f"org{suffix}"
    create_organiser(live_server, organiser)
    staff = Staff(live_server).login(organiser)
    ev = staff.create_event("冬季盃", 4)
    for i, name in enumerate(NAMES, 1):
        status, body = staff.request(
            "POST", f"/api/events/{ev['id']}/swiss/players", {"name": name, "player_id": f"{i:010}"}
        )
        assert status == 201, body
    org_ctx = browser.new_context(base_url=live_server, locale="zh-TW", **LAPTOP)
    phone_ctx = browser.new_context(base_url=live_server, locale="zh-TW", **SMALL)
    try:
        org = org_ctx.new_page()
        org.goto(f"/organiser/e/{ev['id']}")
        login(org, organiser)
        step = org.get_by_test_id("cycle-step")
        expect(step).to_have_attribute("data-step", "pair")
        # one primary button, the next action; the round cannot be started before its pairing
        expect(org.get_by_test_id("cycle").locator(".btn-primary")).to_have_count(1)
        expect(org.get_by_test_id("round-start")).to_have_count(0)
        org.get_by_test_id("cycle-pair").click()
        expect(step).to_have_attribute("data-step", "start")
        accepted(org)
        expect(org.get_by_test_id("cycle").locator(".btn-primary")).to_have_count(1)
        if shots:
            org.get_by_test_id("cycle").screenshot(path=str(Path(shots) / "organiser-cycle.png"))
        org.get_by_test_id("round-start").click()
        expect(step).to_have_attribute("data-step", "playing")
        accepted(org)
        expect(org.get_by_test_id("round-end")).to_be_visible()

        # the player: the event's public link, found by ID
        status, s = staff.request("GET", f"/api/events/{ev['id']}/swiss")
        table = next(
            t for t in s["rounds"][0]["tables"] if 1 in (t["a"]["player"], t["b"]["player"])
        )
        seat = "A" if table["a"]["player"] == 1 else "B"
        opponent = table["b"]["name"] if seat == "A" else table["a"]["name"]
        phone = phone_ctx.new_page()
        phone.goto(f"/e/{ev['slug']}")
        expect(phone.locator("html")).to_have_attribute("lang", "zh-Hant")
        phone.get_by_test_id("ev-find-input").fill("0000000001")
        phone.get_by_test_id("ev-find-go").click()
        phone.get_by_test_id("ev-pick-1").click()
        expect(phone.get_by_test_id("ev-name")).to_have_text("陳小明")
        expect(phone.get_by_test_id("ev-round")).to_have_text("第 1 輪")
        expect(phone.get_by_test_id("ev-table")).to_have_text(str(table["table"]))
        expect(phone.get_by_test_id("ev-seat-letter")).to_have_text(f"座位 {seat}")
        expect(phone.get_by_test_id("ev-opponent")).to_have_text(f"對手：{opponent}")
        expect(phone.get_by_test_id("ev-clock")).to_have_text(re.compile(r"^\d+:\d\d(:\d\d)?$"))
        expect(phone.get_by_test_id("ev-my-id")).to_contain_text("0000000001")
        for other in range(2, 9):  # nobody else's ID on this phone
            assert f"{other:010}" not in phone.content()
        expect(phone.get_by_test_id("ev-standings-hidden")).to_be_visible()
        if shots:
            phone.screenshot(path=str(Path(shots) / "event-seat-zh-Hant-360x640.png"))

        # every result in (judges' results on the tables), then round 2 from the page
        for t in s["rounds"][0]["tables"]:
            status, body = staff.request(
                "POST", f"/api/events/{ev['id']}/tables/{t['table']}/result", {"result": "A"}
            )
            assert status == 200, body
        org.reload()
        expect(step).to_have_attribute("data-step", "results_in")
        org.get_by_test_id("cycle-pair").click()
        expect(step).to_have_attribute("data-step", "start")
        accepted(org)
        # the phone shows round 2 by itself (no reload), with the player's new table
        expect(phone.get_by_test_id("ev-round")).to_have_text("第 2 輪", timeout=15_000)
        expect(phone.get_by_test_id("ev-starts-soon")).to_contain_text("第 2 輪即將開始")
        expect(phone.get_by_test_id("ev-record")).to_contain_text(
            "1-0-0" if seat == "A" else "0-1-0"
        )
    finally:
        org_ctx.close()
        phone_ctx.close()
