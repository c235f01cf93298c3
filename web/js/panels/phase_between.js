// Between duels: side decking (by counts, or card by card against the registered list, R6.8,
// R2.6), the deck check (R7.5) and ready. The window's timer text is this part's tick.

import { cardLabel, nameCards } from "../card_names.js";
import { formatDuration, h } from "../dom.js";
import { t } from "../i18n.js";
import { get, other } from "../state.js";
import { card, countsText, may, numberField, seatName } from "./kit.js";

export const reads = ["decks", "seats", "ruleset", "window", "may_send", "forms"];

// R7.5: a failed check holds the table. At an event a judge clears it; at a casual table (no
// judge) both players say the deck is fixed (`deck.fix`, the second yes clears it).
function myCheck(ctx, mine) {
  const { s, view, send } = ctx;
  const check = [h("h3", { text: t("between.deck_check") })];
  if (mine.check_failed) {
    const casual = !get(s, "ruleset.staff_start", false);
    const said = (mine.fixed_by || []).includes(view.seat);
    check.push(h("p", { class: "status-line bad", testid: "deck-check-failed", role: "status", text: t(casual ? "between.check_failed_casual" : "between.check_failed_judge") }));
    if (said) check.push(h("p", { class: "status-line", testid: "deck-fix-waiting", text: t("between.fix_waiting", { name: seatName(s, other(view.seat)) }) }));
    else if (may(s, "deck.fix")) check.push(h("button", { class: "btn btn-primary btn-wide", testid: "deck-fixed", onclick: () => send("deck.fix", { seat: view.seat }), text: t("between.fix_mine") }));
  } else if (mine.checked) check.push(h("p", { class: "status-line ok", testid: "deck-checked", text: t("between.checked") }));
  else if (may(s, "deck.check"))
    check.push(h("div", { class: "row" },
      h("button", { class: "btn btn-primary", testid: "deck-check-ok",
        onclick: () => {
          send("deck.check", { ok: true, note: "" });
          if (!mine.ready) send("between.ready"); // one tap: the deck is complete and I am ready
        },
        text: t(mine.ready ? "between.check_ok" : "between.check_ok_ready", { counts: countsText(mine.current || mine.declared) }) }),
      h("button", { class: "btn btn-quiet", testid: "deck-check-problem", onclick: () => send("deck.check", { ok: false, note: "" }), text: t("between.check_problem") }),
    ));
  return check;
}

function readyPart({ s, send }, mine) {
  if (mine.ready) return h("p", { class: "status-line ok", testid: "ready-me", text: t("between.ready_done") });
  if (!may(s, "between.ready")) return null; // the rules say when (R7.5: a deck checked and sound)
  return h("button", { class: "btn btn-primary btn-wide", testid: "between-ready", onclick: () => send("between.ready"), text: t("between.ready") });
}

// The other seat's line: its check (a failed one as a failure) and readiness; at a casual table
// this phone's yes that the opponent's deck is fixed.
function seatLines(ctx, seat) {
  const { s, view, send } = ctx;
  const d = (s.decks || {})[seat] || {};
  const checkText = d.check_failed ? t("between.check_failed_short") : d.checked ? t("between.checked_short") : t("between.not_checked");
  const lines = [h("p", { class: ["status-line", d.check_failed && "bad"], testid: `between-${seat}`, text: `${seatName(s, seat)}: ${checkText} \u00b7 ${d.ready ? t("between.is_ready") : t("between.not_ready")}` })];
  // At a casual table this phone says the opponent's deck is fixed, while the rules let it.
  const said = d.check_failed && view.isSeat && (d.fixed_by || []).includes(view.seat);
  if (said) lines.push(h("p", { class: "status-line", testid: "deck-fix-waiting", text: t("between.fix_waiting", { name: seatName(s, seat) }) }));
  else if (d.check_failed && view.isSeat && may(s, "deck.fix")) {
    lines.push(h("button", { class: "btn btn-wide", testid: "deck-fix-confirm", onclick: () => send("deck.fix", { seat }), text: t("between.fix_theirs", { name: seatName(s, seat) }) }));
  }
  return lines;
}

