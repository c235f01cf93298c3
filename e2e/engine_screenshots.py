"""Screenshots of a 390x844 phone in WebKit (the iPhone's engine) and in Chromium: the table
during a duel, the one-phone table and the score sheet, in every language, from the pages as
they are now.

    .venv/bin/python -m e2e.engine_screenshots [OUT_DIR]

Starts a server of its own (SQLite in a temporary directory) and, for WebKit, an Xvfb display
of its own (e2e/webkit.py; `make chromium` installs what both browsers need). The table: phone
A's screen with B's hit confirmed, A's own entry waiting for B and B's entry waiting for A.
The one-phone table: seat B's half turned, its entry waiting on seat A's half. The score sheet:
a finished three-duel match (`tests/sheet_match.py`) in Taipei time. Saves
docs/screenshots/<engine>-<table|duo|sheet>-<lang>-390x844.png.
"""

from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path

from playwright.sync_api import Page, expect, sync_playwright

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from sheet_match import play_match  # noqa: E402

from clients.testing import ROOT, LiveServer, as_the_server, start_server, stop_server  # noqa: E402
from e2e import steps  # noqa: E402
from e2e import webkit as wk  # noqa: E402
from server.core.i18n import load  # noqa: E402
from server.store import EventStore, bind, db, open_database  # noqa: E402

LANGS = load().codes  # every language of web/i18n/languages.json
SIZE = "390x844"
PHONE = {**steps.PHONE, "viewport": {"width": 390, "height": 844}, "reduced_motion": "reduce"}
TZ = "Asia/Taipei"


def finished_sheet(server: LiveServer) -> str:
    """A finished three-duel match written to the server's database; its table's code."""
    bind(open_database("", str(server.data_dir)))
    store = EventStore(db)
    # Signed with the server's key, as the server signs: the sheet's chain verifies.
    as_the_server(store, Path(server.data_dir), "")
    return play_match(store, now=time.time_ns() // 1_000_000).code


# --- WebKit ------------------------------------------------------------------------------------


def webkit_shots(server: LiveServer, sheet: str, out: Path) -> list[Path]:
    world = wk.World()
    saved: list[Path] = []
    try:
        a, b = world.phone(str(server)), world.phone(str(server))
        wk.seat_both(a, b)
        wk.start_duel(a, b)
        wk.keypad(b, 1000)
        wk.confirm_entry(a)
        wk.keypad(a, 1800)  # waiting for B
        wk.keypad(b, 500, kind="cost", target="me")  # waiting for A: the banner
        a.until(lambda: a.attr("confirm-banner", "data-entry"), "the banner on A")

        def shoot(p: wk.Phone, lang: str, path: Path) -> None:
            p.choose("lang", lang)
            p.until(lambda: p.js("return document.documentElement.lang") == lang, lang)
            p.js("window.scrollTo(0, 0)")
            time.sleep(0.4)  # the picker's redraw painted
            p.driver.save_screenshot(str(path))

        for lang in LANGS:
            saved.append(out / f"webkit-table-{lang}-{SIZE}.png")
            shoot(a, lang, saved[-1])
        # One phone for both players.
        d = world.phone(str(server))
        d.go("/")
        d.tap("new-table")
        d.wait_count("join-screen", 1)
        d.fill("name-input", "Yugi")
        d.fill("duo-name-b", "Kaiba")
        d.tap("duo-start")
        d.tap("recovery-ok")
        near, far = d.half("A"), d.half("B")
        near.wait_text("name-B", "Kaiba")
        wk.start_duel(near, far)
        wk.keypad(far, 2000)
        near.until(lambda: near.attr("confirm-banner", "data-entry"), "the banner on A's half")
        for lang in LANGS:
            saved.append(out / f"webkit-duo-{lang}-{SIZE}.png")
            shoot(d, lang, saved[-1])
        for lang in LANGS:
            a.go(f"/t/{sheet}/sheet?lang={lang}&tz={TZ}")
            a.until(lambda: "Kaiba" in a.js("return document.body.innerText"), "the sheet")
            time.sleep(0.3)
            saved.append(out / f"webkit-sheet-{lang}-{SIZE}.png")
            a.driver.save_screenshot(str(saved[-1]))
    finally:
        world.close()
    return saved


# --- Chromium ----------------------------------------------------------------------------------


def chromium_shots(server: LiveServer, sheet: str, out: Path) -> list[Path]:
    saved: list[Path] = []

    def shoot(page: Page, lang: str, path: Path) -> None:
        page.get_by_test_id("lang").locator("visible=true").first.select_option(lang)
        expect(page.locator("html")).to_have_attribute("lang", lang)
        page.evaluate("window.scrollTo(0, 0)")
        page.screenshot(path=str(path), animations="disabled")

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=steps.CHROMIUM, args=steps.CHROMIUM_ARGS)
        options = {**PHONE, "base_url": str(server), "timezone_id": TZ}
        a, b = (browser.new_context(**options).new_page() for _ in range(2))
        steps.seat_both(a, b)
        steps.start_duel(a, b)
        steps.keypad(b, 1000)
        steps.confirm_entry(a)
        steps.keypad(a, 1800)
        steps.keypad(b, 500, kind="cost", target="me")
        expect(a.get_by_test_id("confirm-banner")).to_be_visible()
        for lang in LANGS:
            saved.append(out / f"chromium-table-{lang}-{SIZE}.png")
            shoot(a, lang, saved[-1])
        d = browser.new_context(**options).new_page()
        d.goto("/")
        d.get_by_test_id("new-table").click()
        d.get_by_test_id("name-input").fill("Yugi")
        d.get_by_test_id("duo-name-b").fill("Kaiba")
        d.get_by_test_id("duo-start").click()
        d.get_by_test_id("recovery-ok").click()
        near, far = d.get_by_test_id("duo-A"), d.get_by_test_id("duo-B")
        expect(near.get_by_test_id("name-B")).to_have_text("Kaiba")
        steps.start_duel(near, far)  # a half acts as a page
        steps.keypad(far, 2000)
        expect(near.get_by_test_id("confirm-banner")).to_be_visible()
        for lang in LANGS:
            saved.append(out / f"chromium-duo-{lang}-{SIZE}.png")
            shoot(d, lang, saved[-1])
        for lang in LANGS:
            a.goto(f"/t/{sheet}/sheet?lang={lang}&tz={TZ}")
            saved.append(out / f"chromium-sheet-{lang}-{SIZE}.png")
            a.screenshot(path=str(saved[-1]), animations="disabled")
        browser.close()
    return saved


def main(out: Path) -> list[Path]:
    out.mkdir(parents=True, exist_ok=True)
    lacks = wk.missing()
    if lacks:
        raise SystemExit(f"WebKit: {lacks}")
    with tempfile.TemporaryDirectory() as tmp:
        server, process = start_server(Path(tmp), "")
        try:
            sheet = finished_sheet(server)
            return webkit_shots(server, sheet, out) + chromium_shots(server, sheet, out)
        finally:
            stop_server(process)


if __name__ == "__main__":
    target = Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT / "docs" / "screenshots"
    for path in main(target):
        print(path, path.stat().st_size)
