"""Coin, die and counters (R1.5): one toss, the same face on both phones; a die roll likewise;
a counter and a token added on one phone show on the other; a spectator cannot toss."""

from __future__ import annotations

from playwright.sync_api import Page, expect

from e2e.steps import seat_both, start_duel

FACE = {"heads": "Heads", "tails": "Tails"}


def last_roll(page: Page, code: str) -> dict:
    """The newest coin or die result in the table's public state."""
    return page.request.get(f"/api/tables/{code}").json()["state"]["rolls"][-1]


def revealed(page: Page, roll: int, text: str) -> None:
    """The reveal overlay shows this result (after the neutral tumble) and the list has it."""
    result = page.get_by_test_id("roll-overlay-result")
    expect(result).to_have_attribute("data-roll", str(roll))
    expect(result).to_have_text(text)  # "?" while it tumbles, then the faces
    row = page.get_by_test_id("roll-row").first
    expect(row).to_have_attribute("data-roll", str(roll))
    expect(row.locator(".roll-result")).to_have_text(text)


def close_reveal(page: Page) -> None:
    """Tap the reveal away if it is still up (it also closes by itself after a few seconds)."""
    page.evaluate("document.querySelector('[data-testid=roll-overlay]')?.click()")


def test_coin_die_and_counters_on_both_phones(new_phone):
    a, b, watcher = new_phone(), new_phone(), new_phone()
    code = seat_both(a, b)
    watcher.goto(f"/t/{code}?watch")
    expect(watcher.get_by_test_id("role")).to_have_text("Spectator")

    # A coin toss on phone A: the server's face, on both phones and the spectator's.
    a.get_by_test_id("coin-toss").click()
    expect(b.get_by_test_id("roll-overlay")).to_be_visible()
    coin = last_roll(a, code)
    assert coin["kind"] == "coin" and coin["by"] == "A" and len(coin["results"]) == 1
    face = FACE[coin["results"][0]]
    for page in (a, b, watcher):
        revealed(page, coin["roll"], face)
        expect(page.get_by_test_id("roll-row").first).to_have_attribute(
            "data-results", coin["results"][0]
        )
    close_reveal(a)

    # Two dice on phone B.
    b.get_by_test_id("roll-count-2").click()
    expect(b.get_by_test_id("roll-count-2")).to_have_attribute("aria-checked", "true")
    b.get_by_test_id("die-roll").click()
    expect(a.get_by_test_id("roll-row").first).to_have_attribute("data-kind", "die")
    die = last_roll(b, code)
    assert die["kind"] == "die" and die["by"] == "B" and len(die["results"]) == 2
    assert all(1 <= n <= 6 for n in die["results"])
    text = " \u00b7 ".join(str(n) for n in die["results"])
    for page in (a, b, watcher):
        revealed(page, die["roll"], text)
        expect(page.get_by_test_id("roll-row")).to_have_count(2)

    for page in (a, b):
        close_reveal(page)
        expect(page.get_by_test_id("roll-overlay")).to_have_count(0)

    # The spectator has no toss, roll or counter control.
    for testid in ("coin-toss", "die-roll", "roll-count-1", "counter-add", "token-inc"):
        expect(watcher.get_by_test_id(testid)).to_have_count(0)

    # Counters belong to a duel: A adds a spell counter twice and a token; B sees them.
    start_duel(a, b)
    a.get_by_test_id("counter-name").fill("Spell Counter")
    a.get_by_test_id("counter-add").click()
    row = '[data-testid="counter-row"][data-seat="A"][data-name="Spell Counter"]'
    expect(b.locator(row).get_by_test_id("counter-value")).to_have_text("1")
    a.locator(row).get_by_test_id("counter-inc").click()
    a.get_by_test_id("token-inc").click()
    for page in (b, watcher):
        expect(page.locator(row).get_by_test_id("counter-value")).to_have_text("2")
        expect(page.get_by_test_id("token-count-A")).to_have_text("1")
    # B cannot change A's counters: no buttons on A's row on phone B.
    expect(b.locator(row).get_by_test_id("counter-inc")).to_have_count(0)
    a.locator(row).get_by_test_id("counter-clear").click()
    expect(b.locator(row)).to_have_count(0)
    expect(b.get_by_test_id("token-count-A")).to_have_text("1")
