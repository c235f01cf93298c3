"""A phone app players would pick over paper: installable (manifest, service worker, offline
start), in three languages with no missing string, accessible (axe-core finds no serious or
critical violation on any screen), one-thumb sized (no sideways scroll at 360 px, tap targets of
44 px and more)."""

from __future__ import annotations

import re
import struct

import pytest
from playwright.sync_api import Page, expect

from e2e.steps import (
    axe_violations,
    confirm_entry,
    create_on_phone,
    join_by_code,
    keypad,
    start_duel,
)
from server.core.i18n import load

LANGS = load().codes  # every language of web/i18n/languages.json
WIDTH = 360
TAP = 44


def png_size(data: bytes) -> tuple[int, int]:
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    return struct.unpack(">II", data[16:24])


def test_the_manifest_makes_an_installable_app(new_phone):
    page = new_phone()
    response = page.request.get("/manifest.webmanifest")
    assert response.ok
    assert response.headers["content-type"].startswith("application/manifest+json")
    manifest = response.json()
    assert manifest["name"] == "Duel Table"
    assert manifest["short_name"] and len(manifest["short_name"]) <= 12
    assert manifest["display"] == "standalone"
    assert manifest["start_url"] == "/" and manifest["scope"] == "/"
    for colour in ("theme_color", "background_color"):
        assert re.fullmatch(r"#[0-9a-fA-F]{6}", manifest[colour]), colour
    icons = {(i["sizes"], i.get("purpose", "any")): i for i in manifest["icons"]}
    for size in (192, 512):
        assert (f"{size}x{size}", "any") in icons
    assert any(purpose == "maskable" for _, purpose in icons)
    for (sizes, _), icon in icons.items():
        got = page.request.get(icon["src"])
        assert got.ok and got.headers["content-type"] == icon["type"] == "image/png"
        w, h = png_size(got.body())
        assert f"{w}x{h}" == sizes, icon["src"]
    # The page links the manifest and the theme colours for both schemes.
    page.goto("/")
    assert page.locator('link[rel="manifest"]').get_attribute("href") == "/manifest.webmanifest"
    expect(page.locator('meta[name="theme-color"]')).to_have_count(2)


def test_the_service_worker_starts_the_app_offline(new_context, script_errors):
    script_errors.allow("ERR_INTERNET_DISCONNECTED")  # the socket's tries while offline
    context = new_context()
    page = context.new_page()
    code = create_on_phone(page)
    page.evaluate("navigator.serviceWorker.ready.then(() => true)")
    page.reload()
    expect(page.get_by_test_id("conn-status")).to_have_attribute("data-status", "online")
    assert page.evaluate("navigator.serviceWorker.controller !== null")
    assert page.evaluate("navigator.serviceWorker.controller.scriptURL").endswith("/sw.js")
    expect(page.get_by_test_id("offline-notice")).to_be_hidden()
    # The last state is kept for an offline start.
    page.wait_for_function("(code) => localStorage.getItem(`dt.state.${code}`) !== null", arg=code)

    context.set_offline(True)
    page.reload()
    expect(page.get_by_test_id("table-screen")).to_be_visible()
    expect(page.get_by_test_id("offline-notice")).to_be_visible()
    expect(page.get_by_test_id("offline-notice")).to_contain_text("Offline")
    expect(page.get_by_test_id("conn-status")).not_to_have_attribute("data-status", "online")
    # Not "Connecting…" under the red notice: the badge says what the notice says.
    expect(page.get_by_test_id("conn-status")).to_have_attribute("data-status", "offline")
    page.wait_for_timeout(1500)
    expect(page.get_by_test_id("conn-status")).to_have_attribute("data-status", "offline")
    expect(page.get_by_test_id("table-code")).to_have_text(code)
    expect(page.get_by_test_id("name-A")).to_have_text("Yugi")
    expect(page.get_by_test_id("lp-A")).to_have_text("8000")
    page.goto("/")
    expect(page.get_by_test_id("home-screen")).to_be_visible()
    expect(page.get_by_test_id("my-table")).to_have_attribute("data-code", code)
    expect(page.get_by_test_id("offline-notice")).to_be_visible()

    context.set_offline(False)
    expect(page.get_by_test_id("offline-notice")).to_be_hidden()


