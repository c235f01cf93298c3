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

from clients.testing import as_the_server, isolated_database, start_server, stop_server  # noqa: E402
from e2e.steps import CHROMIUM, CHROMIUM_ARGS  # noqa: E402
from server.store import EventStore, bind, db, open_database  # noqa: E402

playwright = pytest.importorskip("playwright.sync_api")


def pdf_pages(pdf: bytes) -> int:
    """The number of page objects in a PDF (`/Type /Page`, not `/Type /Pages`)."""
    return len(re.findall(rb"/Type\s*/Page(?![a-zA-Z])", pdf))


@pytest.fixture(scope="module")
def sheet_server(tmp_path_factory: pytest.TempPathFactory, database_url: str):
    """A real server (gunicorn, as in production) and the database URL it reads, so a test can
    write a finished match where the server finds it (on PostgreSQL, a schema of its own)."""
    url = isolated_database(database_url, "sheet_pdf")
    server, process = start_server(tmp_path_factory.mktemp("sheet"), url)
    try:
        yield server, url
    finally:
        stop_server(process)


@pytest.fixture
def live(sheet_server):
    return sheet_server[0]


@pytest.fixture
def page() -> Iterator[object]:
    if not Path(CHROMIUM).exists():
        pytest.skip("Chromium is not installed (make chromium)")
    with playwright.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            yield browser.new_page()
        finally:
            browser.close()


def finish(sheet_server, padding: int = 0):
    """A three-duel match with time called, written to the server's own database."""
    server, url = sheet_server
    bind(open_database(url, str(server.data_dir)))
    store = EventStore(db)
    # Signed with the server's key, as the server signs: the printed chain verifies.
    as_the_server(store, Path(server.data_dir), url)
    table = play_match(store, now=time.time_ns() // 1_000_000, padding=padding)
    return table, [e.entry for e in store.snapshot(table.code).state.ledger]


@pytest.fixture(params=[0, 7], ids=["16-entries", "37-entries"])
def finished_match(request, sheet_server):
    """A typical match, and a long one with seven more entries in each duel."""
    return finish(sheet_server, request.param)


@pytest.fixture
def a_match(sheet_server):
    return finish(sheet_server)


def test_a_finished_match_prints_on_one_a4_page(live, page, finished_match, tmp_path):
    table, entries = finished_match
    response = page.goto(f"{live}/t/{table.code}/sheet?tz=Asia/Hong_Kong")
    assert response is not None and response.status == 200
    page.emulate_media(media="print")

    shown = page.eval_on_selector_all(
        "tr.entry:not(.gone)", "rows => rows.map(r => Number(r.dataset.entry))"
    )
    assert shown == entries and len(entries) in (16, 37)
    assert page.locator("table.ledger").count() == 3
    assert page.locator(".sheet-tools").is_hidden()  # the buttons do not print
    text = page.inner_text("body")
    assert "Hash chain verified" in text
    assert "TIME called" in text and "Extra Turn 3 of 3" in text
    assert "Signatures" in text

    pdf = page.pdf(format="A4", print_background=True)
    (tmp_path / "sheet.pdf").write_bytes(pdf)
    assert pdf.startswith(b"%PDF")
    assert pdf_pages(pdf) == 1


def test_a_rounds_print_puts_each_table_on_its_own_page(live, page, a_match):
    table, _entries = a_match
    second = play_match(EventStore(db), now=time.time_ns() // 1_000_000)
    page.goto(f"{live}/sheets?codes={table.code},{second.code}")
    assert page.locator("section.sheet").count() == 2
    assert pdf_pages(page.pdf(format="A4")) == 2


@pytest.mark.parametrize("lang", ["zh-Hant", "en", "ja"])
@pytest.mark.parametrize("width", [360, 390])
def test_the_sheet_reads_on_a_phone(live, page, a_match, lang, width):
    table, entries = a_match
    page.set_viewport_size({"width": width, "height": 640})
    page.goto(f"{live}/t/{table.code}/sheet?lang={lang}")
    assert page.locator("[data-print]").is_visible()  # sheet.js shows the Print button
    sizes = page.evaluate(
        "[document.documentElement.scrollWidth, document.documentElement.clientWidth]"
    )
    assert sizes == [width, width]  # the page does not scroll sideways; only a wide ledger does
    wide = page.evaluate(
        """() => [...document.querySelectorAll('body *')]
             .filter(e => !e.closest('.scroll') && e.getBoundingClientRect().right > innerWidth + 1)
             .map(e => e.tagName + '.' + e.className)"""
    )
    assert wide == []  # nothing outside a scrolling box is cut off at the right edge
    assert page.locator("tr.entry:not(.gone)").count() == len(entries)
