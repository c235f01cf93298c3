"""A disagreement holds the table until it is settled, in Chromium on real phones (R1.4, R7.1,
R7.4, R7.5).

- A casual table: a failed after-duel deck check shows as a failure on both phones (never as
  "checked"); the two players settle it (one says the deck is fixed, the other confirms), and
  only then can the next duel start.
- An event table: B rejects A's entry after A confirmed B's later one; both phones say the
  table waits for the judge on A's entry and neither LP moves; the judge corrects the entry to
  an amount in one step on the judges' table page, and both phones then show the corrected
  entry and the one behind it applied, in order.
"""

from __future__ import annotations

import uuid

from playwright.sync_api import Page, expect

from e2e.steps import (
    checklist,
    choose_and_draw,
    confirm_entry,
    declare_decks,
    expect_phase,
    keypad,
    lp,
    rock_paper_scissors,
    seat_both,
    sit_at_event,
    start_duel,
)
from tests.staff_actions import PASSWORD, Staff, create_organiser

LAPTOP = {"viewport": {"width": 1280, "height": 900}}


def test_r7_5_a_casual_failed_deck_check_is_settled_on_both_phones(new_phone):
    a, b = new_phone(), new_phone()
    seat_both(a, b)
    start_duel(a, b)
    keypad(a, 8000)
    confirm_entry(b)
    for page in (a, b):
        expect_phase(page, "duel_result")
        page.get_by_test_id("result-confirm").click()
    for page in (a, b):
        expect_phase(page, "between")

    # B's deck is wrong: B's phone says so as a failure, A's phone too; no Ready for B.
    b.get_by_test_id("deck-check-problem").click()
    failed = b.get_by_test_id("deck-check-failed")
    expect(failed).to_contain_text("Your deck check failed")
    expect(b.get_by_test_id("deck-checked")).to_have_count(0)
    expect(b.get_by_text("You checked your deck.")).to_have_count(0)
    expect(b.get_by_test_id("between-ready")).to_have_count(0)
    expect(a.get_by_test_id("between-B")).to_contain_text("deck check failed")
    expect(a.get_by_test_id("between-B")).not_to_contain_text("deck checked")

    # B fixes it and says so; A's phone asks A to confirm, and until then nothing moves.
    a.get_by_test_id("deck-check-ok").click()
    expect(a.get_by_test_id("ready-me")).to_be_visible()
    b.get_by_test_id("deck-fixed").click()
    expect(b.get_by_test_id("deck-fix-waiting")).to_contain_text("Yugi")
    expect_phase(a, "between")
    a.get_by_test_id("deck-fix-confirm").click()

    # Both said it is fixed: B's check now reads as done, and B's Ready starts the next duel.
    expect(b.get_by_test_id("deck-check-failed")).to_have_count(0)
    expect(b.get_by_test_id("deck-checked")).to_be_visible()
    expect(a.get_by_test_id("between-B")).to_contain_text("deck checked")
    b.get_by_test_id("between-ready").click()
    expect_phase(a, "pregame")
    expect_phase(b, "pregame")


def rejected_by(page: Page, reason: str) -> str:
    banner = page.get_by_test_id("confirm-banner")
    entry = banner.get_attribute("data-entry") or ""
    banner.get_by_test_id("reject-entry").click()
    page.get_by_test_id("reject-reason").fill(reason)
    page.get_by_test_id("reject-send").click()
    return entry


def test_r7_1_an_event_dispute_waits_for_the_judge_who_corrects_it(live_server, new_context):
    suffix = uuid.uuid4().hex[:6]
    organiser, judge = f"org{suffix}", f"judge{suffix}"
    create_organiser(live_server, organiser)
    staff = Staff(live_server).login(organiser)
    event = staff.create_event("Hold Cup", 1)
    staff.add_judge(event["id"], judge)
    staff.pair_by_hand(event, {1: ("Yugi", "Kaiba")})
    status, body = staff.request("POST", f"/api/events/{event['id']}/round/start")
    assert status == 200, body
    code = event["tables"][0]["code"]
    phone = {"viewport": {"width": 360, "height": 640}, "is_mobile": True, "has_touch": True}
    a: Page = new_context(**phone).new_page()
    b: Page = new_context(**phone).new_page()
    sit_at_event(a, live_server, event, code, "A", "Yugi")
    sit_at_event(b, live_server, event, code, "B", "Kaiba")
    declare_decks(a, b)
    checklist(a, b)
    rock_paper_scissors(a, b, a)
    choose_and_draw(a, b, a)
    expect_phase(a, "duel")

    # A proposes 3000 to B; B proposes 1000 to A and A confirms it; then B rejects A's entry.
    keypad(a, 3000)
    expect(b.get_by_test_id("confirm-banner")).to_be_visible()
    keypad(b, 1000)
    expect(a.get_by_test_id("confirm-banner")).to_be_visible()
    confirm_entry(a)
    first = rejected_by(b, "it was 2500")
    assert first
    for page in (a, b):
        hold = page.get_by_test_id("dispute-hold")
        expect(hold).to_have_attribute("data-entry", first)
        expect(hold).to_contain_text(f"Waiting for the judge on entry #{first}")
        expect(lp(page, "A")).to_have_text("8000")  # B's later entry waits behind A's
        expect(lp(page, "B")).to_have_text("8000")
    expect(a.get_by_test_id("end-turn")).to_be_disabled()

    # The judge corrects A's entry to 2500 in one step.
    jdg: Page = new_context(**LAPTOP).new_page()
    jdg.goto(f"/judge/e/{event['id']}/t/{code}")
    jdg.get_by_test_id("login-user").fill(judge)
    jdg.get_by_test_id("login-pass").fill(PASSWORD)
    jdg.get_by_test_id("login-go").click()
    expect(jdg.get_by_test_id(f"dispute-{first}")).to_be_visible(timeout=10_000)
    amount = jdg.get_by_test_id(f"settle-amount-{first}")
    amount.fill("")
    jdg.get_by_test_id(f"settle-correct-{first}").click()
    expect(jdg.get_by_test_id(f"settle-error-{first}")).not_to_be_empty()
    amount.fill("2500")
    jdg.get_by_test_id(f"settle-correct-{first}").click()
    expect(jdg.get_by_test_id(f"dispute-{first}")).to_have_count(0)

    # Both phones: the corrected entry, then the one behind it; the wait is over.
    for page in (a, b):
        expect(lp(page, "B")).to_have_text("5500")
        expect(lp(page, "A")).to_have_text("7000")
        expect(page.get_by_test_id("dispute-hold")).to_have_count(0)
        row = page.locator(f'[data-testid="dispute-row"][data-entry="{first}"]')
        expect(row).to_have_attribute("data-status", "corrected")
        expect(row).to_contain_text("corrected by the judge")
    expect(a.get_by_test_id("end-turn")).to_be_enabled()
    # The judge call the rejection made is closed by the ruling.
    expect(jdg.get_by_test_id("call-1")).to_have_count(0)
