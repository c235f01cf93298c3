"""Seat requests answered on the screens people use: a judge approves a phone that waits for
an event seat (the judges' table page; the floor shows it) and releases a seat (the phone is
told); at a casual table the seat's own phone is asked first and can say no; once it has been
away for SEAT_AWAY_SECONDS the seated player confirms a new phone for the other seat (a lost
phone), which plays on while the old phone is told; a one-phone table is recovered on a new
phone with its recovery code. Phones at 360x640 (e2e/steps.py PHONE)."""

from __future__ import annotations

import uuid
from collections.abc import Iterator

import pytest
from playwright.sync_api import expect

from clients.testing import LiveServer, isolated_database, start_server, stop_server
from e2e.steps import create_on_phone, declare_decks, join_by_code
from tests.staff_actions import PASSWORD, Staff, create_organiser

LAPTOP = {"viewport": {"width": 1280, "height": 800}, "is_mobile": False, "has_touch": False}
AWAY_SECONDS = 3  # SEAT_AWAY_SECONDS of this module's server (60 by default)


@pytest.fixture(scope="module")
def live_server(
    tmp_path_factory: pytest.TempPathFactory, database_url: str
) -> Iterator[LiveServer]:
    """This module's own server, whose seats' phones count as away after AWAY_SECONDS."""
    url = isolated_database(database_url, "seat_requests")
    server, process = start_server(
        tmp_path_factory.mktemp("seat_requests"), url, {"SEAT_AWAY_SECONDS": str(AWAY_SECONDS)}
    )
    try:
        yield server
    finally:
        stop_server(process)


def test_a_judge_approves_a_waiting_phone_and_releases_its_seat(
    live_server, new_context, script_errors
):
    script_errors.allow(r"/api/auth/me")  # the judges' page asks whether it is logged in yet
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


def test_a_new_phone_takes_a_casual_seat_when_the_other_seat_confirms(
    live_server, new_phone, script_errors
):
    script_errors.allow("ERR_INTERNET_DISCONNECTED")  # the lost phone's tries while offline
    a, old_b, new_b = new_phone(), new_phone(), new_phone()
    code = create_on_phone(a)
    join_by_code(old_b, code)
    expect(a.get_by_test_id("name-B")).to_have_text("Kaiba")
    old_b.context.set_offline(True)  # the phone is lost: gone from the network

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
    a.wait_for_timeout(AWAY_SECONDS * 1000 + 500)  # B's phone has been away for the setting
    ask.get_by_test_id("seat-ask-confirm").click()
    expect(a.get_by_test_id("seat-ask")).to_have_count(0)

    # The new phone plays on; the old one is told (when it is back) and offered to join again.
    expect(new_b.get_by_test_id("role")).to_contain_text("B", timeout=15_000)
    old_b.context.set_offline(False)
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


def test_a_casual_seat_move_refused_by_the_seats_own_phone(live_server, new_phone, script_errors):
    script_errors.allow(r"/seat-requests/\w+/confirm")  # the refusal (409 owner_online) shown
    a, b, stranger = new_phone(), new_phone(), new_phone()
    code = create_on_phone(a)
    join_by_code(b, code)
    stranger.goto(f"/t/{code}")
    stranger.get_by_test_id("name-input").fill("Bandit Keith")
    stranger.get_by_test_id("take-seat-B").click()
    expect(stranger.get_by_test_id("join-waiting")).to_be_visible()

    # Seat B's own phone is told and asked; the other seat may not give B's seat away now.
    own = b.get_by_test_id("seat-ask-own")
    expect(own).to_contain_text("Bandit Keith")
    expect(own).to_contain_text("B")
    ask = a.get_by_test_id("seat-ask")
    expect(ask).to_contain_text("Bandit Keith")
    ask.get_by_test_id("seat-ask-confirm").click()
    expect(ask.get_by_test_id("seat-ask-wait")).to_contain_text("Seat B's phone is online")
    expect(b.get_by_test_id("role")).to_contain_text("B")

    # The owner says no: the request ends everywhere, the stranger is told, B plays on.
    own.get_by_test_id("seat-ask-refuse").click()
    expect(b.get_by_test_id("seat-ask-own")).to_have_count(0)
    expect(a.get_by_test_id("seat-ask")).to_have_count(0)
    expect(stranger.get_by_test_id("join-screen")).to_be_visible(timeout=15_000)
    expect(stranger.locator(".toast")).to_contain_text("not approved")
    expect(b.get_by_test_id("role")).to_contain_text("B")


def test_a_one_phone_table_is_recovered_on_a_new_phone(live_server, new_phone, script_errors):
    script_errors.allow(r"/api/tables/\w+/recover")  # the wrong code's 403, shown
    script_errors.allow(r"/favicon\.ico")  # the score sheet page names no icon
    old, new = new_phone(), new_phone()
    old.goto("/")
    old.get_by_test_id("new-table").click()
    expect(old.get_by_test_id("join-screen")).to_be_visible()
    code = old.get_by_test_id("table-code").inner_text().strip()
    old.get_by_test_id("name-input").fill("Yugi")
    old.get_by_test_id("duo-name-b").fill("Kaiba")
    old.get_by_test_id("duo-start").click()
    expect(old.get_by_test_id("duo-screen")).to_be_visible()

    # The recovery code is shown once, on the phone, at 360x640, with a 44 px button.
    shown = old.get_by_test_id("recovery-code")
    expect(shown).to_have_text(_CODE)
    recovery = shown.inner_text().strip()
    ok = old.get_by_test_id("recovery-ok").bounding_box()
    assert ok is not None and ok["height"] >= 44 and ok["y"] + ok["height"] <= 640
    old.get_by_test_id("recovery-ok").click()
    expect(old.get_by_test_id("recovery-shown")).to_have_count(0)
    # ... and on this phone's score sheet.
    sheet = old.context.new_page()
    sheet.goto(f"/t/{code}/sheet")
    expect(sheet.get_by_test_id("sheet-recovery")).to_contain_text(recovery)
    sheet.close()

    # The phone is lost: a new phone opens the table and types the code (any case, spaces).
    new.goto(f"/t/{code}")
    card = new.get_by_test_id("recover-card")
    expect(card).to_be_visible()
    new.get_by_test_id("recover-input").fill("AAAA-AAAA-AAAA")
    new.get_by_test_id("recover-go").click()
    expect(new.get_by_test_id("recover-error")).to_contain_text("recovery code")
    new.get_by_test_id("recover-input").fill(recovery.lower().replace("-", " "))
    new.get_by_test_id("recover-go").click()
    expect(new.get_by_test_id("duo-screen")).to_be_visible(timeout=15_000)
    expect(new.get_by_test_id("duo-A").get_by_test_id("name-A")).to_contain_text("Yugi")
    fresh = new.get_by_test_id("recovery-code")
    expect(fresh).to_have_text(_CODE)
    assert fresh.inner_text().strip() != recovery  # the old code is spent
    new.get_by_test_id("recovery-ok").click()

    # The old phone's tokens ended: it is told.
    expect(old.get_by_test_id("seat-lost-text")).to_be_visible(timeout=15_000)


_CODE = __import__("re").compile(r"^[2-9A-Z]{4}-[2-9A-Z]{4}-[2-9A-Z]{4}$")
