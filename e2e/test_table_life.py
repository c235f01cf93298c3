"""Small things a player meets at the table: a judge call at a casual table (which has no judge)
says what the players can do instead of "waiting"; the match won in an Extra Duel says so rather
than "1–1"; a phone closing is a normal close in the server's log, not a traceback."""

from __future__ import annotations

from playwright.sync_api import expect

from e2e.steps import create_on_phone, seat_both


def test_a_judge_call_at_a_casual_table_says_what_the_players_can_do(new_phone):
    a, b = new_phone(), new_phone()
    seat_both(a, b)
    a.get_by_test_id("call-judge").click()
    a.get_by_test_id("judge-reason").fill("card ruling")
    a.get_by_test_id("judge-send").click()
    for page in (a, b):
        status = page.get_by_test_id("judge-status")
        expect(status).to_have_attribute("data-casual", "true")
        expect(status).to_contain_text("no judge")
        expect(status).to_contain_text("settle it together")
        expect(status).not_to_contain_text("waiting")


def test_a_match_won_in_the_extra_duel_says_so(new_phone):
    page = new_phone()
    page.goto("/")
    expect(page.get_by_test_id("home-screen")).to_be_visible()
    texts = page.evaluate(
        """async () => {
            const {matchText} = await import('/js/panels/kit.js');
            const s = {seats: {A: {name: 'Yugi'}, B: {name: 'Kaiba'}}, wins: {A: 1, B: 1}};
            return [matchText(s, {winner: 'A', reason: 'extra_duel'}),
                    matchText({...s, wins: {A: 2, B: 1}}, {winner: 'A', reason: 'wins'})];
        }"""
    )
    assert texts == [
        "Yugi wins the match in the extra duel (1\u20131 before it)",
        "Yugi wins the match 2\u20131",
    ]


def test_a_phone_closing_is_no_error_in_the_log(new_context, live_server):
    context = new_context()
    page = context.new_page()
    code = create_on_phone(page)
    before = live_server.read_log()
    page.wait_for_timeout(500)
    context.close()  # the phone goes: its socket closes
    viewer = new_context().new_page()
    viewer.goto(f"/t/{code}?watch")
    expect(viewer.get_by_test_id("table-screen")).to_be_visible()
    viewer.wait_for_timeout(1500)
    added = live_server.read_log()[len(before) :]
    assert "writer failed" not in added and "Traceback" not in added, added
