"""Screenshots of the table view for the README: each language, light and dark.

    .venv/bin/python -m e2e.screenshots [OUT_DIR]

Starts a server of its own (SQLite in a temporary directory), seats two phones, plays to the
duel with one confirmed and one pending LP entry, and saves phone A's screen (360x640) as
docs/screenshots/table-<lang>-<theme>.png.
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

from playwright.sync_api import expect, sync_playwright

from clients.testing import ROOT, start_server, stop_server
from e2e.steps import (
    CHROMIUM,
    CHROMIUM_ARGS,
    PHONE,
    confirm_entry,
    keypad,
    seat_both,
    start_duel,
)
from server.core.i18n import load

LANGS = load().codes  # every language of web/i18n/languages.json
THEMES = ("light", "dark")


def main(out: Path) -> list[Path]:
    out.mkdir(parents=True, exist_ok=True)
    saved = []
    with tempfile.TemporaryDirectory() as tmp:
        server, process = start_server(Path(tmp), "")
        try:
            with sync_playwright() as p:
                browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
                options = {**PHONE, "base_url": server, "reduced_motion": "reduce"}
                a, b = (browser.new_context(**options).new_page() for _ in range(2))
                seat_both(a, b)
                start_duel(a, b)
                keypad(b, 1000)
                confirm_entry(a)
                keypad(a, 1800)  # shown on A as waiting for the opponent
                keypad(b, 500, kind="cost", target="me")  # shown on A as a banner to confirm
                expect(a.get_by_test_id("confirm-banner")).to_be_visible()
                a.get_by_test_id("keypad-digit-1").click()
                a.get_by_test_id("keypad-000").click()
                for theme in THEMES:
                    a.emulate_media(color_scheme=theme)
                    for lang in LANGS:
                        a.get_by_test_id("lang").select_option(lang)
                        expect(a.locator("html")).to_have_attribute("lang", lang)
                        a.evaluate("window.scrollTo(0, 0)")
                        path = out / f"table-{lang}-{theme}.png"
                        a.screenshot(path=str(path), animations="disabled")
                        saved.append(path)
                browser.close()
        finally:
            stop_server(process)
    return saved


if __name__ == "__main__":
    target = Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT / "docs" / "screenshots"
    for path in main(target):
        print(path, path.stat().st_size)
