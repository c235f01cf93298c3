"""A table card's seat QR code on a phone (the card is printed once for the event): the event
table is named, the pairing's name is filled in for that seat (its claim unlocks it) and the
player types the pairing's player ID (R1.1), which no public page shows; a wrong ID waits for
a judge; without the claim the phone waits for a judge."""

from __future__ import annotations

import uuid

from playwright.sync_api import expect

from tests.staff_actions import Staff, create_organiser, seat_claim


def test_a_seat_link_fills_in_the_pairing(live_server, new_phone):
    organiser = f"org{uuid.uuid4().hex[:6]}"
    create_organiser(live_server, organiser)
    staff = Staff(live_server).login(organiser)
    event = staff.create_event("Spring Cup", 2)
    status, body = staff.request(
        "POST",
        f"/api/events/{event['id']}/pairings",
        {"csv": "table,a,a_id,b,b_id\n2,Yugi Muto,0001,Seto Kaiba,0002\n"},
    )
    assert status == 200, body
    table2 = next(t for t in body["tables"] if t["number"] == 2)

    phone = new_phone()
    claim = seat_claim(live_server, event["slug"], 2, "B")  # the table card's QR carries it
    phone.goto(f"/s/{event['slug']}/2/B?c={claim}")
    assert table2["code"] in phone.url
    expect(phone.get_by_test_id("join-event")).to_contain_text("Spring Cup")
    expect(phone.get_by_test_id("join-event")).to_contain_text("2")
    expect(phone.get_by_test_id("name-input")).to_have_value("Seto Kaiba")
    expect(phone.get_by_test_id("player-id-input")).not_to_have_value("0002")  # never shown
    phone.get_by_test_id("player-id-input").fill("0002")
    expect(phone.get_by_test_id("take-seat-B")).to_have_class("btn btn-big btn-primary")
    phone.get_by_test_id("take-seat-B").click()
    expect(phone.get_by_test_id("name-B")).to_contain_text("Seto Kaiba")


def test_a_casual_table_has_no_event_line(live_server, new_phone):
    phone = new_phone()
    phone.goto("/")
    phone.get_by_test_id("new-table").click()
    expect(phone.get_by_test_id("join-screen")).to_be_visible()
    expect(phone.get_by_test_id("join-event")).to_be_hidden()


def test_without_the_cards_claim_the_phone_waits_for_a_judge(live_server, new_phone):
    organiser = f"org{uuid.uuid4().hex[:6]}"
    create_organiser(live_server, organiser)
    staff = Staff(live_server).login(organiser)
    event = staff.create_event("Winter Cup", 1)
    code = event["tables"][0]["code"]
    phone = new_phone()
    phone.goto(f"/t/{code}?seat=A")
    phone.get_by_test_id("name-input").fill("Squatter")
    phone.get_by_test_id("take-seat-A").click()
    expect(phone.get_by_test_id("join-waiting")).to_be_visible()
    log = staff.request("GET", f"/api/staff/tables/{code}")[1]["log"]
    [asked] = [e for e in log if e["type"] == "seat.requested"]
    status, _ = staff.request(
        "POST", f"/api/staff/tables/{code}/seat-requests/{asked['data']['request']}/approve", {}
    )
    assert status == 200
    expect(phone.get_by_test_id("name-A")).to_contain_text("Squatter", timeout=15_000)


def test_a_card_photo_without_the_players_id_waits_for_a_judge(live_server, new_phone):
    organiser = f"org{uuid.uuid4().hex[:6]}"
    create_organiser(live_server, organiser)
    staff = Staff(live_server).login(organiser)
    event = staff.create_event("Autumn Cup", 1)
    status, body = staff.request(
        "POST",
        f"/api/events/{event['id']}/pairings",
        {"csv": "table,a,a_id,b,b_id\n1,Yugi Muto,0001,Seto Kaiba,0002\n"},
    )
    assert status == 200, body
    code = body["tables"][0]["code"]
    phone = new_phone()
    phone.goto(f"/s/{event['slug']}/1/A?c={seat_claim(live_server, event['slug'], 1, 'A')}")
    expect(phone.get_by_test_id("name-input")).to_have_value("Yugi Muto")
    phone.get_by_test_id("player-id-input").fill("0009")
    phone.get_by_test_id("take-seat-A").click()
    expect(phone.get_by_test_id("join-waiting")).to_be_visible()
    log = staff.request("GET", f"/api/staff/tables/{code}")[1]["log"]
    [asked] = [e for e in log if e["type"] == "seat.requested"]
    assert asked["data"]["why"] == "id_mismatch"
