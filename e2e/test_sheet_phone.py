"""The score sheet as a player hands it in: opened from the table screen's link on a phone
(360x640), in the phone's language and time zone, with nothing cut off."""

from __future__ import annotations

import re
import uuid
from datetime import UTC, datetime, timedelta

from playwright.sync_api import expect

from e2e.steps import confirm_entry, keypad, seat_both, start_duel
from tests.staff_actions import PASSWORD, Staff, create_organiser
from tests.ws_helpers import http

TAIPEI = {
    "timezone_id": "Asia/Taipei",
    "locale": "ja-JP",
    "viewport": {"width": 360, "height": 640},
}


def test_the_sheet_opens_from_the_table_in_the_players_language_and_time(live_server, new_phone):
    a, b = new_phone(**TAIPEI), new_phone(**TAIPEI)
    code = seat_both(a, b)
    start_duel(a, b)
    keypad(a, 1800)
    confirm_entry(b)
    a.get_by_test_id("lang").select_option("ja")
    expect(a.locator("html")).to_have_attribute("lang", "ja")

    a.get_by_test_id("sheet-link").click()
    a.wait_for_url(f"**/t/{code}/sheet?**")
    expect(a.locator("html")).to_have_attribute("lang", "ja")
    expect(a.locator("h1").first).to_contain_text("公式スコアシート")
    expect(a.locator(".sheet-tz")).to_contain_text("UTC+0800")

    # The confirmed entry's time, in Taipei (UTC+8), as the server logged it.
    _, export = http(live_server, "GET", f"/api/tables/{code}/export.json")
    [applied] = [e for e in export["events"] if e["type"] == "lp.applied"]
    when = datetime.fromtimestamp(applied["at_ms"] / 1000, UTC) + timedelta(hours=8)
    row = a.locator("tr.entry").first
    expect(row.locator("td.t")).to_have_text(when.strftime("%H:%M:%S"))

    # Nothing cut off at 360 px: the page never scrolls sideways (the ledger may, in its box).
    widths = a.evaluate(
        "[document.documentElement.scrollWidth, document.documentElement.clientWidth]"
    )
    assert widths[0] <= widths[1] == 360, widths


def test_the_judges_table_page_links_the_sheet_of_the_event_table(live_server, new_phone):
    suffix = uuid.uuid4().hex[:6]
    organiser, judge = f"org{suffix}", f"judge{suffix}"
    create_organiser(live_server, organiser)
    staff = Staff(live_server).login(organiser)
    ev = staff.create_event(f"Sheet Cup {suffix}", 2)
    staff.add_judge(ev["id"], judge)
    code = ev["tables"][1]["code"]  # table 2

    jdg = new_phone(**{**TAIPEI, "locale": "en-GB"})
    jdg.goto(f"/judge/e/{ev['id']}")
    jdg.get_by_test_id("login-user").fill(judge)
    jdg.get_by_test_id("login-pass").fill(PASSWORD)
    jdg.get_by_test_id("login-go").click()
    jdg.get_by_test_id("floor-table-2").click()
    link = jdg.get_by_test_id("judge-sheet-link")
    expect(link).to_have_attribute(
        "href", re.compile(rf"^/t/{code}/sheet\?lang=[\w-]+&tz=Asia%2FTaipei$")
    )
    link.click()
    expect(jdg.locator("html")).to_have_attribute("lang", "en")
    expect(jdg.get_by_test_id("sheet-event")).to_have_text(
        f"Sheet Cup {suffix} · round 1 · table 2"
    )
