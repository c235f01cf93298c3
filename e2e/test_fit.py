"""The longest language fits a 360 px phone (375 and 390 px too): in every language of the list,
online and offline, the table's bar keeps its parts apart (the Online badge off the table
code), the language picker shows its whole label, a player's name of a few letters is shown
whole (not "Y."), the seat line ("Seat A") stays on one line, no word is broken in two, and
every control of the bar and the ledger (the language picker, the sheet link) is at least 44 px
to tap. The staff pages' pickers too. The one-phone table's names and keypad likewise; an
alert's flash dims nothing."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect

from e2e.steps import confirm_entry, keypad, seat_both, start_duel
from server.core.i18n import load

LANGS = load().codes
TAP = 44

MEASURE = """() => {
  HELPERS_HERE
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
    covered: covered(document.querySelector('[data-testid=table-code]')),
    badge: cut(document.querySelector('[data-testid=conn-status]')),
    broken: brokenWords(document.body),
  };
}"""

# Shared by the measures: what covers an element (the element on top at its corners and middle),
# and the words of the page's text broken across two lines (a Latin word wrapped inside itself:
# "Oppo/nent"); Chinese and Japanese break between any two characters, so they are not words.
HELPERS = """
const covered = (el) => {
  if (!el) return [];
  const r = el.getBoundingClientRect();
  const y = (r.top + r.bottom) / 2; // along its middle line: its first, middle and last letters
  const pts = [[r.left + 2, y], [(r.left + r.right) / 2, y], [r.right - 2, y]];
  return pts.map(([x, y]) => document.elementFromPoint(x, y))
    .filter((top) => top && top !== el && !el.contains(top))
    .map((top) => top.dataset.testid || top.className || top.tagName);
};
const brokenWords = (root) => {
  const out = [];
  const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const parent = node.parentElement;
    if (!parent || parent.closest('.sr-only, option, select, script, style')) continue;
    if (!parent.getClientRects().length) continue;
    const text = node.textContent;
    for (const m of text.matchAll(/[A-Za-z\u00c0-\u024f][A-Za-z\u00c0-\u024f'’-]{2,}/g)) {
      const range = document.createRange();
      range.setStart(node, m.index);
      range.setEnd(node, m.index + m[0].length);
      const tops = new Set([...range.getClientRects()]
        .filter((q) => q.width > 0).map((q) => Math.round(q.top)));
      const where = parent.dataset.testid || parent.className || parent.tagName;
      if (tops.size > 1) out.push(`${where}: ${m[0]}`);
    }
  }
  return out;
};
"""

MEASURE = MEASURE.replace("  HELPERS_HERE", HELPERS)


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
    bad += [f"{where}: the table code under {c}" for c in m["covered"]]
    if m["badge"]:
        bad.append(f"{where}: the connection badge cut")
    bad += [f"{where}: a word broken in two, {w}" for w in m["broken"]]
    return bad


@pytest.mark.parametrize("size", [(360, 640), (375, 667), (390, 844)])
def test_the_table_fits_every_language_at_360_px(new_phone, size, script_errors):
    script_errors.allow("ERR_INTERNET_DISCONNECTED")  # what the phone tries while offline
    a = new_phone(viewport={"width": size[0], "height": size[1]})
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
    assert code and found == [], "\n".join(found)


DUO = """() => {
  HELPERS_HERE
  const cut = (el) => el
    && (el.scrollWidth > el.clientWidth + 1 || el.getBoundingClientRect().width < 8);
  const names = [];
  for (const half of document.querySelectorAll('[data-testid^=duo-]')) {
    for (const seat of ['A', 'B']) {
      const el = half.querySelector(`[data-testid=name-${seat}]`);
      if (el && cut(el)) names.push(`${half.dataset.testid} name-${seat} ${el.textContent}`);
    }
  }
  const outside = [...document.querySelectorAll('button, select, input, .lp, .seat-name')]
    .filter((e) => e.getClientRects().length)
    .filter((e) => {
      const r = e.getBoundingClientRect();
      return r.right > innerWidth + 0.5 || r.left < -0.5;
    })
    .map((e) => e.dataset.testid || e.className);
  return {names, broken: brokenWords(document.body), outside};
}""".replace("  HELPERS_HERE", HELPERS)


@pytest.mark.parametrize("size", [(360, 640), (375, 667), (390, 844)])
def test_the_one_phone_table_keeps_names_and_keypad_words_whole(new_phone, size):
    """The one-phone table's halves: each player's name of a few letters whole (not "K" or
    "Y…"), no keypad
    label broken inside a word ("Oppo/nent"), nothing past the screen's edge, in every language."""
    from e2e.test_duo import open_duo

    page = new_phone(viewport={"width": size[0], "height": size[1]})
    page.goto("/")
    page.get_by_test_id("new-table").click()
    expect(page.get_by_test_id("join-screen")).to_be_visible()
    page.get_by_test_id("name-input").fill("Kaiba")
    page.get_by_test_id("duo-name-b").fill("Yoshiko")
    page.get_by_test_id("duo-start").click()
    expect(page.get_by_test_id("duo-screen")).to_be_visible()
    page.get_by_test_id("recovery-ok").click()
    assert open_duo  # the same steps as e2e/test_duo.py's, with a longer name
    found: list[str] = []
    for lang in LANGS:
        page.locator("[data-testid=lang]:visible").first.select_option(lang)
        expect(page.locator("html")).to_have_attribute("lang", lang)
        m = page.evaluate(DUO)
        found += [f"{lang}: name cut {n}" for n in m["names"]]
        found += [f"{lang}: a word broken in two, {w}" for w in m["broken"]]
        found += [f"{lang}: off screen {o}" for o in m["outside"]]
    assert found == [], "\n".join(found)


def test_an_alerts_flash_dims_nothing(new_phone):
    """The flash at an alert (time called, an entry to confirm) frames the screen in amber: the
    page under it, Confirm included, keeps its colours (no veil over the whole screen)."""
    a, b = new_phone(), new_phone()
    seat_both(a, b)
    start_duel(a, b)
    keypad(b, 500)  # an entry for A to confirm: A's phone flashes
    a.wait_for_function("() => document.body.classList.contains('flash')")
    expect(a.get_by_test_id("confirm-entry")).to_be_visible()
    after = a.evaluate(
        """() => { const cs = getComputedStyle(document.body, '::after');
                   return {bg: cs.backgroundColor, image: cs.backgroundImage,
                           shadow: cs.boxShadow}; }"""
    )
    assert after["bg"] in ("rgba(0, 0, 0, 0)", "transparent"), after
    assert after["image"] == "none", after
    assert "inset" in after["shadow"], after
