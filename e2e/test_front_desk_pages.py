"""The event's front desk, through the pages: the organiser imports the player list from a
spreadsheet's CSV (a bad list named by its line, nothing imported), adds a late one by one with
Enter (Name takes the focus again), checks players in, pairs round 1 (a player not checked in
is not paired), prints the pairings by name and downloads the whole event's results; a player
registers their deck list once from the players' page, and both of their rounds' tables take
that list and refuse another (R2.6, R1.6)."""

from __future__ import annotations

import csv
import io
import re
import uuid
from pathlib import Path
from typing import Any

from playwright.sync_api import Page, expect

from e2e.steps import sit_at_event
from tests.staff_actions import PASSWORD, Staff, create_organiser

FILLER = [f"3 Card {i}" for i in range(13)] + ["1 Card 13"]  # 40 cards
LIST_ONE = "\n".join(["Main Deck", *FILLER, "Side Deck", "2 Mirror Force"])
LIST_TWO = "\n".join(["Main Deck", *FILLER, "Side Deck", "3 Raigeki"])


def organiser_page(new_context, live_server: str, event_id: int, username: str) -> Page:
    page: Page = new_context(viewport={"width": 1280, "height": 900}).new_page()
    page.set_default_timeout(15_000)
    page.goto(f"/organiser/e/{event_id}")
    page.get_by_test_id("login-user").fill(username)
    page.get_by_test_id("login-pass").fill(PASSWORD)
    page.get_by_test_id("login-go").click()
    expect(page.get_by_test_id("swiss")).to_be_visible()
    return page


def test_the_organiser_imports_checks_in_pairs_and_exports(live_server, new_context, script_errors):
    script_errors.allow(r"status of 400.*players/import")  # the bad list, refused as asked
    username = f"org{uuid.uuid4().hex[:6]}"
    create_organiser(live_server, username)
    staff = Staff(live_server).login(username)
    event = staff.create_event("Club Cup", 2)
    page = organiser_page(new_context, live_server, event["id"], username)

    # A list with a problem: named by its line, and nobody registered.
    page.get_by_test_id("import-text").fill("Chen,0100000001\nAoi\n")
    page.get_by_test_id("import-go").click()
    expect(
        page.get_by_test_id("staff-toast").or_(page.locator(".staff-toast")).first
    ).to_contain_text("Line 2")
    expect(page.get_by_test_id("player-list").locator("li")).to_have_count(0)
    # The spreadsheet's own CSV file: a byte order mark, semicolons, a quoted name.
    sheet = '\ufeffName;Player ID\r\n"Chen, Wei";0100000001\r\nAoi;0100000002\r\nBea;0100000003\r\n'
    sheet += "Dan;0100000004\r\n"
    page.get_by_test_id("import-file").set_input_files(
        files=[{"name": "players.csv", "mimeType": "text/csv", "buffer": sheet.encode("utf-8")}]
    )
    expect(page.get_by_test_id("import-text")).to_have_value(re.compile("Dan;0100000004"))
    page.get_by_test_id("import-go").click()
    expect(page.get_by_test_id("player-4")).to_contain_text("Dan (0100000004)")
    expect(page.get_by_test_id("player-1")).to_contain_text("Chen, Wei")
    # One more at the door, by Enter: Name has the focus again for the next one.
    page.get_by_test_id("player-name").fill("Eve")
    page.get_by_test_id("player-id").fill("0100000005")
    page.get_by_test_id("player-id").press("Enter")
    expect(page.get_by_test_id("player-5")).to_contain_text("Eve")
    expect(page.get_by_test_id("player-name")).to_be_focused()
    expect(page.get_by_test_id("player-name")).to_have_value("")

    # Check-in: Eve does not come; the four others are checked in and paired.
    page.get_by_test_id("swiss-check-in").check()
    expect(page.get_by_test_id("checked-in-count")).to_contain_text("0 of 5")
    for n in (1, 2, 3, 4):
        page.get_by_test_id(f"checkin-{n}").click()
        expect(page.get_by_test_id(f"checked-in-{n}")).to_be_visible()
    expect(page.get_by_test_id("checked-in-count")).to_contain_text("4 of 5")
    page.get_by_test_id("swiss-pair").click()
    expect(page.get_by_test_id("swiss-tables").locator("tbody tr")).to_have_count(2)
    expect(page.get_by_test_id("swiss-tables")).not_to_contain_text("Eve")
    expect(page.get_by_test_id("swiss-bye")).to_have_count(0)

    # The pairings by name, A to Z.
    with page.expect_popup() as popup:
        page.get_by_test_id("print-pairings-by-name").click()
    printed = popup.value
    rows = printed.get_by_test_id("pairings-by-name").locator("tbody tr td:first-child")
    expect(rows).to_have_text(["Aoi", "Bea", "Chen, Wei", "Dan"])

    # Round 1 played (a judge's results), round 2 paired: the export holds both rounds.
    _, s = staff.request("GET", f"/api/events/{event['id']}/swiss")
    staff.request("POST", f"/api/events/{event['id']}/round/start", {})
    for t in s["rounds"][0]["tables"]:
        status, body = staff.request(
            "POST", f"/api/events/{event['id']}/tables/{t['table']}/result", {"result": "A"}
        )
        assert status == 200, body
    page.reload()
    page.get_by_test_id("cycle-pair").click()
    expect(page.get_by_test_id("cycle-step")).to_have_attribute("data-step", "start")
    with page.expect_download() as download:
        page.get_by_test_id("export").click()
    text = Path(download.value.path()).read_text(encoding="utf-8-sig")
    rows = list(csv.DictReader(io.StringIO(text)))
    assert {"round_1", "round_1_reason", "round_2"} <= set(rows[0])
    assert sorted(r["round_1"] for r in rows if r["name"] != "Eve") == ["L 0-0"] * 2 + ["W 0-0"] * 2
    assert rows[0]["player_id"].startswith('="0100')
    assert rows[0]["round_1_reason"].startswith("judge (")


