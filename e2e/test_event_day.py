"""Running an event on the day, in browsers against a real server: rounds that players cannot
start early and that are not ended by mistake."""

from __future__ import annotations

import re
import uuid

from playwright.sync_api import Browser, Page, expect

from e2e.steps import checklist, declare_decks, sit_at_event
from tests.staff_actions import PASSWORD, Staff, create_organiser

PHONE = {"viewport": {"width": 390, "height": 844}, "is_mobile": True, "has_touch": True}
LAPTOP = {"viewport": {"width": 1280, "height": 800}}


def login(page: Page, username: str) -> None:
    page.get_by_test_id("login-user").fill(username)
    page.get_by_test_id("login-pass").fill(PASSWORD)
    page.get_by_test_id("login-go").click()


AXE = "/vendor/axe-core/axe.min.js"


def contrast_violations(page: Page, selector: str) -> list[str]:
    """axe-core's colour-contrast rule (4.5:1 for text) on the elements matching `selector`."""
    if not page.evaluate("typeof window.axe === 'object'"):
        page.add_script_tag(url=AXE)
    return page.evaluate(
        """async (sel) => (await axe.run(sel,
                {runOnly: {type: 'rule', values: ['color-contrast']}}))
              .violations.flatMap(v => v.nodes.map(n =>
                `${n.target.join(' ')}: ${n.any.map(a => a.message).join(' ')}`))""",
        selector,
    )


def test_players_wait_for_the_round_and_end_round_confirms(live_server, browser: Browser):
    suffix = uuid.uuid4().hex[:6]
    organiser = f"org{suffix}"
    create_organiser(live_server, organiser)
    staff = Staff(live_server).login(organiser)
    ev = staff.create_event("Spring Cup", 3)
    staff.pair_by_hand(ev, {1: ("Yugi", "Kaiba")})  # a round starts once paired
    codes = [t["code"] for t in ev["tables"]]
    contexts = [browser.new_context(base_url=live_server, **LAPTOP)]
    contexts += [browser.new_context(base_url=live_server, **PHONE) for _ in range(2)]
    org, phone_a, phone_b = (c.new_page() for c in contexts)
    try:
        sit_at_event(phone_a, live_server, ev, codes[0], "A", "Yugi")
        sit_at_event(phone_b, live_server, ev, codes[0], "B", "Kaiba")
        # Players cannot start an event table's clock: they wait for the round.
        for phone in (phone_a, phone_b):
            expect(phone.get_by_test_id("clock-wait-round")).to_contain_text(
                "Waiting for the round to start"
            )
            expect(phone.get_by_test_id("clock-start")).to_have_count(0)
        # Decks and the checklist may come first; rock-paper-scissors waits, round named.
        declare_decks(phone_a, phone_b)
        checklist(phone_a, phone_b)
        for phone in (phone_a, phone_b):
            expect(phone.get_by_test_id("rps-wait-round")).to_have_text(
                "Round 1 starts soon: rock-paper-scissors opens when it starts."
            )
            expect(phone.get_by_test_id("rps-rock")).to_have_count(0)

        org.goto(f"/organiser/e/{ev['id']}")
        login(org, organiser)
        org.get_by_test_id("round-start").click()
        expect(org.get_by_test_id("round-started")).to_be_visible()
        for phone in (phone_a, phone_b):
            expect(phone.get_by_test_id("clock-wait-round")).to_have_count(0)
            expect(phone.get_by_test_id("rps-wait-round")).to_have_count(0)

        # End round asks first, naming the tables still playing; cancelling changes nothing.
        org.get_by_test_id("round-end").click()
        dialog = org.get_by_test_id("end-round-dialog")
        expect(dialog).to_be_visible()
        expect(dialog.locator("[data-testid^=end-round-table-]")).to_have_count(3)
        expect(dialog.get_by_test_id("end-round-table-1")).to_contain_text("Yugi vs Kaiba")
        assert "null" not in dialog.inner_text()
        org.get_by_test_id("end-round-cancel").click()
        expect(dialog).to_have_count(0)
        expect(org.get_by_test_id("round-end")).to_be_visible()
        expect(phone_a.get_by_test_id("round-ended")).to_have_count(0)

        org.get_by_test_id("round-end").click()
        org.get_by_test_id("end-round-confirm").click()
        # No next round while tables have no result: the page names them instead, each with
        # a judge's result to end it (it offers no action the server would refuse).
        expect(org.get_by_test_id("cycle-step")).to_have_attribute("data-step", "results")
        expect(org.get_by_test_id("cycle-waiting").locator("li")).to_have_count(3)
        expect(org.get_by_test_id("round-next")).to_have_count(0)
        expect(org.get_by_test_id("org-msg")).to_contain_text("3 tables still playing")
        # Their phones show the round's end.
        for phone in (phone_a, phone_b):
            expect(phone.get_by_test_id("round-ended")).to_contain_text("Round 1 has ended")
    finally:
        for c in contexts:
            c.close()


