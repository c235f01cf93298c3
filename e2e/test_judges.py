"""An organiser, two phones and a judge in four browser contexts, against a real server.

The organiser creates an event with 3 tables, adds a judge and starts the round; two phones
take the seats of table 2 by its seat links and declare their decks; seat A calls a judge; the
judge's floor view shows the call within a second; the judge opens the table, takes the call
and extends time by 2 minutes, and both phones show the longer clock.
"""

from __future__ import annotations

import re
import time
import uuid

from playwright.sync_api import Browser, Page, expect

from tests.staff_actions import PASSWORD, create_organiser

PHONE = {"viewport": {"width": 390, "height": 844}, "is_mobile": True, "has_touch": True}
LAPTOP = {"viewport": {"width": 1280, "height": 800}}


def seconds(text: str) -> int:
    """m:ss or h:mm:ss in a clock's text, as seconds."""
    m = re.search(r"(\d+):(\d\d)(?::(\d\d))?", text)
    assert m, text
    if m.group(3) is not None:
        return int(m.group(1)) * 3600 + int(m.group(2)) * 60 + int(m.group(3))
    return int(m.group(1)) * 60 + int(m.group(2))


def login(page: Page, username: str) -> None:
    page.get_by_test_id("login-user").fill(username)
    page.get_by_test_id("login-pass").fill(PASSWORD)
    page.get_by_test_id("login-go").click()


def take_seat(page: Page, url: str, seat: str, name: str) -> None:
    page.goto(url)
    page.get_by_test_id("name-input").fill(name)
    # An event under the seed's rule set asks every player for a player ID (R1.1).
    expect(page.get_by_test_id("player-id-input")).to_have_attribute("required", "")
    page.get_by_test_id("player-id-input").fill(f"20260{'1' if seat == 'A' else '2'}")
    page.get_by_test_id(f"take-seat-{seat}").click()
    expect(page.get_by_test_id("clock")).to_be_visible()


def declare_deck(page: Page) -> None:
    page.get_by_test_id("deck-main").fill("40")
    page.get_by_test_id("deck-declare").click()


def test_organiser_phones_and_judge(live_server, browser: Browser):
    suffix = uuid.uuid4().hex[:6]
    organiser, judge = f"org{suffix}", f"judge{suffix}"
    create_organiser(live_server, organiser)
    contexts = [browser.new_context(base_url=live_server, **LAPTOP) for _ in range(2)]
    contexts += [browser.new_context(base_url=live_server, **PHONE) for _ in range(2)]
    org, jdg, phone_a, phone_b = (c.new_page() for c in contexts)
    try:
        # The organiser: log in, create the event, add a judge, start the round.
        org.goto("/organiser")
        login(org, organiser)
        org.get_by_test_id("ev-name").fill("Winter Cup")
        org.get_by_test_id("ev-tables").fill("3")
        org.get_by_test_id("ev-create").click()
        expect(org.get_by_test_id("event-title")).to_contain_text("Winter Cup")
        expect(org.locator("[data-testid^=table-row-]")).to_have_count(3)
        org.get_by_test_id("judge-user").fill(judge)
        org.get_by_test_id("judge-pass").fill(PASSWORD)
        org.get_by_test_id("judge-add").click()
        expect(org.get_by_test_id("staff-list")).to_contain_text(judge)
        # The round's pairing first: a round starts only once paired.
        org.get_by_test_id("pairings-text").fill("1,Mai,,Joey,\n2,Yugi,,Kaiba,\n3,Rex,,Weevil,")
        org.get_by_test_id("pairings-save").click()
        expect(org.get_by_test_id("table-row-2")).to_contain_text("Yugi")
        org.get_by_test_id("round-start").click()
        expect(org.get_by_test_id("round-started")).to_be_visible()
        seat_a = org.get_by_test_id("seat-link-2-A").get_attribute("href")
        seat_b = org.get_by_test_id("seat-link-2-B").get_attribute("href")
        assert seat_a and seat_b

        # The judge: log in; the only event opens on the floor view.
        jdg.goto("/judge")
        login(jdg, judge)
        table2 = jdg.get_by_test_id("floor-table-2")
        expect(table2).to_be_visible()
        expect(jdg.locator("[data-testid^=floor-table-]")).to_have_count(3)

        # Two phones at table 2.
        take_seat(phone_a, seat_a, "A", "Yugi")
        take_seat(phone_b, seat_b, "B", "Kaiba")
        expect(table2).to_contain_text("Yugi")
        expect(table2).to_contain_text("Kaiba")
        declare_deck(phone_a)
        # B's declaration names A's counts and confirms them with the same tap.
        expect(phone_b.get_by_test_id("deck-declare")).to_contain_text("40")
        declare_deck(phone_b)
        phone_a.get_by_test_id("confirm-deck").click()

        # Seat A calls a judge; the floor shows it without a reload (pushed on the floor's socket;
        # how soon is measured by `make bench`, the floor views' staleness, not timed here).
        phone_a.get_by_test_id("call-judge").click()
        phone_a.get_by_test_id("judge-reason").fill("ruling on a chain")
        phone_a.get_by_test_id("judge-send").click()
        alert = table2.get_by_test_id("alert-judge_call")
        expect(alert).to_be_visible(timeout=5000)
        # Tables with alerts come first.
        first = jdg.locator("[data-testid^=floor-table-]").first
        expect(first).to_have_attribute("data-testid", "floor-table-2")

        # The judge opens the table, takes the call; the phone shows a judge is coming.
        table2.click()
        expect(jdg.get_by_test_id("judge-name-A")).to_contain_text("Yugi")
        jdg.get_by_test_id("ack-1").click()
        expect(phone_a.get_by_test_id("judge-status")).to_have_attribute(
            "data-status", "acknowledged"
        )

        # Two more minutes: both phones show it.
        before_a = seconds(phone_a.get_by_test_id("clock").inner_text())
        before_b = seconds(phone_b.get_by_test_id("clock").inner_text())
        jdg.get_by_test_id("extend-minutes").fill("2")
        jdg.get_by_test_id("clock-extend").click()
        expect(jdg.get_by_test_id("judge-toast")).to_have_text("Time extended")
        for page, before in ((phone_a, before_a), (phone_b, before_b)):
            deadline = time.monotonic() + 5
            while True:
                now = seconds(page.get_by_test_id("clock").inner_text())
                if now >= before + 110:
                    break
                assert time.monotonic() < deadline, (before, now)
                page.wait_for_timeout(100)
            assert now <= before + 121
        log = jdg.get_by_test_id("judge-log")
        expect(log).to_contain_text("clock.extended")
        expect(log).to_contain_text(f"judge:{judge}")
    finally:
        for c in contexts:
            c.close()