def test_the_service_worker_leaves_server_pages_to_the_server(new_context, script_errors):
    """A score sheet (`/t/<code>/sheet`, `/sheets`) is the server's page: online it is the
    sheet, offline it fails like any page; the app shell never stands in for it."""
    script_errors.allow("ERR_INTERNET_DISCONNECTED")  # the pages and the socket while offline
    context = new_context()
    page = context.new_page()
    code = create_on_phone(page)
    page.evaluate("navigator.serviceWorker.ready.then(() => true)")
    page.reload()
    assert page.evaluate("navigator.serviceWorker.controller !== null")

    page.goto(f"/t/{code}/sheet")
    expect(page.get_by_test_id("table-screen")).to_have_count(0)
    expect(page.locator("body")).to_contain_text(code)

    context.set_offline(True)
    for path in (f"/t/{code}/sheet", f"/sheets?codes={code}"):
        try:
            page.goto(path)
        except Exception:
            pass  # the browser's own offline error page
        page.wait_for_timeout(300)
        expect(page.get_by_test_id("table-screen")).to_have_count(0)
        expect(page.get_by_test_id("home-screen")).to_have_count(0)
    # The table itself still starts from the shell.
    page.goto(f"/t/{code}")
    expect(page.get_by_test_id("table-screen")).to_be_visible()
    context.set_offline(False)


def test_the_catalogues_have_the_same_keys_and_no_empty_string(new_phone):
    page = new_phone()
    page.goto("/")
    catalogues = page.evaluate("import('/js/i18n.js').then((m) => m.CATALOGUES)")
    assert set(catalogues) == set(LANGS)
    keys = set(catalogues["en"])
    assert len(keys) > 250
    for lang in LANGS:
        catalogue = catalogues[lang]
        assert set(catalogue) == keys, (lang, keys ^ set(catalogue))
        for key, text in catalogue.items():
            assert isinstance(text, str) and text.strip(), (lang, key)
            # The same placeholders in every language.
            assert set(re.findall(r"\{(\w+)\}", text)) == set(
                re.findall(r"\{(\w+)\}", catalogues["en"][key])
            ), (lang, key)


def raw_keys(page: Page, prefixes: list[str]) -> list[str]:
    """Catalogue-key-like words in the screen's text and accessible names."""
    text = page.evaluate(
        """() => [document.body.innerText,
                  ...[...document.querySelectorAll('[aria-label],[placeholder],[title],[alt]')]
                     .flatMap(el => ['aria-label', 'placeholder', 'title', 'alt']
                     .map(a => el.getAttribute(a) || ''))].join('\\n')"""
    )
    pattern = re.compile(r"\b(?:" + "|".join(map(re.escape, prefixes)) + r")\.[a-z0-9_]+\b")
    return pattern.findall(text)


def test_every_language_renders_the_table_with_no_missing_string(new_phone):
    a, b, watcher = new_phone(), new_phone(), new_phone()
    code = create_on_phone(a)
    join_by_code(b, code)
    watcher.goto(f"/t/{code}?watch")
    start_duel(a, b)
    keypad(a, 500)
    confirm_entry(b)
    keypad(b, 1200)  # pending: A sees the confirmation banner
    expect(a.get_by_test_id("confirm-banner")).to_be_visible()
    b.get_by_test_id("coin-toss").click()
    a.get_by_test_id("counter-name").fill("Spell Counter")
    a.get_by_test_id("counter-add").click()
    catalogues = a.evaluate("import('/js/i18n.js').then((m) => m.CATALOGUES)")
    prefixes = sorted({key.split(".")[0] for key in catalogues["en"]})
    for lang in LANGS:
        strings = catalogues[lang]
        for page in (a, watcher):
            page.get_by_test_id("lang").select_option(lang)
            expect(page.locator("html")).to_have_attribute("lang", lang)
            expect(page.get_by_test_id("clock")).to_have_attribute("data-status", "running")
            expect(page.get_by_test_id("ledger")).to_contain_text(strings["ledger.title"])
            expect(page.get_by_test_id("phase")).to_have_text(strings["phase.duel"])
            assert raw_keys(page, prefixes) == [], (lang, raw_keys(page, prefixes))
        expect(a.get_by_test_id("role")).to_have_text(strings["role.seat"].format(seat="A"))
        expect(watcher.get_by_test_id("role")).to_have_text(strings["role.spectator"])
        expect(a.get_by_test_id("propose")).to_contain_text(strings["kp.propose"])  # + preview
        expect(a.get_by_test_id("confirm-entry")).to_have_text(strings["ask.confirm"])


