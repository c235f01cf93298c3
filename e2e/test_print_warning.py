"""Before printing, the organiser's page says where the cards will send the phones, and warns
when no phone could open it: a server listening on 127.0.0.1 only (the test server), with no
PUBLIC_URL, would print cards that seat nobody."""

from __future__ import annotations

import uuid

import pytest
from playwright.sync_api import expect

from tests.staff_actions import PASSWORD, Staff, create_organiser

pytestmark = [pytest.mark.browser]


def test_the_organiser_is_warned_before_printing_cards_no_phone_can_open(
    live_server, new_context
) -> None:
    username = f"org{uuid.uuid4().hex[:6]}"
    create_organiser(live_server, username)
    ev = Staff(live_server).login(username).create_event("Loopback Cup", 1)
    page = new_context(viewport={"width": 1280, "height": 900}, is_mobile=False).new_page()
    page.goto("/organiser")
    page.get_by_test_id("login-user").fill(username)
    page.get_by_test_id("login-pass").fill(PASSWORD)
    page.get_by_test_id("login-go").click()
    expect(page.get_by_test_id(f"event-{ev['id']}")).to_be_visible()
    page.goto(f"/organiser/e/{ev['id']}")
    warning = page.get_by_test_id("print-warning")
    expect(warning).to_contain_text("Phones cannot open")
    expect(warning).to_contain_text("127.0.0.1")
    with page.expect_popup() as opened:
        page.get_by_test_id("cards").click()
    cards = opened.value
    expect(cards.get_by_test_id("cards-loopback")).to_contain_text("Phones cannot open")
