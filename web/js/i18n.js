// Strings: one catalogue per language for every screen, `web/i18n/<code>.json`, the same keys
// in each; the languages are listed once, in `web/i18n/languages.json`. The server reads the
// same files (server/i18n.py) for the score sheet and the printed pages. English fills any gap.

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
  for (const fn of listeners) fn(code);
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

/** A judge call's reason as the reader's language says it. The server writes the calls it makes
 * itself (a rejected LP entry, a disputed duel result) in English, and says so in the call
 * (`about.entry`, `about.duel`): only then are its words translated. A player's words stay as
 * typed, even when they copy the server's. */
export function callReason(reason, about = {}) {
  const text = String(reason || "");
  let m = about.entry != null && /^LP entry #(\d+) disputed(?:: ([\s\S]*))?$/.exec(text);
  if (m && Number(m[1]) === about.entry) {
    return t("call.lp_disputed", { entry: m[1] }) + (m[2] ? `: ${m[2]}` : "");
  }
  m = about.duel != null && /^Result of duel (\d+) disputed(?:: ([\s\S]*))?$/.exec(text);
  if (m && Number(m[1]) === about.duel) {
    return t("call.result_disputed", { duel: m[1] }) + (m[2] ? `: ${m[2]}` : "");
  }
  return text;
}
