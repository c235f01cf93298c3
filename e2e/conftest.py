"""Shared end-to-end fixtures: Chromium and phone-sized browser contexts on the live server.

The steps every table goes through (create, join both seats, decks, checklist,
rock-paper-scissors, choose, draw) are in e2e/steps.py, so tests stay short.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator

import pytest
from playwright.sync_api import (
    Browser,
    BrowserContext,
    ConsoleMessage,
    Error,
    Page,
    sync_playwright,
)

from e2e.steps import CHROMIUM, CHROMIUM_ARGS, PHONE


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
