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
    api_create_table,
    axe_violations,
    confirm_entry,
    end_turn,
    expect_phase,
    keypad,
    lp,
    start_duel,
)


def open_duo(page: Page, code: str | None = None) -> tuple[str, Locator, Locator]:
    """From home: a new table (or the table `code`), both seats taken on this phone."""
    if code is None:
        page.goto("/")
        page.get_by_test_id("new-table").click()
    else:
        page.goto(f"/t/{code}")
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


KEYS = ".key, .seg-btn, .key-propose"


def dismiss_reveals(page: Page) -> None:
    """Tap away the coin or die reveal (it covers the halves for a moment)."""
    page.get_by_test_id("roll-overlay").evaluate_all("els => els.forEach(e => e.click())")
    expect(page.get_by_test_id("roll-overlay")).to_have_count(0)


@pytest.mark.parametrize("size", [(360, 640), (375, 667)])
def test_each_half_has_every_tool_of_a_two_phone_table(new_phone, live_server, size):
    """Coin, die, counters, the judge call, the score sheet's link, the connection badge and
    mute, each in the half of the player who uses it and working there; every key of each
    half's keypad 44 px or more each way, and the board, End turn and Propose in the half
    without scrolling it."""
    width, height = size
    page = new_phone(viewport={"width": width, "height": height})
    code, a, b = open_duo(page)
    start_duel(a, b, winner=a, order="first")
    for half in (a, b):
        half.evaluate("el => { el.scrollTop = 0; }")
        for testid in ("propose", "lp-A", "lp-B", "keypad-digit-7", "keypad-000", "keypad-back"):
            assert inside(half, half.get_by_test_id(testid)), (half, testid)
        sizes = half.locator(KEYS).evaluate_all(
            "els => els.map(e => [e.dataset.testid, e.getBoundingClientRect().width,"
            " e.getBoundingClientRect().height])"
        )
        assert len(sizes) >= 17 + 1 + 3 + 5
        small = [s for s in sizes if s[1] < 44 - 0.01 or s[2] < 44 - 0.01]
        assert not small, small
    assert inside(a, a.get_by_test_id("end-turn"))  # A's turn: End turn beside the board

    for seat, half in (("A", a), ("B", b)):
        # Coin and die: the result is this seat's, on both halves.
        rolls = half.get_by_test_id("roll-row")
        before = rolls.count()
        half.get_by_test_id("coin-toss").click()
        expect(rolls).to_have_count(before + 1)
        dismiss_reveals(page)
        half.get_by_test_id("die-roll").click()
        expect(rolls).to_have_count(before + 2)
        name = "Yugi" if seat == "A" else "Kaiba"
        expect(rolls.first).to_contain_text(name)
        other = b if half is a else a
        # The other half (its own socket) has both too: the next seat counts from there.
        expect(other.get_by_test_id("roll-row")).to_have_count(before + 2)
        expect(other.get_by_test_id("roll-row").first).to_contain_text(name)
        dismiss_reveals(page)
        # Counters.
        half.get_by_test_id("counter-name").fill(f"Spell Counter {seat}")
        half.get_by_test_id("counter-add").click()
        row = half.get_by_test_id("counter-row").filter(has_text=f"Spell Counter {seat}")
        expect(row).to_have_count(1)
        value = int(row.get_by_test_id("counter-value").inner_text())
        row.get_by_test_id("counter-inc").click()
        expect(row.get_by_test_id("counter-value")).to_have_text(str(value + 1))
        # The connection badge and mute of this half.
        expect(half.get_by_test_id("conn-status")).to_have_attribute("data-status", "online")
        expect(half.get_by_test_id("role")).to_contain_text(seat)
        mute = half.get_by_test_id("mute")
        pressed = mute.get_attribute("aria-pressed")
        mute.click()
        expect(mute).not_to_have_attribute("aria-pressed", pressed or "")
        mute.click()
        expect(mute).to_have_attribute("aria-pressed", pressed or "false")
        # The score sheet's link, for this table.
        assert f"/t/{code}/sheet" in (half.get_by_test_id("sheet-link").get_attribute("href") or "")
        # The judge call: this seat's (a casual table: what the players can do).
        half.get_by_test_id("call-judge").click()
        half.get_by_test_id("judge-send").click()
        expect(half.get_by_test_id("judge-status").filter(has_text=name)).to_have_count(1)