def _table_of(
    staff: Staff, event: dict[str, Any], round_no: int, number: int
) -> tuple[dict, str, str]:
    """The event as `sit_at_event` reads it for `round_no`, and the player's table and seat."""
    _, s = staff.request("GET", f"/api/events/{event['id']}/swiss")
    tables = s["rounds"][round_no - 1]["tables"]
    for t in tables:
        for seat in "AB":
            if t[seat.lower()]["player"] == number:
                shaped = {
                    "slug": event["slug"],
                    "tables": [{"code": x["code"], "number": x["table"]} for x in tables],
                }
                return shaped, t["code"], seat
    raise AssertionError("not paired")


def test_a_deck_list_registered_once_binds_both_rounds_tables(live_server, new_context, new_phone):
    username = f"org{uuid.uuid4().hex[:6]}"
    create_organiser(live_server, username)
    staff = Staff(live_server).login(username)
    event = staff.create_event("Deck Cup", 1)
    status, body = staff.request(
        "POST", f"/api/events/{event['id']}/swiss/players/import", {"text": "Chen,0001\nAoi,0002\n"}
    )
    assert status == 201, body

    # The player finds themselves on the players' page and registers their list, once.
    phone = new_phone()
    phone.goto(f"/e/{event['slug']}")
    phone.get_by_test_id("ev-find-input").fill("0001")
    phone.get_by_test_id("ev-find-go").click()
    phone.get_by_test_id("ev-pick-1").click()
    expect(phone.get_by_test_id("ev-deck-id")).to_have_value("0001")
    phone.get_by_test_id("ev-deck-text").fill(LIST_ONE)
    phone.get_by_test_id("ev-deck-go").click()
    expect(phone.get_by_test_id("ev-deck-said")).to_contain_text("main 40, extra 0, side 2")

    for round_no in (1, 2):
        if round_no == 2:
            _, s = staff.request("GET", f"/api/events/{event['id']}/swiss")
            code = s["rounds"][0]["tables"][0]["code"]
            staff.request("POST", f"/api/events/{event['id']}/tables/1/result", {"result": "A"})
            assert code
        status, body = staff.request("POST", f"/api/events/{event['id']}/swiss/pair")
        assert status == 200, body
        shaped, code, seat = _table_of(staff, event, round_no, 1)
        table = new_phone()
        sit_at_event(table, live_server, shaped, code, seat, "Chen", "0001")
        # The table's form starts with the list registered for the event.
        expect(table.get_by_test_id("deck-list-event")).to_be_visible()
        expect(table.get_by_test_id("deck-list-text")).to_have_value(LIST_ONE)
        table.get_by_test_id("deck-list-text").fill(LIST_TWO)
        table.get_by_test_id("deck-list-register").click()
        expect(table.get_by_test_id("toast")).to_contain_text("R2.6")
        expect(table.get_by_test_id("deck-list-mine")).to_have_count(0)
        table.get_by_test_id("deck-list-text").fill(LIST_ONE)
        table.get_by_test_id("deck-list-register").click()
        expect(table.get_by_test_id("deck-list-mine")).to_contain_text("40")
        status, body = staff.request("POST", f"/api/events/{event['id']}/round/start", {})
        assert status == 200, body
