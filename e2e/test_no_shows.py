"""No-shows as loud as judge calls: a paired seat still empty once the round's no-show time has
passed is an alert on the judges' floor that sounds, vibrates and counts in the page title
(as a call does: e2e/test_event_day.py), and the organiser's page lists its table until a
judge's result ends it (a no-show is a match loss entered by a judge)."""

from __future__ import annotations

import re
import time
import uuid
from collections.abc import Iterator

import pytest
from playwright.sync_api import Browser, expect

from clients.testing import LiveServer, isolated_database, start_server, stop_server
from e2e.test_event_day import ALARM_SPY, LAPTOP, login
from tests.staff_actions import Staff, create_organiser, seat_claim
from tests.ws_helpers import http

pytestmark = [pytest.mark.browser]


@pytest.fixture(scope="module")
def live_server(
    tmp_path_factory: pytest.TempPathFactory, database_url: str
) -> Iterator[LiveServer]:
    """This module's own server, where a seat is a no-show as soon as the round starts
    (NO_SHOW_MINUTES=0) rather than 5 minutes later."""
    url = isolated_database(database_url, "no_shows")
    server, process = start_server(
        tmp_path_factory.mktemp("no_shows"), url, {"NO_SHOW_MINUTES": "0"}
    )
    try:
        yield server
    finally:
        stop_server(process)


def sit(server: LiveServer, ev: dict, number: int, seat: str, player: dict) -> None:
    """A player takes a seat with the table card's claim (as the card's QR does) and the
    pairing's player ID."""
    code = ev["tables"][number - 1]["code"]
    body = {
        "seat": seat,
        "name": player["name"],
        "player_id": f"{player['player']:010}",
        "claim": seat_claim(server, ev["slug"], number, seat),
    }
    status, joined = http(server, "POST", f"/api/tables/{code}/join", body)
    assert status == 201, joined


def test_a_no_show_rings_on_the_floor_and_is_listed_for_the_organiser(
    live_server, browser: Browser, script_errors
):
    script_errors.allow(r"/api/auth/me")  # the judges' page asks whether it is logged in yet
    suffix = uuid.uuid4().hex[:6]
    organiser, judge = f"org{suffix}", f"judge{suffix}"
    create_organiser(live_server, organiser)
    staff = Staff(live_server).login(organiser)
    ev = staff.create_event("No-show Cup", 2)
    staff.add_judge(ev["id"], judge)
    for i, player in enumerate(("Yugi", "Kaiba", "Mai", "Joey"), 1):
        entry = {"name": player, "player_id": f"{i:010}"}
        status, body = staff.request("POST", f"/api/events/{ev['id']}/swiss/players", entry)
        assert status == 201, body
    status, body = staff.request("POST", f"/api/events/{ev['id']}/swiss/pair")
    assert status == 200, body
    status, summary = staff.request("GET", f"/api/events/{ev['id']}/swiss")
    one, two = summary["rounds"][-1]["tables"]
    # Table 1 is full; at table 2 seat B never comes.
    sit(live_server, ev, 1, "A", one["a"])
    sit(live_server, ev, 1, "B", one["b"])
    sit(live_server, ev, 2, "A", two["a"])
    absent = two["b"]["name"]
    contexts = [browser.new_context(base_url=live_server, **LAPTOP) for _ in range(2)]
    jdg, org = (c.new_page() for c in contexts)
    jdg.add_init_script(ALARM_SPY)
    try:
        jdg.goto("/judge")
        login(jdg, judge)
        expect(jdg.get_by_test_id("floor-table-2")).to_be_visible()
        base_title = jdg.title()
        assert not base_title.startswith("(")
        assert jdg.evaluate("window.__tones") == 0

        org.goto(f"/organiser/e/{ev['id']}")
        login(org, organiser)
        expect(org.get_by_test_id("cycle-no-shows")).to_have_count(0)  # not before the start
        org.get_by_test_id("round-start").click()
        expect(org.get_by_test_id("round-started")).to_be_visible()

        # The floor: table 2's no-show alert (naming the seat's player), a tone, a vibration,
        # the count in the title; table 1 has none.
        table2 = jdg.get_by_test_id("floor-table-2")
        expect(table2.get_by_test_id("alert-no_show")).to_be_visible()
        expect(table2.get_by_test_id("alert-no_show")).to_contain_text(absent)
        expect(jdg.get_by_test_id("floor-table-1").get_by_test_id("alert-no_show")).to_have_count(0)
        deadline = time.monotonic() + 10  # (wait_for_function's polling is eval: the CSP)
        while jdg.evaluate("window.__tones") == 0 and time.monotonic() < deadline:
            jdg.wait_for_timeout(100)
        assert jdg.evaluate("window.__tones") > 0
        assert jdg.evaluate("window.__vibrations.length") == 1
        expect(jdg).to_have_title(re.compile(r"^\(1\) "))
        assert jdg.title() == f"(1) {base_title}"

        # The organiser's page lists it, loudly (an alert), table 2 only.
        listed = org.get_by_test_id("cycle-no-shows")
        expect(listed).to_be_visible()
        expect(listed).to_have_attribute("role", "alert")
        expect(listed).to_have_text("No-show: table 2")

        # A judge's result (seat A wins) ends it: gone from the floor, the title and the list.
        org.get_by_test_id("result-pick-2").select_option("A")
        org.get_by_test_id("result-enter-2").click()
        expect(table2.get_by_test_id("alert-no_show")).to_have_count(0)
        expect(jdg).to_have_title(base_title)
        expect(org.get_by_test_id("cycle-no-shows")).to_have_count(0, timeout=10_000)
        assert jdg.evaluate("window.__vibrations.length") == 1  # ended: nothing rings again
    finally:
        for c in contexts:
            c.close()
