"""Shared end-to-end fixtures: Chromium and phone-sized browser contexts on the live server.

The steps every table goes through (create, join both seats, decks, checklist,
rock-paper-scissors, choose, draw) are in e2e/steps.py, so tests stay short.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

import pytest
from playwright.sync_api import Browser, BrowserContext, Page, sync_playwright

from e2e.steps import CHROMIUM, CHROMIUM_ARGS, PHONE


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
