"""A club's first event as it is lived, in a test world like the hall (e2e/hall_world.py): the
organiser on the laptop at 127.0.0.1, a judge on another laptop page, and eight players' phones
in a network namespace of their own, where the server is reached only by the LAN address.
Everything is driven through the pages, with no HTTP call but `create-organiser`.

The organiser imports the list pasted from a spreadsheet (nine names: one does not come), checks
the eight in and pairs round 1: 8 players, 4 tables, the ninth not paired. Before round 1 one
player registers their deck list from their phone on the players' page, reached by the QR code
the hall shows (R2.6, R1.6). Each phone opens its seat only by the QR code decoded (zbarimg)
from the printed cards page; the player with a list finds it at their table, which takes it.
Tables 1 and 2 play a whole 2-0 match on their phones; at table 3 a player does not show (the
organiser enters the result); at table 4 a player mistypes their ID and corrects it on the
waiting screen (no stale alert on the floor), then calls a judge, who settles the call from
the floor. Both players of tables 1 and 2 tap every button their finished table
offers: the organiser's page and the export still hold each 2-0. Round 2 is paired: the
finished tables' phones say where their players sit next, and one tap seats them there; the
player's registered list is the one their round-2 table offers, and another list is refused
there (R2.6). Round 2's results entered, the organiser's "Results (CSV)" link downloads the
whole event: both rounds, each player's result, opponent and table.
"""

from __future__ import annotations

import csv
import io
import re
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from playwright.sync_api import BrowserContext, Page, expect

from e2e.hall_world import decode_qr
from e2e.steps import PHONE, declare_decks, expect_phase, play_match
from tests.staff_actions import PASSWORD, create_organiser

pytestmark = [pytest.mark.browser, pytest.mark.slow, pytest.mark.timeout(300)]

LAPTOP = {"viewport": {"width": 1280, "height": 900}, "is_mobile": False, "has_touch": False}
PLAYERS = [
    ("Chen Wei", "0100000001"),
    ("Ito Ren", "0100000002"),
    ("Mai Kujaku", "0100000003"),
    ("Joey Wheeler", "0100000004"),
    ("Rex Raptor", "0100000005"),
    ("Weevil Underwood", "0100000006"),
    ("Tea Gardner", "0100000007"),
    ("Duke Devlin", "0100000008"),
]
ID = dict(PLAYERS)
ABSENT = ("Seto Kaiba", "0100000009")  # on the list, never checked in
# The list pasted from the club's spreadsheet: a header, the eight, and one who does not come.
SHEET = "Name,Player ID\n" + "".join(f"{n},{i}\n" for n, i in [*PLAYERS, ABSENT])
FILLER = [f"3 Card {i}" for i in range(13)] + ["1 Card 13"]  # 40 cards
DECK_LIST = "\n".join(["Main Deck", *FILLER, "Side Deck", "2 Mirror Force"])
OTHER_LIST = "\n".join(["Main Deck", *FILLER, "Side Deck", "3 Raigeki"])


@dataclass
class Paired:
    table: int
    a: str
    b: str


def log_in(page: Page, username: str) -> None:
    page.get_by_test_id("login-user").fill(username)
    page.get_by_test_id("login-pass").fill(PASSWORD)
    page.get_by_test_id("login-go").click()


def register_at_the_door(org: Page) -> None:
    """The front desk: the list imported from the spreadsheet's text, the eight who came
    checked in (the ninth is not, so is not paired)."""
    org.get_by_test_id("import-text").fill(SHEET)
    org.get_by_test_id("import-go").click()
    expect(org.get_by_test_id("player-list").locator("li")).to_have_count(len(PLAYERS) + 1)
    org.get_by_test_id("swiss-check-in").check()
    expect(org.get_by_test_id("checked-in-count")).to_contain_text(f"0 of {len(PLAYERS) + 1}")
    for n, (name, player_id) in enumerate(PLAYERS, start=1):
        expect(org.get_by_test_id(f"player-{n}")).to_contain_text(f"{name} ({player_id})")
        org.get_by_test_id(f"checkin-{n}").click()
        expect(org.get_by_test_id(f"checked-in-{n}")).to_be_visible()
    expect(org.get_by_test_id("checked-in-count")).to_contain_text(
        f"{len(PLAYERS)} of {len(PLAYERS) + 1}"
    )


