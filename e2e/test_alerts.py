"""Alerts (alerts.js): navigator.vibrate and the AudioContext are wrapped before the page loads
and each alert is seen to vibrate, sound and flash: an entry waiting for me, 5 and 1 minutes
left, time called, each Extra Turn and sudden death (a 9-second match clock, as in
test_clock.py). Muted, the entry alert neither sounds nor vibrates; the screen still flashes.
The 30-seconds-left alert of the between-duel window (R4.2) is seen on a phone whose clock is
Playwright's, moved on past the first 150 s of the window instead of waiting for them."""

from __future__ import annotations

from playwright.sync_api import Page, expect

from e2e.steps import (
    api_create_table,
    confirm_entry,
    end_turn,
    expect_phase,
    keypad,
    seat_both,
    start_duel,
)

WRAP = """
window.__vib = [];
window.__tones = 0;
navigator.vibrate = (p) => { window.__vib.push(JSON.stringify(p)); return true; };
const Real = window.AudioContext;
window.AudioContext = class extends Real {
  createOscillator() {
    const osc = super.createOscillator();
    const start = osc.start.bind(osc);
    osc.start = (...a) => { window.__tones += 1; return start(...a); };
    return osc;
  }
};
window.__alerts = [];
window.addEventListener('dt-alert', (e) => {
  // the flash is on at once; the tone and vibration already asked for (unless muted)
  const flash = document.body.classList.contains('flash') ? 'flash' : 'noflash';
  window.__alerts.push(e.detail.kind + ':' + flash);
});
"""


def fired(page: Page) -> list[str]:
    return page.evaluate("window.__alerts.map((m) => m.split(':')[0])")


def expect_alert(page: Page, kind: str, timeout: float = 15_000) -> None:
    page.wait_for_function(
        "(k) => window.__alerts.some((m) => m.startsWith(k + ':'))", arg=kind, timeout=timeout
    )


def test_each_alert_vibrates_sounds_and_flashes(live_server, new_context):
    a_ctx, b_ctx = new_context(), new_context()
    for ctx in (a_ctx, b_ctx):
        ctx.add_init_script(WRAP)
    a, b = a_ctx.new_page(), b_ctx.new_page()
    code = api_create_table(live_server, match_minutes=0.15)
    seat_both(a, b, code)
    start_duel(a, b, winner=a, order="first")
    pages = {"A": a, "B": b}
    # The 9-second clock started with duel 1 (R4.1): its alerts, then time called.
    for page in (a, b):
        expect_alert(page, "minutes_5")
        expect_alert(page, "minutes_1")
        expect_alert(page, "time_called")

    vibrated = a.evaluate("window.__vib.length")  # what buzzed before this entry
    keypad(b, 100)  # an entry waiting for A
    expect_alert(a, "entry")
    vib, tones = a.evaluate("[window.__vib.length, window.__tones]")
    assert vib >= 1 and tones >= 1
    # One vibration, one pulse, for one entry (the entry alert alone vibrates for it).
    a.wait_for_timeout(300)
    assert a.evaluate("window.__vib")[vibrated:] == ["[220]"]
    confirm_entry(a)

    # Muted: the next entry flashes but neither vibrates nor sounds.
    a.get_by_test_id("mute").click()
    expect(a.get_by_test_id("mute")).to_have_attribute("aria-pressed", "true")
    before = a.evaluate("[window.__vib.length, window.__tones]")
    keypad(b, 100, kind="gain", target="opp")  # LP level again, for sudden death
    a.wait_for_function("() => window.__alerts.filter((m) => m.startsWith('entry:')).length >= 2")
    assert a.evaluate("[window.__vib.length, window.__tones]") == before
    confirm_entry(a)
    a.get_by_test_id("mute").click()
    expect(a.get_by_test_id("mute")).to_have_attribute("aria-pressed", "false")

    end_turn(pages)
    for n in (1, 2, 3):
        expect(a.get_by_test_id("time-banner")).to_have_text(f"Extra Turn {n} of 3")
        expect_alert(a, "extra_turn")
        count = a.evaluate("window.__alerts.filter((m) => m.startsWith('extra_turn:')).length")
        assert count == n
        end_turn(pages)
    expect_alert(a, "sudden_death")
    expect_alert(b, "sudden_death")
    assert a.evaluate("window.__vib.length") >= 8
    assert a.evaluate("window.__tones") >= 8
    assert all(m.endswith(":flash") for m in a.evaluate("window.__alerts"))
    assert {"entry", "minutes_5", "minutes_1", "time_called", "extra_turn", "sudden_death"} <= set(
        fired(a)
    )


def test_window_30s_alert_when_the_phone_clock_reaches_the_last_30_seconds(
    live_server, new_context
):
    """R4.2: 30 s before the 3-minute window ends, the seat's phone sounds, vibrates and flashes.

    alerts.js takes "now" from conn.serverNow(): the phone's Date.now() plus the ping offset,
    checked every 250 ms. Phone A runs on Playwright's clock (real time until moved on); the
    server's clock is untouched, so the window stays open there. fast_forward jumps A's clock and
    runs its due timers once, so the 250 ms check sees the jump before any pong could pull the
    offset back."""
    a_ctx, b_ctx = new_context(), new_context()
    for ctx in (a_ctx, b_ctx):
        ctx.add_init_script(WRAP)
    a, b = a_ctx.new_page(), b_ctx.new_page()
    for page in (a, b):
        page.clock.install()  # before the table is opened: every clock on the page is the fake one
    code = api_create_table(live_server)
    seat_both(a, b, code)
    start_duel(a, b, winner=a, order="first")
    keypad(a, 8000)
    confirm_entry(b)
    for page in (a, b):
        expect_phase(page, "duel_result")
        page.get_by_test_id("result-confirm").click()
    for page in (a, b):
        expect_phase(page, "between")

    # Just opened: 3 minutes left, no alert (a few real ticks go by to be sure).
    a.wait_for_timeout(1000)
    for page in (a, b):
        assert "window_30s" not in fired(page)
    vib, tones = a.evaluate("[window.__vib.length, window.__tones]")

    # B's clock 140 s on: 40 s left of the window, not yet time for the alert.
    b.clock.fast_forward(140_000)
    b.wait_for_timeout(1000)
    expect_phase(b, "between")
    assert "window_30s" not in fired(b)

    # A's clock 155 s on: 25 s left, the alert sounds, vibrates and flashes, once.
    a.clock.fast_forward(155_000)
    expect_alert(a, "window_30s")
    expect_phase(a, "between")
    a.wait_for_timeout(1000)
    assert fired(a).count("window_30s") == 1
    assert "window_30s:flash" in a.evaluate("window.__alerts")
    after = a.evaluate("[window.__vib.length, window.__tones]")
    assert after[0] > vib and after[1] > tones
