"""A judge's tools in words (R7.1, R8): every answer on the judges' table page is the catalogue's
sentence, never a command's code; a table nobody sits at yet names its pairing's players; a
duel's result is set before it begins or between duels; a ruling that decides the match asks
first and takes the note the players read; the floor card says at once who won the match."""

from __future__ import annotations

import re
import uuid

from playwright.sync_api import Page, expect

from e2e.steps import sit_at_event
from tests.staff_actions import PASSWORD, Staff, create_organiser

LAPTOP = {"viewport": {"width": 1280, "height": 800}, "is_mobile": False, "has_touch": False}
CODES = re.compile(r"result\.set|penalty\.record|clock\.\w+|judge\.\w+")


def judge_desk(new_context, live_server: str, locale: str = "en-GB") -> tuple[Page, Staff, dict]:
    """An event of 2 paired tables with its round started, and its judge's floor page."""
    suffix = uuid.uuid4().hex[:6]
    organiser, judge = f"org{suffix}", f"judge{suffix}"
    create_organiser(live_server, organiser)
    staff = Staff(live_server).login(organiser)
    event = staff.create_event("Spring Cup", 2)
    staff.add_judge(event["id"], judge)
    staff.pair_by_hand(event, {1: ("Yugi", "Kaiba"), 2: ("Mai", "Joey")})
    status, body = staff.request("POST", f"/api/events/{event['id']}/round/start", {})
    assert status == 200, body
    desk = new_context(**LAPTOP, locale=locale).new_page()
    desk.goto("/judge")
    desk.get_by_test_id("login-user").fill(judge)
    desk.get_by_test_id("login-pass").fill(PASSWORD)
    desk.get_by_test_id("login-go").click()
    expect(desk.get_by_test_id("floor-table-1")).to_be_visible()
    return desk, staff, event


def test_a_judges_answers_are_worded_and_match_rulings_ask_first(
    live_server, new_context, script_errors
):
    script_errors.allow(r"/api/auth/me")  # the judges' page asks whether it is logged in yet
    desk, _staff, _event = judge_desk(new_context, live_server)
    card = desk.get_by_test_id("floor-table-1")
    card.click()
    toast = desk.get_by_test_id("judge-toast")

    # Nobody sits yet: the pairing's players, marked as not seated (not "A — vs B —").
    expect(desk.get_by_test_id("judge-name-A")).to_have_text("A Yugi (not seated)")
    expect(desk.get_by_test_id("judge-name-B")).to_have_text("B Kaiba (not seated)")

    # Duel 1 decided before it begins (a player late for it), in words.
    expect(desk.get_by_test_id("result-duel")).to_have_value("1")
    desk.get_by_test_id("result-winner").select_option("A")
    desk.get_by_test_id("result-go").click()
    expect(toast).to_have_text("Duel result set")
    expect(toast).to_have_class(re.compile(r"\bok\b"))
    # The form follows the table to the next duel; a recorded duel is refused in words.
    expect(desk.get_by_test_id("result-duel")).to_have_value("2")
    desk.get_by_test_id("result-duel").fill("1")
    desk.get_by_test_id("result-go").click()
    expect(toast).to_have_class(re.compile(r"\bbad\b"))
    expect(toast).to_contain_text("Refused")
    assert not CODES.search(toast.inner_text()), toast.inner_text()

    # Setting the match winner asks for the note first, then asks to confirm.
    desk.get_by_test_id("match-winner").select_option("A")
    desk.get_by_test_id("match-go").click()
    expect(toast).to_have_text("Write the ruling's note first: the players read it.")
    expect(desk.get_by_test_id("result-note")).to_be_focused()
    expect(desk.get_by_test_id("ruling-confirm")).to_be_hidden()
    desk.get_by_test_id("result-note").fill("B did not come back after duel 1")
    desk.get_by_test_id("match-go").click()
    expect(desk.get_by_test_id("ruling-confirm-text")).to_have_text(
        "Set the match winner: A Yugi (not seated)? This ends the match."
    )
    desk.get_by_test_id("ruling-no").click()
    expect(desk.get_by_test_id("ruling-confirm")).to_be_hidden()
    expect(desk.get_by_test_id("judge-log")).not_to_contain_text("match.decided")
    desk.get_by_test_id("match-go").click()
    desk.get_by_test_id("ruling-yes").click()
    expect(toast).to_have_text("Match result set: the match is over")
    log = desk.get_by_test_id("judge-log")
    expect(log).to_contain_text("B did not come back after duel 1")

    # The floor card says who won, at once.
    desk.get_by_test_id("back-to-floor").click()
    card = desk.get_by_test_id("floor-table-1")
    expect(card.get_by_test_id("floor-score")).to_have_text("1-0")
    expect(card.get_by_test_id("floor-phase")).to_have_text(
        "Match over: Yugi wins (judge's decision)"
    )

    # A match-loss penalty asks first too, with its note.
    desk.get_by_test_id("floor-table-2").click()
    expect(desk.get_by_test_id("judge-name-A")).to_contain_text("Mai")
    desk.get_by_test_id("penalty-seat").select_option("B")
    desk.get_by_test_id("penalty-level").select_option("match_loss")
    desk.get_by_test_id("penalty-infraction").select_option("tardiness")
    desk.get_by_test_id("penalty-go").click()
    expect(desk.get_by_test_id("ruling-confirm")).to_be_hidden()
    desk.get_by_test_id("penalty-note").fill("20 minutes late")
    desk.get_by_test_id("penalty-go").click()
    expect(desk.get_by_test_id("ruling-confirm-text")).to_have_text(
        "Match loss for B Joey (not seated)? This ends the match."
    )
    desk.get_by_test_id("ruling-yes").click()
    expect(toast).to_have_text("Penalty recorded")
    desk.get_by_test_id("back-to-floor").click()
    expect(desk.get_by_test_id("floor-table-2").get_by_test_id("floor-phase")).to_have_text(
        "Match over: Mai wins (penalty: match loss)"
    )


