"""The language picker on every screen that has one: home, join, a seat's table, a spectator's
table, the one-phone table, an event's public page and the organiser's page. Each language is
picked in turn; the page answers at once in it and its picker shows it (a picker whose screen
is redrawn by the change must not redraw it again, forever: the page would hang)."""

from __future__ import annotations

import json
import uuid
from collections.abc import Callable
from pathlib import Path

from playwright.sync_api import Page, expect

from e2e.steps import api_create_table, take_seat
from tests.staff_actions import PASSWORD, Staff, create_organiser

WEB = Path(__file__).resolve().parent.parent / "web"
LISTED = json.loads((WEB / "i18n" / "languages.json").read_text(encoding="utf-8"))
CODES = [lang["code"] for lang in LISTED["languages"]]
WORDS = {c: json.loads((WEB / "i18n" / f"{c}.json").read_text(encoding="utf-8")) for c in CODES}
# Every picker of the player's pages and the staff's.
PICKERS = "[data-testid=lang], [data-testid=ev-lang], select.staff-lang"


def in_turn(start: str) -> list[str]:
    """Every language once, the start's last (each pick is a change), then back to the start."""
    i = CODES.index(start)
    return CODES[i + 1 :] + CODES[: i + 1]


def pick_each(page: Page, start: str = "en", label_key: str = "lang.label") -> None:
    """Pick every language on the screen's visible picker, each checked before the next."""
    expect(page.locator("html")).to_have_attribute("lang", start)
    for code in in_turn(start):
        # Found again each time: the change redraws what holds the picker.
        picker = page.locator(PICKERS).locator("visible=true").first
        picker.select_option(code, timeout=5000)
        expect(page.locator("html")).to_have_attribute("lang", code, timeout=5000)
        shown = page.locator(PICKERS).locator("visible=true").first
        expect(shown).to_have_value(code, timeout=5000)
        expect(shown).to_have_attribute("aria-label", WORDS[code][label_key], timeout=5000)


def test_home_screen(new_phone: Callable[..., Page]):
    page = new_phone()
    page.goto("/")
    expect(page.get_by_test_id("home-screen")).to_be_visible()
    pick_each(page)
    # Still the home screen, in the language last picked, and it still acts.
    expect(page.get_by_test_id("new-table")).to_have_text(WORDS["en"]["home.new_table"])
    page.get_by_test_id("new-table").click()
    expect(page.get_by_test_id("join-screen")).to_be_visible()


def test_join_screen_and_both_tables(new_phone: Callable[..., Page], live_server: str):
    code = api_create_table(live_server)
    page = new_phone()
    page.goto(f"/t/{code}")
    expect(page.get_by_test_id("join-screen")).to_be_visible()
    pick_each(page)
    expect(page.get_by_test_id("watch")).to_have_text(WORDS["en"]["join.watch"])
    # A seat's table.
    take_seat(page, "A", "Yugi")
    pick_each(page)
    # A spectator's table.
    watcher = new_phone()
    watcher.goto(f"/t/{code}?watch")
    expect(watcher.get_by_test_id("role")).to_have_text(WORDS["en"]["role.spectator"])
    pick_each(watcher)


def test_one_phone_table(new_phone: Callable[..., Page], live_server: str):
    code = api_create_table(live_server)
    page = new_phone()
    page.goto(f"/t/{code}")
    page.get_by_test_id("name-input").fill("Yugi")
    page.get_by_test_id("duo-name-b").fill("Kaiba")
    page.get_by_test_id("duo-start").click()
    page.get_by_test_id("recovery-ok").click()
    expect(page.get_by_test_id("duo-screen")).to_be_visible()
    pick_each(page)
    expect(page.get_by_test_id("duo-tag")).to_have_text(WORDS["en"]["duo.tag"])


def test_event_page_and_organiser_page(new_phone: Callable[..., Page], live_server):
    organiser = f"lang{uuid.uuid4().hex[:6]}"
    create_organiser(live_server, organiser)
    event = Staff(live_server).login(organiser).create_event("Winter Cup", 2)
    page = new_phone()
    page.goto(f"/e/{event['slug']}")
    pick_each(page, label_key="event.language")
    org = new_phone(viewport={"width": 1280, "height": 900}, is_mobile=False, has_touch=False)
    org.goto(f"/organiser/e/{event['id']}")
    org.get_by_test_id("login-user").fill(organiser)
    org.get_by_test_id("login-pass").fill(PASSWORD)
    org.get_by_test_id("login-go").click()
    pick_each(org)
