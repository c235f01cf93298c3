// Before a duel: the checklist (R6.1-R6.4), who chooses (rock-paper-scissors, R6.5), the
// choice of going first, and drawing five.

import { getTableEvent } from "../api.js";
import { h } from "../dom.js";
import { t } from "../i18n.js";
import { other } from "../state.js";
import { card, may, seatName } from "./kit.js";

const HAND_ICON = { rock: "\u270a", paper: "\u270b", scissors: "\u270c\ufe0f" };

export const reads = ["pregame", "seats", "clock", "ruleset", "may_send", "forms"];
export const local = ["eventRound"];

/** The pregame card. */
export function build(ctx) {
  return phasePregame(ctx);
}

function phasePregame(ctx) {
  const { s, view, send } = ctx;
  const pg = s.pregame || {};
  const checks = pg.checks || {};
  const CHECK_ITEMS = s.forms.checklist; // the rules' list (R6.1-R6.4), in the view
  const parts = [];
  // R6.1-R6.4 checklist
  const mineChecks = view.isSeat ? checks[view.seat] || [] : [];
  const list = h(
    "div",
    { class: ["checklist", view.isSeat && CHECK_ITEMS.every((i) => mineChecks.includes(i)) && "compact"], role: "group", "aria-label": t("pre.checklist") },
    CHECK_ITEMS.map((item) => {
      const done = mineChecks.includes(item);
      return h("button", {
        class: ["check", done && "done"],
        testid: `check-${item}`,
        "aria-pressed": String(done),
        disabled: done || !may(s, "pregame.check"),
        onclick: () => send("pregame.check", { items: [item] }),
        text: `${done ? "\u2611" : "\u2610"} ${t(`pre.item_${item}`)}`,
      });
    }),
  );
  const allDone = CHECK_ITEMS.every((i) => mineChecks.includes(i));
  parts.push(h("h3", { text: t("pre.checklist") }));
  if (view.isSeat) {
    parts.push(list);
    if (!allDone && may(s, "pregame.check"))
      parts.push(h("button", { class: "btn btn-primary btn-wide", testid: "checks-all-done", onclick: () => send("pregame.check", { items: CHECK_ITEMS.filter((i) => !mineChecks.includes(i)) }),
        text: t("pre.all_done_items", { items: CHECK_ITEMS.map((i) => t(`pre.item_${i}`)).join(" \u00b7 ") }) }));
  }
  for (const seat of view.isSeat ? [other(view.seat)] : ["A", "B"]) {
    const n = (checks[seat] || []).filter((i) => CHECK_ITEMS.includes(i)).length;
    parts.push(h("p", { class: "status-line", testid: `checks-${seat}`, text: t("pre.progress", { name: seatName(s, seat), n, of: CHECK_ITEMS.length }) }));
  }
  // R6.5 who chooses: rock-paper-scissors, unless the chooser is known (duel 2+: the loser)
  const chooser = pg.chooser || null;
  const first = pg.first || null;
  // An event table: rock-paper-scissors and the duel wait for the round's start (the rules'
  // `wait_for_round`): a seat is offered what its `may_send` holds; the others are told the
  // round has not started while the event's clock waits.
  const waiting = view.isSeat
    ? !may(s, "rps.report")
    : Boolean(s.ruleset && s.ruleset.staff_start) && (!s.clock || s.clock.status === "idle");
  if (!chooser && waiting) parts.push(h("p", { class: "status-line attention", testid: "rps-wait-round", text: waitText(ctx) }));
  else if (!chooser) parts.push(rpsPanel(ctx, pg));
  else if (!first) {
    parts.push(h("h3", { text: t("pre.order") }));
    if (pg.rps_winner) parts.push(h("p", { class: "status-line", testid: "rps-winner", text: t("rps.winner", { name: seatName(s, pg.rps_winner) }) }));
    // R6.5: both hands, shown together, stay in view with who won (not only "Alice won").
    const throws = Array.isArray(pg.throws) ? pg.throws : [];
    const last = throws.length ? throws[throws.length - 1] : null;
    if (pg.rps_winner && last && last.A && last.B) {
      parts.push(h("p", { class: "status-line", testid: "rps-hands", text: t("rps.last", { a: seatName(s, "A"), ha: handText(last.A, s.forms.hands), b: seatName(s, "B"), hb: handText(last.B, s.forms.hands) }) }));
    }
    if (view.isSeat && may(s, "duel.choose")) {
      parts.push(
        h("p", { class: "attention status-line", testid: "chooser", text: t("pre.you_choose") }),
        h("div", { class: "row" },
          h("button", { class: "btn btn-primary", testid: "choose-first", onclick: () => send("duel.choose", { order: "first" }), text: t("pre.go_first") }),
          h("button", { class: "btn", testid: "choose-second", onclick: () => send("duel.choose", { order: "second" }), text: t("pre.go_second") }),
        ),
      );
    } else parts.push(h("p", { class: "status-line", testid: "chooser", text: t("pre.they_choose", { name: seatName(s, chooser) }) }));
  } else {
    parts.push(h("p", { class: "status-line", testid: "first-player", dataset: { seat: first }, text: t("pre.first_is", { name: seatName(s, first) }) }));
    const drawn = pg.drawn || {};
    if (view.isSeat) {
      parts.push(
        drawn[view.seat]
          ? h("p", { class: "status-line ok", testid: "drawn-me", text: t("pre.drawn_done") })
          : may(s, "duel.draw") ? h("button", { class: "btn btn-primary btn-wide", testid: "draw-5", onclick: () => send("duel.draw"), text: t("pre.drawn_5") }) : null,
      );
    }
    for (const seat of view.isSeat ? [other(view.seat)] : ["A", "B"]) {
      parts.push(h("p", { class: "status-line", testid: `drawn-${seat}`, text: drawn[seat] ? t("pre.drawn_them", { name: seatName(s, seat) }) : t("pre.drawing_them", { name: seatName(s, seat) }) }));
    }
  }
  return card(t("phase.pregame"), "pregame", parts);
}

