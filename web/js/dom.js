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

// A press longer than this (a long press, a finger resting) no longer holds what it pressed.
const HOLD_MS = 3000;
// A tap's click may come a moment after the finger is up: the hold waits this long for it.
const CLICK_WAIT_MS = 300;

/**
 * What a finger (or the mouse) is on must not be drawn again before its click: a click is the
 * down and the up on the same element, so a button replaced in between never gets it and the tap
 * is lost. `parts` names the elements watched ({name: element}); whoever redraws one (on an
 * update, on a timer) asks `held()` first, which names the part pressed now (null: none).
 * `onRelease()` is called once the tap's click was handled (or CLICK_WAIT_MS after an up with no
 * click, or HOLD_MS at most), to draw what came meanwhile. One press at a time: a new one (another
 * finger) takes the place of the last.
 */
export function holdWhilePressed(parts, onRelease) {
  let pressing = null; // the press now, aborted when it is over (its listeners go with it)
  let held = null;
  for (const [name, el] of Object.entries(parts)) {
    el?.addEventListener("pointerdown", () => {
      pressing?.abort();
      const press = new AbortController();
      pressing = press;
      held = name;
      const release = () => {
        if (pressing !== press) return;
        press.abort(); // a tap fires two of the three listeners: the third goes too
        pressing = null;
        held = null;
        onRelease();
      };
      const after = (ms) => () => setTimeout(release, ms);
      const once = { capture: true, once: true, signal: press.signal };
      document.addEventListener("click", after(0), once);
      document.addEventListener("pointerup", after(CLICK_WAIT_MS), once);
      document.addEventListener("pointercancel", after(0), once);
      setTimeout(release, HOLD_MS);
    });
  }
  return { held: () => held };
}