def test_a_judges_answers_are_worded_in_chinese(live_server, new_context, script_errors):
    script_errors.allow(r"/api/auth/me")
    desk, _staff, _event = judge_desk(new_context, live_server, locale="zh-HK")
    desk.get_by_test_id("floor-table-1").click()
    desk.get_by_test_id("clock-extend").click()
    toast = desk.get_by_test_id("judge-toast")
    expect(toast).to_have_text("已延長時間")
    desk.get_by_test_id("clock-start").click()
    expect(toast).not_to_have_text("已延長時間")
    assert not CODES.search(toast.inner_text()), toast.inner_text()


def test_a_judge_call_shows_on_the_board_until_answered_then_the_judges_words(
    live_server, new_context, script_errors
):
    """R7.1: both phones see the call on the board (not only in the Judge card below), then
    who is coming, then the ruling's note the judge wrote, until a player has read it."""
    script_errors.allow(r"/api/auth/me")
    desk, _staff, event = judge_desk(new_context, live_server)
    code = next(t["code"] for t in event["tables"] if t["number"] == 1)
    a, b = new_context().new_page(), new_context().new_page()
    sit_at_event(a, live_server, event, code, "A", "Yugi")
    sit_at_event(b, live_server, event, code, "B", "Kaiba")
    for page in (a, b):
        expect(page.get_by_test_id("board-call")).to_have_count(0)

    a.get_by_test_id("call-judge").click()
    a.get_by_test_id("judge-send").click()
    for page in (a, b):
        call = page.locator(".board").get_by_test_id("board-call")
        expect(call).to_have_text("Yugi called a judge: waiting")

    desk.get_by_test_id("floor-table-1").click()
    judge = desk.get_by_test_id("judge-table-head")
    expect(judge).to_contain_text("Yugi")
    desk.get_by_test_id("ack-1").click()
    for page in (a, b):
        expect(page.get_by_test_id("board-call")).to_have_attribute("data-status", "acknowledged")
        expect(page.get_by_test_id("board-call")).to_contain_text("is coming to this table")

    desk.get_by_test_id("call-note-1").fill("The chain resolves backwards: the trap first")
    desk.get_by_test_id("close-1").click()
    expect(desk.get_by_test_id("judge-toast")).to_have_text(
        "Call answered: the players read your note"
    )
    for page in (a, b):
        expect(page.get_by_test_id("board-ruling")).to_contain_text(
            "ruling: The chain resolves backwards: the trap first"
        )
    a.get_by_test_id("board-ruling-ok").click()
    expect(a.get_by_test_id("board-call")).to_have_count(0)
    expect(b.get_by_test_id("board-ruling")).to_be_visible()  # each player reads it
