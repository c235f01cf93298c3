"""The longest language fits a 360 px phone: in every language of the list, online and offline,
the table's bar keeps its parts apart (the Online badge off the table code), the language
picker shows its whole label, a player's name of a few letters is shown whole (not "Y."), the
seat line ("Seat A") stays on one line, and every control of the bar and the ledger (the
language picker, the sheet link) is at least 44 px to tap. The staff pages' pickers too."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect

from e2e.steps import confirm_entry, keypad, seat_both, start_duel
from server.core.i18n import load

LANGS = load().codes
TAP = 44

MEASURE = """() => {
  const box = (el) => el && el.getBoundingClientRect();
  const bar = document.querySelector('.bar');
  const parts = [...bar.children]
    .filter((e) => e.offsetParent !== null && !e.classList.contains('sr-only'));
  const overlaps = [];
  for (let i = 0; i < parts.length; i++) {
    for (let j = i + 1; j < parts.length; j++) {
      const a = box(parts[i]), b = box(parts[j]);
      const x = Math.min(a.right, b.right) - Math.max(a.left, b.left);
      const y = Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top);
      const name = (e) => e.dataset.testid || e.className;
      if (x > 0.5 && y > 0.5) overlaps.push(`${name(parts[i])} / ${name(parts[j])}`);
    }
  }
  const outside = parts.filter((e) => box(e).right > innerWidth + 0.5 || box(e).left < -0.5)
    .map((e) => e.dataset.testid || e.className);
  // The picker: the label of the chosen language against the select's room for text.
  const sel = document.querySelector('[data-testid=lang]');
  const cs = getComputedStyle(sel);
  const ctx = document.createElement('canvas').getContext('2d');
  ctx.font = `${cs.fontWeight} ${cs.fontSize} ${cs.fontFamily}`;
  const label = sel.options[sel.selectedIndex].text;
  // The room for the label: the select less its padding and its arrow.
  const room = sel.clientWidth - parseFloat(cs.paddingLeft) - parseFloat(cs.paddingRight) - 18;
  const cut = (el) => el && el.scrollWidth > el.clientWidth + 1;
  const role = document.querySelector('[data-testid=role]');
  const lineHeight = (el) => {
    const cs = getComputedStyle(el);
    return parseFloat(cs.lineHeight) || parseFloat(cs.fontSize) * 1.3; // "normal": about 1.3
  };
  const lines = (el) => Math.round(box(el).height / lineHeight(el));
  const controls = '.bar button, .bar select, .bar a, [data-testid=sheet-link]';
  const small = [...document.querySelectorAll(controls)]
    .filter((e) => e.offsetParent !== null)
    .map((e) => [e.dataset.testid || e.textContent.trim(), box(e)])
    .filter(([, r]) => r.height < 44 || r.width < 44)
    .map(([id, r]) => `${id} ${Math.round(r.width)}x${Math.round(r.height)}`);
  return {
    overlaps, outside, small,
    picker: {label, needs: Math.ceil(ctx.measureText(label).width), room: Math.floor(room)},
    names: ['A', 'B'].filter((s) => cut(document.querySelector(`[data-testid=name-${s}]`))),
    role: {text: role.textContent, cut: cut(role), lines: lines(role)},
  };
}"""


def check(page: Page, where: str) -> list[str]:
    m = page.evaluate(MEASURE)
    bad = [f"{where}: overlap {o}" for o in m["overlaps"]]
    bad += [f"{where}: off screen {o}" for o in m["outside"]]
    bad += [f"{where}: under {TAP} px {s}" for s in m["small"]]
    p = m["picker"]
    if p["needs"] > p["room"]:
        bad.append(f"{where}: picker cuts {p['label']!r} ({p['needs']} px in {p['room']})")
    bad += [f"{where}: name-{s} cut" for s in m["names"]]
    if m["role"]["cut"] or m["role"]["lines"] > 1:
        bad.append(f"{where}: role {m['role']}")
    return bad


@pytest.mark.parametrize("width", [360])
def test_the_table_fits_every_language_at_360_px(new_phone, width, script_errors):
    script_errors.allow("ERR_INTERNET_DISCONNECTED")  # what the phone tries while offline
    a = new_phone(viewport={"width": width, "height": 640})
    b = new_phone()
    code = seat_both(a, b)
    start_duel(a, b)
    keypad(a, 500)
    confirm_entry(b)
    found: list[str] = []
    for lang in LANGS:
        a.get_by_test_id("lang").select_option(lang)
        expect(a.locator("html")).to_have_attribute("lang", lang)
        expect(a.get_by_test_id("conn-status")).to_have_attribute("data-status", "online")
        found += check(a, f"{lang} online")
        a.context.set_offline(True)
        expect(a.get_by_test_id("conn-status")).not_to_have_attribute("data-status", "online")
        found += check(a, f"{lang} offline")
        a.context.set_offline(False)
    assert code and found == []
