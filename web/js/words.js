// The table's log in words: each event (its type and data, as the server wrote it) said in the
// reader's language from the catalogue's `event.*` keys. The words people typed (a note, a
// reason, a counter's name, a player's name) are given back apart, as written.

import { callReason, has, stageText, t } from "./i18n.js";

const SEP = () => t("list.sep");
const LEGACY_CLOSED = {
  "dispute apply": "dispute_apply", "dispute void": "dispute_void", "dispute correct": "dispute_correct",
  "deck cleared": "deck_cleared", "deck fixed": "deck_fixed", "result set": "result_set",
};

/** Who a label or an actor names: A/B as is, a judge or organiser in words with their name. */
export function whoText(who) {
  if (!who) return "";
  if (typeof who === "object") {
    if (who.role === "seat") return who.seat || "";
    return whoText(who.name ? `${who.role}:${who.name}` : who.role);
  }
  const [role, ...rest] = String(who).split(":");
  const name = rest.join(":");
  const known = { judge: "judge", organiser: "organiser", system: "server", server: "server" }[role];
  if (!known) return String(who);
  if (known === "judge" && name) return t("ledger.judge", { name });
  return name ? t(`sheet.who.${known}`, { name }) : t(`sheet.who.${known}_role`);
}

function changeWords(c) {
  return `${c.seat} ${t(`sheet.chg.${["damage", "cost", "gain", "halve"].includes(c.kind) ? c.kind : "set"}`, { n: c.amount })}`;
}

function changes(list) {
  return (list || []).map(changeWords).join(SEP());
}

export function reasonWords(reason) {
  return reason && has(`sheet.reason.${reason}`) ? t(`sheet.reason.${reason}`) : String(reason || "");
}

function sidePart(d, part) {
  const m = d[part] || {};
  return m.in ? t(`sheet.row.side_${part}`, { n_in: m.in, n_out: m.out }) : "";
}

