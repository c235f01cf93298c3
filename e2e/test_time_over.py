"""R5.5 in the phones' browser: at the end of the 3rd Extra Turn, a turn with an LP entry still
waiting for the opponent's confirmation cannot be ended. The End turn button is disabled with
the reason; a stale page that sends it anyway is refused with `entries_pending`, shown. Once the
entry is confirmed the turn ends and the settled LP decide (A 8000, B 7500; B's 1000 damage to
A makes B the winner, 7500 to 7000). The time banner does not stay over the result."""

from __future__ import annotations

from playwright.sync_api import expect

from e2e.steps import (
    api_create_table,
    confirm_entry,
    end_turn,
    expect_phase,
    keypad,
    lp,
    seat_both,
    start_duel,
)


def test_r5_5_end_turn_waits_for_the_pending_entry(live_server, new_phone):
    a, b = new_phone(), new_phone()
    code = api_create_table(live_server, match_minutes=0.05)  # 3 seconds
    seat_both(a, b, code)
    start_duel(a, b, winner=a, order="first")
    pages = {"A": a, "B": b}

    keypad(a, 500)  # A: 500 damage to B
    confirm_entry(b)
    for page in (a, b):
        expect(lp(page, "B")).to_have_text("7500")
    for page in (a, b):  # the clock started with duel 1 (R4.1)
        banner = page.get_by_test_id("time-banner")
        expect(banner).to_have_attribute("data-stage", "finish_turn", timeout=15_000)
    for _ in range(3):  # A's turn 1, Extra Turns 1 (B) and 2 (A)
        end_turn(pages)
    for page in (a, b):
        expect(page.get_by_test_id("time-banner")).to_have_text("Extra Turn 3 of 3")
    expect(a.get_by_test_id("turn-info")).to_have_attribute("data-player", "B")

    # B proposes 1000 damage to A: End turn is disabled, with the reason.
    keypad(b, 1000)
    expect(a.get_by_test_id("confirm-banner")).to_be_visible()
    button = b.get_by_test_id("end-turn")
    expect(button).to_be_disabled()
    reason = b.get_by_test_id("end-turn-blocked")
    expect(reason).to_be_visible()
    expect(reason).to_contain_text("Settle the LP entries first (1 waiting)")
    expect(button).to_have_attribute("aria-describedby", "end-turn-why")

    # A stale page sends it anyway: the server refuses, and the refusal's code is shown.
    button.evaluate("el => { el.disabled = false; el.click(); }")
    refusal = b.locator('[data-testid="toast"][data-code="entries_pending"]')
    expect(refusal).to_be_visible()
    expect(refusal).to_contain_text("Settle the LP entries")
    for page in (a, b):
        expect_phase(page, "duel")
        expect(page.get_by_test_id("time-banner")).to_have_text("Extra Turn 3 of 3")

    # A confirms: the turn can end, and the settled LP decide.
    confirm_entry(a)
    expect(b.get_by_test_id("end-turn")).to_be_enabled()
    expect(b.get_by_test_id("end-turn-blocked")).to_have_count(0)
    b.get_by_test_id("end-turn").click()
    for page in (a, b):
        expect_phase(page, "duel_result")
        expect(lp(page, "A")).to_have_text("7000")
        expect(page.get_by_test_id("duel-result")).to_contain_text("Kaiba")
        expect(page.get_by_test_id("time-banner")).to_have_count(0)
