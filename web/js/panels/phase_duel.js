// A duel and its ends: whose turn and End turn (R5.5), conceding, the duel's result to confirm
// or dispute (R7.4), the match's result, and a new match.

import { api, joinTable } from "../api.js";
import { h } from "../dom.js";
import { t } from "../i18n.js";
import { getSeat, saveSeat } from "../seats.js";
import { get, other } from "../state.js";
import { card, may, openPending, seatName } from "./kit.js";

export const reads = ["phase", "turn", "disputes", "duel_no", "pending", "seats", "result", "ruleset", "match", "new_match_votes", "may_send"];
export const local = ["concedeArmed", "resultDisputeOpen", "nextRound"];
// Set when the deciding duel's confirmation should confirm the match too (the mount sends it).
export const own = ["matchConfirmAfter"];

const BUILDERS = {
  duel: (ctx) => phaseDuel(ctx),
  duel_result: (ctx) => phaseDuelResult(ctx),
  match_result: (ctx) => phaseMatchResult(ctx),
  match_over: (ctx) => phaseMatchOver(ctx),
};

/** The card for the duel's phases (null in the others). */
export function build(ctx) {
  const builder = BUILDERS[ctx.s.phase];
  return builder ? builder(ctx) : null;
}

function phaseDuel(ctx) {
  const { s, view, ui, send } = ctx;
  const turn = s.turn || {};
  const parts = [];
  const myTurn = view.isSeat && turn.player === view.seat;
  parts.push(h("p", { class: "status-line big-line", testid: "whose-turn", text: turn.no ? (myTurn ? t("duel.your_turn", { n: turn.no }) : t("duel.turn", { n: turn.no, name: seatName(s, turn.player) })) : "" }));
  if (!view.isSeat) return card(t("phase.duel"), "duel", parts);
  if (myTurn) {
    // The rules say when the turn may end (R5.5: not while an LP entry of this duel waits for
    // a yes or a judge; `may_send`); the counts below only explain why it may not.
    const blocked = !may(s, "turn.end");
    const disputed = (s.disputes || []).filter((d) => d.status === "open" && d.duel === s.duel_no).length;
    const waiting = (s.pending || []).length + disputed;
    // Entries waiting for this phone's yes already have the banner at the bottom saying so;
    // the line explains the rest (the opponent's yes, a judge) without taking the keypad's room.
    const elsewhere = blocked ? (s.pending || []).filter((p) => !p.by || p.by === view.seat).length + disputed : 0;
    const why = elsewhere ? "end-turn-why" : blocked && waiting ? "confirm-banner-title" : null;
    parts.push(h("button", { class: "btn btn-primary btn-wide", testid: "end-turn", disabled: blocked, "aria-describedby": why, onclick: () => send("turn.end", { turn: turn.no }), text: t("duel.end_turn", { n: turn.no }) }));
    if (elsewhere) parts.push(h("p", { class: "muted", id: "end-turn-why", testid: "end-turn-blocked", text: t("duel.end_turn_pending", { n: waiting }) }));
  }
  // The proposer's own entry waiting for the opponent: Withdraw beside End turn, on screen.
  const mineWaiting = openPending(s).filter((p) => p.by === view.seat);
  const last = mineWaiting[mineWaiting.length - 1];
  if (last && may(s, "lp.withdraw")) {
    parts.push(h("button", { class: "btn", testid: "withdraw-waiting", dataset: { entry: String(last.entry) }, onclick: () => send("lp.withdraw", { entry: last.entry }), text: t("pending.withdraw_n", { n: last.entry }) }));
  }
  if (!may(s, "duel.concede")) return card(t("phase.duel"), "duel", parts); // the rules offer none
  if (!ui.concedeArmed) {
    parts.push(h("button", { class: "btn btn-quiet", testid: "concede", onclick: () => { ui.set({ concedeArmed: true }); }, text: t("duel.concede") }));
  } else {
    parts.push(
      h("p", { class: "attention status-line", text: t("duel.concede_sure") }),
      h("div", { class: "row" },
        h("button", { class: "btn", testid: "concede-cancel", onclick: () => { ui.set({ concedeArmed: false }); }, text: t("common.cancel") }),
        h("button", { class: "btn btn-danger", testid: "concede-confirm", onclick: () => { send("duel.concede"); ui.set({ concedeArmed: false }); }, text: t("duel.concede_yes") }),
      ),
    );
  }
  return card(t("phase.duel"), "duel", parts);
}