/** The between-duels card. */
export function build(ctx) {
  return phaseBetween(ctx);
}

function phaseBetween(ctx) {
  const { s, view, ui, send } = ctx;
  const decks = s.decks || {};
  const parts = [h("p", { class: "status-line", testid: "window-timer", role: "timer" })];
  if (view.isSeat) {
    const mine = decks[view.seat] || {};
    // The deck check (R7.5) and ready come after side decking: one tap once the deck is set.
    const check = myCheck(ctx, mine);
    if (mine.list && mine.cards && mine.cards.current) {
      parts.push(sideByCard(ctx, mine), check, readyPart(ctx, mine), ...seatLines(ctx, other(view.seat)));
      return card(t("phase.between"), "between", parts);
    }
    // R6.8 side decking: the deck keeps its count
    const form = (ui.forms.side ||= {});
    const most = s.forms.deck_sizes.side[1]; // at most a side deck's worth moves (R2.3, R6.8)
    const err = h("p", { class: "form-error", testid: "side-error", role: "alert" });
    const submit = () => {
      const n = (k) => Number(form[k] || 0);
      const v = { main: { in: n("main_in"), out: n("main_out") }, extra: { in: n("extra_in"), out: n("extra_out") } };
      const bad = [v.main.in, v.main.out, v.extra.in, v.extra.out].some((x) => !Number.isInteger(x) || x < 0 || x > most);
      // R6.8 (in = out) is the server's to judge: its refusal names the deck and the difference.
      if (bad) err.textContent = t("side.err_range");
      else {
        err.textContent = "";
        send("side.exchange", v);
      }
    };
    parts.push(
      h("h3", { text: t("side.title") }),
      h("p", { class: "muted", text: t("side.hint") }),
      h("div", { class: "fields4" },
        numberField(ui, "side", "main_in", t("side.main_in"), "side-main-in", { max: most }),
        numberField(ui, "side", "main_out", t("side.main_out"), "side-main-out", { max: most }),
        numberField(ui, "side", "extra_in", t("side.extra_in"), "side-extra-in", { max: most }),
        numberField(ui, "side", "extra_out", t("side.extra_out"), "side-extra-out", { max: most }),
      ),
      err,
      h("button", { class: "btn btn-wide", testid: "side-submit", onclick: submit, text: t("side.submit") }),
      mine.current ? h("p", { class: "muted", testid: "deck-current", text: t("side.current", { counts: countsText(mine.current) }) }) : null,
    );
    parts.push(check, readyPart(ctx, mine));
  }
  for (const seat of view.isSeat ? [other(view.seat)] : ["A", "B"]) parts.push(...seatLines(ctx, seat));
  return card(t("phase.between"), "between", parts);
}

