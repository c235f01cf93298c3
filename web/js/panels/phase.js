// The phase panel: the clock's start (until it runs) and the card of the current phase. It sits
// above the keypad: a player ends a turn every turn and must not scroll past the keypad for it.

import { h } from "../dom.js";
import { t } from "../i18n.js";
import { get } from "../state.js";
import { readsOf } from "./kit.js";
import * as between from "./phase_between.js";
import * as duel from "./phase_duel.js";
import * as pregame from "./phase_pregame.js";
import * as registration from "./phase_registration.js";

const CLOCK = { reads: ["phase", "clock", "ruleset"] };
const PARTS = { registration, pregame, duel, duel_result: duel, between, match_result: duel, match_over: duel };
const ALL = [registration, pregame, duel, between];

export const name = "phase";
export const reads = readsOf(CLOCK, ...ALL);
export const local = [...new Set(ALL.flatMap((p) => p.local || []))];
export const own = [...new Set(ALL.flatMap((p) => p.own || []))];

/** The time in the phase's card (the side deck window's, between duels). */
export function tick(slot, ctx) {
  if (ctx.s.phase === "between") between.tick(slot, ctx);
}

export function render(ctx) {
  const parts = [];
  const clock = renderClockControls(ctx);
  if (clock) parts.push(clock);
  const part = PARTS[ctx.s.phase];
  if (part) {
    const node = part.build(ctx);
    if (node) parts.push(node);
  }
  return parts.length ? h("div", { class: "phase-panel", testid: "phase-panel", dataset: { phase: ctx.s.phase || "" } }, parts) : null;
}

function renderClockControls(ctx) {
  const { s, view, send } = ctx;
  const status = get(s, "clock.status", "idle");
  if (status !== "idle" || !view.isSeat || s.phase === "match_over") return null;
  // An event table: the organiser starts every table's clock at once with the round.
  if (get(s, "ruleset.staff_start", false)) {
    return h("p", { class: "status-line", testid: "clock-wait-round", text: t("clock.wait_round") });
  }
  // A casual table's clock starts with duel 1 (both players' "drawn 5"): nothing to tap.
  if (s.phase === "registration" || s.phase === "pregame") {
    return h("p", { class: "status-line", testid: "clock-with-duel", text: t("clock.with_duel") });
  }
  // A duel that began with the clock idle (a table from before): both seats start it.
  const votes = get(s, "clock.start_votes", []) || [];
  const voted = votes.includes(view.seat);
  return h(
    "div",
    { class: "row clock-row" },
    // Until the clock runs, the table says both must tap Start and how many have.
    h("p", { class: ["status-line", votes.length && !voted && "attention"], testid: "clock-prompt", dataset: { votes: String(votes.length) }, text: t("clock.prompt", { n: votes.length }) }),
    // The opponent has pressed start: this phone's press is what the table waits for.
    votes.length && !voted ? h("p", { class: "attention status-line", text: t("clock.opp_voted") }) : null,
    h("button", { class: ["btn", votes.length && !voted && "btn-primary"], testid: "clock-start", disabled: voted, onclick: () => send("clock.start"), text: voted ? t("clock.start_waiting") : t("clock.start_count", { n: votes.length }) }),
  );
}
