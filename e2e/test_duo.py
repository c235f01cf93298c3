"""One phone for two players (table mode): the phone lies between them, seat B's half turned
180 degrees; each player proposes and confirms on their own half, through a whole duel, and the
score sheet marks the entries confirmed on the one phone."""

from __future__ import annotations

import os
import urllib.request
from pathlib import Path

import pytest
from playwright.sync_api import Locator, Page, expect

from e2e.steps import (
    axe_violations,
    confirm_entry,
    end_turn,
    expect_phase,
    keypad,
    lp,
    start_duel,
)


def open_duo(page: Page) -> tuple[str, Locator, Locator]:
    """From home: a new table, both seats taken on this phone."""
    page.goto("/")
    page.get_by_test_id("new-table").click()
    expect(page.get_by_test_id("join-screen")).to_be_visible()
    code = page.get_by_test_id("table-code").inner_text().strip()
    page.get_by_test_id("name-input").fill("Yugi")
    page.get_by_test_id("duo-name-b").fill("Kaiba")
    page.get_by_test_id("duo-start").click()
    expect(page.get_by_test_id("duo-screen")).to_be_visible()
    page.get_by_test_id("recovery-ok").click()  # the recovery code, shown once, is noted
    a, b = page.get_by_test_id("duo-A"), page.get_by_test_id("duo-B")
    expect(a.get_by_test_id("name-B")).to_have_text("Kaiba")
    return code, a, b


def inside(half: Locator, target: Locator) -> bool:
    """Whether `target` lies inside the half's box as it is now (no scrolling)."""
    outer, inner = half.bounding_box(), target.bounding_box()
    assert outer and inner
    return (
        inner["x"] >= outer["x"] - 1
        and inner["y"] >= outer["y"] - 1
        and inner["x"] + inner["width"] <= outer["x"] + outer["width"] + 1
        and inner["y"] + inner["height"] <= outer["y"] + outer["height"] + 1
    )


def test_a_whole_duel_on_one_phone(new_phone, live_server):
    page = new_phone()
    code, a, b = open_duo(page)
    # The far half is turned to face the player across the table.
    turned = b.evaluate("el => getComputedStyle(el).transform")
    assert turned.startswith("matrix(-1, ") and "-1, 0, 0)" in turned
    assert a.evaluate("el => getComputedStyle(el).transform") == "matrix(1, 0, 0, 1, 0, 0)"
    start_duel(a, b, winner=a, order="first")

    # Each half: its own keypad and Propose in view without scrolling.
    for half in (a, b):
        half.evaluate("el => { el.scrollTop = 0; }")
        assert inside(half, half.get_by_test_id("propose"))
        assert inside(half, half.get_by_test_id("lp-A"))

    keypad(a, 3000)  # Yugi: Kaiba takes 3000
    banner = b.get_by_test_id("confirm-banner")
    expect(banner).to_be_visible()
    expect(a.get_by_test_id("confirm-banner")).to_have_count(0)  # not on the proposer's half
    banner.evaluate("el => Promise.all(el.getAnimations().map(a => a.finished))")  # slid in
    assert inside(b, banner.get_by_test_id("confirm-entry"))
    assert axe_violations(page) == []
    if os.environ.get("DUO_SCREENSHOT"):
        Path(os.environ["DUO_SCREENSHOT"]).parent.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=os.environ["DUO_SCREENSHOT"], animations="disabled")
    confirm_entry(b)
    for half in (a, b):
        expect(lp(half, "B")).to_have_text("5000")
    end_turn({"A": a, "B": b})

    keypad(b, 5000)  # Kaiba: Yugi takes 5000
    confirm_entry(a)
    for half in (a, b):
        expect(lp(half, "A")).to_have_text("3000")
    end_turn({"A": a, "B": b})

    keypad(a, 5000)  # Yugi: Kaiba to 0
    confirm_entry(b)
    for half in (a, b):
        expect_phase(half, "duel_result")
        expect(half.get_by_test_id("duel-result")).to_contain_text("Yugi")
    for half in (a, b):
        half.get_by_test_id("result-confirm").click()
    for half in (a, b):
        expect(half.get_by_test_id("phase")).not_to_have_attribute("data-phase", "duel_result")
        expect(half.get_by_test_id("wins-A")).to_have_text("\u25cf\u25cb")

    with urllib.request.urlopen(f"{live_server}/t/{code}/sheet", timeout=5) as response:
        html = response.read().decode()
    assert html.count("confirmed on one shared phone") == 3
    assert html.count('class="entry shared"') == 3


@pytest.mark.parametrize("locale", ["ja-JP", "zh-TW"])
def test_each_half_fits_the_phone_in_every_language(new_phone, locale):
    """Keypad, Propose and the confirm banner in view on each half at 360x640, no scrolling."""
    page = new_phone(locale=locale)
    _code, a, b = open_duo(page)
    tag = {"ja-JP": "1\u53f0\u30e2\u30fc\u30c9", "zh-TW": "\u5171\u7528\u624b\u6a5f"}[locale]
    expect(page.get_by_test_id("duo-tag")).to_have_text(tag)
    start_duel(a, b, winner=b, order="first")
    for half in (a, b):
        half.evaluate("el => { el.scrollTop = 0; }")
        for testid in ("propose", "keypad-digit-0", "lp-A", "lp-B", "end-turn"):
            if half.get_by_test_id(testid).count():
                assert inside(half, half.get_by_test_id(testid)), (half, testid)
    keypad(b, 1800)
    banner = a.get_by_test_id("confirm-banner")
    banner.evaluate("el => Promise.all(el.getAnimations().map(a => a.finished))")
    assert inside(a, banner.get_by_test_id("confirm-entry"))
    assert inside(a, banner.get_by_test_id("reject-entry"))
    page.reload()  # both seats stay on this phone
    expect(page.get_by_test_id("duo-screen")).to_be_visible()
    expect(page.get_by_test_id("duo-A").get_by_test_id("confirm-banner")).to_be_visible()
    confirm_entry(page.get_by_test_id("duo-A"))
    expect(lp(page.get_by_test_id("duo-B"), "A")).to_have_text("6200")
