"""Seat requests answered on the screens people use: a judge approves a phone that waits for
an event seat (the judges' table page; the floor shows it) and releases a seat (the phone is
told); at a casual table the seated player confirms a new phone for the other seat (a lost
phone), which plays on while the old phone is told."""

from __future__ import annotations

import uuid

from playwright.sync_api import expect

from e2e.steps import create_on_phone, declare_decks, join_by_code
from tests.staff_actions import PASSWORD, Staff, create_organiser

LAPTOP = {"viewport": {"width": 1280, "height": 800}, "is_mobile": False, "has_touch": False}


def test_a_judge_approves_a_waiting_phone_and_releases_its_seat(live_server, new_context):
    suffix = uuid.uuid4().hex[:6]
    organiser, judge = f"org{suffix}", f"judge{suffix}"
    create_organiser(live_server, organiser)
    staff = Staff(live_server).login(organiser)
    event = staff.create_event("Autumn Cup", 1)
    staff.add_judge(event["id"], judge)
    code = event["tables"][0]["code"]

    phone = new_context().new_page()
    phone.goto(f"/t/{code}?seat=A")
    phone.get_by_test_id("name-input").fill("Joey Wheeler")
    phone.get_by_test_id("player-id-input").fill("0042")
    phone.get_by_test_id("take-seat-A").click()
    expect(phone.get_by_test_id("join-waiting")).to_be_visible()

    desk = new_context(**LAPTOP).new_page()
    desk.goto("/judge")
    desk.get_by_test_id("login-user").fill(judge)
    desk.get_by_test_id("login-pass").fill(PASSWORD)
    desk.get_by_test_id("login-go").click()
    table = desk.get_by_test_id("floor-table-1")
    alert = table.get_by_test_id("alert-seat_request")
    expect(alert).to_be_visible(timeout=10_000)
    expect(alert).to_contain_text("Joey Wheeler")
    table.click()
    asked = desk.get_by_test_id("seat-request-A")
    expect(asked).to_contain_text("Joey Wheeler")
    expect(asked).to_contain_text("0042")
    expect(asked.get_by_test_id("seat-request-holder")).to_contain_text("free")
    asked.get_by_test_id("seat-approve-A").click()

    expect(phone.get_by_test_id("name-A")).to_contain_text("Joey Wheeler", timeout=15_000)
    expect(desk.get_by_test_id("seat-requests-none")).to_be_visible()
    expect(desk.get_by_test_id("judge-name-A")).to_contain_text("Joey Wheeler")

    # Releasing asks first; cancelling keeps the seat.
    desk.get_by_test_id("seat-release-A").click()
    expect(desk.get_by_test_id("seat-release-confirm-A")).to_contain_text("Joey Wheeler")
    desk.get_by_test_id("seat-release-no-A").click()
    expect(phone.get_by_test_id("name-A")).to_contain_text("Joey Wheeler")
    desk.get_by_test_id("seat-release-A").click()
    desk.get_by_test_id("seat-release-yes-A").click()
    expect(phone.get_by_test_id("seat-lost-text")).to_contain_text("A", timeout=10_000)
    expect(desk.get_by_test_id("judge-name-A")).not_to_contain_text("Joey")
    phone.get_by_test_id("seat-lost-join").click()
    expect(phone.get_by_test_id("join-screen")).to_be_visible()
    expect(phone.get_by_test_id("take-seat-A")).to_contain_text("A")


def test_a_new_phone_takes_a_casual_seat_when_the_other_seat_confirms(live_server, new_phone):
    a, old_b, new_b = new_phone(), new_phone(), new_phone()
    code = create_on_phone(a)
    join_by_code(old_b, code)
    expect(a.get_by_test_id("name-B")).to_have_text("Kaiba")

    # The lost phone's owner asks for seat B from another phone.
    new_b.goto(f"/t/{code}")
    new_b.get_by_test_id("name-input").fill("Kaiba")
    new_b.get_by_test_id("take-seat-B").click()
    expect(new_b.get_by_test_id("join-waiting")).to_be_visible()

    # A's phone asks; B's old phone is not the one asked.
    ask = a.get_by_test_id("seat-ask")
    expect(ask).to_contain_text("seat B")
    expect(ask).to_contain_text("Kaiba")
    expect(old_b.get_by_test_id("seat-ask")).to_have_count(0)
    ask.get_by_test_id("seat-ask-confirm").click()
    expect(a.get_by_test_id("seat-ask")).to_have_count(0)

    # The new phone plays on; the old one is told and offered to join again.
    expect(new_b.get_by_test_id("role")).to_contain_text("B", timeout=15_000)
    expect(old_b.get_by_test_id("seat-lost-text")).to_contain_text("B", timeout=10_000)
    declare_decks(a, new_b)
    old_b.get_by_test_id("seat-lost-join").click()
    expect(old_b.get_by_test_id("join-screen")).to_be_visible()


def test_the_other_seat_refuses_a_new_phone(live_server, new_phone):
    a, b, stranger = new_phone(), new_phone(), new_phone()
    code = create_on_phone(a)
    join_by_code(b, code)
    stranger.goto(f"/t/{code}")
    stranger.get_by_test_id("name-input").fill("Bandit Keith")
    stranger.get_by_test_id("take-seat-B").click()
    expect(stranger.get_by_test_id("join-waiting")).to_be_visible()
    ask = a.get_by_test_id("seat-ask")
    expect(ask).to_contain_text("Bandit Keith")
    ask.get_by_test_id("seat-ask-refuse").click()
    expect(a.get_by_test_id("seat-ask")).to_have_count(0)
    expect(stranger.get_by_test_id("join-screen")).to_be_visible(timeout=15_000)
    expect(stranger.locator(".toast")).to_contain_text("not approved")
    expect(b.get_by_test_id("role")).to_contain_text("B")
