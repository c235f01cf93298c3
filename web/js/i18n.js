// Strings: one catalogue per language for every screen, `web/i18n/<code>.json`, the same keys
// in each; the languages are listed once, in `web/i18n/languages.json`. The server reads the
// same files (server/core/i18n.py) for the score sheet and the printed pages. English fills any gap.

import { setTimeZone } from "./dom.js";

const BASE = new URL("../i18n/", import.meta.url);

async function json(name) {
  const res = await fetch(new URL(name, BASE));
  if (!res.ok) throw new Error(`${name}: ${res.status}`);
  return res.json();
}

const listed = await json("languages.json");
/** The languages, in the pickers' order: [{code, label, tags, not}]. */
export const LANGS = listed.languages;
export const DEFAULT = listed.default;
/** code -> {key: text}, every language of LANGS. */
export const CATALOGUES = Object.fromEntries(
  await Promise.all(LANGS.map(async (l) => [l.code, await json(`${l.code}.json`)])),
);
const fallback = CATALOGUES[DEFAULT];

// The venue's time zone, when the server names one: asked once, never waited for (a phone
// offline still starts); times drawn after it arrives are in it (web/js/dom.js: formatTime).
fetch("/api/venue", { cache: "no-store" })
  .then((res) => (res.ok ? res.json() : null))
  .then((body) => {
    if (body && body.tz) setTimeZone(body.tz);
  })
  .catch(() => {});
const KEY = "dt.lang";

const within = (tag, prefix) => tag === prefix || tag.startsWith(prefix + "-");

/** Which of our languages one browser tag asks for, or null: the language that lists the tag
 * (or a prefix of it) in `tags` and not in `not` (zh, zh-HK, zh-TW, zh-Hant -> zh-Hant; zh-CN no). */
export function langOfTag(raw) {
  const tag = String(raw || "").trim().toLowerCase();
  if (!tag) return null;
  for (const l of LANGS) {
    if ((l.not || []).some((n) => within(tag, n.toLowerCase()))) continue;
    if (l.code.toLowerCase() === tag || (l.tags || [l.code]).some((p) => within(tag, p.toLowerCase()))) return l.code;
  }
  return null;
}

/** The language for the browser's tags, in their order; else the default (English). */
export function pickLang(tags) {
  for (const raw of tags || []) {
    const code = langOfTag(raw);
    if (code) return code;
  }
  return DEFAULT;
}

let current = DEFAULT;
const listeners = new Set();

function stored() {
  try {
    return localStorage.getItem(KEY);
  } catch {
    return null;
  }
}

/** Choose the language at start: the one picked on screen, else the browser's. */
export function initLang() {
  const saved = stored();
  current = saved && CATALOGUES[saved] ? saved : pickLang(navigator.languages || [navigator.language]);
  document.documentElement.lang = current;
  return current;
}

export function lang() {
  return current;
}

/** Switch language (remembered on this phone). */
export function setLang(code) {
  if (!CATALOGUES[code] || code === current) return;
  current = code;
  document.documentElement.lang = code;
  try {
    localStorage.setItem(KEY, code);
  } catch {
    /* private mode */
  }
  // A listener may re-render what holds the picker: drop its own listener and add a new one.
  // A Set's walk visits entries added during it, so walking the live set would call each new
  // listener in turn, forever (the page hangs). Walk the listeners as they were, and skip one
  // removed meanwhile (its screen is gone).
  for (const fn of [...listeners]) if (listeners.has(fn)) fn(code);
}

export function onLangChange(fn) {
  listeners.add(fn);
  return () => listeners.delete(fn);
}

/** Whether a key exists (in the current language or English). */
export function has(key) {
  return key in CATALOGUES[current] || key in fallback;
}

/** Translate a key, filling {name} placeholders from vars. */
export function t(key, vars = {}) {
  let s = CATALOGUES[current][key];
  if (s === undefined) s = fallback[key];
  if (s === undefined) return key;
  return s.replace(/\{(\w+)\}/g, (m, name) => (name in vars ? String(vars[name]) : m));
}

/** A refusal (the server's coded error: `code`, `message`, `details`) in the reader's words: the
 * catalogue's `err.<code>`, its placeholders filled from the details. The server's `message`
 * is English, for logs and tools; only an English reader sees it, where it is the most precise,
 * or where no key words the code. Everyone else reads the catalogue, never a mix. */
export function errorText(error) {
  const code = error && error.code;
  const message = error && error.message;
  if (current === "en" && message) return message;
  if (code && has(`err.${code}`)) {
    const vars = {};
    for (const [k, v] of Object.entries((error && error.details) || {})) {
      if (v !== null && typeof v !== "object") vars[k] = v;
      else if (Array.isArray(v) && v.every((x) => typeof x !== "object")) vars[k] = v.join(t("list.sep"));
    }
    return t(`err.${code}`, vars);
  }
  return code ? t("err.unknown_code", { code }) : t("err.unknown");
}

/** A judge call's reason as the reader's language says it. A call the server makes carries a
 * `code` (lp_disputed, result_disputed, deck_problem, log_changed) and its values (`entry`,
 * `duel`, `deck`, `params`): the words come from the catalogue's `call.<code>`, the player's own
 * words (the `reason`) follow as typed. A log written before codes said the server's calls in
 * English inside the reason, and named what they were about (`about.entry`, `about.duel`): only
 * then are those words translated. A player's words stay as typed, even when they copy the
 * server's. */
export function callReason(reason, about = {}) {
  const text = String(reason || "");
  if (about.code) {
    const key = `call.${about.code}`;
    const vars = { entry: about.entry ?? "", duel: about.duel ?? "", seat: about.deck ?? about.seat ?? "", ...(about.params || {}) };
    const what = has(key) ? t(key, vars) : "";
    return [what, text].filter(Boolean).join(": ");
  }
  let m = about.entry != null && /^LP entry #(\d+) disputed(?:: ([\s\S]*))?$/.exec(text);
  if (m && Number(m[1]) === about.entry) {
    return t("call.lp_disputed", { entry: m[1] }) + (m[2] ? `: ${m[2]}` : "");
  }
  m = about.duel != null && /^Result of duel (\d+) disputed(?:: ([\s\S]*))?$/.exec(text);
  if (m && Number(m[1]) === about.duel) {
    return t("call.result_disputed", { duel: m[1] }) + (m[2] ? `: ${m[2]}` : "");
  }
  m = about.deck != null && /^Deck count problem after the duel \(R7\.5\)(?:: ([\s\S]*))?$/.exec(text);
  if (m) return t("call.deck_problem") + (m[1] ? `: ${m[1]}` : "");
  m = about.seat == null && /^The stored log changed under the server at seq (\d+): expected (\w+), found (\w*)/.exec(text);
  if (m) return t("call.log_changed", { seq: m[1], expected: m[2], found: m[3] === "nothing" ? "" : m[3] });
  return text;
}

/** The time-over stage (R5) in words: the one wording of each stage code is the catalogue's
 * `time.stage.<code>`; `n` is the extra turn, `of` how many extra turns (or the Extra Duel's
 * turns). An unknown code is shown as it is. */
export function stageText(stage, { n = 1, of = 3 } = {}) {
  const key = `time.stage.${stage}`;
  return has(key) ? t(key, { n, of }) : String(stage || "");
}
