"""The hall clock on a projector: a round of 8 tables at 1920x1080, in step with a phone
within 250 ms, through a network drop, the organiser's message and time called; readable at
1280x720 too. Screenshots for the README go to docs/screenshots/."""

from __future__ import annotations

import time
import uuid
from pathlib import Path

from playwright.sync_api import Browser, Page, expect

from e2e.steps import sit_at_event, start_duel
from tests.staff_actions import Staff, create_organiser

SHOTS = Path(__file__).resolve().parent.parent / "docs" / "screenshots"
PHONE = {"viewport": {"width": 390, "height": 844}, "is_mobile": True, "has_touch": True}


def deadline_seen(page: Page, testid: str) -> float:
    """The deadline a page's clock shows, in local ms: what it shows plus when it computed it."""
    data = page.get_by_test_id(testid).evaluate(
        "el => [Number(el.dataset.remainingMs), Number(el.dataset.atMs)]"
    )
    return data[0] + data[1]


def in_step(hall: Page, phone: Page) -> float:
    """The largest gap between the hall's and the phone's deadline over a few samples."""
    gaps = []
    for _ in range(5):
        gaps.append(abs(deadline_seen(hall, "hall-clock") - deadline_seen(phone, "clock")))
        hall.wait_for_timeout(300)
    return max(gaps)


def fits(page: Page, width: int, height: int) -> None:
    """Nothing scrolls; the clock is big and inside the screen."""
    size = page.evaluate(
        "[document.scrollingElement.scrollWidth, document.scrollingElement.scrollHeight]"
    )
    assert size[0] <= width and size[1] <= height, size
    box = page.get_by_test_id("hall-clock").bounding_box()
    assert box and box["y"] >= 0 and box["y"] + box["height"] <= height, box
    assert box["height"] >= height * 0.3, box  # readable from the back of the hall


def test_the_hall_clock_through_a_round(live_server, browser: Browser, script_errors):
    script_errors.allow("ERR_INTERNET_DISCONNECTED")  # the hall's polls while it is offline
    suffix = uuid.uuid4().hex[:6]
    organiser = f"org{suffix}"
    create_organiser(live_server, organiser)
    staff = Staff(live_server).login(organiser)
    ev = staff.create_event("Hall Cup", 8, minutes=1)
    staff.pair_by_hand(ev, {1: ("Yugi", "Kaiba")})  # a round starts once paired
    code = ev["tables"][0]["code"]
    hall_ctx = browser.new_context(base_url=live_server, viewport={"width": 1920, "height": 1080})
    phones = [browser.new_context(base_url=live_server, **PHONE) for _ in range(2)]
    hall = hall_ctx.new_page()
    a, b = (c.new_page() for c in phones)
    try:
        sit_at_event(a, live_server, ev, code, "A", "Yugi")
        sit_at_event(b, live_server, ev, code, "B", "Kaiba")
        hall.goto(f"/e/{ev['slug']}/hall")
        expect(hall.get_by_test_id("hall-title")).to_have_text("Hall Cup · Round 1")
        expect(hall.get_by_test_id("hall-note")).to_have_text("Starts soon")
        expect(hall.get_by_test_id("hall-clock")).to_have_text("1:00")

        status, started = staff.request("POST", f"/api/events/{ev['id']}/round/start", {})
        assert status == 200, started
        expect(hall.get_by_test_id("hall-playing")).to_have_text("8 of 8 tables still playing")
        expect(hall.get_by_test_id("hall-note")).to_have_text("")
        expect(a.get_by_test_id("clock")).to_have_attribute("data-status", "running")
        gap = in_step(hall, a)
        assert gap <= 250, f"hall and phone {gap:.0f} ms apart"
        # Nothing private: no player's name on the public page.
        assert "Yugi" not in hall.content() and "Kaiba" not in hall.content()
        start_duel(a, b)  # table 1 is in a duel when time is called

        # A network drop: the clock keeps counting; the message posted meanwhile shows after.
        hall_ctx.set_offline(True)
        expect(hall.get_by_test_id("hall-status")).to_have_attribute(
            "data-status", "offline", timeout=5000
        )
        before = hall.get_by_test_id("hall-clock").inner_text()
        status, _ = staff.request(
            "POST", f"/api/events/{ev['id']}/hall/message", {"text": "Round 2 pairings are up"}
        )
        assert status == 200
        hall.wait_for_timeout(1200)
        clock = hall.get_by_test_id("hall-clock")
        expect(clock).not_to_have_text(before, use_inner_text=True)  # still counting
        hall_ctx.set_offline(False)
        expect(hall.get_by_test_id("hall-message")).to_have_text(
            "Round 2 pairings are up", timeout=5000
        )
        expect(hall.get_by_test_id("hall-status")).to_have_attribute("data-status", "online")
        gap = in_step(hall, a)
        assert gap <= 250, f"after the drop: hall and phone {gap:.0f} ms apart"
        fits(hall, 1920, 1080)
        hall.screenshot(path=str(SHOTS / "hall-1920x1080.png"))
        hall.set_viewport_size({"width": 1280, "height": 720})
        fits(hall, 1280, 720)

        # Time: the banner, and table 1 (in its duel) among the tables in extra turns.
        left = (started["now_ms"] + 60_000) / 1000 - time.time()
        banner = hall.get_by_test_id("hall-time")
        expect(banner).to_be_visible(timeout=(left + 10) * 1000)
        expect(banner).to_have_text("TIME")
        expect(a.get_by_test_id("time-banner")).to_be_visible()
        expect(hall.get_by_test_id("hall-extra")).to_have_text(
            "Extra turns: tables 1", timeout=5000
        )
        expect(hall.get_by_test_id("hall-playing")).to_have_text("8 of 8 tables still playing")
        fits(hall, 1280, 720)
        hall.screenshot(path=str(SHOTS / "hall-1280x720-time.png"))
    finally:
        for c in [hall_ctx, *phones]:
            c.close()
