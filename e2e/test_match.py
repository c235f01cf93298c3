"""Best of three with deck counts (R3.1, R6.6, R6.8, R7.3): a full match that goes 1-1 into
duel 3. The loser of a duel chooses first or second in the next one, on that phone only; a side
deck exchange that changes the main deck's count is refused with R6.8's reason; both phones
confirm every duel result and the match result."""

from __future__ import annotations

from playwright.sync_api import Page, expect

from e2e.steps import (
    between_duels,
    confirm_entry,
    confirm_result,
    expect_phase,
    keypad,
    loser_chooses,
    lp,
    seat_both,
    start_duel,
)


def log(page: Page, code: str) -> list[dict]:
    """The table's event log, through the page's own HTTP API."""
    body = page.request.get(f"/api/tables/{code}/log").json()
    return body if isinstance(body, list) else body["events"]


def test_best_of_three_goes_to_duel_three(new_phone):
    a, b = new_phone(), new_phone()
    code = seat_both(a, b)

    # Duel 1: A wins rock-paper-scissors, goes first; 8000 damage to B, confirmed by B.
    start_duel(a, b, winner=a, order="first")
    expect(a.get_by_test_id("duel-no")).to_have_text("Duel 1")
    expect(a.get_by_test_id("turn-info")).to_have_attribute("data-player", "A")
    keypad(a, 8000)
    confirm_entry(b)
    expect(lp(a, "B")).to_have_text("0")
    confirm_result(a, b, "Yugi", 1)
    for page in (a, b):
        expect(page.get_by_test_id("wins-A")).to_have_text("\u25cf\u25cb")
        expect(page.get_by_test_id("wins-B")).to_have_text("\u25cb\u25cb")

    # Between duels, R6.8: two cards in and one out of the main deck is refused with the reason.
    expect_phase(a, "between")
    a.get_by_test_id("side-main-in").fill("2")
    a.get_by_test_id("side-main-out").fill("1")
    a.get_by_test_id("side-submit").click()
    refusal = a.locator('[data-testid="toast"][data-code="count_changed"]')
    expect(refusal).to_be_visible()
    expect(refusal).to_contain_text("R6.8")
    expect(refusal).to_contain_text("main deck must keep 40 cards")
    expect(refusal).to_have_attribute("data-kind", "error")
    # Two in, two out keeps the count: recorded (and the form is cleared).
    a.get_by_test_id("side-main-out").fill("2")
    a.get_by_test_id("side-submit").click()
    expect(a.get_by_test_id("toast").filter(has_text="exchange recorded")).to_be_visible()
    expect(a.get_by_test_id("side-main-in")).to_have_value("")
    expect(a.get_by_test_id("deck-current")).to_contain_text("main 40")
    exchanges = [e["data"] for e in log(a, code) if e["type"] == "side.exchanged"]
    assert [x["main"] for x in exchanges] == [{"in": 2, "out": 2}]
    between_duels(a, b)

    # Duel 2: B lost duel 1, so B chooses (and goes first); A concedes.
    expect(a.get_by_test_id("duel-no")).to_have_text("Duel 2")
    loser_chooses(a, b, loser=b, order="first")
    expect(b.get_by_test_id("turn-info")).to_have_attribute("data-player", "B")
    a.get_by_test_id("concede").click()
    a.get_by_test_id("concede-confirm").click()
    confirm_result(a, b, "Kaiba", 2)
    for page in (a, b):
        expect(page.get_by_test_id("wins-A")).to_have_text("\u25cf\u25cb")
        expect(page.get_by_test_id("wins-B")).to_have_text("\u25cf\u25cb")
    between_duels(a, b)

    # Duel 3: A lost duel 2 and chooses to go second; B sets A's LP to 0, confirmed by A.
    expect(b.get_by_test_id("duel-no")).to_have_text("Duel 3")
    loser_chooses(a, b, loser=a, order="second")
    expect(a.get_by_test_id("turn-info")).to_have_attribute("data-player", "B")
    for page in (a, b):
        expect(lp(page, "A")).to_have_text("8000")  # LP start again at 8000 (R3.2)
        expect(lp(page, "B")).to_have_text("8000")
    keypad(b, 0, kind="set", target="opp")
    confirm_entry(a)
    # Duel 3 decides the match: each phone's confirmation names the match result, winner first,
    # and confirms it as well (R7.4: both seats confirm the duel and the match).
    for page in (a, b):
        expect(page.get_by_test_id("result-confirm")).to_have_text(
            "Confirm: Kaiba wins the match 2\u20131"
        )
    confirm_result(a, b, "Kaiba", 3)
    for page in (a, b):
        expect_phase(page, "match_over")
        expect(page.get_by_test_id("match-new")).to_be_visible()
        expect(page.get_by_test_id("match-result")).to_contain_text("Kaiba")
        expect(page.get_by_test_id("match-result")).to_contain_text("1\u20132")
    match = a.request.get(f"/api/tables/{code}").json()["state"]["match"]
    assert match["confirmed"] == {"A": True, "B": True}
