"""Words for people who never saw the app: a taken seat's button says who may ask for it and
what it does; the organiser picks a rule set by what it does differently, not by its year."""

from __future__ import annotations

import uuid

from playwright.sync_api import expect

from e2e.steps import create_on_phone
from tests.staff_actions import PASSWORD, create_organiser

LAPTOP = {"viewport": {"width": 1280, "height": 800}, "is_mobile": False, "has_touch": False}


def test_a_taken_seat_says_who_may_ask_for_it(new_phone):
    a = new_phone()
    code = create_on_phone(a, "Alice")
    friend = new_phone()
    friend.goto(f"/t/{code}")
    expect(friend.get_by_test_id("take-seat-A")).to_have_text(
        "I am Alice on a new phone: ask for seat A"
    )
    expect(friend.get_by_test_id("take-seat-B")).to_have_text("Take seat B")


def test_the_organiser_reads_what_each_rule_set_does(live_server, new_context, script_errors):
    script_errors.allow(r"/api/auth/me")
    organiser = f"org{uuid.uuid4().hex[:6]}"
    create_organiser(live_server, organiser)
    page = new_context(**LAPTOP).new_page()
    page.goto("/organiser")
    page.get_by_test_id("login-user").fill(organiser)
    page.get_by_test_id("login-pass").fill(PASSWORD)
    page.get_by_test_id("login-go").click()
    about = page.get_by_test_id("ev-ruleset-about")
    expect(about).to_contain_text("sudden death")
    expect(about).to_contain_text("Extra Duel")
    page.get_by_test_id("ev-ruleset").select_option("tcg-2010-swiss")
    expect(about).to_have_text(
        "40 minutes. At time: 5 extra turns; equal LP, or level duel wins, is a draw."
    )
    page.get_by_test_id("ev-ruleset").select_option("tcg-2018-swiss")
    expect(about).to_contain_text("45 minutes")
