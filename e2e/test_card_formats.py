"""A deck given by `ydke://` link on the phone, its cards named in 繁體中文 (R1.6, R2.4).

A server of this test's own (card names loaded into the shared server would change every other
test's lists) gets Traditional Chinese names by `python -m server load-cards` from
a 20-card cards.cdb the test makes. A phone in Traditional Chinese pastes the link the
`ygopro-deck-encode` package makes, sees each card by its Chinese name, has a name suggested as
it types, and registers a 40-card list given by link; at an event, the judge's deck table names
the registered list's cards in Traditional Chinese too."""

from __future__ import annotations

import os
import subprocess
import sys
import uuid
from collections.abc import Iterator

import pytest
from playwright.sync_api import Browser, expect

from clients.testing import LiveServer, isolated_database, start_server, stop_server
from e2e.steps import PHONE, take_seat
from server.rules.cardfiles import encode_ydke
from tests import card_data as cd
from tests.staff_actions import PASSWORD, Staff, create_organiser, seat_claim
from tests.ws_helpers import http


@pytest.fixture(scope="module")
def named_server(tmp_path_factory, database_url) -> Iterator[LiveServer]:
    """A server of its own with card names in Traditional Chinese."""
    base = tmp_path_factory.mktemp("card_formats")
    url = isolated_database(database_url, "card_formats")
    server, process = start_server(base / "data", url)
    env = {**os.environ, "DATA_DIR": str(server.data_dir), "DATABASE_URL": url}
    try:
        cdb = cd.make_cdb(base / "cards.cdb", "zh-Hant")
        loaded = subprocess.run(
            [sys.executable, "-m", "server", "load-cards", str(cdb), "--lang", "zh-Hant"],
            env=env,
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert loaded.returncode == 0, loaded.stderr
        yield server
    finally:
        stop_server(process)


def test_a_ydke_link_on_the_phone_shows_the_cards_in_traditional_chinese(
    named_server: LiveServer, browser: Browser
) -> None:
    context = browser.new_context(**PHONE, base_url=named_server, locale="zh-TW")
    context.set_default_timeout(8000)
    try:
        status, table = http(named_server, "POST", "/api/tables", {})
        assert status == 201, table
        code = table["code"]
        page = context.new_page()
        page.goto(f"/t/{code}")
        take_seat(page, "A", "遊戲")
        status, _ = http(named_server, "POST", f"/api/tables/{code}/join", {"name": "Kaiba"})
        assert status == 201

        box = page.get_by_test_id("deck-list-text")
        # The opponent's join redraws the card: read the box's size once it has settled there
        # (a box read while it is replaced has no computed style).
        expect(page.get_by_text("Kaiba").first).to_be_visible()
        expect(box).to_be_visible()
        font = box.evaluate("el => parseFloat(getComputedStyle(el).fontSize)")
        assert font >= 16  # a phone's browser does not zoom into the box

        # The encoder's link: each card by its Traditional Chinese name, with its copies.
        box.fill(cd.YDKE)
        listed = page.get_by_test_id("deck-list-cards")
        expect(listed).to_contain_text("3 × 青眼白龍")
        expect(listed).to_contain_text("2 × 神聖防護罩 -反射鏡力-")
        expect(listed).to_contain_text("1 × 青眼究極龍")
        expect(page.get_by_test_id("deck-list-counts")).to_contain_text("9")
        assert str(cd.BLUE_EYES) not in listed.inner_text()  # named, not shown by passcode

        # Typing a name: the loaded names in the phone's language are suggested.
        box.fill("3 青眼")
        suggestion = page.get_by_test_id("deck-list-suggestion").filter(has_text="青眼白龍")
        expect(suggestion).to_be_visible()
        suggestion.click()
        expect(box).to_have_value("3 青眼白龍")

        # A legal 40-card list given by link registers; its cards stay named in Chinese.
        box.fill(forty_by_link())
        expect(page.get_by_test_id("deck-list-ok")).to_be_visible()
        expect(listed).to_contain_text("3 × 青眼白龍")
        page.get_by_test_id("deck-list-register").click()
        expect(page.get_by_test_id("deck-list-mine")).to_contain_text("40")
    finally:
        context.close()


def forty_by_link() -> str:
    """A legal 40-card main deck as a ydke:// link (three Blue-Eyes White Dragon in it)."""
    main = cd.legal_main({cd.BLUE_EYES: 3})
    return encode_ydke({"main": {str(c): main.count(c) for c in dict.fromkeys(main)}})


def test_the_judge_sees_a_list_given_by_link_by_its_names(
    named_server: LiveServer, browser: Browser
) -> None:
    suffix = uuid.uuid4().hex[:6]
    create_organiser(named_server, f"org{suffix}")
    org = Staff(named_server).login(f"org{suffix}")
    event = org.create_event("Link Cup", 1)
    org.add_judge(event["id"], f"judge{suffix}")
    code = event["tables"][0]["code"]
    phone = browser.new_context(**PHONE, base_url=named_server, locale="zh-TW")
    judge = browser.new_context(
        base_url=named_server, locale="zh-TW", viewport={"width": 1280, "height": 800}
    )
    for context in (phone, judge):
        context.set_default_timeout(8000)
    try:
        a = phone.new_page()
        claim = seat_claim(named_server, event["slug"], 1, "A")
        a.goto(f"/s/{event['slug']}/1/A?c={claim}")
        take_seat(a, "A", "遊戲")
        a.get_by_test_id("deck-list-text").fill(forty_by_link())
        expect(a.get_by_test_id("deck-list-ok")).to_be_visible()
        a.get_by_test_id("deck-list-register").click()
        expect(a.get_by_test_id("deck-list-mine")).to_contain_text("40")

        j = judge.new_page()
        j.goto(f"/judge/e/{event['id']}/t/{code}")
        j.get_by_test_id("login-user").fill(f"judge{suffix}")
        j.get_by_test_id("login-pass").fill(PASSWORD)
        j.get_by_test_id("login-go").click()
        row = j.get_by_test_id("judge-deck-A").locator(f'tr[data-card="{cd.BLUE_EYES}"]')
        expect(row).to_contain_text("青眼白龍")
        expect(row.get_by_test_id("judge-deck-now")).to_have_text("3")
    finally:
        phone.close()
        judge.close()
