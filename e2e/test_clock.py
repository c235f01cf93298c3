"""The round clock and time-over (R4.1, R5.1): a match clock of a few seconds, both phones
showing the same time left while it runs, then time called during a duel: the turn is finished,
three Extra Turns follow, and with LP equal sudden death decides at the next LP change."""

from __future__ import annotations

import math
import time

from playwright.sync_api import Page, expect

from e2e.steps import (
    api_create_table,
    confirm_entry,
    end_turn,
    expect_phase,
    keypad,
    seat_both,
    start_duel,
)

MATCH_MINUTES = 0.15  # 9 seconds
AGREE_MS = 250


def shown(page: Page) -> dict:
    """The clock as this phone shows it: text, status, ms left and the local ms it was drawn."""
    return page.get_by_test_id("clock").evaluate(
        """el => ({text: el.textContent, status: el.dataset.status,
                   remaining: Number(el.dataset.remainingMs), at: Number(el.dataset.atMs),
                   now: Date.now()})"""
    )


def left_at(sample: dict, instant: float) -> float:
    """The time left this phone's clock gives at a local instant (Date.now() is one clock)."""
    return sample["remaining"] - (instant - sample["at"])


def test_phones_agree_on_the_clock_and_time_over_goes_to_sudden_death(live_server, new_phone):
    a, b = new_phone(), new_phone()
    code = api_create_table(live_server, match_minutes=MATCH_MINUTES)
    seat_both(a, b, code)
    for page in (a, b):
        expect(page.get_by_test_id("clock")).to_have_text("0:09")
    # The clock starts with duel 1 (R4.1: a casual table, as at an event).
    start_duel(a, b, winner=a, order="first")
    pages = {"A": a, "B": b}
    for page in (a, b):
        expect(page.get_by_test_id("clock")).to_have_attribute("data-status", "running")

    # While it runs, both phones agree within 250 ms, by what they show and by their own
    # offset-corrected clocks evaluated at one instant.
    checked = 0
    for _ in range(4):
        sa, sb = shown(a), shown(b)
        instant = max(sa["now"], sb["now"])
        la, lb = left_at(sa, instant), left_at(sb, instant)
        assert abs(la - lb) <= AGREE_MS, (sa, sb)
        assert 0 < la <= MATCH_MINUTES * 60_000
        # Each page shows what it drew at its last tick (every 250 ms) from the time left then,
        # not at `instant`: two pages that drew within one second show the same text. (Judged
        # at `instant`, a page that drew 242 ms before it, at 8,006 ms left, still showed 0:09
        # beside the other's 0:08, both right.) The remaining is rounded: not near an edge.
        ra, rb = sa["remaining"], sb["remaining"]
        if math.ceil(ra / 1000) == math.ceil(rb / 1000) and all(
            2 <= r % 1000 <= 998 for r in (ra, rb)
        ):
            assert sa["text"] == sb["text"], (sa, sb)
            checked += 1
        time.sleep(0.4)
    assert checked >= 1
    # Each page's figure is its own estimate of server time: check it against the server's,
    # asked just before and just after the page is read (a busy machine's request time is not
    # the page's error: the page's instant lies between the two).
    deadline = a.request.get(f"/api/tables/{code}").json()["state"]["clock"]["deadline_ms"]
    asked = a.request.get("/api/time").json()["now_ms"]
    sample = shown(b)
    answered = a.request.get("/api/time").json()["now_ms"]
    left = left_at(sample, sample["now"])
    assert deadline - answered - 1000 < left < deadline - asked + 1000, (left, asked, answered)

    # Time runs out during turn 1: finish the turn (R5.1.1).
    for page in (a, b):
        banner = page.get_by_test_id("time-banner")
        expect(banner).to_have_attribute("data-stage", "finish_turn", timeout=15_000)
        expect(banner).to_have_text("Time: finish this turn")
        expect(page.get_by_test_id("clock")).to_have_text("0:00")
        expect(page.get_by_test_id("clock")).to_have_attribute("data-remaining-ms", "0")

    # Three Extra Turns (R5.1.3), starting with the opponent's turn.
    end_turn(pages)
    for n in (1, 2, 3):
        for page in (a, b):
            expect(page.get_by_test_id("time-banner")).to_have_text(f"Extra Turn {n} of 3")
        player = "B" if n % 2 else "A"
        expect(a.get_by_test_id("turn-info")).to_have_attribute("data-player", player)
        end_turn(pages)

    # LP equal after the Extra Turns: sudden death (R5.1.5); the next LP change decides.
    for page in (a, b):
        expect(page.get_by_test_id("time-banner")).to_have_attribute("data-stage", "sudden_death")
        expect_phase(page, "duel")
    keypad(b, 100, kind="cost", target="me")  # paying LP is a change too
    confirm_entry(a)
    for page in (a, b):
        expect_phase(page, "duel_result")
        expect(page.get_by_test_id("duel-result")).to_contain_text("Yugi")
        expect(page.get_by_test_id("duel-result")).to_contain_text("sudden death")
    for page in (a, b):
        page.get_by_test_id("result-confirm").click()
    # Time is over with Yugi ahead 1-0: Yugi wins the match (R5.4).
    for page in (a, b):
        expect_phase(page, "match_result")
        expect(page.get_by_test_id("match-result")).to_contain_text("Yugi")
        expect(page.get_by_test_id("match-result")).to_contain_text("ahead when time ran out")
