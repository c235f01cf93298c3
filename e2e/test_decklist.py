"""Deck lists on two phones and a judge's screen, against a real server (R1.6, R2.5, R2.6, R6.8).

The organiser (through the API) creates an event with one table, adds a judge and loads the
example ban list. Seat A pastes a 40-card list holding a forbidden card (named in Japanese) and
sees the problem named with its rule; fixes it; registers. Seat B declares counts; both confirm.
After duel 1, seat A side-decks 2 cards in for 2 out; the judge's table detail shows A's current
deck against the registration.
"""

from __future__ import annotations

import os
import subprocess
import sys
import uuid
from pathlib import Path

from playwright.sync_api import Page, expect

from e2e.steps import (
    checklist,
    choose_and_draw,
    expect_phase,
    rock_paper_scissors,
    seat_both,
    take_seat,
)
from tests.staff_actions import PASSWORD, Staff, create_organiser, seat_claim

EXAMPLE = Path(__file__).resolve().parent.parent / "server" / "banlists" / "example-2026-10.csv"
FILLER = [f"3 Card {i}" for i in range(12)] + ["1 Card 12"]  # 37 cards
FORBIDDEN = "\n".join(
    ["Main Deck", *FILLER, "2 Kuriboh", "1 強欲な壺", "Side Deck", "2 Mirror Force"]
)
LEGAL = "\n".join(["Main Deck", *FILLER, "3 Kuriboh", "Side Deck", "2 Mirror Force", "3 Raigeki"])


