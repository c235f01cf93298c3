// Alerts at the table: a tone (Web Audio), a vibration and a flash of the screen, for halls
// too loud to hear. Muting (the screen's UI state, web/js/ui.js, remembered on this phone)
// silences the tone and the vibration; the flash stays. Each alert is also on document.body.dataset.lastAlert and a "dt-alert" event on window.

import { buzz } from "./dom.js";

// kind -> [tone frequencies in Hz, vibration pattern in ms]; an entry to confirm is one pulse.
const ALERTS = {
  entry: [[880, 1175], [220]],
  time_called: [[660, 440, 660], [400, 150, 400]],
  extra_turn: [[587, 784], [250, 100, 250]],
  sudden_death: [[440, 880, 440, 880], [500, 150, 500, 150, 500]],
  minutes_5: [[523], [300]],
  minutes_1: [[523, 523], [300, 120, 300]],
  window_30s: [[698, 523], [250, 100, 250]],
};

let ctx = null;

function tones(freqs) {
  const AC = globalThis.AudioContext || globalThis.webkitAudioContext;
  if (!AC) return;
  try {
    ctx ||= new AC();
    if (ctx.state === "suspended") ctx.resume().catch(() => {});
    let at = ctx.currentTime;
    for (const f of freqs) {
      const osc = ctx.createOscillator();
      const gain = ctx.createGain();
      osc.frequency.value = f;
      gain.gain.setValueAtTime(0.25, at);
      gain.gain.exponentialRampToValueAtTime(0.001, at + 0.18);
      osc.connect(gain).connect(ctx.destination);
      osc.start(at);
      osc.stop(at + 0.2);
      at += 0.22;
    }
  } catch {
    /* no audio */
  }
}

/** Raise one alert by kind (see ALERTS); muted: no tone, no vibration. */
export function alert(kind, muted = false) {
  const spec = ALERTS[kind];
  if (!spec) return;
  document.body.dataset.lastAlert = kind;
  if (!muted) {
    tones(spec[0]);
    buzz(spec[1]);
  }
  document.body.classList.remove("flash");
  void document.body.offsetWidth; // restart the animation
  document.body.classList.add("flash");
  setTimeout(() => document.body.classList.remove("flash"), 1200);
  globalThis.dispatchEvent?.(new CustomEvent("dt-alert", { detail: { kind, muted } }));
}

/**
 * Watch a table's state and raise each alert once when it becomes due: an entry waiting for
 * this seat, time called, each Extra Turn, sudden death, 5 and 1 minutes left, 30 s left in the
 * between-duel window. isMuted() says whether the tone and vibration are off. Returns
 * check(state, seat, nowMs).
 */
export function alertWatcher(isMuted = () => false) {
  const seen = new Set();
  let primed = false;
  return function check(st, seat, now) {
    const due = [];
    const time = st.time || {};
    if (time.called) due.push(["time_called", "time"]);
    if (time.stage === "extra_turns") due.push(["extra_turn", `extra:${time.extra_turn || 1}`]);
    if (time.stage === "sudden_death" || time.stage === "extra_duel_sudden_death") due.push(["sudden_death", `sd:${time.stage}`]);
    const clock = st.clock || {};
    if (clock.status === "running" && clock.deadline_ms) {
      const left = clock.deadline_ms - now;
      if (left <= 5 * 60000 && left > 0) due.push(["minutes_5", `m5:${clock.deadline_ms}`]);
      if (left <= 60000 && left > 0) due.push(["minutes_1", `m1:${clock.deadline_ms}`]);
    }
    const win = st.window || {};
    if (st.phase === "between" && win.started_ms) {
      const left = win.started_ms + (win.limit_ms || 180000) - now;
      if (left <= 30000 && left > 0) due.push(["window_30s", `w:${win.started_ms}`]);
    }
    if (seat) for (const p of st.pending || []) if (p && !p.confirmed && p.by && p.by !== seat) due.push(["entry", `lp:${p.entry}`]);
    const fresh = due.filter(([, key]) => !seen.has(key));
    for (const [, key] of due) seen.add(key);
    // What was already due when the page opened is not news.
    if (!primed) {
      primed = true;
      return;
    }
    for (const [kind] of fresh) alert(kind, isMuted());
  };
}
