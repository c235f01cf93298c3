"""The score sheet read on a 360 px phone in Chinese (R1.4, R6.5): both hands of
rock-paper-scissors once revealed (on the table too), every entry's number (a withdrawn one says
so), every word from the catalogue (the duel column, full-width brackets), the seat's own player
ID and no one else's, and seat B's LP column on the screen, not in a sideways scroll."""

from __future__ import annotations

import json
import re

from playwright.sync_api import Page, expect

from e2e.steps import (
    api_create_table,
    checklist,
    choose_and_draw,
    confirm_entry,
    declare_decks,
    keypad,
)
from tests.ws_helpers import http

ZH = {"locale": "zh-HK", "viewport": {"width": 360, "height": 640}}


def seated(page: Page, code: str, seat: str, token: str, name: str) -> None:
    """A phone that holds `seat` (as joining on it would have kept it)."""
    page.goto("/")
    held = {code: {"seat": seat, "token": token, "name": name, "at_ms": 0}}
    page.evaluate("(v) => localStorage.setItem('dt.seats', v)", json.dumps(held))
    page.goto(f"/t/{code}")
    expect(page.get_by_test_id("role")).to_contain_text(seat)


def test_the_sheet_on_a_360_px_phone_in_chinese(live_server, new_phone):
    code = api_create_table(live_server)
    _, a_join = http(
        live_server, "POST", f"/api/tables/{code}/join", {"name": "Yugi", "player_id": "0042"}
    )
    _, b_join = http(
        live_server, "POST", f"/api/tables/{code}/join", {"name": "Kaiba", "player_id": "0099"}
    )
    a, b = new_phone(**ZH), new_phone(**ZH)
    seated(a, code, "A", a_join["token"], "Yugi")
    seated(b, code, "B", b_join["token"], "Kaiba")
    declare_decks(a, b)
    checklist(a, b)

    # Rock-paper-scissors in the app: both hands stay shown with who won (R6.5).
    a.get_by_test_id("rps-paper").click()
    b.get_by_test_id("rps-rock").click()
    for page in (a, b):
        expect(page.get_by_test_id("rps-hands")).to_contain_text("Yugi")
        expect(page.get_by_test_id("rps-hands")).to_contain_text("布")
        expect(page.get_by_test_id("rps-hands")).to_contain_text("石頭")
    choose_and_draw(a, b, a)

    keypad(a, 500)
    confirm_entry(b)
    keypad(a, 300)
    a.get_by_test_id("withdraw-waiting").click()  # entry 2 never applies
    expect(a.get_by_test_id("withdraw-waiting")).to_have_count(0)
    keypad(a, 1000)
    confirm_entry(b)
    keypad(a, 6500)  # B at 0: duel 1 over, its result confirmed by both
    confirm_entry(b)
    for page in (a, b):
        page.get_by_test_id("result-confirm").click()
    expect(a.get_by_test_id("phase")).to_have_attribute("data-phase", "between")

    a.goto(f"/t/{code}/sheet?lang=zh-Hant")
    sheet = a.locator("section.sheet")
    ledger = a.locator("table.ledger").first
    # Every entry's number, the withdrawn one saying so.
    expect(ledger.locator("tr.entry")).to_have_count(4)
    numbers = [n.strip() for n in ledger.locator("tr.entry td:first-child").all_inner_texts()]
    assert numbers == ["1", "2", "3", "4"], numbers
    expect(ledger.locator("tfoot")).to_contain_text("（LP 歸零）")
    expect(ledger.locator("tr.gone")).to_contain_text("提出者已撤回")
    # Both hands on the sheet, in words.
    expect(ledger.locator("caption")).to_contain_text("A 布・B 石頭")
    # The seat's own ID only: this phone holds A.
    expect(a.get_by_test_id("sheet-id-A")).to_have_text("0042")
    expect(a.get_by_test_id("sheet-id-B")).to_have_text("")
    # No English of the sheet's own: the duel column and the brackets are Chinese.
    text = sheet.inner_text().replace(code, "")  # a random table code may read "D3FCQC"
    assert not re.search(r"\bD\d", text), text
    for part in a.locator(".match-result, .ledger tfoot").all_inner_texts():
        assert not re.search(r"[()]", part), part  # full-width brackets among Chinese words
    # Seat B's LP column on the screen, and nothing scrolls sideways.
    lp_b = ledger.locator("tr.entry").first.locator("td.lp").nth(1)
    expect(lp_b).to_have_text("7500")
    box = lp_b.bounding_box()
    assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= 360, box
    overflow = a.evaluate(
        """() => [...document.querySelectorAll('.scroll, table.ledger')]
                 .filter((el) => el.scrollWidth > el.clientWidth + 1).length"""
    )
    assert overflow == 0
    widths = a.evaluate(
        "[document.documentElement.scrollWidth, document.documentElement.clientWidth]"
    )
    assert widths[0] <= widths[1] == 360, widths
