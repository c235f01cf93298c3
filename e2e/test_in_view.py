"""What the player acts on is in view when the table moves on (web/js/in_view.js), at 360x640
and 375x667: the LP board and the keypad with Propose at the start of every duel, even from a
page scrolled to the foot of the steps before it; the result buttons when a duel ends; and in
Extra Turns, with the time banner and the confirmation banner up, the whole keypad, Propose and
the banner's buttons on screen and uncovered (each banner takes its own space), and the
proposer's Withdraw on screen. "In view" is checked as a player sees it: the box inside the
viewport AND `document.elementFromPoint` at its centre is the element or inside it. A player who
is scrolling (reading the ledger) is not moved when an entry comes in."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect
from playwright.sync_api import TimeoutError as PlaywrightTimeoutError

from e2e.steps import (
    api_create_table,
    checklist,
    confirm_entry,
    declare_decks,
    end_turn,
    expect_phase,
    keypad,
    rock_paper_scissors,
    seat_both,
)

SIZES = [(360, 640), (375, 667)]

# Every selector: its box inside the viewport and the element (or a descendant) on top at its
# centre. Returns the first one that is not, with what covers it, or null.
NOT_IN_VIEW = """(selectors) => {
    for (const sel of selectors) {
        const el = document.querySelector(sel);
        if (!el) return {sel, why: 'missing'};
        const r = el.getBoundingClientRect();
        const inView = r.height > 0 && r.top >= 0 && r.left >= 0 && r.bottom <= innerHeight
                       && r.right <= innerWidth;
        const hit = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
        const onTop = !!hit && (hit === el || el.contains(hit));
        if (!inView || !onTop)
            return {sel, top: r.top, bottom: r.bottom, inner: innerHeight, scrollY,
                    inView, onTop, hit: hit ? hit.outerHTML.slice(0, 100) : null};
    }
    return null;
}"""


def tid(*testids: str) -> list[str]:
    return [f'[data-testid="{t}"]' for t in testids]


BOARD = [".board", *tid("lp-A", "lp-B")]
KEYPAD = tid("keypad", "propose", "keypad-digit-7", "keypad-000", "keypad-back")


def assert_in_view(page: Page, selectors: list[str], timeout: float = 5000) -> None:
    """Wait (the page may still scroll smoothly) until all are in view; say which is not."""
    try:
        page.wait_for_function(
            f"(s) => ({NOT_IN_VIEW})(s) === null", arg=selectors, timeout=timeout
        )
    except Exception:
        pass
    assert page.evaluate(NOT_IN_VIEW, selectors) is None


# At the foot of the page (a wheel scrolls smoothly: scrollY moves for a while before it rests).
SCROLLED = "() => scrollY + innerHeight >= document.documentElement.scrollHeight - 2"


def scroll_to_foot(page: Page) -> None:
    """The player scrolls down the page with the finger (mouse wheel in the test), and again
    if the page did not move (a wheel sent while the page was still laying out was lost on a
    busy machine, as a swipe sometimes is)."""
    page.mouse.move(180, 300)
    for _ in range(3):
        page.mouse.wheel(0, 3000)
        try:
            page.wait_for_function(SCROLLED, timeout=3000)
            return
        except PlaywrightTimeoutError:
            continue
    page.mouse.wheel(0, 3000)
    page.wait_for_function(SCROLLED)


def draw_from_the_foot(a: Page, b: Page, chooser: Page) -> None:
    """Choose and draw with both pages scrolled to their foot, as players reading down are."""
    for page in (a, b):
        scroll_to_foot(page)
    chooser.get_by_test_id("choose-first").click()
    for page in (a, b):
        scroll_to_foot(page)
        page.get_by_test_id("draw-5").click()
    expect_phase(a, "duel")
    expect_phase(b, "duel")


@pytest.mark.parametrize("width,height", SIZES)
def test_every_duel_starts_with_the_board_and_the_keypad_in_view(new_phone, width, height):
    size = {"viewport": {"width": width, "height": height}}
    a, b = new_phone(**size), new_phone(**size)
    seat_both(a, b)
    declare_decks(a, b)
    checklist(a, b)
    rock_paper_scissors(a, b, a)
    draw_from_the_foot(a, b, a)
    for page in (a, b):
        assert_in_view(page, BOARD + KEYPAD)

    # B concedes duel 1: the result and its buttons come into view on both phones.
    scroll_to_foot(b)
    b.get_by_test_id("concede").click()
    b.get_by_test_id("concede-confirm").click()
    for page in (a, b):
        expect_phase(page, "duel_result")
        assert_in_view(page, tid("duel-result", "result-confirm", "result-dispute"))
        page.get_by_test_id("result-confirm").click()
    for page in (a, b):
        expect_phase(page, "between")
        assert_in_view(page, tid("window-timer", "side-main-in"))  # the side deck window's top
        page.get_by_test_id("deck-check-ok").click()
    for page in (a, b):
        expect_phase(page, "pregame")
    checklist(a, b)
    draw_from_the_foot(a, b, b)  # the loser of duel 1 chooses (R6.6)
    for page in (a, b):
        expect(page.get_by_test_id("duel-no")).to_have_text("Duel 2")
        assert_in_view(page, BOARD + KEYPAD)


@pytest.mark.parametrize("width,height", SIZES)
def test_in_extra_turns_the_banners_take_their_own_space(new_phone, live_server, width, height):
    size = {"viewport": {"width": width, "height": height}}
    a, b = new_phone(**size), new_phone(**size)
    code = api_create_table(live_server, match_minutes=0.05)  # 3 seconds
    seat_both(a, b, code)
    declare_decks(a, b)
    checklist(a, b)
    rock_paper_scissors(a, b, a)
    draw_from_the_foot(a, b, a)
    pages = {"A": a, "B": b}  # the clock started with duel 1 (R4.1)
    for page in (a, b):
        expect(page.get_by_test_id("time-banner")).to_have_attribute(
            "data-stage", "finish_turn", timeout=15_000
        )
    end_turn(pages)  # A's turn 1 ends: Extra Turn 1 is B's
    for page in (a, b):
        expect(page.get_by_test_id("time-banner")).to_have_text("Extra Turn 1 of 3")
    keypad(b, 1000)  # B proposes in its Extra Turn: A's phone shows the banner
    banner = a.get_by_test_id("confirm-banner")
    expect(banner).to_be_visible()
    banner.evaluate("el => Promise.all(el.getAnimations().map(a => a.finished))")  # slid in
    # A confirms: the board, the time, the whole keypad and the banner's buttons, none covered.
    assert_in_view(a, BOARD + KEYPAD + tid("time-banner", "confirm-entry", "reject-entry"))
    # B proposed: the board, the keypad, and its Withdraw beside the turn's buttons.
    assert_in_view(b, BOARD + KEYPAD + tid("time-banner", "withdraw-waiting", "end-turn"))
    expect(b.get_by_test_id("end-turn")).to_be_disabled()  # R5.5: the entry waits
    b.get_by_test_id("withdraw-waiting").click()
    expect(a.get_by_test_id("confirm-banner")).to_have_count(0)
    expect(b.get_by_test_id("withdraw-waiting")).to_have_count(0)
    expect(b.get_by_test_id("end-turn")).to_be_enabled()


def test_a_player_reading_the_ledger_is_not_moved_by_an_entry(new_phone):
    a, b = new_phone(), new_phone()
    seat_both(a, b)
    declare_decks(a, b)
    checklist(a, b)
    rock_paper_scissors(a, b, a)
    draw_from_the_foot(a, b, a)
    assert_in_view(a, BOARD + KEYPAD)
    for _ in range(4):  # a ledger to read
        keypad(a, 100)
        confirm_entry(b)
    expect(a.get_by_test_id("ledger-row")).to_have_count(4)
    scroll_to_foot(a)  # A reads the ledger at the foot of the page
    a.wait_for_timeout(300)
    where = a.evaluate("scrollY")
    assert where > 0
    keypad(b, 700)
    expect(a.get_by_test_id("confirm-banner")).to_be_visible()
    a.wait_for_timeout(2000)
    assert a.evaluate("scrollY") == where


def test_a_phase_change_waits_for_a_player_who_is_scrolling(new_phone):
    a, b = new_phone(), new_phone()
    seat_both(a, b)
    declare_decks(a, b)
    checklist(a, b)
    rock_paper_scissors(a, b, a)
    draw_from_the_foot(a, b, a)
    for _ in range(4):  # a ledger to read
        keypad(a, 100)
        confirm_entry(b)
    scroll_to_foot(a)
    at_foot = "scrollY + innerHeight >= document.documentElement.scrollHeight - 2"
    b.get_by_test_id("concede").click()
    b.get_by_test_id("concede-confirm").click()
    # A keeps scrolling (down, at the foot) while the duel ends: the page stays where A is.
    seen = []
    for _ in range(12):
        a.mouse.wheel(0, 200)
        a.wait_for_timeout(150)
        seen.append(a.evaluate(at_foot))
    expect_phase(a, "duel_result")
    assert all(seen), seen  # still at the foot of the (now shorter) page, where A scrolls
    # A stops: the result and its buttons come into view.
    assert_in_view(a, tid("duel-result", "result-confirm"))
    assert not a.evaluate(at_foot)