# The one-phone board's parts a player acts on, each by test id, and every key of the keypad.
BOARD_IDS = ["lp-A", "lp-B"]
KEYPAD_IDS = [
    "keypad",
    "propose",
    "keypad-target-opp",
    "keypad-target-me",
    "keypad-target-both",
    "keypad-kind-damage",
    "keypad-kind-gain",
    "keypad-kind-cost",
    "keypad-kind-halve",
    "keypad-kind-set",
    "keypad-clear",
    "keypad-back",
    "keypad-00",
    "keypad-000",
    "keypad-quick-100",
    "keypad-quick-500",
    "keypad-quick-1000",
    *[f"keypad-digit-{d}" for d in range(10)],
]

# Every element of the half with one of these test ids: its box inside the viewport, and the
# element (or one inside it) on top at its centre. The first one that is not, or null.
NOT_IN_VIEW = """([half, ids]) => {
    const root = document.querySelector(`[data-testid="${half}"]`);
    for (const id of ids) {
        const el = root.querySelector(`[data-testid="${id}"]`);
        if (!el) return {id, why: 'missing'};
        const r = el.getBoundingClientRect();
        const inView = r.height > 0 && r.top >= 0 && r.left >= 0 && r.bottom <= innerHeight
                       && r.right <= innerWidth;
        const hit = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
        const onTop = !!hit && (hit === el || el.contains(hit));
        if (!inView || !onTop)
            return {half, id, top: r.top, bottom: r.bottom, inView, onTop,
                    hit: hit ? hit.outerHTML.slice(0, 120) : null};
    }
    return null;
}"""


def assert_half_in_view(page: Page, half: str, ids: list[str]) -> None:
    """Wait (a half may still scroll smoothly) until all are in view; say which is not."""
    try:
        page.wait_for_function(f"(a) => ({NOT_IN_VIEW})(a) === null", arg=[half, ids], timeout=3000)
    except Exception:
        pass
    assert page.evaluate(NOT_IN_VIEW, [half, ids]) is None


@pytest.mark.parametrize("size", [(360, 640), (375, 667)])
def test_banners_never_cover_a_halfs_keypad(new_phone, live_server, size):
    """In Extra Turns, with the time banner up and an entry of each seat waiting for the other's
    yes, each half shows its LP board, every key of its keypad, Propose, the banner's buttons
    and the proposer's Withdraw on screen and uncovered: the banners take their own space."""
    width, height = size
    page = new_phone(viewport={"width": width, "height": height})
    code = api_create_table(live_server, match_minutes=0.05)  # 3 seconds
    _code, a, b = open_duo(page, code)
    start_duel(a, b, winner=a, order="first")  # the clock starts with duel 1 (R4.1)
    for half in (a, b):
        expect(half.get_by_test_id("time-banner")).to_have_attribute(
            "data-stage", "finish_turn", timeout=15_000
        )
    end_turn({"A": a, "B": b})  # A's turn 1 ends: Extra Turn 1 is B's
    for half in (a, b):
        expect(half.get_by_test_id("time-banner")).to_have_text("Extra Turn 1 of 3")
    # One banner: B proposes, A's half asks for the yes (A had scrolled down to the counters).
    a.evaluate("el => { el.scrollTop = el.scrollHeight; }")
    keypad(b, 1000)
    banner = a.get_by_test_id("confirm-banner")
    expect(banner).to_be_visible()
    banner.evaluate("el => Promise.all(el.getAnimations().map(a => a.finished))")
    assert_half_in_view(page, "duo-A", BOARD_IDS + KEYPAD_IDS + ["confirm-entry", "reject-entry"])
    assert_half_in_view(page, "duo-B", BOARD_IDS + KEYPAD_IDS + ["withdraw-waiting", "time-banner"])
    # A banner on each half: A proposes too (B's half scrolled down).
    b.evaluate("el => { el.scrollTop = el.scrollHeight; }")
    keypad(a, 500, kind="gain", target="me")
    banner = b.get_by_test_id("confirm-banner")
    expect(banner).to_be_visible()
    banner.evaluate("el => Promise.all(el.getAnimations().map(a => a.finished))")
    for seat, half in (("A", a), ("B", b)):
        assert_half_in_view(
            page,
            f"duo-{seat}",
            BOARD_IDS
            + KEYPAD_IDS
            + ["time-banner", "confirm-entry", "reject-entry", "withdraw-waiting"],
        )
        sizes = half.locator(KEYS).evaluate_all(
            "els => els.map(e => [e.dataset.testid, e.getBoundingClientRect().width,"
            " e.getBoundingClientRect().height])"
        )
        small = [s for s in sizes if s[1] < 44 - 0.01 or s[2] < 44 - 0.01]
        assert not small, small
    # Both work from where they are: B withdraws its entry and confirms A's.
    b.get_by_test_id("withdraw-waiting").click()
    expect(a.get_by_test_id("confirm-banner")).to_have_count(0)
    confirm_entry(b)
    for half in (a, b):
        expect(lp(half, "A")).to_have_text("8500")