/** The words of one logged event: {text, note}; `note` is what a person wrote, as written. */
export function eventWords(env) {
  const type = env.type;
  const d = env.data || {};
  const v = { ...d };
  // A request nobody answered in time (its phone gone, or minutes passed) is refused by "expired".
  let key = type === "seat.refused" && d.by === "expired" ? "event.seat.expired" : `event.${type}`;
  let note = "";
  switch (type) {
    case "seat.joined":
    case "seat.requested":
      note = d.name || "";
      break;
    case "seat.moved":
    case "seat.released":
    case "seat.refused":
    case "deck.confirmed":
    case "lp.confirmed":
    case "lp.withdrawn":
    case "deck.fix_voted":
      v.by = whoText(d.by);
      break;
    case "deck.declared":
      Object.assign(v, d.counts || {});
      break;
    case "deck.checked":
      key = d.ok === false ? "event.deck.checked.bad" : "event.deck.checked.ok";
      note = d.note || "";
      break;
    case "deck.cleared":
    case "dispute.settled":
    case "roll.voided":
    case "judge.closed":
      note = d.note || "";
      if (type === "dispute.settled") key = `event.dispute.settled.${["apply", "void", "correct"].includes(d.action) ? d.action : "void"}`;
      if (type === "judge.closed") {
        // A log from before codes wrote the ruling in English in the note.
        const code = d.code || LEGACY_CLOSED[note];
        if (!d.code && code) note = "";
        if (code && has(`sheet.closed.${code}`)) {
          key = "event.judge.closed_by";
          v.ruling = t(`sheet.closed.${code}`);
        }
      }
      break;
    case "banlist.set":
      v.n = Array.isArray(d.entries) ? d.entries.length : Object.keys(d.entries || {}).length;
      break;
    case "pregame.checked":
      v.n = (d.items || []).length;
      break;
    case "rps.picked":
      if (d.hand) {
        key = "event.rps.picked_hand";
        v.hand = t(`rps.${d.hand}`);
      }
      break;
    case "rps.thrown":
      v.A = t(`rps.${d.A}`);
      v.B = t(`rps.${d.B}`);
      break;
    case "rps.reported":
      v.by = whoText(d.by);
      break;
    case "rps.decided":
      key = d.how === "app" ? "event.rps.decided" : "event.rps.decided_reported";
      break;
    case "duel.chosen":
      key = d.order === "second" ? "event.duel.chosen.second" : "event.duel.chosen.first";
      break;
    case "duel.started":
      if (d.extra) key = "event.duel.started.extra";
      break;
    case "lp.proposed":
      v.by = whoText(d.by);
      v.changes = changes(d.changes);
      note = d.note || "";
      break;
    case "lp.applied":
      v.A = d.lp?.A;
      v.B = d.lp?.B;
      v.changes = changes(d.changes);
      break;
    case "lp.rejected":
      v.by = whoText(d.by);
      note = d.reason || "";
      break;
    case "lp.cancelled":
      key = d.reason === "duel_over" ? "event.lp.cancelled.duel_over" : "event.lp.cancelled";
      break;
    case "dispute.closed":
      key = `sheet.row.rejected_${["corrected", "dropped", "withdrawn"].includes(d.status) ? d.status : "withdrawn"}`;
      v.new = d.new_entry;
      break;
    case "judge.called":
      v.seat = whoText(d.seat || env.actor);
      note = callNote(d);
      break;
    case "judge.acknowledged":
      v.judge = d.judge || whoText(env.actor);
      break;
    case "penalty.recorded":
      v.level = t(`staff.level.${d.level}`);
      v.infraction = t(`staff.inf.${d.infraction}`);
      note = d.note || "";
      break;
    case "roll.made":
      v.kind = t(`sheet.roll.${d.kind === "coin" ? "coin" : "die"}`);
      v.results = (d.results || []).map((r) => (d.kind === "coin" ? t(`sheet.coin.${r}`) : String(r))).join(SEP());
      break;
    case "counter.changed":
    case "counter.cleared":
      note = d.name || "";
      break;
    case "clock.started":
      v.time = minutes(d.duration_ms);
      break;
    case "clock.paused":
    case "clock.resumed":
      v.left = minutes(d.remaining_ms);
      break;
    case "clock.extended":
      v.time = minutes(d.ms);
      note = d.reason || "";
      break;
    case "time.called":
      v.where = has(`sheet.during.${d.during}`) ? t(`sheet.during.${d.during}`) : String(d.during || "");
      break;
    case "time.stage":
      v.stage = stageText(d.stage, { n: d.extra_turn || 1, of: d.of ?? 3 });
      break;
    case "flag.raised": {
      const m = /^turn (\d+)$/.exec(d.detail || "");
      const after = /^after duel (\d+)$/.exec(d.detail || "");
      if (d.kind === "turn_overtime") {
        key = "event.flag.turn_overtime";
        v.turn = m ? m[1] : "?";
      } else if (d.kind === "window_overtime") {
        key = "event.flag.window_overtime";
        v.duel = after ? after[1] : "?";
      } else if (d.kind === "round_ended") {
        key = "event.flag.round_ended";
        v.round = d.detail || "";
      } else {
        key = "event.flag.other";
        v.kind = String(d.kind || "");
      }
      break;
    }
    case "side.exchanged":
      v.parts = [sidePart(d, "main"), sidePart(d, "extra")].filter(Boolean).join(SEP());
      break;
    case "duel.ended":
    case "duel.final":
    case "match.decided":
      if (!d.winner) key = `event.${type}.draw`;
      v.reason = reasonWords(d.reason);
      note = d.note || ""; // a judge's ruling, in the judge's words
      break;
    default:
      break;
  }
  if (!has(key)) return { text: `${type}`, note };
  return { text: t(key, v), note };
}

/** What a judge call says beside its words: a call the server made (a disputed entry or result,
 * a deck problem) in the reader's words; a player's own words as written. */
export function callNote(d) {
  return callReason(d.reason || "", d);
}

function minutes(ms) {
  const s = Math.max(0, Math.floor((Number(ms) || 0) / 1000));
  return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, "0")}`;
}
