"""The steps of a table in a phone's browser, shared by the end-to-end tests: create a table,
join both seats by its code, declare decks, tick the checklist, rock-paper-scissors, choose,
draw, and the LP keypad."""

from __future__ import annotations

import json
import urllib.request
from collections.abc import Callable

from playwright.sync_api import Page, expect

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
PHONE = {
    "viewport": {"width": 360, "height": 640},
    "is_mobile": True,
    "has_touch": True,
    "device_scale_factor": 1,
}


def api_create_table(base_url: str, **body) -> str:
    """Create a table through the HTTP API; returns its code."""
    request = urllib.request.Request(
        base_url + "/api/tables",
        data=json.dumps(body).encode(),
        headers={"Content-Type": "application/json"},
        method="POST",
    )
    with urllib.request.urlopen(request, timeout=5) as response:
        return json.load(response)["code"]


# --- steps -------------------------------------------------------------------------------------


def take_seat(page: Page, seat: str, name: str) -> None:
    """On a table's join screen: type a name and take the seat; wait for the table."""
    page.get_by_test_id("name-input").fill(name)
    page.get_by_test_id(f"take-seat-{seat}").click()
    expect(page.get_by_test_id("role")).to_contain_text(seat)
    expect(page.get_by_test_id("conn-status")).to_have_attribute("data-status", "online")


def create_on_phone(page: Page, name: str = "Yugi") -> str:
    """From the home screen: a new table, seat A taken. Returns the code."""
    page.goto("/")
    page.get_by_test_id("new-table").click()
    expect(page.get_by_test_id("join-screen")).to_be_visible()
    code = page.get_by_test_id("table-code").inner_text().strip()
    take_seat(page, "A", name)
    return code


def join_by_code(page: Page, code: str, seat: str = "B", name: str = "Kaiba") -> None:
    """From the home screen: type the code, join, take the seat."""
    page.goto("/")
    page.get_by_test_id("join-code").fill(code)
    page.get_by_test_id("join-go").click()
    expect(page.get_by_test_id("join-screen")).to_be_visible()
    take_seat(page, seat, name)


def seat_both(a: Page, b: Page, code: str | None = None) -> str:
    """Phone A creates (or opens `code`) and takes A; phone B joins by typing the code."""
    if code is None:
        code = create_on_phone(a)
    else:
        a.goto(f"/t/{code}")
        take_seat(a, "A", "Yugi")
    join_by_code(b, code)
    expect(a.get_by_test_id("name-B")).to_have_text("Kaiba")
    return code


def expect_phase(page: Page, phase: str, timeout: float = 8000) -> None:
    expect(page.get_by_test_id("phase")).to_have_attribute("data-phase", phase, timeout=timeout)


def declare_decks(a: Page, b: Page, main: int = 40, extra: int = 15, side: int = 15) -> None:
    """Both declare the same counts and confirm each other's (R6.2): A declares, B's declaration
    confirms A's counts with the same tap (the button names them), A confirms B's."""
    for page in (a, b):
        page.get_by_test_id("deck-main").fill(str(main))
        page.get_by_test_id("deck-extra").fill(str(extra))
        page.get_by_test_id("deck-side").fill(str(side))
        if page is b:
            expect(b.get_by_test_id("deck-declare")).to_contain_text(str(main))
        page.get_by_test_id("deck-declare").click()
    a.get_by_test_id("confirm-deck").click()
    expect_phase(a, "pregame")
    expect_phase(b, "pregame")


def checklist(a: Page, b: Page) -> None:
    for page in (a, b):
        page.get_by_test_id("checks-all-done").click()
    for page in (a, b):
        expect(page.get_by_test_id("checks-all-done")).to_have_count(0)


def rock_paper_scissors(a: Page, b: Page, winner: Page) -> None:
    """A physical result reported by the winner and confirmed by the other phone."""
    loser = b if winner is a else a
    winner.get_by_test_id("rps-report-me").click()
    loser.get_by_test_id("rps-confirm").click()


def choose_and_draw(a: Page, b: Page, chooser: Page, order: str = "first") -> None:
    """The chooser picks first/second; both say they drew 5; the duel starts."""
    chooser.get_by_test_id(f"choose-{order}").click()
    for page in (a, b):
        page.get_by_test_id("draw-5").click()
    expect_phase(a, "duel")
    expect_phase(b, "duel")


def start_duel(
    a: Page,
    b: Page,
    winner: Page | None = None,
    order: str = "first",
    decks: Callable[[Page, Page], None] = declare_decks,
) -> None:
    """Duel 1 from registration: decks (`decks`, the counts declared by default),
    checklist, rock-paper-scissors, choice and draw."""
    winner = winner or a
    decks(a, b)
    checklist(a, b)
    rock_paper_scissors(a, b, winner)
    choose_and_draw(a, b, winner, order)


def keypad(page: Page, amount: int | None, kind: str = "damage", target: str = "opp") -> None:
    """Enter an LP change on the keypad and propose it."""
    page.get_by_test_id(f"keypad-target-{target}").click()
    page.get_by_test_id(f"keypad-kind-{kind}").click()
    page.get_by_test_id("keypad-clear").click()
    if amount is not None:
        for digit in str(amount):
            page.get_by_test_id(f"keypad-digit-{digit}").click()
    page.get_by_test_id("propose").click()