def test_paste_register_side_deck_and_judge_sees_the_deck(live_server, new_context, new_phone):
    suffix = uuid.uuid4().hex[:6]
    create_organiser(live_server, f"org{suffix}")
    org = Staff(live_server).login(f"org{suffix}")
    event = org.create_event("Deck Cup", 1)
    org.add_judge(event["id"], f"judge{suffix}")
    status, loaded = org.request(
        "POST",
        f"/api/events/{event['id']}/banlist",
        {"name": f"2026-10-{suffix}", "text": EXAMPLE.read_text("utf-8"), "filename": "x.csv"},
    )
    assert status == 200 and loaded["applied"] == 1, loaded
    code = event["tables"][0]["code"]

    a, b = new_phone(), new_phone()
    # Each phone scans its seat's QR on the table card (the claim seats it at once).
    a.goto(f"/s/{event['slug']}/1/A?c={seat_claim(live_server, event['slug'], 1, 'A')}")
    take_seat(a, "A", "Yugi")
    b.goto(f"/s/{event['slug']}/1/B?c={seat_claim(live_server, event['slug'], 1, 'B')}")
    take_seat(b, "B", "Kaiba")
    expect(a.get_by_test_id("deck-list-banlist")).to_contain_text(f"2026-10-{suffix}")

    # A forbidden card, named in Japanese, is shown with its rule while typing.
    register = a.get_by_test_id("deck-list-register")
    on_page = "el => el.getBoundingClientRect().top + window.scrollY"  # where it is on the page
    before = register.evaluate(on_page)
    a.get_by_test_id("deck-list-text").fill(FORBIDDEN)
    problem = a.get_by_test_id("deck-list-problem")
    expect(problem).to_have_count(1)
    expect(problem).to_contain_text("R2.5")
    expect(problem).to_contain_text("強欲な壺")
    expect(problem).to_have_attribute("data-code", "forbidden")
    expect(a.get_by_test_id("deck-list-counts")).to_contain_text("40")

    # Fixed: no problem; registered.
    a.get_by_test_id("deck-list-text").fill(LEGAL)
    expect(a.get_by_test_id("deck-list-ok")).to_be_visible()
    expect(a.get_by_test_id("deck-list-problem")).to_have_count(0)
    # The check's counts and card rows are painted below the button: it has not moved.
    assert a.get_by_test_id("deck-list-card").count() >= 14
    assert register.evaluate(on_page) == before
    register.click()
    expect(a.get_by_test_id("deck-list-mine")).to_be_visible()

    # B sees counts only, declares counts, and both confirm each other (R6.2): B's declaration
    # names A's counts and confirms them with the same tap.
    expect(b.get_by_test_id("deck-A")).to_contain_text("40")
    assert "Kuriboh" not in b.get_by_test_id("registration").inner_text()
    b.get_by_test_id("deck-main").fill("40")
    b.get_by_test_id("deck-extra").fill("0")
    b.get_by_test_id("deck-side").fill("0")
    b.get_by_test_id("deck-declare").click()  # declares B's and confirms A's, as it says
    a.get_by_test_id("confirm-deck").click()
    expect_phase(a, "pregame")
    expect_phase(b, "pregame")

    # The round starts (once paired): rock-paper-scissors waits for it at an event table.
    org.pair_by_hand(event, {1: ("Yugi", "Kaiba")})
    status, started = org.request("POST", f"/api/events/{event['id']}/round/start", {})
    assert status == 200, started

    # Duel 1: B concedes; both confirm the result.
    checklist(a, b)
    rock_paper_scissors(a, b, a)
    choose_and_draw(a, b, a)
    b.get_by_test_id("concede").click()
    b.get_by_test_id("concede-confirm").click()
    for page in (a, b):
        page.get_by_test_id("result-confirm").click()
    expect_phase(a, "between")
    b.get_by_test_id("deck-check-ok").click()  # the deck check and ready in one tap
    expect(b.get_by_test_id("ready-me")).to_be_visible()

    # Side decking for duel 2, card by card: 2 Mirror Force in, 2 Kuriboh out (R6.8).
    side = a.get_by_test_id("side-by-card")
    side.locator('[data-testid="side-in"][data-card="Mirror Force"]').select_option("2")
    side.locator('[data-testid="side-out"][data-card="Kuriboh"]').select_option("2")
    a.get_by_test_id("side-submit").click()
    expect(a.get_by_test_id("side-diff")).to_contain_text("Mirror Force")
    expect(a.get_by_test_id("side-diff")).to_contain_text("Kuriboh")
    expect(a.get_by_test_id("deck-current")).to_contain_text("40")
    a.get_by_test_id("deck-check-ok").click()
    expect_phase(a, "pregame")

    # The judge sees A's current deck against the registration.
    judge = new_context(viewport={"width": 1280, "height": 800}, is_mobile=False, has_touch=False)
    jp: Page = judge.new_page()
    jp.goto(f"/judge/e/{event['id']}/t/{code}")
    jp.get_by_test_id("login-user").fill(f"judge{suffix}")
    jp.get_by_test_id("login-pass").fill(PASSWORD)
    jp.get_by_test_id("login-go").click()
    deck_a = jp.get_by_test_id("judge-deck-A")
    expect(deck_a).to_be_visible()
    expect(jp.get_by_test_id("judge-deck-A-status")).to_contain_text("4")
    row = deck_a.locator('tr[data-card="Mirror Force"][data-part="main"]')
    expect(row.get_by_test_id("judge-deck-now")).to_have_text("2")
    kuriboh = deck_a.locator('tr[data-card="Kuriboh"][data-part="main"]')
    expect(kuriboh.locator("td").nth(2)).to_have_text("3")
    expect(kuriboh.get_by_test_id("judge-deck-now")).to_have_text("1")
    expect(jp.get_by_test_id("judge-deck-B")).to_contain_text("40/0/0")


def test_a_casual_table_picks_its_ban_list_on_the_phone(live_server, new_phone):
    """No event: a seat picks a loaded list before any list is registered; both phones show it."""
    name = f"casual-{uuid.uuid4().hex[:6]}"
    env = {
        **os.environ,
        "DATA_DIR": str(live_server.data_dir),
        "DATABASE_URL": live_server.database_url,
    }
    subprocess.run(
        [sys.executable, "-m", "server", "load-banlist", "--name", name, str(EXAMPLE)],
        env=env,
        check=True,
        capture_output=True,
    )
    a, b = new_phone(), new_phone()
    seat_both(a, b)
    pick = a.get_by_test_id("deck-list-banlist-pick")
    expect(pick).to_be_visible()
    pick.select_option(name)
    for page in (a, b):
        expect(page.get_by_test_id("deck-list-banlist")).to_contain_text(name)
    # Back to none.
    b.get_by_test_id("deck-list-banlist-pick").select_option("")
    expect(a.get_by_test_id("deck-list-banlist")).not_to_contain_text(name)
