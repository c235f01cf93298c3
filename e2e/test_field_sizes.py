"""No field zooms the page on an iPhone: iOS Safari zooms into any text field, select or
textarea whose text is under 16 px when it takes the focus, and the player must then pinch back
out mid-duel. On every screen a player (or a judge on the floor) uses on a 390x844 phone, every
such field's computed font size is 16 px or more and its box 44 px or more to tap; each page's
viewport meta is the phone's width at scale 1, with zoom left to the reader (docs/decisions.md:
what WebKitGTK and Chromium do not share with iOS Safari, and what is checked in its place)."""

from __future__ import annotations

import uuid
from collections.abc import Callable

from playwright.sync_api import Page, expect

from e2e.steps import api_create_table, seat_both, sit_at_event, start_duel
from tests.staff_actions import PASSWORD, Staff, create_organiser

PHONE_390 = {"viewport": {"width": 390, "height": 844}}
SMALLEST_TEXT = 16
TAP = 44

# Every field shown (not hidden, not a checkbox, radio or button) and its size; the viewport.
MEASURE = """() => {
  const kinds = ['checkbox', 'radio', 'range', 'hidden', 'button', 'submit', 'reset', 'file',
                 'color', 'image'];
  const fields = [...document.querySelectorAll('input, select, textarea')]
    .filter((e) => !kinds.includes((e.type || '').toLowerCase()) && e.getClientRects().length)
    .map((e) => {
      const r = e.getBoundingClientRect();
      const name = e.dataset.testid || e.id || e.name || e.className || e.tagName.toLowerCase();
      return {name, font: parseFloat(getComputedStyle(e).fontSize), height: r.height};
    });
  const meta = document.querySelector('meta[name=viewport]');
  return {fields, viewport: meta ? meta.content : ''};
}"""


def measure(page: Page, where: str) -> tuple[list[str], int]:
    """What is too small on the page as it is now, and how many fields were measured."""
    m = page.evaluate(MEASURE)
    bad = [
        f"{where}: {f['name']} text {f['font']:g} px"
        for f in m["fields"]
        if f["font"] < SMALLEST_TEXT
    ]
    bad += [
        f"{where}: {f['name']} {f['height']:g} px tall" for f in m["fields"] if f["height"] < TAP
    ]
    parts = {p.split("=")[0].strip(): p.partition("=")[2].strip() for p in m["viewport"].split(",")}
    if parts.get("width") != "device-width" or parts.get("initial-scale") != "1":
        bad.append(f"{where}: viewport {m['viewport']!r}")
    # The reader may still zoom: no maximum scale, no user-scalable=no.
    if "maximum-scale" in parts or parts.get("user-scalable") in ("no", "0"):
        bad.append(f"{where}: viewport stops zoom {m['viewport']!r}")
    return bad, len(m["fields"])


def test_every_field_a_player_touches_is_16_px_or_more(
    new_phone: Callable[..., Page], live_server: str
):
    found: list[str] = []
    counted = 0

    def check(page: Page, where: str) -> None:
        nonlocal counted
        bad, n = measure(page, where)
        found.extend(bad)
        counted += n

    a, b = new_phone(**PHONE_390), new_phone(**PHONE_390)
    a.goto("/")
    a.get_by_test_id("match-length").select_option("custom")
    expect(a.get_by_test_id("match-minutes-custom")).to_be_visible()
    check(a, "home")
    # A free table's join screen (one phone for both, too), then the table's.
    code = api_create_table(live_server)
    a.goto(f"/t/{code}")
    expect(a.get_by_test_id("duo-join")).to_be_visible()
    check(a, "join")
    seat_both(a, b, code)
    check(a, "registration")
    a.get_by_test_id("deck-list-text").scroll_into_view_if_needed()
    check(a, "deck list")
    start_duel(a, b)
    check(a, "duel")
    # A full table's join screen: the recovery code's field.
    c = new_phone(**PHONE_390)
    c.goto(f"/t/{code}")
    expect(c.get_by_test_id("recover-card")).to_be_visible()
    check(c, "join full")
    c.goto(f"/t/{code}?watch")
    expect(c.get_by_test_id("table-screen")).to_be_visible()
    check(c, "spectator")
    # One phone for both.
    d = new_phone(**PHONE_390)
    d.goto(f"/t/{api_create_table(live_server)}")
    d.get_by_test_id("name-input").fill("Yugi")
    d.get_by_test_id("duo-name-b").fill("Kaiba")
    d.get_by_test_id("duo-start").click()
    d.get_by_test_id("recovery-ok").click()
    expect(d.get_by_test_id("duo-screen")).to_be_visible()
    check(d, "one phone")
    assert found == [], "\n".join(found)
    assert counted >= 10  # the screens above have fields: they were measured


def test_the_event_pages_fields_on_a_phone(new_phone: Callable[..., Page], live_server):
    organiser = f"fld{uuid.uuid4().hex[:6]}"
    create_organiser(live_server, organiser)
    staff = Staff(live_server).login(organiser)
    event = staff.create_event("Winter Cup", 1)
    staff.add_judge(event["id"], f"j{organiser}")
    staff.pair_by_hand(event, {1: ("Alice", "Bob")})
    found: list[str] = []
    phone = new_phone(**PHONE_390)
    phone.goto(f"/e/{event['slug']}")
    expect(phone.get_by_test_id("ev-find-input")).to_be_visible()
    found += measure(phone, "event page")[0]
    code = event["tables"][0]["code"]
    sit_at_event(phone, live_server, event, code, "A", "Alice")
    found += measure(phone, "event table")[0]
    judge = new_phone(**PHONE_390)
    judge.goto(f"/judge/e/{event['id']}")
    judge.get_by_test_id("login-user").fill(f"j{organiser}")
    judge.get_by_test_id("login-pass").fill(PASSWORD)
    judge.get_by_test_id("login-go").click()
    expect(judge.get_by_test_id("login-go")).to_have_count(0)
    found += measure(judge, "judge floor")[0]
    judge.goto(f"/judge/e/{event['id']}/t/{code}")
    expect(judge.locator("main, .staff").first).to_be_visible()
    found += measure(judge, "judge table")[0]
    assert found == [], "\n".join(found)