def pairings(org: Page, tables: int) -> list[Paired]:
    """The round's pairing as the organiser's page shows it (table, seat A, seat B)."""
    found = []
    for n in range(1, tables + 1):
        cells = org.get_by_test_id(f"swiss-table-{n}").locator("td")
        found.append(
            Paired(n, cells.nth(1).inner_text().strip(), cells.nth(2).inner_text().strip())
        )
    return found


def scan(cards: Page, table: int, seat: str) -> str:
    """What the printed card's QR code for `seat` of `table` says, read by zbarimg."""
    card = cards.locator(f"section.card[data-table='{table}']")
    figure = card.locator("figure").nth(0 if seat == "A" else 1)
    return decode_qr(figure.locator("img").screenshot())


@pytest.fixture
def world(
    hall_browsers, hall_server
) -> Iterator[tuple[list[BrowserContext], list[BrowserContext]]]:
    """Laptop contexts (127.0.0.1) and phone contexts (the namespace), closed after."""
    laptops: list[BrowserContext] = []
    phones: list[BrowserContext] = []
    yield laptops, phones
    for context in laptops + phones:
        context.close()


def test_a_first_event_with_phones_on_the_clubs_wifi(
    hall_browsers, hall_server, world, script_errors
) -> None:
    script_errors.allow(r"/api/auth/me")  # the judges' page asks whether it is logged in yet
    expect.set_options(timeout=15_000)
    laptops, phone_contexts = world
    laptop_browser, phone_browser = hall_browsers

    def laptop() -> Page:
        context = laptop_browser.new_context(
            base_url=hall_server.laptop, locale="en-GB", service_workers="block", **LAPTOP
        )
        context.set_default_timeout(20_000)
        laptops.append(context)
        return context.new_page()

    def phone() -> Page:
        context = phone_browser.new_context(locale="en-GB", service_workers="block", **PHONE)
        context.set_default_timeout(20_000)
        phone_contexts.append(context)
        return context.new_page()

    suffix = uuid.uuid4().hex[:6]
    organiser, judge = f"org{suffix}", f"judge{suffix}"
    create_organiser(hall_server.server, organiser)
    try:
        # --- the organiser, at 127.0.0.1: the event, a judge, the players, round 1 ----------
        org = laptop()
        org.goto("/organiser")
        log_in(org, organiser)
        org.get_by_test_id("ev-name").fill("First Friday")
        org.get_by_test_id("ev-tables").fill("4")
        org.get_by_test_id("ev-create").click()
        expect(org.get_by_test_id("event-title")).to_contain_text("First Friday")
        org.get_by_test_id("judge-user").fill(judge)
        org.get_by_test_id("judge-pass").fill(PASSWORD)
        org.get_by_test_id("judge-add").click()
        expect(org.get_by_test_id("staff-list")).to_contain_text(judge)
        register_at_the_door(org)
        org.get_by_test_id("cycle-pair").click()
        expect(org.get_by_test_id("round-start")).to_be_visible()
        round1 = pairings(org, 4)
        # The eight who came are paired, two by two; the one not checked in is not.
        assert sorted(n for t in round1 for n in (t.a, t.b)) == sorted(ID), round1
        expect(org.get_by_test_id("swiss-tables")).not_to_contain_text(ABSENT[0])
        expect(org.get_by_test_id("swiss-bye")).to_have_count(0)
        # Where the cards will send the phones: the LAN address, not this computer's.
        expect(org.get_by_test_id("print-address")).to_contain_text(hall_server.lan)

        # The judge's floor, on another laptop page.
        floor = laptop()
        floor.goto("/judge")
        log_in(floor, judge)
        expect(floor.get_by_test_id("floor")).to_be_visible()

        # --- the printed cards: each phone scans its own seat's QR code ----------------------
        with org.expect_popup() as opened:
            org.get_by_test_id("cards").click()
        cards = opened.value
        expect(cards.locator("section.card")).to_have_count(4)
        expect(cards.get_by_test_id("cards-loopback")).to_have_count(0)
        phones: dict[str, Page] = {}

        def sit(name: str, table: int, seat: str, typed_id: str | None = None) -> Page:
            printed = scan(cards, table, seat)
            assert printed.startswith(f"{hall_server.lan}/s/"), printed  # a phone can open it
            page = phones[name] if name in phones else phones.setdefault(name, phone())
            page.goto(printed)  # exactly as printed
            expect(page.get_by_test_id("name-input")).to_have_value(name)  # the pairing's
            page.get_by_test_id("player-id-input").fill(typed_id or ID[name])
            page.get_by_test_id(f"take-seat-{seat}").click()
            return page

        t1, t2, t3, t4 = round1

        # --- one deck list for the event (R2.6, R1.6): table 1's seat A registers theirs from
        # their phone, on the players' page the hall's QR code opens, before round 1 starts.
        keeper = t1.a
        with org.expect_popup() as opened:
            org.get_by_test_id("hall-link").click()
        hall = opened.value
        players_page = decode_qr(hall.get_by_test_id("hall-qr").screenshot())
        assert players_page.startswith(f"{hall_server.lan}/e/"), players_page
        hall.close()
        mine = phones[keeper] = phone()
        mine.goto(players_page)
        mine.get_by_test_id("ev-find-input").fill(ID[keeper])
        mine.get_by_test_id("ev-find-go").click()
        mine.get_by_test_id(f"ev-pick-{[n for n, _ in PLAYERS].index(keeper) + 1}").click()
        expect(mine.get_by_test_id("ev-deck-id")).to_have_value(ID[keeper])
        mine.get_by_test_id("ev-deck-text").fill(DECK_LIST)
        mine.get_by_test_id("ev-deck-go").click()
        expect(mine.get_by_test_id("ev-deck-said")).to_contain_text("main 40, extra 0, side 2")

        def the_event_list(a: Page, b: Page) -> None:
            """Table 1's decks: seat A's registered list is the one the table offers and takes
            (its counts declared by it); seat B declares counts, confirming A's in one tap."""
            expect(a.get_by_test_id("deck-list-event")).to_be_visible()
            expect(a.get_by_test_id("deck-list-text")).to_have_value(DECK_LIST)
            a.get_by_test_id("deck-list-register").click()
            expect(a.get_by_test_id("deck-list-mine")).to_contain_text("40")
            for field, count in (("main", 40), ("extra", 15), ("side", 15)):
                b.get_by_test_id(f"deck-{field}").fill(str(count))
            expect(b.get_by_test_id("deck-declare")).to_contain_text("40")  # A's, confirmed
            b.get_by_test_id("deck-declare").click()
            a.get_by_test_id("confirm-deck").click()
            for page in (a, b):
                expect_phase(page, "pregame")

        for t in (t1, t2):
            for seat, name in (("A", t.a), ("B", t.b)):
                expect(sit(name, t.table, seat).get_by_test_id("clock")).to_be_visible()
        # Table 3: only seat A comes; B is a no-show.
        expect(sit(t3.a, 3, "A").get_by_test_id("clock")).to_be_visible()
        # Table 4: seat A sits; seat B mistypes the ID, is told why it waits, and corrects it.
        expect(sit(t4.a, 4, "A").get_by_test_id("clock")).to_be_visible()
        wrong = ID[t4.b][:-1] + ("9" if ID[t4.b][-1] != "9" else "8")
        mistyped = sit(t4.b, 4, "B", typed_id=wrong)
        expect(mistyped.get_by_test_id("join-waiting")).to_have_attribute("data-why", "id_mismatch")
        expect(mistyped.get_by_test_id("join-waiting-why")).to_contain_text("player ID you typed")
        table4 = floor.get_by_test_id("floor-table-4")
        expect(table4.get_by_test_id("alert-seat_request")).to_have_count(1)
        mistyped.get_by_test_id("join-fix-id").fill(ID[t4.b])
        mistyped.get_by_test_id("join-fix-go").click()
        expect(mistyped.get_by_test_id("clock")).to_be_visible()
        expect(mistyped.get_by_test_id("role")).to_contain_text("B")
        expect(table4.get_by_test_id("alert-seat_request")).to_have_count(0)  # closed by itself

        # --- round 1 -------------------------------------------------------------------------
        org.get_by_test_id("round-start").click()
        expect(org.get_by_test_id("round-started")).to_be_visible()

        # Table 4 calls a judge; the judge settles it from the floor.
        caller = phones[t4.a]
        caller.get_by_test_id("call-judge").click()
        caller.get_by_test_id("judge-reason").fill("Does my trap resolve first?")
        caller.get_by_test_id("judge-send").click()
        expect(table4.get_by_test_id("alert-judge_call")).to_have_count(1)
        table4.click()
        close = floor.locator("[data-testid^=close-]").first
        expect(close).to_be_visible()
        floor.locator("[data-testid^=call-note-]").first.fill("Chain resolves backwards.")
        close.click()
        expect(floor.locator("[data-testid^=close-]")).to_have_count(0)
        floor.get_by_test_id("back-to-floor").click()
        expect(table4.get_by_test_id("alert-judge_call")).to_have_count(0)

        # Tables 1 and 2 play a 2-0 match each; seat A wins at 1, seat B at 2.
        winners = {1: "A", 2: "B"}
        for t in (t1, t2):
            names = {"A": t.a, "B": t.b}
            decks = the_event_list if t is t1 else declare_decks
            play_match(phones[t.a], phones[t.b], winners[t.table], names, decks=decks)

        # Both players tap everything their finished table offers: no new match at an event
        # table, and nothing they tap changes the recorded result.
        for t in (t1, t2):
            for name in (t.a, t.b):
                page = phones[name]
                expect(page.get_by_test_id("match-recorded")).to_be_visible()
                expect(page.get_by_test_id("match-new")).to_have_count(0)
                tap_everything(page)
                expect(page.get_by_test_id("match-result")).to_contain_text(
                    t.a if winners[t.table] == "A" else t.b
                )

        # The no-show and table 4: the organiser enters their results.
        for table, result in ((3, "A"), (4, "A")):
            org.get_by_test_id(f"result-pick-{table}").select_option(result)
            org.get_by_test_id(f"result-enter-{table}").click()
            expect(org.get_by_test_id(f"result-{table}")).not_to_have_text("")
        expect(org.get_by_test_id("cycle-step")).to_have_attribute("data-step", "results_in")

        # The results hold on the organiser's page (and in the export, after round 2).
        for t in (t1, t2):
            expect(org.get_by_test_id(f"result-{t.table}")).to_have_text(f"{winners[t.table]} wins")

        # --- round 2: the phones follow the round ---------------------------------------------
        org.get_by_test_id("cycle-pair").click()
        expect(org.get_by_test_id("round-start")).to_be_visible()
        round2 = pairings(org, 4)
        where = {}
        for t in round2:
            where[t.a] = (t.table, "A", t.b)
            where[t.b] = (t.table, "B", t.a)
        for t in (t1, t2):
            for name in (t.a, t.b):
                page = phones[name]
                table, seat, opponent = where[name]
                said = page.get_by_test_id("next-where")
                expect(said).to_have_text(
                    f"Round 2: table {table}, seat {seat}, against {opponent}: sit there.",
                    timeout=25_000,
                )
                page.get_by_test_id("next-sit").click()
                expect(page.get_by_test_id("clock")).to_be_visible()
                expect(page.get_by_test_id("role")).to_contain_text(seat)
                expect(page.get_by_test_id(f"name-{seat}")).to_have_text(name)

        # The list registered once binds the round-2 table too: it offers that list, refuses
        # another (R2.6, said on the phone) and takes the registered one.
        mine = phones[keeper]
        expect(mine.get_by_test_id("deck-list-event")).to_be_visible()
        expect(mine.get_by_test_id("deck-list-text")).to_have_value(DECK_LIST)
        mine.get_by_test_id("deck-list-text").fill(OTHER_LIST)
        mine.get_by_test_id("deck-list-register").click()
        expect(mine.get_by_test_id("toast")).to_contain_text("R2.6")
        expect(mine.get_by_test_id("deck-list-mine")).to_have_count(0)
        mine.get_by_test_id("deck-list-text").fill(DECK_LIST)
        mine.get_by_test_id("deck-list-register").click()
        expect(mine.get_by_test_id("deck-list-mine")).to_contain_text("40")

        # Round 2 is played out (the organiser enters its results: seat A wins everywhere).
        org.get_by_test_id("round-start").click()
        expect(org.get_by_test_id("round-started")).to_be_visible()
        for t in round2:
            org.get_by_test_id(f"result-pick-{t.table}").select_option("A")
            org.get_by_test_id(f"result-enter-{t.table}").click()
            expect(org.get_by_test_id(f"result-{t.table}")).to_contain_text("A wins")

        # --- the whole event's results, as the organiser's page downloads them ----------------
        expect(org.get_by_test_id("export")).to_have_text("Results (CSV)")
        with org.expect_download() as download:
            org.get_by_test_id("export").click()
        text = Path(download.value.path()).read_text(encoding="utf-8-sig")
        rows = {r["name"]: r for r in csv.DictReader(io.StringIO(text))}
        # The eight who played, not the one who did not come.
        assert set(rows) == set(ID), sorted(rows)
        assert rows[t1.a]["player_id"] == f'="{ID[t1.a]}"'  # a spreadsheet keeps the zero
        for n, played in ((1, round1), (2, round2)):
            for t in played:
                for me, them in ((t.a, t.b), (t.b, t.a)):
                    row = rows[me]
                    assert row[f"round_{n}_opponent"] == them, (n, row)
                    assert row[f"round_{n}_table"] == str(t.table), (n, row)
        # Round 1's two matches played on the phones are still what was played, 2-0.
        for t in (t1, t2):
            won, lost = (t.a, t.b) if winners[t.table] == "A" else (t.b, t.a)
            assert rows[won]["round_1"] == "W 2-0", rows[won]
            assert rows[lost]["round_1"] == "L 0-2", rows[lost]
            assert rows[won]["round_1_reason"].startswith("wins ("), rows[won]
        for t in round2:
            assert rows[t.a]["round_2"].startswith("W"), rows[t.a]
            assert rows[t.b]["round_2"].startswith("L"), rows[t.b]
    finally:
        expect.set_options(timeout=5_000)


