"""Shared end-to-end fixtures: Chromium and phone-sized browser contexts on the live server.

The steps every table goes through (create, join both seats, decks, checklist,
rock-paper-scissors, choose, draw) are in e2e/steps.py, so tests stay short.
"""

from __future__ import annotations

import re
import urllib.request
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass

import pytest
from playwright.sync_api import (
    Browser,
    BrowserContext,
    ConsoleMessage,
    Error,
    Page,
    sync_playwright,
)

from clients.testing import LiveServer, isolated_database, start_server, stop_server
from e2e.hall_world import PhoneNet, phone_net, unavailable
from e2e.steps import CHROMIUM, CHROMIUM_ARGS, PHONE
from server.core.addresses import lan_addresses


class ScriptErrors:
    """What the pages of one test reported: uncaught exceptions (`pageerror`) and console
    errors. A test that expects a console error (a page that cannot reach the server while
    offline) names it with allow(pattern); an uncaught exception is never expected."""

    def __init__(self) -> None:
        self.seen: list[str] = []
        self.allowed: list[re.Pattern[str]] = []

    def allow(self, pattern: str) -> None:
        """Console errors whose text matches `pattern` (a regular expression) are expected."""
        self.allowed.append(re.compile(pattern))

    def watch(self, page: Page) -> None:
        def on_error(error: Error) -> None:
            self.seen.append(f"pageerror on {page.url}: {error.name}: {error.message}")

        def on_console(message: ConsoleMessage) -> None:
            if message.type != "error":
                return
            text = message.text
            where = message.location.get("url", "") if message.location else ""
            if any(p.search(f"{text} {where}") for p in self.allowed):
                return
            self.seen.append(f"console error on {page.url}: {text} ({where})")

        page.on("pageerror", on_error)
        page.on("console", on_console)


@pytest.fixture(autouse=True)
def script_errors(monkeypatch: pytest.MonkeyPatch) -> Iterator[ScriptErrors]:
    """Fail the test if any page it opened threw or logged an error. Every page counts:
    contexts and pages made through any Browser (this module's, or a test's own) are watched
    from the moment they exist."""
    errors = ScriptErrors()
    new_context = Browser.new_context
    new_page = Browser.new_page

    def watched_context(self: Browser, *args, **kwargs) -> BrowserContext:
        context = new_context(self, *args, **kwargs)
        context.on("page", errors.watch)
        return context

    def watched_page(self: Browser, *args, **kwargs) -> Page:
        page = new_page(self, *args, **kwargs)
        errors.watch(page)
        return page

    monkeypatch.setattr(Browser, "new_context", watched_context)
    monkeypatch.setattr(Browser, "new_page", watched_page)
    yield errors
    if errors.seen:
        pytest.fail("script errors on the pages:\n" + "\n".join(errors.seen), pytrace=False)


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    """Chromium for one test module (each module owns its Playwright instance)."""
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield b
        b.close()


@pytest.fixture
def new_context(browser: Browser, live_server: str) -> Iterator[Callable[..., BrowserContext]]:
    """Make phone-sized contexts on the live server (options override PHONE); closed after."""
    made: list[BrowserContext] = []

    def make(**options) -> BrowserContext:
        settings = {**PHONE, "base_url": live_server, "locale": "en-GB", **options}
        context = browser.new_context(**settings)
        context.set_default_timeout(8000)
        made.append(context)
        return context

    yield make
    for context in made:
        context.close()


@pytest.fixture
def new_phone(new_context) -> Callable[..., Page]:
    """A new phone (its own context: its own storage, like a separate device)."""

    def make(**options) -> Page:
        return new_context(**options).new_page()

    return make


# --- a test world like the hall: phones are other devices (e2e/hall_world.py) ---------------


@pytest.fixture(scope="module")
def phones_net() -> Iterator[PhoneNet]:
    """The phones' network namespace for one test module (skipped, with the reason, where this
    machine cannot make one)."""
    why = unavailable()
    if why:
        pytest.skip(why)
    with phone_net() as net:
        yield net


@dataclass
class Hall:
    """The server as the hall sees it: `laptop` is the organiser's 127.0.0.1 address, `lan`
    the address phones open (the LAN address the server prints, or PUBLIC_URL)."""

    server: LiveServer
    laptop: str
    lan: str


@pytest.fixture(scope="module")
def hall_server(
    phones_net: PhoneNet, tmp_path_factory: pytest.TempPathFactory, database_url: str
) -> Iterator[Hall]:
    """A server listening on 0.0.0.0, as `make run` starts it; phones reach it only by the
    laptop's LAN address, the one it prints. Skipped on a machine with no such address (no
    default route: no Wi-Fi for phones either)."""
    found = lan_addresses()
    if not found:
        pytest.skip("this machine has no LAN address (no default route) for the phones")
    schema = f"hall_{uuid.uuid4().hex[:6]}"
    env = {"HOST": "0.0.0.0", "PASSWORD_HASH_METHOD": "scrypt:1024:1:1"}
    server, process = start_server(
        tmp_path_factory.mktemp("hall"), isolated_database(database_url, schema), env
    )
    try:
        # The world is as it should be: from the phones' side the LAN address answers and
        # 127.0.0.1 is refused (their own loopback, not the server).
        assert phones_net.can_connect(found[0], server.port), found[0]
        assert not phones_net.can_connect("127.0.0.1", server.port)
        with urllib.request.urlopen(server + "/api/time", timeout=5) as answer:
            assert answer.status == 200  # the organiser's 127.0.0.1
        lan = f"http://{found[0]}:{server.port}"
        assert f"On a phone:        {lan}" in server.read_log()  # the address it prints
        yield Hall(server, str(server), lan)
    finally:
        stop_server(process)


@pytest.fixture(scope="module")
def hall_browsers(phones_net: PhoneNet) -> Iterator[tuple[Browser, Browser]]:
    """The organiser's Chromium on this machine, and the phones' Chromium in their namespace
    (one Playwright for both: Playwright drives Chromium over a pipe, not the network)."""
    with sync_playwright() as p:
        laptop = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        phones = p.chromium.launch(executable_path=phones_net.chromium, args=CHROMIUM_ARGS)
        try:
            yield laptop, phones
        finally:
            phones.close()
            laptop.close()
