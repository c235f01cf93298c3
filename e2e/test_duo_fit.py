"""The one-phone table fits a small phone mid-duel: at 320, 360 and 390 px wide, with an LP entry
waiting (the proposer's Withdraw on one half, the banner to confirm on the other), in every
language of the list, no text reaches past the box that holds it (nothing cut off under an
ellipsis), no button's label takes two lines and no word is broken (not "Oppo/nent", not
"Dama/ge"), each player's name shows at least NAME_CHARS letters (the whole name when shorter;
a name may take two lines) on both halves, every button's label is 14 px or more, and every tap
target of both halves is at least 44x44 CSS px."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect

from e2e.steps import keypad, start_duel
from server.core.i18n import load

CATALOGUES = load()
LANGS = CATALOGUES.codes
TAP = 44
LABEL_PX = 14  # the smallest label still read at a glance
NAME_CHARS = 8  # enough to tell two players apart: "Jonouchi" of "Jonouchi Katsuya"
SIZES = [(320, 568), (360, 740), (390, 844)]
NAMES = {"A": "Jonouchi Katsuya", "B": "Kaiba"}  # one longer than NAME_CHARS, one shorter

# Measures the one-phone screen. Where a text node sits is the union of its line boxes
# (Range.getClientRects); its container is the nearest ancestor laid out as a box (not inline,
# not `display: contents`); the room it has is that box cut by every ancestor that clips
# (overflow other than visible) and by the screen's width. A half scrolls up and down, so it
# clips only sideways.
MEASURE = """(LABEL_PX) => {
  const screen = document.querySelector('[data-testid=duo-screen]');
  const halves = [...screen.querySelectorAll('.duo-half')];
  const shown = (el) => el.getClientRects().length > 0
    && getComputedStyle(el).visibility !== 'hidden';
  const where = (el) => {
    const half = el.closest('.duo-half');
    const id = el.closest('[data-testid]');
    return `${half ? half.dataset.testid : 'strip'} ${id ? id.dataset.testid : el.className}`;
  };
  const container = (el) => {
    let c = el;
    while (c && ['inline', 'contents'].includes(getComputedStyle(c).display)) c = c.parentElement;
    return c;
  };
  // The room inside which `el`'s content is seen: its box cut by the ancestors that clip.
  const room = (own) => {
    const r = own.getBoundingClientRect();
    let box = {left: r.left, right: r.right, top: r.top, bottom: r.bottom};
    box = {...box, left: Math.max(box.left, 0), right: Math.min(box.right, innerWidth)};
    for (let a = own.parentElement; a && a !== document.body; a = a.parentElement) {
      const cs = getComputedStyle(a);
      const clipsX = cs.overflowX !== 'visible', clipsY = cs.overflowY !== 'visible';
      if (!clipsX && !clipsY) continue;
      const q = a.getBoundingClientRect();
      if (clipsX)
        box = {...box, left: Math.max(box.left, q.left), right: Math.min(box.right, q.right)};
      if (clipsY && !a.classList.contains('duo-half'))
        box = {...box, top: Math.max(box.top, q.top), bottom: Math.min(box.bottom, q.bottom)};
    }
    return box;
  };
  // Sideways to the pixel; up and down by the line's middle (a glyph's ascent may pass a line
  // height of 1 without cutting anything, a line cut off is wholly or half outside).
  const within = (q, box) => q.left >= box.left - 1 && q.right <= box.right + 1
    && (q.top + q.bottom) / 2 >= box.top && (q.top + q.bottom) / 2 <= box.bottom;
  // Text hidden on purpose for screen readers only (clipped to nothing).
  const forReaders = (el) => {
    for (let a = el; a; a = a.parentElement) {
      if (a.classList.contains('sr-only')) return true;
      const cs = getComputedStyle(a);
      if (cs.position === 'absolute' && cs.clip !== 'auto') return true;
    }
    return false;
  };
  const rectsOf = (node, start = 0, end = node.textContent.length) => {
    const range = document.createRange();
    range.setStart(node, start);
    range.setEnd(node, end);
    return [...range.getClientRects()].filter((q) => q.width > 0 && q.height > 0);
  };
  // Lines a run of text takes: a rect below the line before starts a new one.
  const lines = (rects) => {
    let n = 0, bottom = -Infinity;
    for (const q of [...rects].sort((x, y) => x.top - y.top)) {
      if (q.top >= bottom - 2) { n += 1; bottom = q.bottom; }
      else bottom = Math.max(bottom, q.bottom);
    }
    return n;
  };
  const overflows = [], twoLines = [], broken = [];
  for (const root of [screen]) {
    const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      const parent = node.parentElement;
      if (!node.textContent.trim() || !parent || !shown(parent)) continue;
      if (parent.closest('option, select, script, style') || forReaders(parent)) continue;
      const own = container(parent);
      const box = room(own);
      const rects = rectsOf(node);
      const out = rects.filter((q) => !within(q, box));
      if (out.length) {
        const span = (r) => [r.left, r.right, r.top, r.bottom].map(Math.round);
        const [l, r, t, b] = span(out[0]), [bl, br, bt, bb] = span(box);
        overflows.push(`${where(parent)}: "${node.textContent.trim()}" at `
          + `${l}..${r} x ${t}..${b} in ${bl}..${br} x ${bt}..${bb}`);
      }
      if (parent.closest('button') && lines(rects) > 1)
        twoLines.push(`${where(parent)}: "${node.textContent.trim()}" on ${lines(rects)} lines`);
      // A Latin word wrapped inside itself ("Oppo/nent"); Chinese and Japanese break anywhere.
      const words = /[A-Za-z\u00c0-\u024f][A-Za-z\u00c0-\u024f'’-]{2,}/g;
      for (const m of node.textContent.matchAll(words)) {
        if (lines(rectsOf(node, m.index, m.index + m[0].length)) > 1)
          broken.push(`${where(parent)}: ${m[0]}`);
      }
    }
  }
  // Each name on each half: how many of its letters are seen.
  const names = [];
  for (const half of halves) {
    for (const seat of ['A', 'B']) {
      const el = half.querySelector(`[data-testid=name-${seat}]`);
      if (!el) { names.push({half: half.dataset.testid, seat, text: null, seen: 0}); continue; }
      const box = room(el);
      let seen = 0;
      const text = el.textContent;
      const walker = document.createTreeWalker(el, NodeFilter.SHOW_TEXT);
      for (let node = walker.nextNode(); node; node = walker.nextNode()) {
        for (let i = 0; i < node.textContent.length; i++) {
          if (!node.textContent[i].trim()) continue;
          const rects = rectsOf(node, i, i + 1);
          if (rects.length && rects.every((q) => within(q, box))) seen += 1;
        }
      }
      names.push({half: half.dataset.testid, seat, text, seen});
    }
  }
  // Every tap target of the screen, as big as a finger.
  const targets = 'button, a[href], select, input:not([type=hidden]), textarea, summary, '
    + '[role=button], [role=radio], [role=checkbox], [tabindex]:not([tabindex="-1"])';
  const small = [...screen.querySelectorAll(targets)]
    .filter((e) => shown(e) && !forReaders(e))
    .filter((e) => getComputedStyle(e).pointerEvents !== 'none')
    .map((e) => [where(e), e.getBoundingClientRect()])
    .filter(([, r]) => r.width < 44 - 0.01 || r.height < 44 - 0.01)
    .map(([id, r]) => `${id} ${r.width.toFixed(1)}x${r.height.toFixed(1)}`);
  // A button's label at 14 px or more (smaller is hard to read at arm's length).
  const tiny = [...screen.querySelectorAll('button, select')]
    .filter((e) => shown(e) && !forReaders(e) && e.textContent.trim())
    .filter((e) => parseFloat(getComputedStyle(e).fontSize) < LABEL_PX)
    .map((e) => `${where(e)} ${getComputedStyle(e).fontSize}`);
  return {overflows, twoLines, broken, names, small, tiny};
}"""


def open_duo_named(page: Page) -> tuple:
    """From home: a new one-phone table with NAMES; returns the near (A) and far (B) halves."""
    page.goto("/")
    page.get_by_test_id("new-table").click()
    expect(page.get_by_test_id("join-screen")).to_be_visible()
    page.get_by_test_id("name-input").fill(NAMES["A"])
    page.get_by_test_id("duo-name-b").fill(NAMES["B"])
    page.get_by_test_id("duo-start").click()
    expect(page.get_by_test_id("duo-screen")).to_be_visible()
    page.get_by_test_id("recovery-ok").click()
    a, b = page.get_by_test_id("duo-A"), page.get_by_test_id("duo-B")
    expect(a.get_by_test_id("name-B")).to_have_text(NAMES["B"])
    return a, b


def problems(page: Page, where: str) -> list[str]:
    """What does not fit on the one-phone screen as it is now, each said in a line."""
    m = page.evaluate(MEASURE, LABEL_PX)
    bad = [f"{where}: text past its box, {o}" for o in m["overflows"]]
    bad += [f"{where}: a button's label on two lines, {w}" for w in m["twoLines"]]
    bad += [f"{where}: a word broken in two, {w}" for w in m["broken"]]
    for n in m["names"]:
        need = min(NAME_CHARS, len(NAMES[n["seat"]].replace(" ", "")))
        if n["text"] != NAMES[n["seat"]] or n["seen"] < need:
            bad.append(
                f"{where}: {n['half']} name-{n['seat']} {n['text']!r} shows {n['seen']} letters"
                f" (at least {need})"
            )
    bad += [f"{where}: under {TAP}x{TAP} px, {s}" for s in m["small"]]
    bad += [f"{where}: a label under {LABEL_PX} px, {s}" for s in m["tiny"]]
    return bad


@pytest.mark.parametrize("size", SIZES, ids=[f"{w}x{h}" for w, h in SIZES])
def test_the_one_phone_table_fits_mid_duel(new_phone, size):
    """Mid-duel, B's entry waiting for A: both halves fit, in every language."""
    page = new_phone(viewport={"width": size[0], "height": size[1]})
    a, b = open_duo_named(page)
    start_duel(a, b, winner=a, order="first")
    keypad(b, 2000)  # B proposes: A's half shows the banner, B's half its Withdraw
    banner = a.get_by_test_id("confirm-banner")
    expect(banner).to_be_visible()
    expect(b.get_by_test_id("withdraw-waiting")).to_be_visible()
    found: list[str] = []
    for lang in LANGS:
        page.locator("[data-testid=lang]:visible").first.select_option(lang)
        expect(page.locator("html")).to_have_attribute("lang", lang)
        # the strip's words follow the language too (they are measured below)
        expect(page.get_by_test_id("duo-tag")).to_have_text(CATALOGUES.translator(lang)("duo.tag"))
        expect(banner).to_be_visible()
        banner.evaluate("el => Promise.all(el.getAnimations().map(a => a.finished))")
        found += problems(page, f"{size[0]}x{size[1]} {lang}")
    assert found == [], "\n".join(found)
