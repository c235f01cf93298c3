"""A phone that loses the network keeps working: its commands wait in a queue and are sent,
each exactly once, when it is back (design principle 4).

Phone A goes offline in the middle of a duel, confirms the entry phone B proposed and proposes
two entries of its own. Nothing reaches the server until A is back online; then both phones
and the server agree, and every entry is in the log once.
"""

from __future__ import annotations

import json
import urllib.request

from playwright.sync_api import expect

from e2e.steps import keypad, lp, seat_both, start_duel


def server_log(base: str, code: str) -> list[dict]:
    with urllib.request.urlopen(f"{base}/api/tables/{code}/log", timeout=5) as response:
        return json.load(response)["events"]


def test_commands_made_offline_are_sent_once_when_back(new_phone, live_server, script_errors):
    script_errors.allow("ERR_INTERNET_DISCONNECTED")  # the browser's own word for the cut
    a, b = new_phone(), new_phone()
    code = seat_both(a, b)
    start_duel(a, b)

    # B proposes 300 damage to A while both are online; A sees the banner.
    keypad(b, 300)
    banner = a.get_by_test_id("confirm-banner")
    expect(banner).to_be_visible()
    entry = banner.get_attribute("data-entry")

    a.context.set_offline(True)
    expect(a.get_by_test_id("conn-status")).to_have_attribute(
        "data-status", "offline", timeout=20000
    )
    before = len(server_log(live_server, code))

    # Offline: confirm B's entry, propose two entries against B.
    banner.get_by_test_id("confirm-entry").click()
    keypad(a, 1000)
    keypad(a, 500)
    expect(a.get_by_test_id("queue-count")).to_have_attribute("data-count", "3")
    # The two entries made offline are listed with the waiting ones, marked as not sent yet.
    unsent = a.get_by_test_id("pending-list").get_by_test_id("unsent-entry")
    expect(unsent).to_have_count(2)
    expect(unsent.first).to_contain_text("1000")
    expect(unsent.last).to_contain_text("500")
    assert len(server_log(live_server, code)) == before  # nothing reached the server
    expect(lp(b, "A")).to_have_text("8000")

    a.context.set_offline(False)
    expect(a.get_by_test_id("conn-status")).to_have_attribute(
        "data-status", "online", timeout=30000
    )
    expect(a.get_by_test_id("queue-count")).to_have_count(0, timeout=15000)
    expect(a.get_by_test_id("unsent-entry")).to_have_count(0)

    # B sees A's confirmation and A's two proposals, and confirms them.
    for _ in range(2):
        b_banner = b.get_by_test_id("confirm-banner")
        expect(b_banner).to_be_visible()
        shown = b_banner.get_attribute("data-entry")
        b_banner.get_by_test_id("confirm-entry").click()
        expect(b.locator(f'[data-testid="confirm-banner"][data-entry="{shown}"]')).to_have_count(0)

    for page in (a, b):
        expect(lp(page, "A")).to_have_text("7700")
        expect(lp(page, "B")).to_have_text("6500")
        expect(page.get_by_test_id("ledger-row")).to_have_count(3)
        expect(page.get_by_test_id("pending-entry")).to_have_count(0)

    # Each entry once in the log: one proposal and one confirmation per entry.
    events = server_log(live_server, code)
    proposed = [e["data"]["entry"] for e in events if e["type"] == "lp.proposed"]
    confirmed = [e["data"]["entry"] for e in events if e["type"] == "lp.confirmed"]
    assert sorted(proposed) == sorted(set(proposed)) and len(proposed) == 3
    assert sorted(confirmed) == sorted(proposed)
    assert str(confirmed.count(int(entry))) == "1"


def test_the_badge_says_offline_within_two_seconds_of_the_network_going(new_phone, script_errors):
    """The badge follows the browser's network state and the socket's close at once, not the
    heartbeat's timeout: it never says Online under the red Offline notice."""
    script_errors.allow("ERR_INTERNET_DISCONNECTED")  # the browser's own word for the cut
    a, b = new_phone(), new_phone()
    seat_both(a, b)
    badge = a.get_by_test_id("conn-status")
    expect(badge).to_have_attribute("data-status", "online")
    a.context.set_offline(True)
    expect(a.get_by_test_id("offline-notice")).to_be_visible(timeout=2000)
    expect(badge).to_have_attribute("data-status", "offline", timeout=2000)
    expect(badge).to_have_text("Offline")
    # It stays true while the phone tries to reconnect: not "Connecting…" with no network.
    a.wait_for_timeout(3000)
    expect(badge).to_have_attribute("data-status", "offline", timeout=100)
    a.context.set_offline(False)
    expect(badge).to_have_attribute("data-status", "online", timeout=15000)
