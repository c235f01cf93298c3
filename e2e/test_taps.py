"""Fewer taps than paper: a 2-0 match played on two phones with every tap and keystroke counted
(Playwright's click, fill, press, type, select_option, check and tap are wrapped in a counter).

- "Opponent takes 1800" is at most 4 taps on the proposer's phone and 1 on the confirmer's
  (the keypad starts on "opponent, damage").
- The whole match's bookkeeping, everything but the LP entries (deck counts, checklist,
  rock-paper-scissors, first or second, draw, clock, results, deck checks, ready, the match
  result), is at most 24 across both phones. The counts are in docs/taps.md and the README.

Deck counts come prefilled (40/15/15), the checklist is one tap naming its four items (R6.1-R6.4),
the deck check and ready are one tap, and the confirmation of the deciding duel's result names
the match result and confirms it too (R7.4: both phones still confirm each)."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager

from playwright.sync_api import Locator, Page, expect

from e2e.steps import expect_phase, lp, seat_both

BOOKKEEPING_MAX = 24
ITEMS = ("Shake hands", "Side deck shown", "Deck shuffled", "Opponent cut my deck")


@contextmanager
def counting() -> Iterator[Counter]:
    """Count taps and keystrokes per page while the block runs: a click, tap, check or press is
    one, a fill or type one per character (at least one), a select_option two (open, pick)."""
    taps: Counter = Counter()
    weights = {
        "click": lambda *a, **k: 1,
        "tap": lambda *a, **k: 1,
        "check": lambda *a, **k: 1,
        "press": lambda *a, **k: 1,
        "fill": lambda value, *a, **k: max(1, len(str(value))),
        "type": lambda text, *a, **k: max(1, len(str(text))),
        "select_option": lambda *a, **k: 2,
    }
    saved = {}
    for cls in (Locator, Page):
        for method, weight in weights.items():
            original = getattr(cls, method)
            saved[(cls, method)] = original

            def wrapped(self, *args, _original=original, _weight=weight, _cls=cls, **kwargs):
                page = self.page if _cls is Locator else self
                # Page.fill(selector, value) and Locator.fill(value): the value is the last arg.
                args_for_weight = args[1:] if _cls is Page and args else args
                taps[id(page)] += _weight(*args_for_weight, **kwargs)
                return _original(self, *args, **kwargs)

            setattr(cls, method, wrapped)
    try:
        yield taps
    finally:
        for (cls, method), original in saved.items():
            setattr(cls, method, original)


def tap(page: Page, testid: str) -> None:
    page.get_by_test_id(testid).click()


def lp_entry(proposer: Page, confirmer: Page, keys: list[str]) -> None:
    """Keys on the proposer's keypad (its default: opponent, damage), Propose, then confirm."""
    for key in keys:
        tap(proposer, key)
    tap(proposer, "propose")
    banner = confirmer.get_by_test_id("confirm-banner")
    expect(banner).to_be_visible()
    entry = banner.get_attribute("data-entry")
    banner.get_by_test_id("confirm-entry").click()
    expect(
        confirmer.locator(f'[data-testid="confirm-banner"][data-entry="{entry}"]')
    ).to_have_count(0)


def test_two_nil_match_counts_taps(new_phone):
    a, b = new_phone(), new_phone()
    seat_both(a, b)
    bookkeeping = 0
    with counting() as taps:
        # Registration: counts prefilled 40/15/15; A declares, B declares and confirms A's in
        # one tap, A confirms B's.
        for page in (a, b):
            expect(page.get_by_test_id("deck-main")).to_have_value("40")
            expect(page.get_by_test_id("deck-extra")).to_have_value("15")
            expect(page.get_by_test_id("deck-side")).to_have_value("15")
        tap(a, "deck-declare")
        expect(b.get_by_test_id("deck-A")).to_contain_text("40")
        tap(b, "deck-declare")
        tap(a, "confirm-deck")
        expect_phase(a, "pregame")
        # The checklist in one tap that names its four items (R6.1-R6.4).
        for page in (a, b):
            for item in ITEMS:
                expect(page.get_by_test_id("checks-all-done")).to_contain_text(item)
            tap(page, "checks-all-done")
        # Rock-paper-scissors played by hand, reported and confirmed (R6.5, R7.4).
        tap(a, "rps-report-me")
        tap(b, "rps-confirm")
        tap(a, "choose-first")
        for page in (a, b):
            tap(page, "draw-5")
        expect_phase(a, "duel")
        # The match clock started with duel 1 (R4.1): no tap of its own.
        expect(a.get_by_test_id("clock")).to_have_attribute("data-status", "running")
        bookkeeping += sum(taps.values())

        # Duel 1: 8000 damage to B in one entry.
        before = dict(taps)
        lp_entry(a, b, ["keypad-digit-8", "keypad-000"])
        assert taps[id(a)] - before[id(a)] == 3
        for page in (a, b):
            expect_phase(page, "duel_result")
        counted = sum(taps.values())
        for page in (a, b):
            tap(page, "result-confirm")
        expect_phase(a, "between")
        # The deck check (R7.5) and ready in one tap each.
        for page in (a, b):
            expect(page.get_by_test_id("deck-check-ok")).to_be_visible()
            tap(page, "deck-check-ok")
        expect_phase(a, "pregame")
        for page in (a, b):
            tap(page, "checks-all-done")
        tap(b, "choose-first")  # the loser of duel 1 chooses (R6.6)
        for page in (a, b):
            tap(page, "draw-5")
        expect_phase(a, "duel")
        bookkeeping += sum(taps.values()) - counted

        # Duel 2: "opponent takes 1800" on A's phone: 1, 8, 00, Propose; B confirms with one tap.
        before = dict(taps)
        lp_entry(a, b, ["keypad-digit-1", "keypad-digit-8", "keypad-00"])
        opponent_takes_1800 = {
            "proposer": taps[id(a)] - before[id(a)],
            "confirmer": taps[id(b)] - before[id(b)],
        }
        expect(lp(a, "B")).to_have_text("6200")
        lp_entry(a, b, ["keypad-digit-6", "keypad-digit-2", "keypad-00"])
        for page in (a, b):
            expect_phase(page, "duel_result")
        counted = sum(taps.values())
        # The deciding duel: its confirmation names the match result and confirms it as well.
        for page in (a, b):
            expect(page.get_by_test_id("result-confirm")).to_contain_text("2\u20130")
            tap(page, "result-confirm")
        for page in (a, b):
            expect_phase(page, "match_over")
            expect(page.get_by_test_id("match-result")).to_contain_text("Yugi")
        bookkeeping += sum(taps.values()) - counted

    print(json.dumps({"opponent_takes_1800": opponent_takes_1800, "bookkeeping": bookkeeping}))
    assert opponent_takes_1800 == {"proposer": 4, "confirmer": 1}
    assert bookkeeping <= BOOKKEEPING_MAX, bookkeeping