def tap_everything(page: Page) -> None:
    """Tap every button the table's page offers (each once, found again after each tap: the
    page redraws), but those that leave the table or open a menu of other tables."""
    tapped: set[str] = set()
    for _ in range(20):
        # Read in one go: a redraw between counting the buttons and reading the last of them
        # would leave the count pointing past the end.
        keys = page.locator("main button:visible:enabled").evaluate_all(
            "els => els.map(b => [b.dataset.testid || '', b.innerText])"
        )
        fresh = [(t, text) for t, text in keys if f"{t}|{text}" not in tapped]
        fresh = [(t, text) for t, text in fresh if not LEAVES.search(f"{t}|{text}")]
        if not fresh:
            return
        testid, text = fresh[0]
        tapped.add(f"{testid}|{text}")
        button = page.locator("main button:visible:enabled").filter(has_text=text)
        if testid:
            button = button.and_(page.locator(f'[data-testid="{testid}"]'))
        button.first.click()
        page.wait_for_timeout(300)
        cancel = page.locator(
            "[data-testid$=-cancel]:visible, [data-testid=judge-cancel]:visible"
        ).first
        if cancel.count():
            closes = cancel.get_attribute("data-testid")
            cancel.click()
            # The form closes once the click is handled: wait for it, or the next read of the
            # page's buttons could still list this Cancel.
            expect(page.locator(f'[data-testid="{closes}"]:visible')).to_have_count(0)


# Buttons that leave the table's page (its result stays either way) or would call a judge for
# nothing: not what a player finishing a match taps.
LEAVES = re.compile(r"leave|home|sheet|judge-send|disown|lang|recover", re.IGNORECASE)