def confirm_entry(page: Page) -> None:
    """Confirm the opponent's first pending entry; wait until the banner goes."""
    banner = page.get_by_test_id("confirm-banner")
    entry = banner.get_attribute("data-entry")
    banner.get_by_test_id("confirm-entry").click()
    expect(page.locator(f'[data-testid="confirm-banner"][data-entry="{entry}"]')).to_have_count(0)


def lp(page: Page, seat: str):
    return page.get_by_test_id(f"lp-{seat}")


def turn_player(page: Page) -> str:
    return page.get_by_test_id("turn-info").get_attribute("data-player") or ""


def end_turn(pages: dict[str, Page]) -> None:
    """The turn player (by seat letter in `pages`) ends the turn; wait for the next."""
    any_page = next(iter(pages.values()))
    info = any_page.get_by_test_id("turn-info")
    turn = int(info.get_attribute("data-turn") or "0")
    pages[turn_player(any_page)].get_by_test_id("end-turn").click()
    for page in pages.values():
        expect(page.locator(f'[data-testid="turn-info"][data-turn="{turn + 1}"]')).to_have_count(1)


def confirm_result(a: Page, b: Page, winner: str, duel: int) -> None:
    """Both phones show who won and confirm the duel result."""
    for page in (a, b):
        expect_phase(page, "duel_result")
        expect(page.get_by_test_id("duel-result")).to_contain_text(f"Duel {duel}")
        expect(page.get_by_test_id("duel-result")).to_contain_text(winner)
    for page in (a, b):
        page.get_by_test_id("result-confirm").click()


def between_duels(a: Page, b: Page) -> None:
    """Deck checks (R7.5) and ready on both phones: one tap each."""
    expect_phase(b, "between")
    for page in (a, b):
        expect_phase(page, "between")
        page.get_by_test_id("deck-check-ok").click()
        if page is a:
            expect(page.get_by_test_id("deck-checked")).to_be_visible()
            expect(page.get_by_test_id("ready-me")).to_be_visible()
    expect_phase(a, "pregame")
    expect_phase(b, "pregame")


def loser_chooses(a: Page, b: Page, loser: Page, order: str = "first") -> None:
    """R6.6: no rock-paper-scissors; the choice buttons are on the loser's phone only."""
    winner = b if loser is a else a
    checklist(a, b)
    expect(loser.get_by_test_id("choose-first")).to_be_visible()
    expect(loser.get_by_test_id("choose-second")).to_be_visible()
    expect(winner.get_by_test_id("chooser")).to_be_visible()
    expect(winner.get_by_test_id("choose-first")).to_have_count(0)
    expect(winner.get_by_test_id("choose-second")).to_have_count(0)
    for page in (a, b):
        expect(page.get_by_test_id("rps")).to_have_count(0)
    choose_and_draw(a, b, loser, order)
    for page in (a, b):
        expect(page.get_by_test_id("first-player")).to_have_count(0)


def play_match(
    a: Page,
    b: Page,
    winner: str,
    names: dict[str, str],
    decks: Callable[[Page, Page], None] = declare_decks,
) -> None:
    """A whole 2-0 match on two phones, from deck registration to the match's result, every
    step in the page: decks, checklist, rock-paper-scissors (won by `winner`, the seat letter,
    who goes first), LP entries proposed on one phone and confirmed on the other (R1.4: in
    duel 1 one each way), each duel's result and the match's confirmed by both (R7.4); duel 2
    chosen by duel 1's loser (R6.6). `names` are the seats' names as the pages show them;
    `decks` registers both decks (by default the counts declared and confirmed)."""
    pages = {"A": a, "B": b}
    win, lose = pages[winner], pages["B" if winner == "A" else "A"]
    start_duel(a, b, winner=win, order="first", decks=decks)
    for duel in (1, 2):
        if duel == 2:
            between_duels(a, b)
            loser_chooses(a, b, loser=lose, order="first")
        if duel == 1:
            keypad(lose, 1200)  # the loser's hit first, confirmed by the winner's phone
            confirm_entry(win)
        keypad(win, 8000)
        confirm_entry(lose)
        confirm_result(a, b, names[winner], duel)
    for page in (a, b):
        expect_phase(page, "match_over")
        expect(page.get_by_test_id("match-result")).to_contain_text(names[winner])


def sit_at_event(
    page: Page, server: str, event: dict, code: str, seat: str, name: str, player_id: str = ""
) -> None:
    """Take `seat` at an event table as a player scanning the table card (its seat's claim),
    typing the pairing's player ID where it has one."""
    from tests.staff_actions import seat_claim

    number = next(t["number"] for t in event["tables"] if t["code"] == code)
    page.goto(f"/t/{code}?seat={seat}&claim={seat_claim(server, event['slug'], number, seat)}")
    page.get_by_test_id("name-input").fill(name)
    if player_id:
        page.get_by_test_id("player-id-input").fill(player_id)
    page.get_by_test_id(f"take-seat-{seat}").click()
    expect(page.get_by_test_id("clock")).to_be_visible()


AXE = "/vendor/axe-core/axe.min.js"
AXE_TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]


def axe_violations(page: Page) -> list[str]:
    """axe-core's serious and critical violations on the page, one line each."""
    if not page.evaluate("typeof window.axe === 'object'"):
        page.add_script_tag(url=AXE)
    return page.evaluate(
        """async (tags) => (await axe.run(document, {runOnly: {type: 'tag', values: tags}}))
              .violations.filter(v => v.impact === 'serious' || v.impact === 'critical')
              .map(v => `${v.id}: ${v.help} @ ${v.nodes.map(n => n.target.join(' '))}`)""",
        AXE_TAGS,
    )
