// The judges' alarm: a new judge call or LP dispute on the floor sounds (Web Audio), vibrates
// where the device can, puts the count of waiting calls in the page title and, when the judge
// allowed it, raises a browser notification. One alert per call or dispute: each rings once.

import { t } from "../i18n.js";

let audio = null;

function context() {
  const AC = window.AudioContext || window.webkitAudioContext;
  if (!AC) return null;
  if (!audio) audio = new AC();
  if (audio.state === "suspended") audio.resume().catch(() => {});
  return audio;
}

// Browsers start audio only after a gesture: the first tap or key on the page unlocks it.
for (const kind of ["pointerdown", "keydown"]) {
  addEventListener(kind, () => context(), { once: true, capture: true });
}

/** Two short tones (about 0.6 s). */
export function beep() {
  const ctx = context();
  if (!ctx) return false;
  const start = ctx.currentTime;
  for (const [at, freq] of [[0, 880], [0.3, 1175]]) {
    const osc = ctx.createOscillator();
    const gain = ctx.createGain();
    osc.type = "sine";
    osc.frequency.value = freq;
    gain.gain.setValueAtTime(0.0001, start + at);
    gain.gain.exponentialRampToValueAtTime(0.4, start + at + 0.02);
    gain.gain.exponentialRampToValueAtTime(0.0001, start + at + 0.25);
    osc.connect(gain);
    gain.connect(ctx.destination);
    osc.start(start + at);
    osc.stop(start + at + 0.27);
  }
  return true;
}

const LOUD = ["judge_call", "dispute", "no_show"];
const KEY = { judge_call: "call", dispute: "entry", no_show: "detail" };
const NOTICE = { judge_call: "run.new_call", dispute: "run.new_dispute", no_show: "run.new_no_show" };

/** The alerts that call a judge over: open (not yet taken) judge calls, LP disputes, and
 * no-shows (as loud as a call: a seat still empty after the round's start; the floor passes
 * only those already due). */
export function waiting(tables) {
  const found = new Map();
  for (const s of tables) {
    for (const a of s.alerts || []) {
      if (!LOUD.includes(a.kind)) continue;
      if (a.status && a.status !== "open") continue;
      found.set(`${s.code}:${a.kind}:${a[KEY[a.kind]]}`, { table: s.number, kind: a.kind });
    }
  }
  return found;
}

export function notificationsAvailable() {
  return typeof Notification !== "undefined";
}

export function createAlarm(baseTitle = document.title) {
  let seen = null; // null until the first floor message: what is open then does not ring
  return {
    /** The floor's tables changed: ring for what is new, update the title. */
    update(tables) {
      const now = waiting(tables);
      document.title = now.size ? `(${now.size}) ${baseTitle}` : baseTitle;
      const fresh = seen ? [...now.keys()].filter((k) => !seen.has(k)) : [];
      seen = new Set(now.keys());
      if (!fresh.length) return 0;
      beep();
      if (navigator.vibrate) navigator.vibrate([200, 100, 200]);
      if (notificationsAvailable() && Notification.permission === "granted") {
        for (const key of fresh) {
          const a = now.get(key);
          try {
            new Notification(t(NOTICE[a.kind], { n: a.table }), { tag: key });
          } catch {
            /* some browsers allow notifications only from a service worker */
          }
        }
      }
      return fresh.length;
    },
    reset() {
      document.title = baseTitle;
    },
  };
}
