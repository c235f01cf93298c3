"""The first event's phones on WebKit, the iPhone's engine, in the hall's test world: a WebKit
phone is another device on the club's Wi-Fi (e2e/webkit.py's namespace phone: WebKitWebDriver
and MiniBrowser inside e2e/hall_world.py's network namespace, Selenium reaching the driver on
the namespace's veth address). It opens the QR code printed on its table's card, read by
zbarimg from the organiser's cards page on the laptop (127.0.0.1), sits with the pairing's name
and player ID, plays an LP entry with a Chromium phone opposite (also in the namespace), and
after the round is decided is told its round-2 table, where one tap seats it. Before round 1
its player registers their deck list on the players' page opened by the hall's QR code; both
tables offer that list, and the round-2 table refuses another, said on the phone (R2.6, R1.6).
Every page error on the WebKit phone fails the test.

    .venv/bin/pytest e2e/test_webkit_in_the_hall.py -q        (or -m webkit)
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator

import pytest
from playwright.sync_api import Page, expect

from e2e import webkit as wk
from e2e.hall_world import PhoneNet, decode_qr
from e2e.steps import PHONE, confirm_entry, expect_phase
from tests.staff_actions import PASSWORD, Staff, create_organiser

pytestmark = [pytest.mark.browser, pytest.mark.webkit, pytest.mark.timeout(180)]

LAPTOP = {"viewport": {"width": 1280, "height": 900}, "is_mobile": False, "has_touch": False}
PLAYERS = [("Chen Wei", "0100000001"), ("Ito Ren", "0100000002")]
PLAYERS += [("Mai Kujaku", "0100000003"), ("Joey Wheeler", "0100000004")]
ID = dict(PLAYERS)
FILLER = [f"3 Card {i}" for i in range(13)] + ["1 Card 13"]  # 40 cards
DECK_LIST = "\n".join(["Main Deck", *FILLER, "Side Deck", "2 Mirror Force"])
OTHER_LIST = "\n".join(["Main Deck", *FILLER, "Side Deck", "3 Raigeki"])


def paste(p: wk.Phone, testid: str, text: str) -> None:
    """Paste a deck list into a text box: its value set at once, with the input event typing
    fires. (WebKitWebDriver's send_keys drops a text's line breaks in a textarea: 148 of a
    list's 164 characters arrived, every "\n" lost; a list is pasted on a phone anyway.)"""
    p.until(
        lambda: p.js(
            "const e = document.querySelector(arguments[0]); if (!e) return false;"
            "e.focus(); e.value = arguments[1];"
            "e.dispatchEvent(new InputEvent('input', {bubbles: true, inputType: 'insertText'}));"
            "return e.value === arguments[1];",
            f"[data-testid='{testid}']",
            text,
        ),
        f"paste into {testid}",
    )


def value(p: wk.Phone, testid: str) -> str:
    """A field's value as the page has it now."""
    return str(
        p.js(
            "const e = document.querySelector(arguments[0]); return e ? e.value : null;",
            f"[data-testid='{testid}']",
        )
    )


@pytest.fixture(scope="module")
def world(phones_net: PhoneNet) -> Iterator[wk.World]:
    """The WebKit phones' display and settings (skipped only where the packages are not
    installed and cannot be, as e2e/test_webkit.py)."""
    lacks = wk.missing()
    if lacks:
        if os.environ.get("CI") or os.geteuid() == 0:
            pytest.fail(f"WebKit: {lacks}", pytrace=False)
        pytest.skip(f"WebKit: {lacks}")
    made = wk.World()
    try:
        yield made
    finally:
        made.close()


def test_a_webkit_phone_in_the_hall_scans_sits_plays_and_follows_the_round(
    hall_browsers, hall_server, phones_net, world
) -> None:
    laptop_browser, phone_browser = hall_browsers
    username = f"org{uuid.uuid4().hex[:6]}"
    create_organiser(hall_server.server, username)
    staff = Staff(hall_server.laptop).login(username)
    ev = staff.create_event("WebKit Night", 2, require_player_id=True)
    base = f"/api/events/{ev['id']}"
    text = "".join(f"{n},{i}\n" for n, i in PLAYERS)
    status, body = staff.request("POST", f"{base}/swiss/players/import", {"text": text})
    assert status == 201, body
    status, body = staff.request("POST", f"{base}/swiss/pair")
    assert status == 200, body
    number = {p["number"]: p["name"] for p in staff.request("GET", f"{base}/swiss")[1]["players"]}
    table1 = staff.request("GET", f"{base}/swiss")[1]["rounds"][0]["tables"][0]
    a_name, b_name = number[table1["a"]["player"]], number[table1["b"]["player"]]

    # The organiser's cards page, on the laptop at 127.0.0.1: what table 1's card says.
    laptop = laptop_browser.new_context(base_url=hall_server.laptop, locale="en-GB", **LAPTOP)
    chromium = phone_browser.new_context(locale="en-GB", **PHONE)
    try:
        org = laptop.new_page()
        org.goto("/organiser")
        org.get_by_test_id("login-user").fill(username)
        org.get_by_test_id("login-pass").fill(PASSWORD)
        org.get_by_test_id("login-go").click()
        expect(org.get_by_test_id(f"event-{ev['id']}")).to_be_visible()
        org.goto(f"/organiser/events/{ev['id']}/cards")
        card = org.locator("section.card[data-table='1']")
        printed = {
            seat: decode_qr(card.locator("figure").nth(n).locator("img").screenshot())
            for n, seat in enumerate("AB")
        }
        for url in printed.values():
            assert url.startswith(f"{hall_server.lan}/s/"), url
        org.goto(f"/e/{ev['slug']}/hall")
        players_page = decode_qr(org.get_by_test_id("hall-qr").screenshot())
        assert players_page == f"{hall_server.lan}/e/{ev['slug']}", players_page

        # The WebKit phone, in the namespace: 127.0.0.1 there is not the server.
        a = world.phone(hall_server.lan, net=phones_net)
        a.open(f"http://127.0.0.1:{hall_server.server.port}/")
        assert "Could not connect" in a.js("return document.body.textContent"), a.js(
            "return document.body.textContent"
        )
        # The player registers their deck list for the event, once, on the players' page.
        a.open(players_page)
        a.js("sessionStorage.removeItem('__errs')")
        a.fill("ev-find-input", ID[a_name])
        a.tap("ev-find-go")
        a.tap(f"ev-pick-{table1['a']['player']}")
        a.until(lambda: value(a, "ev-deck-id") == ID[a_name], "the player ID in the deck form")
        paste(a, "ev-deck-text", DECK_LIST)
        a.tap("ev-deck-go")
        a.wait_text("ev-deck-said", "main 40, extra 0, side 2")
        errors = a.errors()
        a.open(printed["A"])  # exactly as printed
        a.until(lambda: value(a, "name-input") == a_name, "the pairing's name on the card's seat")
        a.fill("player-id-input", ID[a_name])
        a.tap("take-seat-A")
        a.wait_text("role", "A")
        a.wait_attr("conn-status", "data-status", "online")

        # A Chromium phone opposite, by its own card's code.
        b: Page = chromium.new_page()
        b.set_default_timeout(15_000)
        b.goto(printed["B"])
        expect(b.get_by_test_id("name-input")).to_have_value(b_name)
        b.get_by_test_id("player-id-input").fill(ID[b_name])
        b.get_by_test_id("take-seat-B").click()
        expect(b.get_by_test_id("role")).to_contain_text("B")
        a.wait_text("name-B", b_name)

        status, body = staff.request("POST", f"{base}/round/start", {})
        assert status == 200, body
        # Decks: the table offers A's registered list and takes it; B declares counts,
        # confirming A's in the same tap. Then the checklist, rock-paper-scissors (won by A on
        # WebKit), A goes first, both draw.
        a.wait_count("deck-list-event", 1)
        a.until(lambda: value(a, "deck-list-text") == DECK_LIST, "the event's list offered")
        a.wait_count("deck-list-ok", 1)  # the table's check says the list is legal
        a.tap("deck-list-register")
        a.wait_text("deck-list-mine", "40")
        for field, count in (("main", "40"), ("extra", "15"), ("side", "15")):
            b.get_by_test_id(f"deck-{field}").fill(count)
        expect(b.get_by_test_id("deck-declare")).to_contain_text("40")
        b.get_by_test_id("deck-declare").click()
        a.tap("confirm-deck")
        wk.phase(a, "pregame")
        expect_phase(b, "pregame")
        a.tap("checks-all-done")
        b.get_by_test_id("checks-all-done").click()
        a.tap("rps-report-me")
        b.get_by_test_id("rps-confirm").click()
        a.tap("choose-first")
        a.tap("draw-5")
        b.get_by_test_id("draw-5").click()
        wk.phase(a, "duel")
        expect_phase(b, "duel")
        # An LP entry proposed on WebKit, confirmed on Chromium (R1.4: two keys).
        wk.keypad(a, 1000)
        confirm_entry(b)
        wk.wait_lp(a, "B", "7000")
        expect(b.get_by_test_id("lp-B")).to_have_text("7000")

        # The round is decided (the organiser's results) and round 2 paired: the WebKit phone
        # says where its player sits next, and one tap seats them there.
        for t in (1, 2):
            status, body = staff.request("POST", f"{base}/tables/{t}/result", {"result": "A"})
            assert status == 200, body
        status, body = staff.request("POST", f"{base}/swiss/pair")
        assert status == 200, body
        round2 = staff.request("GET", f"{base}/swiss")[1]["rounds"][1]["tables"]
        me = next(n for n, name in number.items() if name == a_name)
        t2 = next(t for t in round2 if me in (t["a"]["player"], t["b"]["player"]))
        seat = "A" if t2["a"]["player"] == me else "B"
        them = number[t2["b" if seat == "A" else "a"]["player"]]
        said = f"Round 2: table {t2['table']}, seat {seat}, against {them}: sit there."
        a.until(lambda: a.text("next-where") == said, f"next-where says {said!r}", timeout=25)
        a.tap("next-sit")
        a.wait_text("role", seat)
        a.wait_text(f"name-{seat}", a_name)
        # The round-2 table offers the same list and refuses another (R2.6).
        a.wait_count("deck-list-event", 1)
        a.until(lambda: value(a, "deck-list-text") == DECK_LIST, "the event's list offered")
        paste(a, "deck-list-text", OTHER_LIST)
        a.tap("deck-list-register")
        a.wait_text("toast", "R2.6")
        assert a.count("deck-list-mine") == 0
        assert a.collector_in_place()
        assert errors + a.errors() == []
    finally:
        chromium.close()
        laptop.close()
