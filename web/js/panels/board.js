// The board: both seats' LP and wins, and the strip between them (phase, duel, turn, clock).
// The clock's text is this panel's tick, in the element its render drew.

import { formatDuration, h } from "../dom.js";
import { has, t } from "../i18n.js";
import { get } from "../state.js";
import { timeBanner } from "./banners.js";
import { seatName } from "./kit.js";

export const name = "board";
export const reads = ["seats", "lp", "wins", "phase", "duel_no", "turn", "clock", "time", "stage_turns", "ruleset", "calls"];
export const local = ["rulingSeen"];

/**
 * An event table's judge call on the board, where the players look: called, then a judge is
 * coming, then the judge's words (the ruling's note) until a player has read them (R7.1). A
 * casual table has no judge to answer: its Judge card says what to do instead.
 */
function judgeLine(s, ui) {
  if (!get(s, "ruleset.staff_start", false)) return null;
  const calls = (s.calls || []).filter(Boolean);
  const open = calls.filter((c) => c.status !== "closed");
  if (open.length) {
    const c = open.find((x) => x.status === "acknowledged") || open[0];
    const coming = c.status === "acknowledged";
    const text = coming
      ? (c.judge ? t("board.judge_coming_named", { judge: c.judge }) : t("judge.coming"))
      : t("judge.called", { name: seatName(s, c.seat) });
    return h("p", { class: ["board-call", coming ? "ok" : "attention"], testid: "board-call", role: "status", dataset: { status: c.status, call: String(c.call) }, text });
  }
  const last = calls.filter((c) => c.status === "closed").at(-1);
  if (!last || last.call <= (ui?.rulingSeen || 0)) return null;
  const ruling = last.note || (last.code && has(`sheet.closed.${last.code}`) ? t(`sheet.closed.${last.code}`) : "");
  const judge = last.judge || t("board.judge");
  return h("div", { class: "board-call board-ruling", testid: "board-call", role: "status", dataset: { status: "closed", call: String(last.call) } },
    h("p", { testid: "board-ruling", text: ruling ? t("board.ruling", { judge, ruling }) : t("board.answered", { judge }) }),
    h("button", { class: "btn btn-small", type: "button", testid: "board-ruling-ok", text: t("board.ruling_ok"),
      onclick: () => ui.set({ rulingSeen: last.call }) }));
}

function seatBlock(s, view, seat, big) {
  const lp = get(s, `lp.${seat}`, null);
  const wins = get(s, `wins.${seat}`, 0);
  const mine = view.isSeat && seat === view.seat;
  const turnPlayer = s.phase === "duel" && get(s, "turn.player", null) === seat;
  const wrapId = view.isSeat ? (mine ? "my-lp" : "opp-lp") : big ? "lp-bottom" : "lp-top";
  const joined = get(s, `seats.${seat}.joined`, Boolean(get(s, `seats.${seat}.name`, "")));
  const name = seatName(s, seat);
  return h(
    "section",
    {
      class: ["seat", big ? "seat-me" : "seat-opp", turnPlayer && "seat-turn", lp !== null && lp <= 0 && "seat-zero"],
      "aria-label": t("seat.label", { name }),
      dataset: { seat },
    },
    h("div", { class: "seat-head" },
      h("span", { class: "seat-name", testid: `name-${seat}`, text: joined ? name : t("seat.empty", { seat }) }),
      mine ? h("span", { class: "tag", text: t("seat.you") }) : null,
      turnPlayer ? h("span", { class: "tag tag-turn", text: t("duel.turn_tag") }) : null,
      h("span", { class: "wins", testid: `wins-${seat}`, "aria-label": t("seat.wins", { n: wins }), text: "\u25cf".repeat(wins) + "\u25cb".repeat(Math.max(0, get(s, "ruleset.wins_needed", 2) - wins)) }),
    ),
    h("div", { class: "lp-wrap", testid: wrapId },
      h("span", { class: "lp", testid: `lp-${seat}`, "aria-label": t("lp.aria", { name }), text: lp === null ? "\u2013" : String(lp) }),
    ),
  );
}

export function render({ s, view, ui }) {
  const turnNo = get(s, "turn.no", null);
  const turnPlayer = get(s, "turn.player", null);
  // Time called during a duel: the strip says so in place of the phase and duel number.
  const time = s.phase === "duel" ? timeBanner(s, "strip-time") : null;
  const strip = h(
    "div",
    { class: ["strip", time && "strip-timed"] },
    h("span", { class: ["phase", time && "sr-only"], testid: "phase", dataset: { phase: s.phase || "" }, text: s.phase ? t(`phase.${s.phase}`) : "" }),
    time,
    s.duel_no && !time && s.phase !== "match_result" && s.phase !== "match_over" ? h("span", { class: "duel-no", testid: "duel-no", text: t("duel.no", { n: s.duel_no }) }) : null,
    s.phase === "duel" && turnNo
      ? h("span", {
          class: "turn-info",
          testid: "turn-info",
          dataset: { turn: String(turnNo), player: turnPlayer || "" },
          text: t("duel.turn", { n: turnNo, name: seatName(s, turnPlayer) }),
        })
      : null,
    h("span", { class: "clock", testid: "clock", role: "timer", "aria-label": t("clock.label"), dataset: { status: get(s, "clock.status", "idle") } }),
  );
  return h("div", { class: "board" }, seatBlock(s, view, view.opp, false), strip, seatBlock(s, view, view.me, true), judgeLine(s, ui));
}

/** The match clock's time left (the server's clock, as this phone reckons it now). */
export function tick(slot, { s, now }) {
  const clockEl = slot.querySelector('[data-testid="clock"]');
  if (!clockEl) return;
  const status = get(s, "clock.status", "idle");
  let ms = get(s, "clock.duration_ms", get(s, "ruleset.match_minutes", 40) * 60000);
  if (status === "running") ms = get(s, "clock.deadline_ms", now) - now;
  else if (status !== "idle") ms = get(s, "clock.remaining_ms", 0); // paused, expired, stopped
  const text = formatDuration(ms);
  if (clockEl.textContent !== text) clockEl.textContent = text;
  // What is shown, in ms, and the local time it was computed at: phones can be compared.
  clockEl.dataset.remainingMs = String(Math.max(0, Math.round(ms)));
  clockEl.dataset.atMs = String(Date.now());
  clockEl.classList.toggle("low", status !== "idle" && ms < 5 * 60000);
  clockEl.classList.toggle("out", status !== "idle" && ms <= 0);
}
