"""A shared table with LP confirmed by both (R1.4, R7.4): two phones and a spectator.

Phone A creates the table, phone B joins by typing its code, a spectator opens the link read
only. Every LP entry is proposed on one phone and confirmed, rejected or withdrawn; a phone that
reloads while an entry waits still sees it and can confirm it.
"""

from __future__ import annotations

from playwright.sync_api import Page, expect

from e2e.steps import confirm_entry, keypad, lp, seat_both, start_duel


def spectate(page: Page, code: str) -> None:
    """Open the table's link and choose to watch."""
    page.goto(f"/t/{code}")
    page.get_by_test_id("watch").click()
    expect(page.get_by_test_id("role")).to_have_text("Spectator")


def test_lp_confirmed_by_both_rejected_withdrawn_and_kept_over_a_reload(new_phone):
    a, b, watcher = new_phone(), new_phone(), new_phone()
    code = seat_both(a, b)
    expect(b.get_by_test_id("table-code")).to_have_text(code)
    spectate(watcher, code)
    start_duel(a, b)

    # The spectator reads: LP of both, no keypad, no action button of a seat.
    expect(lp(watcher, "A")).to_have_text("8000")
    expect(lp(watcher, "B")).to_have_text("8000")
    for testid in ("keypad", "propose", "end-turn", "concede", "coin-toss", "call-judge"):
        expect(watcher.get_by_test_id(testid)).to_have_count(0)
    expect(a.get_by_test_id("keypad")).to_be_visible()

    # R7.4: A proposes 1000 damage to B; nothing changes until B confirms.
    keypad(a, 1000)
    pending = b.get_by_test_id("pending-entry")
    expect(pending).to_have_count(1)
    expect(a.get_by_test_id("pending-entry")).to_have_attribute("data-by", "A")
    expect(watcher.get_by_test_id("pending-entry")).to_have_count(1)
    expect(lp(b, "B")).to_have_text("8000")
    expect(a.get_by_test_id("confirm-banner")).to_have_count(0)  # not A's to confirm
    confirm_entry(b)
    for page in (a, b, watcher):
        expect(lp(page, "B")).to_have_text("7000")
        expect(lp(page, "A")).to_have_text("8000")
        expect(page.get_by_test_id("pending-entry")).to_have_count(0)
        expect(page.get_by_test_id("ledger-row")).to_have_count(1)
    expect(a.get_by_test_id("ledger-lp-B").first).to_have_text("7000")
    # The LP are read out by screen readers from one live region that stays on the page.
    live = a.get_by_test_id("lp-live")
    expect(live).to_have_attribute("aria-live", "polite")
    expect(live).to_have_text("LP: Yugi 8000, Kaiba 7000")

    # A rejection: B proposes 500 damage to A, A rejects; at a casual table B settles it.
    keypad(b, 500)
    banner = a.get_by_test_id("confirm-banner")
    expect(banner).to_be_visible()
    rejected = banner.get_attribute("data-entry")
    banner.get_by_test_id("reject-entry").click()
    a.get_by_test_id("reject-send").click()
    for page in (a, b, watcher):
        row = page.locator(f'[data-testid="dispute-row"][data-entry="{rejected}"]')
        expect(row).to_have_attribute("data-status", "open")
        expect(page.get_by_test_id("pending-entry")).to_have_count(0)
        expect(lp(page, "A")).to_have_text("8000")
    # R1.4: order is kept, so nothing proposed later applies until the rejected entry is
    # settled; B, its proposer, withdraws it.
    b.get_by_test_id("rejected-banner").get_by_test_id("dispute-withdraw").click()
    for page in (a, b, watcher):
        row = page.locator(f'[data-testid="dispute-row"][data-entry="{rejected}"]')
        expect(row).to_have_attribute("data-status", "withdrawn")
        expect(lp(page, "A")).to_have_text("8000")

    # A withdrawal: A proposes 300 damage to B and takes it back.
    keypad(a, 300)
    expect(b.get_by_test_id("confirm-banner")).to_be_visible()
    a.get_by_test_id("withdraw-entry").click()
    for page in (a, b, watcher):
        expect(page.get_by_test_id("pending-entry")).to_have_count(0)
        expect(lp(page, "B")).to_have_text("7000")
    expect(b.get_by_test_id("confirm-banner")).to_have_count(0)
    expect(a.get_by_test_id("ledger-row")).to_have_count(1)

    # A reload while an entry waits: B proposes 2000 gain for itself; A reloads, still sees it
    # and confirms it.
    keypad(b, 2000, kind="gain", target="me")
    expect(a.get_by_test_id("confirm-banner")).to_be_visible()
    a.reload()
    expect(a.get_by_test_id("conn-status")).to_have_attribute("data-status", "online")
    expect(a.get_by_test_id("pending-entry")).to_have_count(1)
    expect(a.get_by_test_id("pending-entry")).to_have_attribute("data-by", "B")
    confirm_entry(a)
    for page in (a, b, watcher):
        expect(lp(page, "B")).to_have_text("9000")
        expect(page.get_by_test_id("ledger-row")).to_have_count(2)
