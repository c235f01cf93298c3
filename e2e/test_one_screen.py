"""One screen during a duel: at 360x640 and 375x667 (iPhone SE), in each language and theme,
the LP board, the clock, the keypad with its Propose button and the opponent's entry waiting to
be confirmed are all inside the viewport with the page scrolled to the top, none covering
another. After an entry the keypad is back on "opponent, damage"."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect

from e2e.steps import confirm_entry, keypad, seat_both, start_duel
from server.core.i18n import load

SIZES = [(360, 640), (375, 667)]
LANGS = load().codes  # every language of web/i18n/languages.json
THEMES = ("light", "dark")
VISIBLE = (
    "lp-A",
    "lp-B",
    "clock",
    "keypad",
    "propose",
    "keypad-digit-0",
    "keypad-000",
    "confirm-banner",
    "confirm-entry",
    "reject-entry",
    "end-turn",
)


def inside(page: Page, testid: str) -> dict:
    """The element's box, whether it lies wholly inside the viewport and is the topmost element
    at its centre (not hidden under the confirmation banner or the sticky header)."""
    return page.get_by_test_id(testid).first.evaluate(
        """el => {
            const r = el.getBoundingClientRect();
            const x = r.left + r.width / 2, y = r.top + r.height / 2;
            const hit = document.elementFromPoint(x, y);
            return {top: r.top, bottom: r.bottom, left: r.left, right: r.right,
                    inView: r.top >= 0 && r.left >= 0 && r.bottom <= innerHeight
                            && r.right <= innerWidth && r.height > 0,
                    onTop: !!hit && (hit === el || el.contains(hit) || hit.contains(el)),
                    hit: hit ? hit.outerHTML.slice(0, 160) : null,
                    scrollY: scrollY, inner: innerHeight};
        }"""
    )


@pytest.mark.parametrize("width,height", SIZES)
def test_board_clock_keypad_and_waiting_entry_fit_one_screen(new_phone, width, height):
    size = {"viewport": {"width": width, "height": height}}
    a, b = new_phone(**size), new_phone(**size)
    seat_both(a, b)
    start_duel(a, b)
    # An entry A's phone must confirm, and the keypad left on another target and kind.
    keypad(a, 500, kind="gain", target="me")
    confirm_entry(b)
    for page in (a, b):
        expect(page.get_by_test_id("lp-A")).to_have_text("8500")
    # After an entry the keypad is back on "opponent, damage".
    expect(a.get_by_test_id("keypad-target-opp")).to_have_attribute("aria-checked", "true")
    expect(a.get_by_test_id("keypad-kind-damage")).to_have_attribute("aria-checked", "true")
    keypad(b, 1800)
    expect(a.get_by_test_id("confirm-banner")).to_be_visible()
    a.get_by_test_id("keypad-digit-5").click()
    expect(a.get_by_test_id("toast")).to_have_count(0, timeout=10_000)  # toasts are passing
    for theme in THEMES:
        a.emulate_media(color_scheme=theme, reduced_motion="reduce")
        for lang in LANGS:
            a.get_by_test_id("lang").select_option(lang)
            expect(a.locator("html")).to_have_attribute("lang", lang)
            a.evaluate("window.scrollTo(0, 0)")
            for testid in VISIBLE:
                box = inside(a, testid)
                assert box["scrollY"] == 0
                assert box["inView"], (width, height, theme, lang, testid, str(box))
                assert box["onTop"], (width, height, theme, lang, testid, str(box))
