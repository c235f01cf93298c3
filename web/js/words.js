// The table's log in words: each event (its type and data, as the server wrote it) said in the
// reader's language from the catalogue, as the event's declaration says (`eventWords`). The words people typed (a note, a
// reason, a counter's name, a player's name) are given back apart, as written.

import { callReason, has, stageText, t } from "./i18n.js";

const SEP = () => t("list.sep");

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

// How each event is worded, as its declaration beside its handler says (`Words`, in
// server/rules/base.py), sent with the judges' log (`setEventWords`): the catalogue code (or the
// variant the data picks), the parameters (every data field as written, then the declared ones,
// each a field or [format, field, argument]) and the field of a person's own words.
let WORDS = {};

/** Take the events' declared words (the judges' table page gets them with the log). */
export function setEventWords(words) {
  WORDS = words || {};
}

function path(d, name) {
  return String(name).split(".").reduce((v, k) => (v && typeof v === "object" ? v[k] : undefined), d);
}

// The declarations' formats, as the server names them (`FORMATS`, server/rules/base.py).
const FORMATS = {
  who: (v, d, env) => whoText(v || env.actor),
  name: (v, d, env) => v || whoText(env.actor),
  key: (v, d, env, prefix) => (v ? t(`${prefix}${v}`) : ""),
  "key?": (v, d, env, prefix) => (v && has(`${prefix}${v}`) ? t(`${prefix}${v}`) : String(v || "")),
  count: (v) => (Array.isArray(v) ? v.length : Object.keys(v || {}).length),
  changes: (v) => changes(v),
  minutes: (v) => minutes(v),
  results: (v, d) => (v || []).map((r) => (d.kind === "coin" ? t(`sheet.coin.${r}`) : String(r))).join(SEP()),
  stage: (v, d) => stageText(v, { n: d.extra_turn || 1, of: d.of ?? 3 }),
  side: (v, d) => [sidePart(d, "main"), sidePart(d, "extra")].filter(Boolean).join(SEP()),
  call: (v, d) => callNote(d),
  num: (v) => (v ?? "?"),
};

function value(param, d, env) {
  if (!param) return "";
  if (typeof param === "string") return path(d, param);
  const [format, name, arg] = param;
  return FORMATS[format](name ? path(d, name) : undefined, d, env, arg);
}

function chosen(code, variants, d) {
  for (const [name, want, variant] of variants || []) {
    const v = path(d, name);
    if ((want === "*" && v) || (want === null && !v) || v === want) return variant;
  }
  return code;
}

/** The words of one logged event: {text, note}; `note` is what a person wrote, as written. */
export function eventWords(env) {
  const d = env.data || {};
  const w = WORDS[env.type];
  if (!w) return { text: `${env.type}`, note: "" };
  const v = { ...d };
  for (const [name, param] of Object.entries(w.params || {})) v[name] = value(param, d, env);
  const note = w.note ? String(value(w.note, d, env) ?? "") : "";
  const key = chosen(w.code, w.variants, d);
  if (!has(key)) return { text: `${env.type}`, note };
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