function confirmedLine(ctx, confirmed, testid) {
  const { s } = ctx;
  return ["A", "B"].map((seat) =>
    h("p", { class: "status-line", testid: `${testid}-${seat}`, text: `${seatName(s, seat)}: ${confirmed && confirmed[seat] ? t("common.confirmed") : t("common.not_yet")}` }),
  );
}

function phaseDuelResult(ctx) {
  const { s, view, ui, send } = ctx;
  const result = s.result || {};
  const duel = result.duel || s.duel_no || 1;
  const confirmed = result.confirmed || {};
  const parts = [confirmedLine(ctx, confirmed, "result-confirmed")]; // the result itself is in the banner
  if (view.isSeat && may(s, "result.confirm")) {
    // The duel whose winner wins the match by wins (the rules say so: `result.wins_match`,
    // R3.1): one tap confirms the duel and, named on the button, the match result it makes
    // (R7.4: each is still a confirmation of this seat). A match ended by time or an Extra Duel
    // shows its own result to confirm.
    const w = result.winner;
    const decides = Boolean(w && result.wins_match);
    const after = result.wins_after || {};
    const score = decides ? `${after[w] || 0}\u2013${after[other(w)] || 0}` : "";
    parts.push(h("button", { class: "btn btn-primary btn-wide", testid: "result-confirm",
      onclick: () => {
        ui.keep({ matchConfirmAfter: decides ? duel : null });
        send("result.confirm", { duel });
      },
      text: decides ? t("result.confirm_match", { name: seatName(s, w), score }) : t("result.confirm") }));
  }
  if (view.isSeat && may(s, "result.dispute")) parts.push(disputeControl(ctx, duel));
  return card(t("phase.duel_result"), "duel-result-panel", parts);
}

function disputeControl(ctx, duel) {
  const { ui, send } = ctx;
  if (!ui.resultDisputeOpen) {
    return h("button", { class: "btn btn-quiet", testid: "result-dispute", onclick: () => { ui.set({ resultDisputeOpen: true }); }, text: t("result.dispute") });
  }
  const form = (ui.forms.dispute ||= { reason: "" });
  return h("div", { class: "stack" },
    h("label", { class: "field", for: "f-dispute" }, h("span", { text: t("result.dispute_reason") }),
      h("input", { id: "f-dispute", type: "text", maxlength: "200", testid: "result-dispute-reason", value: form.reason, oninput: (e) => (form.reason = e.target.value) }),
    ),
    h("div", { class: "row" },
      h("button", { class: "btn", testid: "result-dispute-cancel", onclick: () => { ui.set({ resultDisputeOpen: false }); }, text: t("common.cancel") }),
      h("button", { class: "btn btn-danger", testid: "result-dispute-send", onclick: () => { send("result.dispute", { duel, reason: form.reason || "" }); ui.set({ resultDisputeOpen: false }); }, text: t("result.dispute_send") }),
    ),
  );
}

function phaseMatchResult(ctx) {
  const { s, view, send } = ctx;
  const match = s.match || {};
  const confirmed = match.confirmed || {};
  const parts = [confirmedLine(ctx, confirmed, "match-confirmed")];
  if (view.isSeat && may(s, "match.confirm")) {
    parts.push(h("button", { class: "btn btn-primary btn-wide", testid: "match-confirm", onclick: () => send("match.confirm"), text: t("match.confirm") }));
  }
  return card(t("phase.match_result"), "match-result-panel", parts);
}

