"""A casual table's match length (R4.1) chosen on the new-table screen, and its clock that
starts with duel 1 (no step of its own for players to miss), said until then."""

from __future__ import annotations

from playwright.sync_api import Page, expect

from e2e.steps import join_by_code, start_duel, take_seat


def new_table(page: Page, length: str, custom: str | None = None) -> str:
    page.goto("/")
    page.get_by_test_id("match-length").select_option(length)
    if custom is not None:
        page.get_by_test_id("match-minutes-custom").fill(custom)
    page.get_by_test_id("new-table").click()
    expect(page.get_by_test_id("join-screen")).to_be_visible()
    code = page.get_by_test_id("table-code").inner_text().strip()
    take_seat(page, "A", "Yugi")
    return code


def test_the_creator_chooses_the_match_length(new_phone):
    a = new_phone()
    new_table(a, "50")
    expect(a.get_by_test_id("clock")).to_have_text("50:00")
    b = new_phone()
    expect(b.get_by_test_id("match-minutes-custom")).to_be_hidden()
    new_table(b, "custom", "25")
    expect(b.get_by_test_id("clock")).to_have_text("25:00")


def test_the_clock_starts_with_duel_1_and_says_so_until_then(new_phone):
    a, b = new_phone(), new_phone()
    code = new_table(a, "30")
    join_by_code(b, code)
    for page in (a, b):
        expect(page.get_by_test_id("clock")).to_have_text("30:00")
        expect(page.get_by_test_id("clock-with-duel")).to_have_text(
            "The match clock starts with the duel, once both players have drawn 5 cards."
        )
        expect(page.get_by_test_id("clock-start")).to_have_count(0)
    start_duel(a, b, winner=a, order="first")
    for page in (a, b):
        expect(page.get_by_test_id("clock")).to_have_attribute("data-status", "running")
        expect(page.get_by_test_id("clock-with-duel")).to_have_count(0)
        expect(page.get_by_test_id("clock-start")).to_have_count(0)
