// What every panel of the table screen shares: the picked state, the host that redraws a panel
// when what it declared changed, and small builders (a card, a number field, names and texts).
//
// A panel is a module exporting {name, reads, local?, render(ctx)}:
//   reads  the top-level fields of the table state it shows ("lp", "seats", ...);
//   local  the fields of the screen's UI state (web/js/ui.js) it shows (an open form, a count);
//   own    UI state the panel writes and repaints in place itself (what is being typed: it
//          must not redraw the panel); ui.forms (typed values) is every panel's own;
//   link   what it shows of the connection (the store's link: "status", "queued", "unsent");
//   always drawn before the first state arrives too (the bar);
//   render gets ctx.s holding ONLY the fields in reads (frozen), so a field it did not declare
//          reads as undefined, and e2e/test_panels.py fails on it;
//   tick   (optional) tick(slot, {s, now}): the time shown in what render drew (the clock, the
//          side deck window), four times a second; s is the same picked state.

import { h, holdWhilePressed } from "../dom.js";
import { has, lang, t } from "../i18n.js";
import { whoText } from "../words.js";
import { signed, signedDelta } from "../lp.js";
import { get } from "../state.js";

/** The fields of state named in reads, and nothing else (frozen). */
export function pick(state, reads) {
  const out = {};
  if (state) for (const key of reads) if (state[key] !== undefined) out[key] = state[key];
  return Object.freeze(out);
}

/** The fields of the UI state named in local (what a panel's signature includes). */
export function pickLocal(ui, local) {
  const out = {};
  for (const key of local || []) out[key] = ui[key];
  return out;
}

/**
 * Draw panels into their slots, each again only when its inputs changed: the picked state, its
 * local UI state, the viewer and the language. ctxOf(panel, s) makes the render's context.
 *
 * A panel being pressed is not redrawn until the press is over: a redraw replaces its buttons,
 * and a button replaced between the finger's down and up never gets the click (the tap is lost,
 * the update that came meanwhile having nothing to do with it). What changed meanwhile is drawn
 * as soon as the tap's click was handled (redraw(), default: update again with the last inputs;
 * `holdWhilePressed` in web/js/dom.js).
 */
export class PanelHost {
  constructor(panels, slots, ctxOf, redraw = null) {
    this.panels = panels;
    this.slots = slots;
    this.ctxOf = ctxOf;
    this.keys = new Map();
    this.redraw = redraw || (() => this.last && this.update(...this.last));
    this.last = null;
    const watched = Object.fromEntries(panels.map((panel) => [panel.name, slots[panel.name]]));
    this.hold = holdWhilePressed(watched, () => this.redraw());
  }

  /** Redraw what changed; with no state yet only the panels marked always are drawn. */
  update(state, view, ui, link = {}) {
    this.last = [state, view, ui, link];
    for (const panel of this.panels) {
      if (!state && !panel.always) continue;
      if (panel.name === this.hold.held()) continue; // drawn when the press is over
      const s = pick(state, panel.reads);
      const key = JSON.stringify([lang(), view, s, pickLocal(ui, panel.local), pickLocal(link, panel.link)]);
      if (this.keys.get(panel.name) === key) continue;
      this.keys.set(panel.name, key);
      const node = panel.render(this.ctxOf(panel, s));
      this.slots[panel.name].replaceChildren(...(node ? [node] : []));
    }
  }

  /** The time in what the panels drew: each panel with a tick updates its own slot. */
  tick(state, now) {
    if (!state) return;
    for (const panel of this.panels) if (panel.tick) panel.tick(this.slots[panel.name], { s: pick(state, panel.reads), now });
  }

  /** Forget what was drawn (all, or one panel): the next update redraws it. */
  forget(name = null) {
    if (name === null) this.keys.clear();
    else this.keys.delete(name);
  }
}

/** The union of some panels' reads (a panel made of parts declares all of theirs). */
export function readsOf(...parts) {
  return [...new Set(parts.flatMap((p) => p.reads))];
}

/** Whether this seat may send `cmd` now, as the rules say (`may_send` in its view, from
 * server/rules/now.py; needs "may_send" in reads): the phone offers a button by it. */
export function may(s, cmd) {
  return (s.may_send || []).includes(cmd);
}

/** A seat's name, or "Seat A" (needs "seats" in reads); a judge or organiser (a label
 * "judge:<name>") in words. */
export function seatName(s, seat) {
  if (seat !== "A" && seat !== "B" && seat) return whoText(seat);
  return get(s, `seats.${seat}.name`, "") || t("seat.name", { seat });
}

/** A titled card section. */
export function card(title, testid, ...children) {
  return h("section", { class: "card", testid, "aria-label": title }, h("h2", { text: title }), children);
}

/** A number input whose typed value lives in ui.forms[form][key] (it survives redraws). */
export function numberField(ui, form, key, label, testid, { min = 0, max = 99 } = {}) {
  const id = `f-${form}-${key}`;
  const values = (ui.forms[form] ||= {});
  const input = h("input", {
    id,
    type: "number",
    inputmode: "numeric",
    min: String(min),
    max: String(max),
    testid,
    value: values[key] ?? "",
    oninput: (e) => (values[key] = e.target.value),
  });
  return h("label", { class: "field", for: id }, h("span", { text: label }), input);
}

/** One LP change in words; with the LP before it, its signed difference too. */
export function changeText(s, change, lpBefore) {
  const who = seatName(s, change.seat);
  const kind = change.kind || (change.delta < 0 ? "damage" : "gain");
  const amount = change.kind ? change.amount : Math.abs(change.delta || 0);
  if (kind === "halve") return t("change.halve", { name: who });
  if (kind === "set") return t("change.set", { name: who, amount });
  const base = t(`change.${kind}`, { name: who, amount });
  return lpBefore == null ? base : `${base} (${signed(signedDelta(lpBefore, change))})`;
}

/** An entry's changes in words. */
export function changesText(s, changes, lpBefore) {
  return (changes || []).map((c) => changeText(s, c, lpBefore ? lpBefore[c.seat] : null)).join(" \u00b7 ");
}

/** The LP entries still waiting for a yes (needs "pending"). */
export function openPending(s) {
  return (get(s, "pending", []) || []).filter((p) => p && !p.confirmed);
}

/** Deck counts in words. */
export function countsText(c) {
  if (!c) return "\u2013";
  return t("deck.counts", { main: c.main ?? "?", extra: c.extra ?? "?", side: c.side ?? "?" });
}

/** A duel's result in words (needs "seats", "duel_no"). */
export function resultText(s, result) {
  const reason = result.reason ? t(`reason.${result.reason}`) : "";
  const duel = result.duel || get(s, "duel_no", 1);
  const main = result.winner
    ? t("result.duel_win", { duel, name: seatName(s, result.winner) })
    : t("result.duel_draw", { duel });
  return result.reason && has(`reason.${result.reason}`) ? `${main} (${reason})` : main;
}

/** A match's result in words (needs "seats", "wins"). */
export function matchText(s, match) {
  const wins = get(s, "wins", {});
  const score = `${wins.A || 0}\u2013${wins.B || 0}`;
  // An Extra Duel's winner takes the match from level wins: the score alone would read as a draw.
  if (match.winner && match.reason === "extra_duel") return t("result.match_win_extra", { name: seatName(s, match.winner), score });
  const main = match.winner ? t("result.match_win", { name: seatName(s, match.winner), score }) : t("result.match_draw", { score });
  const reason = match.reason && match.reason !== "wins" && has(`reason.${match.reason}`) ? t(`reason.${match.reason}`) : "";
  return reason ? `${main} (${reason})` : main;
}
