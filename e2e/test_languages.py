"""A language is one file and one line: a made-up fourth language, added to a copy of web/ as
`web/i18n/qpi.json` and one entry of `web/i18n/languages.json`, is what a phone, a staff page and
the score sheet then read, with nothing else changed. And the browser's picker follows the
same rule as the server's (tests/test_catalogues.py has the cases)."""

from __future__ import annotations

import json
import re
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, expect

from clients.testing import LiveServer, isolated_database, start_server, stop_server
from e2e.steps import PHONE, api_create_table
from server.core.i18n import load
from tests.test_catalogues import PICK_TAGS

WEB = Path(__file__).resolve().parent.parent / "web"
VENUE = "Asia/Tokyo"
CODE = "qpi"  # a private-use tag: no real language is read by mistake
MARK = "☠ "


def pirate(text: str) -> str:
    """The made-up language: English with a mark, placeholders kept."""
    return MARK + text


def web_with_a_fourth_language(base: Path) -> Path:
    """web/ as it is (each entry linked), its i18n/ with one file more and one list entry more."""
    web = base / "web"
    web.mkdir()
    for entry in WEB.iterdir():
        if entry.name != "i18n":
            (web / entry.name).symlink_to(entry)
    i18n = web / "i18n"
    i18n.mkdir()
    for entry in (WEB / "i18n").iterdir():
        if entry.name != "languages.json":
            (i18n / entry.name).symlink_to(entry)
    english = json.loads((WEB / "i18n" / "en.json").read_text(encoding="utf-8"))
    (i18n / f"{CODE}.json").write_text(
        json.dumps({k: pirate(v) for k, v in english.items()}, ensure_ascii=False),
        encoding="utf-8",
    )
    listed = json.loads((WEB / "i18n" / "languages.json").read_text(encoding="utf-8"))
    listed["languages"].append({"code": CODE, "label": "Pirate", "tags": [CODE]})
    (i18n / "languages.json").write_text(json.dumps(listed, ensure_ascii=False), encoding="utf-8")
    return web


@pytest.fixture(scope="module")
def fourth(tmp_path_factory: pytest.TempPathFactory, database_url: str) -> Iterator[LiveServer]:
    base = tmp_path_factory.mktemp("fourth")
    web = web_with_a_fourth_language(base)
    url = isolated_database(database_url, "fourth_language")
    # The venue is in Tokyo (TIME_ZONE): every page writes the event's times in its zone.
    server, process = start_server(base / "data", url, {"WEB_DIR": str(web), "TIME_ZONE": VENUE})
    try:
        yield server
    finally:
        stop_server(process)


def get(url: str, accept: str = "") -> str:
    req = urllib.request.Request(url, headers={"Accept-Language": accept} if accept else {})
    with urllib.request.urlopen(req, timeout=10) as res:
        return res.read().decode()


def test_a_fourth_language_is_one_file_and_one_list_entry(fourth: LiveServer, browser: Browser):
    english = json.loads((WEB / "i18n" / "en.json").read_text(encoding="utf-8"))
    # The phone: chosen from the browser's language, and offered in the picker.
    phone = browser.new_context(**PHONE, base_url=fourth, locale=CODE)
    try:
        page = phone.new_page()
        page.goto("/")
        expect(page.locator("html")).to_have_attribute("lang", CODE)
        expect(page.get_by_test_id("home-screen")).to_contain_text(
            pirate(english["home.new_table"])
        )
        expect(page.get_by_test_id("lang").locator(f"option[value='{CODE}']")).to_have_text(
            "Pirate"
        )
        # A staff page: the judges' login.
        page.goto("/judge")
        expect(page.get_by_test_id("login-go")).to_have_text(pirate(english["staff.login"]))
        expect(page.locator("html")).to_have_attribute("lang", CODE)
    finally:
        phone.close()
    # The score sheet, rendered by the server from the same files.
    code = api_create_table(fourth)
    for html in (
        get(f"{fourth}/t/{code}/sheet?lang={CODE}"),
        get(f"{fourth}/t/{code}/sheet", accept=f"{CODE}, en;q=0.5"),
    ):
        assert f'<html lang="{CODE}">' in html
        assert pirate(english["sheet.title"]) in html
    # The server without that file knows nothing of it.
    assert load().pick_lang(CODE, "") == "en"


def test_times_are_in_the_venues_zone_and_the_readers_locale(fourth: LiveServer, browser: Browser):
    """A phone set to New York at a Tokyo venue writes the event's times in Tokyo time (the
    server's TIME_ZONE), in its reader's locale; the sheet does too, without a ?tz=."""
    at = 1_764_484_800_000  # 2025-11-30 06:40:00 UTC, 15:40:00 in Tokyo
    phone = browser.new_context(
        **PHONE, base_url=fourth, locale="ja-JP", timezone_id="America/New_York"
    )
    try:
        page = phone.new_page()
        page.goto("/")
        expect(page.locator("html")).to_have_attribute("lang", "ja")
        # The venue's zone arrives with /api/venue: wait until the page holds it.
        zone = "() => import('/js/dom.js').then((m) => m.timeZone())"
        for _ in range(100):
            if page.evaluate(zone):
                break
            page.wait_for_timeout(50)
        shown = page.evaluate(
            """(at) => import('/js/dom.js')
                .then((m) => [m.timeZone(), m.formatTime(at), m.formatDate(at)])""",
            at,
        )
        href = page.evaluate(
            "(c) => import('/js/sheet_link.js').then((m) => m.sheetHref(c, 'ja'))", "ABCDEF"
        )
    finally:
        phone.close()
    assert shown == [VENUE, "15:40:00", "2025/11/30"]
    assert "tz=Asia%2FTokyo" in href
    code = api_create_table(fourth)
    html = get(f"{fourth}/t/{code}/sheet?lang=ja")
    assert "JST (UTC+0900)" in html
    assert "年" in html  # the date as the reader writes it


def test_the_browser_picks_as_the_server_does(live_server, new_phone):
    page = new_phone()
    page.goto("/")
    found = page.evaluate(
        "(cases) => import('/js/i18n.js').then((m) => cases.map((tags) => m.pickLang(tags)))",
        PICK_TAGS,
    )
    expected = [load().pick_lang(None, ", ".join(tags)) for tags in PICK_TAGS]
    assert found == expected
    assert found[:4] == ["zh-Hant"] * 4  # zh, zh-HK, zh-TW, zh-Hant
    assert all(re.fullmatch(r"zh-Hant|en|ja", c) for c in found)