def test_the_opponents_phone_never_shows_a_calls_reason(new_phone):
    from e2e.steps import seat_both

    a, b = new_phone(), new_phone()
    seat_both(a, b)
    reason = "opponent shuffles my deck badly"
    a.get_by_test_id("call-judge").click()
    a.get_by_test_id("judge-reason").fill(reason)
    a.get_by_test_id("judge-send").click()
    expect(b.get_by_test_id("judge-status")).to_have_attribute("data-status", "open")
    expect(a.get_by_test_id("judge-status")).to_contain_text(reason)
    b.wait_for_timeout(500)
    assert reason not in b.locator("body").inner_text()
    assert reason not in b.content()
    # Nor after a reload (the state as the server sends it on hello).
    b.reload()
    expect(b.get_by_test_id("judge-status")).to_have_attribute("data-status", "open")
    assert reason not in b.content()


# Counts the judge page's tones and vibrations: the page's AudioContext and vibrate, wrapped.
ALARM_SPY = """
window.__tones = 0;
window.__vibrations = [];
const Real = window.AudioContext || window.webkitAudioContext;
if (Real) {
  window.AudioContext = class extends Real {
    createOscillator() {
      window.__tones += 1;
      return super.createOscillator();
    }
  };
}
navigator.vibrate = (pattern) => {
  window.__vibrations.push(pattern);
  return true;
};
"""


def test_a_call_rings_on_the_judges_page_and_a_dispute_is_one_alert(live_server, browser):
    from e2e.steps import keypad, start_duel

    suffix = uuid.uuid4().hex[:6]
    organiser, judge = f"org{suffix}", f"judge{suffix}"
    create_organiser(live_server, organiser)
    staff = Staff(live_server).login(organiser)
    ev = staff.create_event("Ring Cup", 2)
    staff.add_judge(ev["id"], judge)
    staff.pair_by_hand(ev, {1: ("Yugi", "Kaiba")})
    assert staff.request("POST", f"/api/events/{ev['id']}/round/start", {})[0] == 200
    code = ev["tables"][0]["code"]
    contexts = [browser.new_context(base_url=live_server, **LAPTOP)]
    contexts += [browser.new_context(base_url=live_server, **PHONE) for _ in range(2)]
    jdg, phone_a, phone_b = (c.new_page() for c in contexts)
    jdg.add_init_script(ALARM_SPY)
    try:
        jdg.goto("/judge")
        login(jdg, judge)
        table1 = jdg.get_by_test_id("floor-table-1")
        expect(table1).to_be_visible()
        assert not jdg.title().startswith("(")
        sit_at_event(phone_a, live_server, ev, code, "A", "Yugi")
        sit_at_event(phone_b, live_server, ev, code, "B", "Kaiba")
        start_duel(phone_a, phone_b)
        assert jdg.evaluate("window.__tones") == 0

        # A call: the judge's page sounds, vibrates and counts it in the title.
        phone_a.get_by_test_id("call-judge").click()
        phone_a.get_by_test_id("judge-reason").fill("ruling please")
        phone_a.get_by_test_id("judge-send").click()
        expect(table1.get_by_test_id("alert-judge_call")).to_be_visible()
        jdg.wait_for_function("() => window.__tones > 0")  # a function: the CSP refuses eval
        assert jdg.evaluate("window.__vibrations.length") == 1
        expect(jdg).to_have_title(re.compile(r"^\(1\) "))

        # A rejected LP entry: one alert (its dispute), in words; it rings once more.
        tones = jdg.evaluate("window.__tones")
        keypad(phone_a, 1800)
        phone_b.get_by_test_id("reject-entry").click()
        phone_b.get_by_test_id("reject-send").click()
        dispute = table1.get_by_test_id("alert-dispute")
        expect(dispute).to_have_count(1)
        expect(table1.get_by_test_id("alert-judge_call")).to_have_count(1)  # only the player's
        expect(dispute.get_by_test_id("dispute-line")).to_contain_text(
            "Yugi proposed 1800 damage to Kaiba, Kaiba rejected"
        )
        expect(jdg).to_have_title(re.compile(r"^\(2\) "))
        for scheme in ("dark", "light"):  # the alert chips are readable in both themes
            jdg.emulate_media(color_scheme=scheme)
            assert contrast_violations(jdg, ".fl-alerts") == [], scheme
        jdg.wait_for_function("(n) => window.__tones > n", arg=tones)
        assert jdg.evaluate("window.__vibrations.length") == 2

        # Settled: the alert goes, and with it its call.
        table1.click()
        line = jdg.locator("[data-testid^=dispute-line-]")
        expect(line).to_contain_text("Yugi proposed 1800 damage to Kaiba")
        jdg.locator("[data-testid^=settle-void-]").click()
        expect(line).to_have_count(0)
        jdg.get_by_test_id("back-to-floor").click()
        expect(table1.get_by_test_id("alert-dispute")).to_have_count(0)
        expect(table1.get_by_test_id("alert-judge_call")).to_have_count(1)
        expect(jdg).to_have_title(re.compile(r"^\(1\) "))
    finally:
        for c in contexts:
            c.close()