def audit(page: Page, screen: str) -> None:
    """axe-core: no serious or critical violation; no sideways scroll at 360 px."""
    violations = axe_violations(page)
    assert violations == [], (screen, violations)
    width = page.evaluate("document.scrollingElement.scrollWidth")
    assert width <= WIDTH, (screen, width)


def small_buttons(page: Page) -> list:
    """Visible buttons of the table screen smaller than a thumb's target."""
    return page.evaluate(
        """(tap) => [...document.querySelectorAll('button')]
            .filter(b => b.offsetParent !== null)
            .map(b => [b.dataset.testid || b.textContent.trim(), b.getBoundingClientRect()])
            .filter(([, r]) => r.width < tap || r.height < tap)
            .map(([id, r]) => `${id} ${Math.round(r.width)}x${Math.round(r.height)}`)""",
        TAP,
    )


@pytest.mark.parametrize("scheme", ["dark", "light"])
def test_every_screen_is_accessible_and_fits_a_phone(new_phone, scheme):
    a, b, watcher = (new_phone(color_scheme=scheme) for _ in range(3))
    a.goto("/")
    expect(a.get_by_test_id("home-screen")).to_be_visible()
    audit(a, "home")
    a.get_by_test_id("join-code").fill("??")
    a.get_by_test_id("join-go").click()
    expect(a.get_by_test_id("join-code-error")).not_to_be_empty()
    audit(a, "home with a code error")
    a.get_by_test_id("new-table").click()
    expect(a.get_by_test_id("join-screen")).to_be_visible()
    audit(a, "join")
    code = a.get_by_test_id("table-code").inner_text()
    a.get_by_test_id("name-input").fill("Yugi")
    a.get_by_test_id("take-seat-A").click()
    expect(a.get_by_test_id("share-panel")).to_be_visible()
    expect(a.get_by_test_id("conn-status")).to_have_attribute("data-status", "online")
    audit(a, "table seated, waiting for the opponent")
    join_by_code(b, code)
    watcher.goto(f"/t/{code}?watch")
    expect(watcher.get_by_test_id("role")).to_have_text("Spectator")
    audit(b, "table seated, registration")
    start_duel(a, b)
    keypad(b, 1000)
    expect(a.get_by_test_id("confirm-banner")).to_be_visible()
    audit(a, "table seated, duel, an entry to confirm")
    assert small_buttons(a) == []
    assert small_buttons(b) == []
    audit(watcher, "table spectator")
    a.goto("/judge")
    expect(a.locator("input").first).to_be_visible()
    audit(a, "judge login")


def test_a_calls_server_words_are_translated_only_when_the_call_says_what_it_is_about(new_phone):
    # R7.1: a dispute's call names its LP entry or duel (`entry`, `duel`); a player's own call
    # that copies the server's words is shown as the player wrote it, not as a dispute's call.
    page = new_phone(locale="ja-JP")
    page.goto("/")
    expect(page.locator("html")).to_have_attribute("lang", "ja")
    shown = page.evaluate(
        """async () => {
            const m = await import('/js/i18n.js');
            const lp = 'LP entry #3 disputed: it was 800';
            const duel = 'Result of duel 2 disputed';
            return {
                lpCall: m.callReason(lp, { entry: 3 }),
                lpCopied: m.callReason(lp, { entry: null }),
                lpOther: m.callReason(lp, { entry: 4 }),
                duelCall: m.callReason(duel, { duel: 2 }),
                duelCopied: m.callReason(duel),
                expectLp: m.t('call.lp_disputed', { entry: 3 }) + ': it was 800',
                expectDuel: m.t('call.result_disputed', { duel: 2 }),
            };
        }"""
    )
    assert shown["lpCall"] == shown["expectLp"] != "LP entry #3 disputed: it was 800"
    assert shown["duelCall"] == shown["expectDuel"] != "Result of duel 2 disputed"
    assert shown["lpCopied"] == shown["lpOther"] == "LP entry #3 disputed: it was 800"
    assert shown["duelCopied"] == "Result of duel 2 disputed"
