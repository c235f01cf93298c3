// Strings: one catalogue per language, the same keys in each. English fills any gap.

import en from "./i18n/en.js";
import ja from "./i18n/ja.js";
import zhHant from "./i18n/zh-Hant.js";

export const CATALOGUES = { "zh-Hant": zhHant, en, ja };
export const LANGS = [
  { code: "zh-Hant", label: "繁體中文" },
  { code: "en", label: "English" },
  { code: "ja", label: "日本語" },
];
const KEY = "dt.lang";

/** The language for a list of browser language tags: zh-HK/zh-TW/zh-Hant -> zh-Hant, ja -> ja, else en. */
export function pickLang(tags) {
  for (const raw of tags || []) {
    const tag = String(raw).toLowerCase();
    if (tag.startsWith("zh")) {
      if (tag.includes("hant") || tag.endsWith("-hk") || tag.endsWith("-tw") || tag.endsWith("-mo")) {
        return "zh-Hant";
      }
      continue; // Simplified Chinese readers get the next choice (English by default)
    }
    if (tag === "ja" || tag.startsWith("ja-")) return "ja";
    if (tag === "en" || tag.startsWith("en-")) return "en";
  }
  return "en";
}

let current = "en";
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
  return key in CATALOGUES[current] || key in en;
}

/** Translate a key, filling {name} placeholders from vars. */
export function t(key, vars = {}) {
  let s = CATALOGUES[current][key];
  if (s === undefined) s = en[key];
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