def test_the_organiser_reissues_the_table_cards_and_the_printed_ones_seat_nobody(
    live_server, browser: Browser
):
    """A card lost or photographed: the organiser's page re-issues the cards after a dialog
    that says what it does; cancelled, nothing changes; confirmed, the printed cards' seat
    links seat nobody and the new cards' do."""
    from tests.staff_actions import seat_claim

    suffix = uuid.uuid4().hex[:6]
    organiser = f"org{suffix}"
    create_organiser(live_server, organiser)
    staff = Staff(live_server).login(organiser)
    ev = staff.create_event("Card Cup", 2)
    staff.pair_by_hand(ev)
    code, slug = ev["tables"][0]["code"], ev["slug"]
    printed = f"/s/{slug}/1/A?c={seat_claim(live_server, slug, 1, 'A')}"
    context = browser.new_context(base_url=live_server, **LAPTOP)
    org = context.new_page()
    refused: list[str] = []
    org.on(
        "response",
        lambda r: (
            refused.append(f"{r.url} {r.status}")
            if "/api/" in r.url and r.request.method != "GET" and r.status >= 400
            else None
        ),
    )

    def seats(link: str) -> str:
        """Where a card's seat link sends a phone."""
        r = org.request.get(link, max_redirects=0)
        assert r.status == 302, r.status
        return r.headers["location"]

    try:
        assert seats(printed).startswith(f"/t/{code}?seat=A")
        org.goto(f"/organiser/e/{ev['id']}")
        login(org, organiser)
        org.get_by_test_id("cards-reissue").click()
        dialog = org.get_by_test_id("reissue-dialog")
        expect(dialog).to_be_visible()
        expect(dialog).to_contain_text("Re-issue the table cards?")
        expect(dialog).to_contain_text("the cards printed so far will seat nobody")
        org.get_by_test_id("reissue-cancel").click()
        expect(dialog).to_have_count(0)
        assert seats(printed).startswith(f"/t/{code}?seat=A")  # cancelled: nothing changed

        org.get_by_test_id("cards-reissue").click()
        org.get_by_test_id("reissue-confirm").click()
        expect(dialog).to_have_count(0)
        expect(org.get_by_test_id("org-msg")).to_contain_text("Table cards re-issued (issue 2)")
        assert seats(printed) == "/?card=invalid"
        new = f"/s/{slug}/1/A?c={seat_claim(live_server, slug, 1, 'A', issue=2)}"
        assert seats(new).startswith(f"/t/{code}?seat=A")
        # In zh-Hant, the same button and dialog in the catalogue's words.
        org.locator(".staff-lang").select_option("zh-Hant")
        expect(org.get_by_test_id("cards-reissue")).to_have_text("重新發行桌卡")
        assert refused == []
    finally:
        context.close()