/** Side decking card by card (R6.8, R2.6): side-deck cards in, main or extra deck cards out. */
function sideByCard(ctx, mine) {
  const { ui, send } = ctx;
  const cur = mine.cards.current;
  const reg = mine.cards.registered || cur;
  const picks = (ui.forms.sidecards ||= { in: {}, out: {}, to: {} });
  const named = []; // cards kept by passcode, named once the names arrive
  const err = h("p", { class: "form-error", testid: "side-error", role: "alert" });
  const picker = (kind, part, cardName, max) => {
    const key = `${part}|${cardName}`;
    const sel = h("select", {
      testid: kind === "in" ? "side-in" : "side-out",
      dataset: { card: cardName, part },
      "aria-label": `${cardLabel(cardName)} (${kind === "in" ? t("side.card_in") : t("side.card_out")})`,
      onchange: (e) => (picks[kind][key] = Number(e.target.value)),
    });
    for (let n = 0; n <= max; n++) sel.append(h("option", { value: String(n), text: String(n), selected: (picks[kind][key] || 0) === n }));
    const label = h("span", { text: `${cardLabel(cardName)} \u00d7${max}` });
    named.push([label, cardName, (name) => `${name} \u00d7${max}`]);
    return h("li", { class: "card-pick" }, label, sel);
  };
  const inRows = Object.entries(cur.side || {}).map(([c, n]) => {
    const to = h("select", {
      testid: "side-in-part",
      dataset: { card: c },
      "aria-label": t("side.to_part", { card: cardLabel(c) }),
      onchange: (e) => (picks.to[c] = e.target.value),
    });
    for (const p of ["main", "extra"]) to.append(h("option", { value: p, text: t(`deck.${p}`), selected: (picks.to[c] || "main") === p }));
    const row = picker("in", "side", c, n);
    row.append(to);
    return row;
  });
  const outRows = ["main", "extra"].flatMap((part) => Object.entries(cur[part] || {}).map(([c, n]) => picker("out", part, c, n)));
  const submit = () => {
    const v = { main_in: {}, main_out: {}, extra_in: {}, extra_out: {} };
    for (const [key, n] of Object.entries(picks.in)) {
      const c = key.slice(key.indexOf("|") + 1);
      if (n > 0) v[`${picks.to[c] || "main"}_in`][c] = n;
    }
    for (const [key, n] of Object.entries(picks.out)) {
      const [part] = key.split("|", 1);
      const c = key.slice(part.length + 1);
      if (n > 0) v[`${part}_out`][c] = n;
    }
    const total = (o) => Object.values(o).reduce((a, b) => a + b, 0);
    if (!total(v.main_in) && !total(v.extra_in)) err.textContent = t("side.err_none");
    else if (total(v.main_in) !== total(v.main_out) || total(v.extra_in) !== total(v.extra_out)) err.textContent = t("side.err_equal");
    else {
      err.textContent = "";
      for (const k of Object.keys(v)) if (!total(v[k])) delete v[k];
      ui.forms.sidecards = { in: {}, out: {}, to: {} };
      send("side.exchange", v);
    }
  };
  // what differs from the registration, card by card
  const diff = [];
  for (const part of ["main", "extra", "side"]) {
    const names = new Set([...Object.keys(reg[part] || {}), ...Object.keys(cur[part] || {})]);
    for (const c of [...names].sort()) {
      const d = ((cur[part] || {})[c] || 0) - ((reg[part] || {})[c] || 0);
      if (d) diff.push(`${t(`deck.${part}`)} ${d > 0 ? "+" : "\u2212"}${Math.abs(d)} ${cardLabel(c)}`);
    }
  }
  nameCards(named);
  return h("div", { class: "side-cards", testid: "side-by-card" },
    h("h3", { text: t("side.title") }),
    h("p", { class: "muted", text: t("side.hint_cards") }),
    h("h4", { text: t("side.card_in") }),
    h("ul", { class: "card-picks", testid: "side-in-list" }, inRows.length ? inRows : h("li", { class: "muted", text: t("side.empty") })),
    h("h4", { text: t("side.card_out") }),
    h("ul", { class: "card-picks", testid: "side-out-list" }, outRows),
    err,
    h("button", { class: "btn btn-wide", testid: "side-submit", onclick: submit, text: t("side.submit") }),
    h("p", { class: "muted", testid: "deck-current", text: t("side.current", { counts: countsText(mine.current) }) }),
    h("p", { class: "muted", testid: "side-diff", text: diff.length ? t("side.diff", { changes: diff.join(", ") }) : t("side.as_registered") }),
  );
}

/** The side deck window's time used (in the timer line the card drew). */
export function tick(slot, { s, now }) {
  const win = slot.querySelector('[data-testid="window-timer"]');
  if (!win) return;
  const started = get(s, "window.started_ms", null);
  const limit = get(s, "window.limit_ms", 180000);
  if (started) {
    const used = Math.max(0, now - started);
    const text = t("between.window", { used: formatDuration(used), limit: formatDuration(limit) });
    if (win.textContent !== text) win.textContent = text;
    win.classList.toggle("attention", used > limit);
  } else win.textContent = t("between.window", { used: "0:00", limit: formatDuration(limit) });
}
