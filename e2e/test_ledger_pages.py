"""A judge pages through a 120-entry LP ledger (R1.4) in the table's detail view: 50 entries a
page, each page fetched by range; the newest page follows the table live."""

from __future__ import annotations

import sys
import time
import uuid
from pathlib import Path

from playwright.sync_api import Browser, Page, expect

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from sheet_match import StoreTable, pad  # noqa: E402

from server.store import EventStore, bind, db, open_database  # noqa: E402
from tests.staff_actions import PASSWORD, Staff, create_organiser  # noqa: E402

LAPTOP = {"viewport": {"width": 1280, "height": 800}}


def long_ledger(live_server, code: str, entries: int) -> StoreTable:
    """Seat both players at the event table `code` and confirm `entries` LP entries, written
    to the server's own database (the server catches up from it)."""
    bind(open_database(live_server.database_url, str(live_server.data_dir)))
    t = StoreTable(EventStore(db), now=time.time_ns() // 1_000_000)
    t.code = code  # the event's table, not the casual one StoreTable opened
    t.join().register()
    t.do("judge", "clock.start")
    t.start_duel(first="A")
    pad(t, entries)
    return t


def entries_shown(page: Page) -> list[int]:
    return page.eval_on_selector_all(
        "[data-testid=jl-row]", "rows => rows.map(r => Number(r.dataset.entry))"
    )


def test_a_judge_pages_through_a_long_ledger(live_server, browser: Browser):
    suffix = uuid.uuid4().hex[:6]
    organiser, judge = f"org{suffix}", f"judge{suffix}"
    create_organiser(live_server, organiser)
    staff = Staff(live_server).login(organiser)
    event = staff.create_event("Ledger Cup", 1)
    staff.add_judge(event["id"], judge)
    code = event["tables"][0]["code"]
    table = long_ledger(live_server, code, 120)
    numbers = [e["entry"] for e in table.entries]
    assert len(numbers) == 120

    context = browser.new_context(base_url=live_server, locale="en-GB", **LAPTOP)
    context.set_default_timeout(8000)
    page = context.new_page()
    ranges: list[str] = []
    page.on(
        "request",
        lambda r: ranges.append(r.url.split("/ledger", 1)[1]) if "/ledger?" in r.url else None,
    )
    try:
        page.goto("/judge")
        page.get_by_test_id("login-user").fill(judge)
        page.get_by_test_id("login-pass").fill(PASSWORD)
        page.get_by_test_id("login-go").click()
        expect(page.get_by_test_id("floor-table-1")).to_be_visible()
        page.goto(f"/judge/e/{event['id']}/t/{code}")

        ledger = page.get_by_test_id("judge-ledger")
        range_text = page.get_by_test_id("jl-range")
        # The newest page first: entries 101-120, and nothing later.
        expect(range_text).to_have_text("Entries 101–120 of 120")
        assert entries_shown(page) == numbers[100:]
        expect(page.get_by_test_id("jl-later")).to_be_disabled()

        page.get_by_test_id("jl-earlier").click()
        expect(range_text).to_have_text("Entries 51–100 of 120")
        assert entries_shown(page) == numbers[50:100]
        page.get_by_test_id("jl-earlier").click()
        expect(range_text).to_have_text("Entries 1–50 of 120")
        assert entries_shown(page) == numbers[:50]
        expect(page.get_by_test_id("jl-earlier")).to_be_disabled()
        assert ledger.locator("td").first.inner_text() == f"#{numbers[0]}"

        page.get_by_test_id("jl-later").click()
        expect(range_text).to_have_text("Entries 51–100 of 120")
        page.get_by_test_id("jl-later").click()
        expect(range_text).to_have_text("Entries 101–120 of 120")

        # Each page came by range, 50 entries at most, never the whole ledger at once.
        assert ranges and all("limit=50" in q for q in ranges), ranges
        assert "?from=0&limit=50" in ranges and "?from=50&limit=50" in ranges

        # The newest page follows the table: the judge's own correction shows without a reload.
        page.get_by_test_id("correct-amount").fill("100")
        page.get_by_test_id("correct-note").fill("Sparks")
        page.get_by_test_id("correct-go").click()
        expect(range_text).to_have_text("Entries 101–121 of 121")
        expect(ledger.locator("[data-testid=jl-row]").last).to_contain_text("Sparks")
        assert entries_shown(page)[-1] > numbers[-1]
    finally:
        context.close()


def test_the_score_sheet_pages_on_screen_and_prints_every_row(live_server, browser: Browser):
    bind(open_database(live_server.database_url, str(live_server.data_dir)))
    t = StoreTable(EventStore(db), now=time.time_ns() // 1_000_000, staff_start=False)
    t.join().register().start_duel(first="A")
    pad(t, 120)
    numbers = [e["entry"] for e in t.entries]
    context = browser.new_context(base_url=live_server, **LAPTOP)
    context.set_default_timeout(8000)
    page = context.new_page()
    visible = "rows => rows.filter(r => r.offsetParent !== null).map(r => Number(r.dataset.entry))"
    try:
        page.goto(f"/t/{t.code}/sheet?lang=ja")
        range_text = page.get_by_test_id("sheet-range")
        expect(range_text).to_have_text("120 行中 1–50 行")
        assert page.eval_on_selector_all("tr.entry", visible) == numbers[:50]
        expect(page.get_by_test_id("sheet-earlier")).to_be_disabled()
        page.get_by_test_id("sheet-later").click()
        expect(range_text).to_have_text("120 行中 51–100 行")
        assert page.eval_on_selector_all("tr.entry", visible) == numbers[50:100]
        page.get_by_test_id("sheet-later").click()
        expect(range_text).to_have_text("120 行中 101–120 行")
        assert page.eval_on_selector_all("tr.entry", visible) == numbers[100:]
        expect(page.get_by_test_id("sheet-later")).to_be_disabled()
        page.get_by_test_id("sheet-earlier").click()
        expect(range_text).to_have_text("120 行中 51–100 行")

        # Printing, whatever page is on screen, prints every row and no buttons (R1.4).
        page.emulate_media(media="print")
        assert page.eval_on_selector_all("tr.entry", visible) == numbers
        expect(page.get_by_test_id("sheet-pages")).to_be_hidden()
    finally:
        context.close()
