"""The player's journeys on WebKit, the iPhone's engine (WebKitGTK through its WebDriver, phones
at 390x844; e2e/webkit.py): a casual duel on two phones and its score sheet, a reload in the
middle of a duel, a network cut whose queued commands are sent once, the one-phone table, and
the language picker on each screen that has it. Every page error (an uncaught error, an
unhandled rejection, a CSP violation, console.error) fails the test, as on Chromium.

    .venv/bin/pytest e2e/test_webkit.py -q        (or -m webkit)
"""

from __future__ import annotations

import json
import os
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

from e2e.test_field_sizes import MEASURE, SMALLEST_TEXT, TAP
from e2e.webkit import (
    Phone,
    World,
    confirm_entry,
    keypad,
    missing,
    phase,
    seat_both,
    start_duel,
    take_seat,
    wait_lp,
)

pytestmark = pytest.mark.webkit

WEB_I18N = Path(__file__).resolve().parent.parent / "web" / "i18n"
LISTED = json.loads((WEB_I18N / "languages.json").read_text(encoding="utf-8"))
CODES = [lang["code"] for lang in LISTED["languages"]]
WORDS = {c: json.loads((WEB_I18N / f"{c}.json").read_text(encoding="utf-8")) for c in CODES}


@pytest.fixture(scope="module")
def world() -> Iterator[World]:
    """The display and the phones' browser settings; skipped only where the packages are not
    installed and cannot be (never on CI, which installs them as root)."""
    lacks = missing()
    if lacks:
        if os.environ.get("CI") or os.geteuid() == 0:
            pytest.fail(f"WebKit: {lacks}", pytrace=False)
        pytest.skip(f"WebKit: {lacks}")
    made = World()
    try:
        yield made
    finally:
        made.close()


@pytest.fixture(scope="module")
def pair(world: World, live_server: str) -> list[Phone]:
    """Two WebKit phones, each behind its own proxy, for the whole module."""
    made = [world.phone(live_server), world.phone(live_server)]
    for phone in made:
        phone.go("/")
    return made


@pytest.fixture
def phones(world: World, pair: list[Phone], live_server: str) -> Iterator[tuple[Phone, Phone]]:
    """The two phones, their collected page errors cleared, checked after the test. A phone
    that no longer answers (a hung page) fails the test and is replaced for the next."""
    for phone in pair:
        phone.go("/")
        phone.js("sessionStorage.removeItem('__errs')")
    yield pair[0], pair[1]
    found = []
    for i, phone in enumerate(pair):
        name = "ab"[i]
        try:
            if not phone.collector_in_place():
                found.append(f"phone {name}: the error collector is not the page's first script")
            found += [f"phone {name}: {e}" for e in phone.errors()]
        except Exception as err:  # noqa: BLE001 - the page hangs: say so, start another
            found.append(f"phone {name} does not answer: {type(err).__name__}")
            phone.quit()
            pair[i] = world.phone(live_server)
            pair[i].go("/")
    if found:
        pytest.fail("page errors on WebKit:\n" + "\n".join(found), pytrace=False)


def server_log(server: str, code: str) -> list[dict]:
    with urllib.request.urlopen(f"{server}/api/tables/{code}/log", timeout=5) as response:
        return json.load(response)["events"]


def fields_too_small(p: Phone) -> list[str]:
    """The fields under 16 px text or 44 px tall on the page as it is now (WebKit's sizes)."""
    m = p.js(f"return ({MEASURE})()")
    return [
        f"{f['name']} {f['font']:g} px text, {f['height']:g} px tall"
        for f in m["fields"]
        if f["font"] < SMALLEST_TEXT or f["height"] < TAP
    ]


# --- the journeys ------------------------------------------------------------------------------


def test_a_casual_duel_on_two_phones_and_its_score_sheet(phones, live_server):
    a, b = phones
    code = seat_both(a, b)
    assert fields_too_small(a) == []
    start_duel(a, b)
    # B hits A for 1200, A confirms; A hits B for the rest, B confirms (R1.4: two keys).
    keypad(b, 1200)
    confirm_entry(a)
    keypad(a, 8000)
    confirm_entry(b)
    for p in (a, b):
        wait_lp(p, "A", "6800")
        wait_lp(p, "B", "0")
        phase(p, "duel_result")
        p.wait_text("duel-result", "Yugi")
    for p in (a, b):
        p.tap("result-confirm")
    for p in (a, b):
        phase(p, "between")
        assert p.count("ledger-row") == 2
    # The score sheet, from the table's own link: both names, both entries, the result.
    href = a.attr("sheet-link", "href") or ""
    assert f"/t/{code}/sheet" in href
    a.tap("sheet-link")
    a.until(lambda: "Kaiba" in a.js("return document.body.innerText"), "the sheet's names")
    sheet = a.js("return document.body.innerText")
    for words in ("Yugi", "Kaiba", "6800", "1200", "8000"):
        assert words in sheet, words
    # Nothing past the phone's edge but what scrolls inside its own box.
    wide = a.js(
        "return [...document.querySelectorAll('body *')].filter((e) => {"
        "  const r = e.getBoundingClientRect();"
        "  if (!r.width || r.right <= innerWidth + 1) return false;"
        "  for (let p = e.parentElement; p; p = p.parentElement)"
        "    if (['auto', 'scroll'].includes(getComputedStyle(p).overflowX)) return false;"
        "  return true; }).map((e) => e.tagName + '.' + e.className).slice(0, 5)"
    )
    assert wide == [], wide
    assert a.js("return document.documentElement.scrollWidth") <= 390


