"""A rejected LP entry at a casual table (R7.1, R7.4): the rejecting phone gives a reason, the
proposer's phone shows it at once in its own language, and the two settle it at the table (no
judge is called where there are none): withdraw and propose again, or correct the entry."""

from __future__ import annotations

from playwright.sync_api import Page, expect

from e2e.steps import confirm_entry, keypad, lp, seat_both, start_duel


def reject_with(page: Page, reason: str) -> str:
    """Reject the opponent's entry waiting on `page`, with a reason; returns its number."""
    banner = page.get_by_test_id("confirm-banner")
    entry = banner.get_attribute("data-entry") or ""
    banner.get_by_test_id("reject-entry").click()
    page.get_by_test_id("reject-reason").fill(reason)
    page.get_by_test_id("reject-send").click()
    expect(page.get_by_test_id("confirm-banner")).to_have_count(0)
    return entry


def row(page: Page, entry: str):
    return page.locator(f'[data-testid="dispute-row"][data-entry="{entry}"]')


def test_casual_rejection_is_settled_at_the_table(new_phone):
    a, b = new_phone(), new_phone()
    seat_both(a, b)
    start_duel(a, b)
    a.get_by_test_id("lang").select_option("ja")
    expect(a.locator("html")).to_have_attribute("lang", "ja")

    # B rejects A's 1800 with a reason; A's phone says so at once, in Japanese.
    keypad(a, 1800)
    first = reject_with(b, "1600でした")
    notice = a.get_by_test_id("rejected-banner")
    expect(notice).to_have_attribute("data-entry", first)
    expect(notice).to_contain_text(f"Kaibaがあなたのエントリー#{first}を拒否しました")
    expect(notice.get_by_test_id("rejected-reason")).to_have_text("理由：1600でした")
    # A casual table has no judge: nobody is told to wait for one.
    expect(row(b, first)).to_contain_text("to settle at the table")
    expect(b.get_by_text("waiting for a judge")).to_have_count(0)

    # A withdraws it and proposes the right amount; B confirms.
    notice.get_by_test_id("dispute-withdraw").click()
    expect(a.get_by_test_id("rejected-banner")).to_have_count(0)
    for page in (a, b):
        expect(row(page, first)).to_have_attribute("data-status", "withdrawn")
    keypad(a, 1600)
    confirm_entry(b)
    for page in (a, b):
        expect(lp(page, "B")).to_have_text("6400")

    # Again, settled the other way: A corrects the rejected entry in place; B confirms.
    keypad(a, 1000)
    second = reject_with(b, "")
    notice = a.get_by_test_id("rejected-banner")
    expect(notice.get_by_test_id("rejected-reason")).to_have_text("理由はありません。")
    notice.get_by_test_id("dispute-correct").click()
    a.get_by_test_id("correct-amount").fill("900")
    a.get_by_test_id("correct-send").click()
    expect(a.get_by_test_id("rejected-banner")).to_have_count(0)
    expect(b.get_by_test_id("confirm-banner")).to_contain_text("900")
    confirm_entry(b)
    for page in (a, b):
        expect(row(page, second)).to_have_attribute("data-status", "corrected")
        expect(lp(page, "B")).to_have_text("5500")
        expect(page.get_by_test_id("pending-entry")).to_have_count(0)
    # Nothing is left open: A can end the turn.
    expect(a.get_by_test_id("end-turn")).to_be_enabled()
