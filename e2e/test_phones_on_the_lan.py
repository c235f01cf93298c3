"""Phones are other devices (e2e/hall_world.py): in their own network namespace, where
127.0.0.1 is not the server, they open only what the organiser's page printed or showed on the
laptop at 127.0.0.1, read from its QR code by a real decoder. A card or a hall that printed
127.0.0.1 would leave every phone outside."""

from __future__ import annotations

import uuid

import pytest
from playwright.sync_api import Browser, BrowserContext, Error, Page, expect

from e2e.hall_world import decode_qr
from e2e.steps import PHONE
from tests.staff_actions import PASSWORD, Staff, create_organiser

pytestmark = [pytest.mark.browser, pytest.mark.timeout(120)]

LAPTOP = {"viewport": {"width": 1280, "height": 900}, "is_mobile": False, "has_touch": False}


@pytest.fixture
def laptop(hall_browsers, hall_server):
    """The organiser's browser context on the laptop (127.0.0.1)."""
    context = hall_browsers[0].new_context(base_url=hall_server.laptop, locale="en-GB", **LAPTOP)
    context.set_default_timeout(10_000)
    yield context
    context.close()


@pytest.fixture
def phones(hall_browsers):
    """Make phones: each its own context (storage) in the phones' namespace; no base URL (a
    phone knows no address but the one it scanned)."""
    made: list[BrowserContext] = []

    def make() -> Page:
        context = hall_browsers[1].new_context(locale="en-GB", **PHONE)
        context.set_default_timeout(10_000)
        made.append(context)
        return context.new_page()

    yield make
    for context in made:
        context.close()


def organiser(hall_server) -> tuple[str, Staff]:
    name = f"org{uuid.uuid4().hex[:6]}"
    create_organiser(hall_server.server, name)
    return name, Staff(hall_server.laptop).login(name)


def log_in(page: Page, username: str) -> None:
    page.get_by_test_id("login-user").fill(username)
    page.get_by_test_id("login-pass").fill(PASSWORD)
    page.get_by_test_id("login-go").click()


def test_a_phone_reaches_the_server_only_by_the_lan_address(hall_server, phones) -> None:
    with pytest.raises(Error, match="ERR_CONNECTION_REFUSED"):
        phones().goto(f"http://127.0.0.1:{hall_server.server.port}/")
    phone = phones()
    phone.goto(hall_server.lan + "/")
    expect(phone.get_by_test_id("new-table")).to_be_visible()


def test_a_phone_sits_by_the_qr_code_printed_on_its_card(hall_server, laptop, phones) -> None:
    username, staff = organiser(hall_server)
    ev = staff.create_event("Club Night", 2)
    staff.pair_by_hand(ev, {1: ("Chen", "Ito")})
    page = laptop.new_page()
    page.goto("/organiser")
    log_in(page, username)
    expect(page.get_by_test_id(f"event-{ev['id']}")).to_be_visible()
    page.goto(f"/organiser/e/{ev['id']}")
    # The organiser's page says where the cards will send the phones: not this computer.
    expect(page.get_by_test_id("print-address")).to_contain_text(hall_server.lan)
    page.goto(f"/organiser/events/{ev['id']}/cards")
    card = page.locator("section.card[data-table='1']")
    expect(card.get_by_test_id("card-address")).to_have_text(
        f"{hall_server.lan.removeprefix('http://')}/s/{ev['slug']}/1"
    )
    expect(page.get_by_test_id("cards-loopback")).to_have_count(0)
    printed = decode_qr(card.locator("figure").nth(1).locator("img").screenshot())
    assert printed.startswith(f"{hall_server.lan}/s/{ev['slug']}/1/B?c="), printed
    phone = phones()
    phone.goto(printed)  # exactly as printed
    expect(phone.get_by_test_id("join-screen")).to_be_visible()
    expect(phone.get_by_test_id("name-input")).to_have_value("Ito")  # the pairing's name
    phone.get_by_test_id("take-seat-B").click()
    expect(phone.get_by_test_id("role")).to_contain_text("B")
    expect(phone.get_by_test_id("conn-status")).to_have_attribute("data-status", "online")


def test_the_hall_shows_the_players_page_by_a_qr_code(hall_server, laptop, phones) -> None:
    _, staff = organiser(hall_server)
    ev = staff.create_event("Hall Cup", 1)
    staff.pair_by_hand(ev, {1: ("Chen", "Ito")})
    hall = laptop.new_page()
    hall.set_viewport_size({"width": 1280, "height": 720})
    hall.goto(f"/e/{ev['slug']}/hall")
    link = f"{hall_server.lan}/e/{ev['slug']}"
    expect(hall.get_by_test_id("hall-event-link")).to_contain_text(link.removeprefix("http://"))
    qr = hall.get_by_test_id("hall-qr")
    expect(qr).to_be_visible()
    assert qr.evaluate("img => img.complete && img.naturalWidth > 0")
    box = qr.bounding_box()
    assert box is not None and box["height"] >= 140  # scanned from a seat, not up close
    assert decode_qr(qr.screenshot()) == link
    phone = phones()
    phone.goto(link)
    expect(phone.get_by_test_id("ev-title")).to_contain_text("Hall Cup")


def test_a_browser_on_this_machine_is_not_a_phone(hall_browsers, hall_server) -> None:
    """The organiser's own browser stays on the laptop's loopback."""
    browser: Browser = hall_browsers[0]
    page = browser.new_page()
    try:
        page.goto(hall_server.laptop + "/")
        expect(page.get_by_test_id("new-table")).to_be_visible()
    finally:
        page.close()


def test_a_phone_joins_by_the_invite_shown_on_the_laptop(hall_server, laptop, phones) -> None:
    """A casual table opened on the laptop at 127.0.0.1: the invite's QR code, as shown, is
    the LAN address, and the other phone joins by it."""
    from e2e.steps import take_seat

    here = laptop.new_page()
    here.set_viewport_size({"width": 390, "height": 844})
    here.goto("/")
    here.get_by_test_id("new-table").click()
    take_seat(here, "A", "Yugi")
    qr = here.get_by_test_id("share-qr")
    expect(qr).to_be_visible()
    expect(here.get_by_test_id("share-link")).to_contain_text(hall_server.lan)
    shown = decode_qr(qr.screenshot())
    code = here.get_by_test_id("share-code").inner_text().strip()
    assert shown == f"{hall_server.lan}/t/{code}", shown
    phone = phones()
    phone.goto(shown)
    take_seat(phone, "B", "Kaiba")
    expect(here.get_by_test_id("name-B")).to_have_text("Kaiba")
