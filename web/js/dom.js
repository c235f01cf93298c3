// Small DOM helpers: elements are built with createElement and textContent only.

/**
 * Build an element: h("button", {class: "big", testid: "propose", onclick: fn, text: "Go"}, child...).
 * Props: class, text, testid, dataset, on<event>; booleans and non-string values are set as
 * properties (disabled, checked, value); other strings as attributes (aria-*, role, type...).
 */
export function h(tag, props = {}, ...children) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(props || {})) {
    if (v === undefined || v === null || v === false) continue;
    if (k === "class") el.className = Array.isArray(v) ? v.filter(Boolean).join(" ") : v;
    else if (k === "text") el.textContent = String(v);
    else if (k === "testid") el.dataset.testid = v;
    else if (k === "dataset") Object.assign(el.dataset, v);
    else if (k.startsWith("on") && typeof v === "function") el.addEventListener(k.slice(2), v);
    else if (typeof v !== "string" && k in el) el[k] = v;
    else el.setAttribute(k, v === true ? "" : String(v));
  }
  append(el, children);
  return el;
}

/** Append children (nodes, strings, arrays; null and false are skipped). */
export function append(el, children) {
  for (const c of children.flat(Infinity)) {
    if (c === null || c === undefined || c === false) continue;
    el.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return el;
}

/** Whether the user asked for less motion. */
export function reducedMotion() {
  return globalThis.matchMedia?.("(prefers-reduced-motion: reduce)").matches ?? false;
}

/**
 * Vibrate where the browser allows it: not before the first tap on the page (a reloaded page
 * has none yet; the browser would refuse, and say so in the console).
 */
export function buzz(pattern = [220]) {
  if (navigator.userActivation && !navigator.userActivation.hasBeenActive) return;
  try {
    navigator.vibrate?.(pattern);
  } catch {
    /* not allowed */
  }
}

/** mm:ss (or h:mm:ss) for a duration in ms; negative durations show as 0:00. */
export function formatDuration(ms) {
  const total = Math.max(0, Math.ceil((ms || 0) / 1000));
  const h = Math.floor(total / 3600);
  const m = Math.floor((total % 3600) / 60);
  const s = total % 60;
  const ss = String(s).padStart(2, "0");
  return h ? `${h}:${String(m).padStart(2, "0")}:${ss}` : `${m}:${ss}`;
}

// The venue's time zone (the server's TIME_ZONE, from /api/venue; web/js/i18n.js sets it):
// every time of the event is written in it, in the reader's language. Unset: the device's.
let zone = "";
const formats = new Map();

export function setTimeZone(name) {
  zone = name || "";
}

export function timeZone() {
  return zone;
}

function format(kind) {
  const locale = document.documentElement.lang || "en";
  const id = `${kind}|${locale}|${zone}`;
  let found = formats.get(id);
  if (!found) {
    const options = kind === "time"
      ? { hour: "2-digit", minute: "2-digit", second: "2-digit", hourCycle: "h23" }
      : { year: "numeric", month: "2-digit", day: "2-digit" };
    try {
      found = new Intl.DateTimeFormat(locale, zone ? { ...options, timeZone: zone } : options);
    } catch {
      found = new Intl.DateTimeFormat(locale, options); // an unknown zone: the device's
    }
    formats.set(id, found);
  }
  return found;
}

/** Wall-clock time hh:mm:ss of a server timestamp, in the venue's zone and the reader's locale. */
export function formatTime(ms) {
  if (typeof ms !== "number") return "";
  return format("time").format(new Date(ms));
}

/** The date of a server timestamp, in the venue's zone and the reader's locale. */
export function formatDate(ms) {
  if (typeof ms !== "number") return "";
  return format("date").format(new Date(ms));
}
