"""Every staff page in both themes: axe-core finds no serious or critical violation; the
organiser's screens are translated (no raw rule-set ids, roles or "min" left in English),
their controls are at least 44 px to tap, and saving pairings says so."""

from __future__ import annotations

import uuid

import pytest
from playwright.sync_api import Browser, Page, expect

from e2e.steps import axe_violations
from tests.staff_actions import PASSWORD, Staff, create_organiser

LAPTOP = {"viewport": {"width": 1280, "height": 800}}
TAP = 44


def audit(page: Page, screen: str) -> None:
    violations = axe_violations(page)
    assert violations == [], (screen, violations)


def small_targets(page: Page) -> list[str]:
    """Visible buttons, inputs and selects (and checkboxes' labels) under 44 px tall."""
    return page.evaluate(
        """(tap) => [...document.querySelectorAll('button, select, input, a.btn')]
            .filter(e => e.offsetParent !== null && e.type !== 'hidden')
            .map(e => [e, e.type === 'checkbox' ? e.closest('label') || e : e])
            .map(([e, t]) => [e.dataset.testid || e.textContent.trim() || e.name || e.type,
                              t.getBoundingClientRect()])
            .filter(([, r]) => r.height < tap)
            .map(([id, r]) => `${id} ${Math.round(r.width)}x${Math.round(r.height)}`)""",
        TAP,
    )


def login(page: Page, username: str) -> None:
    page.get_by_test_id("login-user").fill(username)
    page.get_by_test_id("login-pass").fill(PASSWORD)
    page.get_by_test_id("login-go").click()


@pytest.mark.parametrize("scheme", ["dark", "light"])
def test_every_staff_page_is_accessible(live_server, browser: Browser, scheme: str):
    suffix = uuid.uuid4().hex[:6]
    organiser, judge = f"org{suffix}", f"judge{suffix}"
    create_organiser(live_server, organiser)
    staff = Staff(live_server).login(organiser)
    ev = staff.create_event("A11y Cup", 2)
    staff.add_judge(ev["id"], judge)
    code = ev["tables"][0]["code"]
    ctx = browser.new_context(base_url=live_server, color_scheme=scheme, **LAPTOP)
    jctx = browser.new_context(base_url=live_server, color_scheme=scheme, **LAPTOP)
    page, jdg = ctx.new_page(), jctx.new_page()
    try:
        page.goto("/organiser")
        expect(page.get_by_test_id("login-go")).to_be_visible()
        audit(page, "organiser login")
        login(page, organiser)
        expect(page.get_by_test_id("ev-create")).to_be_visible()
        audit(page, "organiser events")
        assert small_targets(page) == []
        page.goto(f"/organiser/e/{ev['id']}")
        expect(page.get_by_test_id("event-title")).to_contain_text("A11y Cup")
        page.get_by_test_id("pairings-text").fill("1,Yugi,0001,Kaiba,0002")
        page.get_by_test_id("pairings-save").click()
        expect(page.get_by_test_id("org-msg")).to_have_text("1 tables paired.")
        expect(page.get_by_test_id("table-row-1")).to_contain_text("Yugi vs Kaiba")
        audit(page, "organiser event")
        assert small_targets(page) == []
        page.get_by_test_id("round-start").click()
        expect(page.get_by_test_id("round-end")).to_be_visible()
        page.get_by_test_id("round-end").click()
        expect(page.get_by_test_id("end-round-dialog")).to_be_visible()
        audit(page, "end round dialog")
        page.get_by_test_id("end-round-cancel").click()
        page.goto(f"/organiser/events/{ev['id']}/cards")
        audit(page, "table cards")
        page.goto(f"/e/{ev['slug']}/hall")
        expect(page.get_by_test_id("hall-playing")).not_to_be_empty()
        audit(page, "hall clock")

        jdg.goto("/judge")
        expect(jdg.get_by_test_id("login-go")).to_be_visible()
        audit(jdg, "judge login")
        login(jdg, judge)
        expect(jdg.get_by_test_id("floor-table-1")).to_be_visible()
        audit(jdg, "judge floor")
        jdg.get_by_test_id("floor-table-1").click()
        expect(jdg.get_by_test_id("back-to-floor")).to_be_visible()
        audit(jdg, "judge table")
        assert code
    finally:
        ctx.close()
        jctx.close()


def test_the_organiser_screens_are_translated(live_server, browser: Browser):
    suffix = uuid.uuid4().hex[:6]
    organiser, judge = f"org{suffix}", f"judge{suffix}"
    create_organiser(live_server, organiser)
    staff = Staff(live_server).login(organiser)
    ev = staff.create_event("翻訳杯", 1)
    staff.add_judge(ev["id"], judge)
    for lang, role, minutes, rules in (
        ("ja", "（ジャッジ）", "40 分", "OCG 2008（香港）"),
        ("zh-Hant", "（裁判）", "40 分鐘", "OCG 2008（香港）"),
    ):
        ctx = browser.new_context(base_url=live_server, locale=lang, **LAPTOP)
        try:
            page = ctx.new_page()
            page.goto(f"/organiser/e/{ev['id']}")
            login(page, organiser)
            expect(page.get_by_test_id("staff-list")).to_contain_text(f"{judge} {role}")
            expect(page.get_by_test_id("event-rules")).to_have_text(f"{rules} · {minutes}")
            body = page.locator("body").inner_text()
            assert "(judge)" not in body and "ocg-2008" not in body and " min" not in body
        finally:
            ctx.close()