def test_a_reload_in_the_middle_of_a_duel(phones):
    a, b = phones
    seat_both(a, b)
    start_duel(a, b)
    keypad(b, 1000)
    confirm_entry(a)
    wait_lp(b, "A", "7000")
    # B proposes while A reloads: A comes back as seat A, with the ledger and the banner.
    a.reload()
    keypad(b, 300)
    a.wait_text("role", "A")
    a.wait_attr("conn-status", "data-status", "online")
    wait_lp(a, "A", "7000")
    assert a.count("ledger-row") == 1
    confirm_entry(a)
    for p in (a, b):
        wait_lp(p, "A", "6700")


def test_a_network_cut_sends_the_queued_commands_once(phones, live_server):
    a, b = phones
    code = seat_both(a, b)
    start_duel(a, b)
    keypad(a, 500)
    b.until(lambda: b.attr("confirm-banner", "data-entry"), "A's entry on B")
    # B's network goes for 8 s: B confirms A's entry and proposes one of its own meanwhile.
    b.proxy.cut(8)
    b.until(lambda: b.attr("conn-status", "data-status") != "online", "B sees the cut", 5)
    before = len(server_log(live_server, code))
    b.tap("confirm-entry", within="confirm-banner")
    b.wait_attr("queue-count", "data-count", "1")
    keypad(b, 700)
    b.wait_attr("queue-count", "data-count", "2")
    assert len(server_log(live_server, code)) == before  # nothing went through the cut
    wait_lp(a, "B", "8000")
    # Back: both commands go, once each.
    b.wait_attr("conn-status", "data-status", "online", timeout=30)
    b.wait_count("queue-count", 0, timeout=15)
    confirm_entry(a)
    for p in (a, b):
        wait_lp(p, "A", "7300")
        wait_lp(p, "B", "7500")
        p.wait_count("ledger-row", 2)
    events = server_log(live_server, code)
    proposed = [e["data"]["entry"] for e in events if e["type"] == "lp.proposed"]
    confirmed = [e["data"]["entry"] for e in events if e["type"] == "lp.confirmed"]
    assert len(proposed) == 2 and sorted(confirmed) == sorted(set(proposed))


def test_the_one_phone_table(phones, live_server):
    a, _ = phones
    a.go("/")
    a.tap("new-table")
    a.wait_count("join-screen", 1)
    a.fill("name-input", "Yugi")
    a.fill("duo-name-b", "Kaiba")
    a.tap("duo-start")
    a.tap("recovery-ok")
    a.wait_count("duo-screen", 1)
    near, far = a.half("A"), a.half("B")
    near.wait_text("name-B", "Kaiba")
    assert fields_too_small(a) == []
    start_duel(near, far)
    # Each player proposes and confirms on their own half: two keys on one phone.
    keypad(far, 2000)
    confirm_entry(near)
    for half in (near, far):
        wait_lp(half, "A", "6000")
        half.wait_count("ledger-row", 1)


def test_the_language_picker_on_every_screen(phones):
    """Home, join, a seat's table, a spectator's table and the one-phone table."""
    a, b = phones

    def shown(p: Phone) -> list[str]:
        """The page's language, and its shown picker's value and label."""
        return p.js(
            "const s = [...document.querySelectorAll('[data-testid=lang]')]"
            "  .find((x) => x.getClientRects().length);"
            "return [document.documentElement.lang, s && s.value,"
            "        s && s.getAttribute('aria-label')];"
        )

    def pick_each(p: Phone, where: str) -> None:
        start = p.js("return document.documentElement.lang")
        i = CODES.index(start)
        for code in CODES[i + 1 :] + CODES[: i + 1]:
            p.choose("lang", code)
            # The page answers in it: a hung page would not (the script times out).
            want = [code, code, WORDS[code]["lang.label"]]
            p.until(lambda want=want: shown(p) == want, f"{where}: {want} picked")

    a.go("/")
    a.wait_count("home-screen", 1)
    pick_each(a, "home")
    a.tap("new-table")  # the home screen still acts
    a.wait_count("join-screen", 1)
    pick_each(a, "join")
    code = a.text("table-code").strip()
    take_seat(a, "A", "Yugi")
    pick_each(a, "table")
    assert fields_too_small(a) == []
    b.go(f"/t/{code}?watch")
    b.wait_count("table-screen", 1)
    pick_each(b, "spectator")
    b.go("/")
    b.tap("new-table")
    b.wait_count("join-screen", 1)
    b.fill("name-input", "Yugi")
    b.fill("duo-name-b", "Kaiba")
    b.tap("duo-start")
    b.tap("recovery-ok")
    b.wait_count("duo-screen", 1)
    pick_each(b, "one phone")
    b.wait_text("duo-tag", WORDS[b.js("return document.documentElement.lang")]["duo.tag"])
