"""An invite the other phone can open. The laptop opens the app as http://127.0.0.1:<port>;
the invite's link and QR code carry this machine's LAN address (or PUBLIC_URL when set), and a
second phone opening that link reaches the table and takes the other seat. Opened over plain
http on the LAN (not a secure context), the page says which features need HTTPS. The server
prints the addresses a phone can use as it starts."""

from __future__ import annotations

import re
from collections.abc import Iterator
from urllib.parse import urlsplit

import pytest
from playwright.sync_api import expect

from clients.testing import LiveServer, isolated_database, start_server, stop_server
from e2e.steps import take_seat
from server.core.addresses import is_loopback, lan_addresses


@pytest.fixture
def server_on(tmp_path_factory, database_url, browser) -> Iterator:
    """Start a server of this test's own with extra environment; stopped after the test's
    pages are closed (a page still open would log its socket's failed reconnect)."""
    processes = []

    def start(name: str, **env: str) -> LiveServer:
        url = isolated_database(database_url, name)
        server, process = start_server(tmp_path_factory.mktemp(name), url, env)
        processes.append(process)
        return server

    yield start
    for context in browser.contexts:
        context.close()
    for process in processes:
        stop_server(process)


def qr_loaded(page) -> bool:
    return page.get_by_test_id("share-qr").evaluate("img => img.complete && img.naturalWidth > 0")


def test_an_invite_opened_on_127_0_0_1_carries_the_lan_address(new_context, server_on):
    lan = lan_addresses()
    if not lan:
        pytest.skip("this machine has no LAN address")
    server = server_on("invite_lan", HOST="0.0.0.0", PUBLIC_URL="")
    # The server said where a phone can open it.
    assert f"On a phone:        http://{lan[0]}:{server.port}" in server.read_log()

    laptop = new_context(base_url=server).new_page()
    laptop.goto("/")
    assert laptop.evaluate("location.hostname") == "127.0.0.1"
    expect(laptop.get_by_test_id("insecure-note")).to_have_count(0)  # 127.0.0.1 is secure
    laptop.get_by_test_id("new-table").click()
    code = laptop.get_by_test_id("table-code").inner_text().strip()
    take_seat(laptop, "A", "Yugi")
    link = laptop.get_by_test_id("share-link")
    expect(link).to_have_text(re.compile(rf"^http://{re.escape(lan[0])}:{server.port}/t/{code}$"))
    url = link.inner_text()
    assert not is_loopback(urlsplit(url).hostname or "")
    assert link.get_attribute("href") == url
    laptop.wait_for_function(
        "() => { const i = document.querySelector('[data-testid=share-qr]');"
        " return i && i.complete && i.naturalWidth > 0; }"
    )

    # The other phone opens the invite's own link (the LAN address) and takes seat B.
    phone = new_context(base_url=url).new_page()
    phone.goto(url)
    expect(phone.get_by_test_id("join-screen")).to_be_visible()
    take_seat(phone, "B", "Kaiba")
    expect(laptop.get_by_test_id("name-B")).to_have_text("Kaiba")
    # Plain http on the LAN is not a secure context: the home screen says what needs HTTPS.
    phone.goto(f"http://{lan[0]}:{server.port}/")
    assert phone.evaluate("isSecureContext") is False
    # In a player's words: what this phone cannot do, not the organiser's way to serve HTTPS.
    note = phone.get_by_test_id("insecure-note")
    expect(note).to_be_visible()
    expect(note).to_contain_text("keep its screen on")
    expect(note).not_to_contain_text("README")
    expect(note).not_to_contain_text("HTTPS")


def test_an_invite_carries_public_url_when_it_is_set(new_context, server_on):
    server = server_on("invite_public", HOST="127.0.0.1", PUBLIC_URL="https://duel.example.org/")
    assert "On a phone:        https://duel.example.org" in server.read_log()
    laptop = new_context(base_url=server).new_page()
    laptop.goto("/")
    laptop.get_by_test_id("new-table").click()
    code = laptop.get_by_test_id("table-code").inner_text().strip()
    take_seat(laptop, "A", "Yugi")
    expect(laptop.get_by_test_id("share-link")).to_have_text(f"https://duel.example.org/t/{code}")
    assert qr_loaded(laptop) or laptop.get_by_test_id("share-qr").count() == 1
