// The banners under the header: time called, a duel or match over, the round ended.

import { h } from "../dom.js";
import { stageText, t } from "../i18n.js";
import { get } from "../state.js";
import { matchText, resultText, seatName } from "./kit.js";

export const name = "banners";
export const reads = ["time", "stage_turns", "phase", "result", "lp", "match", "wins", "seats", "flags", "duel_no", "turn"];

/**
 * The time banner (needs "time", "stage_turns", "phase", "turn"), or null. During a duel the board's strip
 * shows it (board.js), so that it takes no room from the keypad; in the other phases it is here.
 */
export function timeBanner(s, cls = "banner banner-time") {
  const stage = get(s, "time.stage", null);
  const called = get(s, "time.called", false);
  // The time banner belongs to a duel (or the Extra Duel still to come), not to its result.
  if (!(stage || called) || ["duel_result", "match_result", "match_over"].includes(s.phase)) return null;
  let text = t("time.called");
  const of = get(s, "stage_turns", 0); // the stage's turns, as the rules count them (R5)
  if (stage === "extra_duel") {
    text = t("time.banner_turn", { stage: stageText(stage, { of }), n: get(s, "turn.no", 1), of });
  } else if (stage) text = stageText(stage, { n: get(s, "time.extra_turn", 0) || 1, of });
  return h("div", { class: cls, testid: "time-banner", role: "alert", dataset: { stage: stage || "called" }, text });
}

export function render({ s }) {
  const out = [];
  if (s.phase !== "duel") out.push(timeBanner(s));
  const lp = s.lp || {};
  if (s.phase === "duel" && (lp.A <= 0 || lp.B <= 0)) {
    const text = lp.A <= 0 && lp.B <= 0 ? t("duel.both_zero") : t("duel.zero", { name: seatName(s, lp.A <= 0 ? "A" : "B") });
    out.push(h("div", { class: "banner banner-end", testid: "duel-over", role: "alert", text }));
  }
  if (s.phase === "duel_result" && s.result) {
    out.push(h("div", { class: "banner banner-end", testid: "duel-result", role: "alert", text: resultText(s, s.result) }));
  }
  if ((s.phase === "match_result" || s.phase === "match_over") && s.match) {
    out.push(h("div", { class: "banner banner-end", testid: "match-result", role: "alert", text: matchText(s, s.match) }));
  }
  // The organiser ended the event's round while this match was still on.
  const ended = (s.flags || []).find((f) => f.kind === "round_ended");
  if (ended) {
    out.push(h("div", { class: "banner banner-time", testid: "round-ended", role: "alert", text: t("round.ended", { n: ended.detail || "" }) }));
  }
  const shown = out.filter(Boolean);
  return shown.length ? h("div", { class: "banners" }, shown) : null;
}