function phaseMatchOver(ctx) {
  const { s, view, send } = ctx;
  const parts = [];
  const votes = s.new_match_votes || [];
  // An event table plays its round's one match: the result is recorded for the standings and
  // only a judge corrects it (the rules refuse `match.new` there), so no new match is offered.
  if (get(s, "ruleset.staff_start", false)) {
    const recorded = [h("p", { class: "status-line", testid: "match-recorded", text: t("match.recorded") })];
    if (view.isSeat) {
      followRound(ctx);
      const next = ctx.ui.nextRound;
      if (next && next.code) recorded.push(nextTable(ctx, next));
    }
    return card(t("phase.match_over"), "match-over", recorded);
  }
  // A new match while the rules offer one (`match.new`: not with a deck check failed); this
  // seat's own vote stays on screen, waiting for the other's.
  const voted = view.isSeat && votes.includes(view.seat);
  if (voted || (view.isSeat && may(s, "match.new"))) {
    parts.push(h("button", { class: "btn btn-primary btn-wide", testid: "match-new", disabled: voted, onclick: () => send("match.new"), text: voted ? t("match.new_waiting") : t("match.new") }));
  }
  for (const seat of votes) if (!view.isSeat || seat !== view.seat) parts.push(h("p", { class: "status-line", testid: `match-new-${seat}`, text: t("match.new_voted", { name: seatName(s, seat) }) }));
  return card(t("phase.match_over"), "match-over", parts);
}

// Phones follow the round: a finished event table's seat asks the server, now and every
// NEXT_POLL_MS while this page shows the table, where its player sits in the next round.
const NEXT_POLL_MS = 10000;

function followRound(ctx) {
  const { ui, code } = ctx;
  if (ui.nextRound !== null || !code) return;
  ui.keep({ nextRound: 0 });
  const ask = async () => {
    if (!location.pathname.endsWith(`/${code}`)) return; // the phone moved on
    const token = getSeat(code)?.token;
    const res = token ? await api("GET", `/api/tables/${encodeURIComponent(code)}/next`, undefined, token) : { ok: false };
    if (res.ok && res.body.next) ui.set({ nextRound: res.body.next });
    else setTimeout(ask, NEXT_POLL_MS);
  };
  ask();
}

// "Round 2: table 5, seat B, against Chen: sit there", and the one tap that takes that seat
// with its table card's claim and this player's own name and ID (as scanning the card would).
function nextTable(ctx, next) {
  const { s, view } = ctx;
  const where = t("next.where", { round: next.round, table: next.number, seat: next.seat, name: next.opponent || "—" });
  const sit = async (button) => {
    button.disabled = true;
    let pid = get(s, `seats.${view.seat}.player_id`, "") || "";
    try {
      pid = pid || localStorage.getItem("dt.player_id") || "";
    } catch {
      /* storage blocked */
    }
    const name = get(s, `seats.${view.seat}.name`, "") || "";
    const body = { seat: next.seat, name, claim: next.claim };
    if (pid) body.player_id = pid;
    const res = await joinTable(next.code, body);
    if (res.ok && res.body.token) {
      saveSeat(next.code, { seat: res.body.seat || next.seat, token: res.body.token, name });
      location.assign(`/t/${encodeURIComponent(next.code)}`);
      return;
    }
    // Anything else (the seat taken, a judge to confirm): the card's own join screen says it.
    location.assign(`/t/${encodeURIComponent(next.code)}?seat=${next.seat}&claim=${encodeURIComponent(next.claim)}`);
  };
  return h("div", { class: "stack next-round", testid: "next-round", dataset: { code: next.code, seat: next.seat } },
    h("p", { class: "attention big-line", role: "status", testid: "next-where", text: where }),
    h("button", { class: "btn btn-primary btn-wide", testid: "next-sit", type: "button", onclick: (e) => sit(e.currentTarget), text: t("next.sit", { table: next.number }) }),
  );
}
