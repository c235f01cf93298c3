"""A screenshot of the score sheet on a phone (360x640) for the README.

    .venv/bin/python -m e2e.sheet_screenshot [OUT_DIR]

Starts a server of its own (SQLite in a temporary directory), writes a finished three-duel match
to its database (`tests/sheet_match.py`), opens the sheet in Taipei time in each language and
saves docs/screenshots/sheet-<lang>-360x640.png (the first screen) and sheet-<lang>-360-full.png
(the whole page: every row).
"""

from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path

from playwright.sync_api import sync_playwright

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from sheet_match import play_match  # noqa: E402

from clients.testing import ROOT, as_the_server, start_server, stop_server  # noqa: E402
from e2e.steps import CHROMIUM, CHROMIUM_ARGS, PHONE  # noqa: E402
from server.core.i18n import load  # noqa: E402
from server.store import EventStore, bind, db, open_database  # noqa: E402

LANGS = load().codes  # every language of web/i18n/languages.json


def main(out: Path) -> list[Path]:
    out.mkdir(parents=True, exist_ok=True)
    saved = []
    with tempfile.TemporaryDirectory() as tmp:
        server, process = start_server(Path(tmp), "")
        try:
            bind(open_database("", str(server.data_dir)))
            store = EventStore(db)
            # Signed with the server's key, as the server signs: the sheet's chain verifies.
            as_the_server(store, Path(server.data_dir), "")
            table = play_match(store, now=time.time_ns() // 1_000_000)
            with sync_playwright() as p:
                browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
                page = browser.new_page(**PHONE, timezone_id="Asia/Taipei")
                for lang in LANGS:
                    page.goto(f"{server}/t/{table.code}/sheet?lang={lang}&tz=Asia/Taipei")
                    path = out / f"sheet-{lang}-360x640.png"
                    page.screenshot(path=str(path), animations="disabled")
                    saved.append(path)
                    # The whole sheet: every row (coin and die, clock, rulings, penalties, decks).
                    whole = out / f"sheet-{lang}-360-full.png"
                    page.screenshot(path=str(whole), animations="disabled", full_page=True)
                    saved.append(whole)
                browser.close()
        finally:
            stop_server(process)
    return saved


if __name__ == "__main__":
    target = Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT / "docs" / "screenshots"
    for path in main(target):
        print(path, path.stat().st_size)
