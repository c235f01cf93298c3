"""The printed score sheet (R1.4): a finished match, printed to A4 by headless Chromium, is ONE
page holding every confirmed LP entry."""

from __future__ import annotations

import re
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from sheet_match import play_match  # noqa: E402

from server.store import EventStore, bind, db, open_database  # noqa: E402

playwright = pytest.importorskip("playwright.sync_api")

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


def pdf_pages(pdf: bytes) -> int:
    """The number of page objects in a PDF (`/Type /Page`, not `/Type /Pages`)."""
    return len(re.findall(rb"/Type\s*/Page(?![a-zA-Z])", pdf))


@pytest.fixture
def page(live_server) -> Iterator[object]:
    if not Path(CHROMIUM).exists():
        pytest.skip("Chromium is not installed (make chromium)")
    with playwright.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            yield browser.new_page()
        finally:
            browser.close()


def finish(live_server, database_url: str, padding: int = 0):
    """A three-duel match with time called, written to the live server's own database."""
    bind(open_database(database_url, str(live_server.data_dir)))
    store = EventStore(db)
    table = play_match(store, now=time.time_ns() // 1_000_000, padding=padding)
    return table, [e.entry for e in store.snapshot(table.code).state.ledger]


@pytest.fixture(params=[0, 7], ids=["16-entries", "37-entries"])
def finished_match(request, live_server, database_url: str):
    """A typical match, and a long one with seven more entries in each duel."""
    return finish(live_server, database_url, request.param)


@pytest.fixture
def a_match(live_server, database_url: str):
    return finish(live_server, database_url)


def test_a_finished_match_prints_on_one_a4_page(live_server, page, finished_match, tmp_path):
    table, entries = finished_match
    response = page.goto(f"{live_server}/t/{table.code}/sheet?tz=Asia/Hong_Kong")
    assert response is not None and response.status == 200
    page.emulate_media(media="print")

    shown = page.eval_on_selector_all("tr.entry", "rows => rows.map(r => Number(r.dataset.entry))")
    assert shown == entries and len(entries) in (16, 37)
    assert page.locator("table.ledger").count() == 3
    assert page.locator(".sheet-tools").is_hidden()  # the buttons do not print
    text = page.inner_text("body")
    assert "Hash chain verified" in text
    assert "TIME called" in text and "extra turn 3 of 3" in text
    assert "Signatures" in text

    pdf = page.pdf(format="A4", print_background=True)
    (tmp_path / "sheet.pdf").write_bytes(pdf)
    assert pdf.startswith(b"%PDF")
    assert pdf_pages(pdf) == 1


def test_a_rounds_print_puts_each_table_on_its_own_page(live_server, page, a_match):
    table, _entries = a_match
    second = play_match(EventStore(db), now=time.time_ns() // 1_000_000)
    page.goto(f"{live_server}/sheets?codes={table.code},{second.code}")
    assert page.locator("section.sheet").count() == 2
    assert pdf_pages(page.pdf(format="A4")) == 2


def test_the_sheet_reads_on_a_phone(live_server, page, a_match):
    table, entries = a_match
    page.set_viewport_size({"width": 390, "height": 844})
    page.goto(f"{live_server}/t/{table.code}/sheet")
    assert page.locator("[data-print]").is_visible()  # sheet.js shows the Print button
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= 390  # the page does not scroll sideways; only a wide ledger does
    assert page.locator("tr.entry").count() == len(entries)