// R6.5 in the app: secret picks (the view says only whether the opponent has picked) or a
// physical result reported by one seat and confirmed by the other.
function rpsPanel(ctx, pg) {
  const { s, view, send } = ctx;
  const HANDS = s.forms.hands; // the rules' hands (R6.5), in the view
  const parts = [h("h3", { text: t("rps.title") })];
  const picked = pg.picked || {};
  const report = pg.report || null;
  const throws = Array.isArray(pg.throws) ? pg.throws : [];
  const last = throws.length ? throws[throws.length - 1] : null;
  if (last && last.A && last.B) {
    parts.push(h("p", { class: "status-line", testid: "rps-last", text: t("rps.last", { a: seatName(s, "A"), ha: handText(last.A, HANDS), b: seatName(s, "B"), hb: handText(last.B, HANDS) }) + (last.A === last.B ? ` \u2014 ${t("rps.tie")}` : "") }));
  }
  if (report && report.winner) {
    const by = report.by || null;
    const theirs = view.isSeat && by && by !== view.seat;
    parts.push(h("p", { class: ["status-line", theirs && "attention"], testid: "rps-report", text: t("rps.reported", { name: seatName(s, by), winner: seatName(s, report.winner) }) }));
    if (theirs && may(s, "rps.confirm")) parts.push(h("button", { class: "btn btn-primary btn-wide", testid: "rps-confirm", onclick: () => send("rps.confirm"), text: t("rps.confirm") }));
    else if (view.isSeat) parts.push(h("p", { class: "muted", text: t("pending.waiting") }));
  }
  if (view.isSeat) {
    const mine = pg.my_pick || null;
    const theyPicked = Boolean(picked[other(view.seat)]);
    parts.push(
      h("div", { class: "row rps-hands", role: "group", "aria-label": t("rps.pick") },
        HANDS.map((hand) =>
          h("button", {
            class: ["btn", "hand", mine === hand && "on"],
            testid: `rps-${hand}`,
            "aria-pressed": String(mine === hand),
            disabled: !may(s, "rps.pick"),
            onclick: () => send("rps.pick", { hand }),
            text: `${HAND_ICON[hand]} ${t(`rps.${hand}`)}`,
          }),
        ),
      ),
      h("p", { class: "status-line", testid: "rps-status", text: mine ? t("rps.waiting") : theyPicked ? t("rps.they_picked", { name: seatName(s, other(view.seat)) }) : t("rps.pick_hint") }),
    );
    if (!report && may(s, "rps.report")) {
      parts.push(
        h("p", { class: "muted", text: t("rps.physical") }),
        h("div", { class: "row" },
          h("button", { class: "btn", testid: "rps-report-me", onclick: () => send("rps.report", { winner: view.seat }), text: t("rps.i_won") }),
          h("button", { class: "btn", testid: "rps-report-opp", onclick: () => send("rps.report", { winner: other(view.seat) }), text: t("rps.they_won") }),
        ),
      );
    }
  } else {
    parts.push(h("p", { class: "status-line", testid: "rps-status", text: t("rps.in_progress") }));
  }
  return h("div", { class: "rps", testid: "rps" }, parts);
}

function handText(hand, HANDS) {
  if (!HANDS.includes(hand)) return "?";
  return `${HAND_ICON[hand]} ${t(`rps.${hand}`)}`;
}

// "Round 2 starts soon": the round's number, asked of the event once (0 while it is asked, so
// the plain words show until it arrives, and again if it cannot be had).
function waitText(ctx) {
  const { ui, code } = ctx;
  if (ui.eventRound === null && code) {
    ui.keep({ eventRound: 0 });
    getTableEvent(code).then((res) => {
      const n = res.ok && Number.isInteger(res.body.round) ? res.body.round : 0;
      if (n) ui.set({ eventRound: n });
    });
  }
  return ui.eventRound ? t("rps.wait_round_n", { n: ui.eventRound }) : t("rps.wait_round");
}
