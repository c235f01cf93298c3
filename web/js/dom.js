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

/** Local wall-clock time hh:mm:ss for a server timestamp. */
export function formatTime(ms) {
  if (typeof ms !== "number") return "";
  const d = new Date(ms);
  return [d.getHours(), d.getMinutes(), d.getSeconds()].map((x) => String(x).padStart(2, "0")).join(":");
}