def test_a_judge_re_pairs_a_started_round_from_the_floor(live_server, browser: Browser):
    """Pairing again after the start needs a judge's confirmation (docs/tournament.md): the
    organiser's page offers no re-pair once the round has started; the judges' floor does,
    asks first, and the round's tables are set aside for new ones."""
    from tests.staff_actions import Staff

    suffix = uuid.uuid4().hex[:6]
    organiser, judge = f"org{suffix}", f"judge{suffix}"
    create_organiser(live_server, organiser)
    staff = Staff(live_server).login(organiser)
    ev = staff.create_event("Re-pair Cup", 2)
    staff.add_judge(ev["id"], judge)
    for n in range(1, 5):
        body = {"name": f"Player {n}", "player_id": f"{n:04}"}
        status, answer = staff.request("POST", f"/api/events/{ev['id']}/swiss/players", body)
        assert status == 201, answer
    assert staff.request("POST", f"/api/events/{ev['id']}/swiss/pair")[0] == 200
    context = browser.new_context(base_url=live_server, **LAPTOP)
    try:
        jdg = context.new_page()
        jdg.goto(f"/judge/e/{ev['id']}")
        login(jdg, judge)
        expect(jdg.get_by_test_id("floor-status")).to_have_class(re.compile(r"\bon\b"))
        expect(jdg.get_by_test_id("floor-repair")).to_be_hidden()  # not started: the organiser's
        assert staff.request("POST", f"/api/events/{ev['id']}/round/start")[0] == 200
        button = jdg.get_by_test_id("floor-repair")
        expect(button).to_have_text("Re-pair round 1")
        before = {t["code"] for t in staff.request("GET", f"/api/events/{ev['id']}")[1]["tables"]}
        asked: list[str] = []

        def answer(dialog) -> None:
            asked.append(dialog.message)
            dialog.accept()

        jdg.once("dialog", answer)
        button.click()
        expect(jdg.get_by_test_id("floor-repair-note")).to_have_text(
            "Round 1 is paired again: the organiser starts it."
        )
        assert asked and "Re-pair round 1?" in asked[0]
        summary = staff.request("GET", f"/api/events/{ev['id']}/swiss")[1]
        assert summary["repairs"] == 1 and summary["cycle"]["step"] == "start", summary["cycle"]
        after = {t["code"] for t in staff.request("GET", f"/api/events/{ev['id']}")[1]["tables"]}
        assert after and not after & before  # fresh tables for the new pairing
        expect(button).to_be_hidden()  # the new pairing waits for its start
    finally:
        context.close()
