"""A tap is not lost to an update that comes while the finger is down.

A panel is drawn again whenever what it shows changes, which replaces its buttons. A button
replaced between the finger's down and up never gets the click: the opponent's move, arriving
in that moment, would swallow the player's tap (seen as a checklist tap that never counted while
the other phone's checks came in). So a panel being pressed keeps its buttons until the tap's
click is handled, and shows what came meanwhile right after (`web/js/panels/kit.js`,
`PanelHost.press`)."""

from __future__ import annotations

from playwright.sync_api import Page, expect

from e2e.steps import declare_decks, seat_both
from e2e.test_judge_words import judge_desk


def opponent_checks_arrived(page: Page, code: str, seat: str, count: int) -> None:
    """The phone's store holds the other seat's `count` checks (its saved copy, written from the
    store half a second after each update), whatever the screen shows."""
    page.wait_for_function(
        """([key, seat, count]) => {
            const saved = JSON.parse(localStorage.getItem(key) || "null");
            const checks = saved?.state?.pregame?.checks?.[seat] || [];
            return checks.length >= count;
        }""",
        arg=[f"dt.state.{code}", seat, count],
    )


def still_box(page: Page, testid: str) -> tuple[float, float]:
    """Where a finger lands on the element once the page has stopped moving (the table scrolls
    smoothly to its phase; a box read mid-scroll puts the finger beside the button): the middle
    of its box, unchanged over five frames."""
    element = page.get_by_test_id(testid)
    element.evaluate(
        """el => new Promise(done => {
            let last = "", still = 0;
            const look = () => {
                const r = el.getBoundingClientRect();
                const now = `${r.x},${r.y},${r.width},${r.height}`;
                still = now === last ? still + 1 : 0;
                last = now;
                if (still >= 5) done(); else requestAnimationFrame(look);
            };
            look();
        })"""
    )
    box = element.bounding_box()
    assert box
    return box["x"] + box["width"] / 2, box["y"] + box["height"] / 2


def test_a_tap_held_while_the_opponents_checks_arrive_still_counts(new_phone):
    a, b = new_phone(), new_phone()
    code = seat_both(a, b)
    declare_decks(a, b)
    items = len(b.locator("[data-testid^=check-]").all())
    assert items == 4  # R6.1-R6.4

    # B's finger comes down on "all done"; before it lifts, A's checks reach B's phone.
    b.mouse.move(*still_box(b, "checks-all-done"))
    b.mouse.down()
    a.get_by_test_id("checks-all-done").click()
    expect(a.get_by_test_id("checks-all-done")).to_have_count(0)
    opponent_checks_arrived(b, code, "A", items)
    # The panel under the finger was not drawn again meanwhile: the same button, still there.
    expect(b.get_by_test_id("checks-A")).not_to_contain_text(f"{items} of {items} done")
    b.mouse.up()

    # The tap counted, and the panel shows what came while the finger was down.
    expect(b.get_by_test_id("checks-all-done")).to_have_count(0)
    expect(a.get_by_test_id("checks-B")).to_contain_text(f"{items} of {items} done")
    expect(b.get_by_test_id("checks-A")).to_contain_text(f"{items} of {items} done")


def test_a_finger_resting_on_a_panel_does_not_hide_the_opponents_move_for_long(new_phone):
    """A press that never ends in a click (a finger resting on the screen) keeps its panel at
    most a few seconds (`HOLD_MS`)."""
    a, b = new_phone(), new_phone()
    code = seat_both(a, b)
    declare_decks(a, b)
    b.mouse.move(*still_box(b, "checks-all-done"))
    b.mouse.down()
    a.get_by_test_id("checks-all-done").click()
    opponent_checks_arrived(b, code, "A", 4)
    expect(b.get_by_test_id("checks-A")).to_contain_text("4 of 4 done", timeout=6000)
    b.mouse.move(0, 0)  # the finger slides away: no click
    b.mouse.up()
    expect(b.get_by_test_id("checks-all-done")).to_have_count(1)  # nothing was tapped


def test_a_judges_click_on_a_table_is_not_lost_to_the_floors_redraw(
    live_server, new_context, script_errors
):
    """The judges' floor draws its table cards again every second: a click held across one of
    those redraws still opens the table (`web/js/judge/floor.js`, `holdWhilePressed` in
    `web/js/dom.js`)."""
    script_errors.allow(r"/api/auth/me")  # the judges' page asks whether it is logged in yet
    page, _staff, _event = judge_desk(new_context, live_server)
    page.mouse.move(*still_box(page, "floor-table-1"))
    page.mouse.down()
    page.wait_for_timeout(1500)  # a press as long as a redraw's period and a half
    page.mouse.up()
    expect(page.get_by_test_id("judge-log")).to_be_visible()  # the table opened
