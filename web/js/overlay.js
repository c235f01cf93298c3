// The stream overlay: /t/<code>/overlay in a broadcast tool's browser source (OBS), over the
// video of a feature match. The page is transparent; it shows the two names, the LP as
// confirmed with the entry waiting for its confirmation, the duel score, the clock and the
// time-over stage, and the last coin or die. It polls the public summary
// /api/tables/<code>/overlay.json each second (404 while the table's staff do not show it:
// nothing is drawn then) and counts the clock between polls from the server's time.
// `?layout=lower` draws it as a lower third; the default is the 1920x1080 scoreboard.

import { ClockOffset } from "./conn.js";
import { formatDuration, h } from "./dom.js";
import { initLang, stageText, t } from "./i18n.js";

const POLL_MS = 1000;
const SYNC_SAMPLES = 3;
const code = decodeURIComponent(location.pathname.split("/")[2] || "").toUpperCase();
const layout = new URLSearchParams(location.search).get("layout") === "lower" ? "lower" : "full";
const root = document.getElementById("overlay");
const offset = new ClockOffset();
let data = null;
let synced = false;

initLang();
document.title = `${t("app.name")} \u00b7 ${code}`;
root.classList.add(`layout-${layout}`);
root.dataset.layout = layout;

function seatPanel(seat) {
  const name = h("span", { class: "ov-name", testid: `ov-name-${seat}` });
  const wins = h("span", { class: "ov-wins", testid: `ov-wins-${seat}` });
  const lp = h("span", { class: "ov-lp", testid: `ov-lp-${seat}` });
  const wait = h("span", { class: "ov-wait", testid: `ov-wait-${seat}` });
  const head = h("div", { class: "ov-head" }, seat === "A" ? [name, wins] : [wins, name]);
  const panel = h("section", { class: `ov-seat seat-${seat}` }, head, lp, wait);
  return { panel, name, wins, lp, wait };
}

const seats = { A: seatPanel("A"), B: seatPanel("B") };
const el = {
  score: h("div", { class: "ov-score", testid: "ov-score" }),
  clock: h("div", { class: "ov-clock", testid: "ov-clock", role: "timer", "aria-live": "off" }),
  stage: h("div", { class: "ov-stage", testid: "ov-stage" }),
  roll: h("div", { class: "ov-roll", testid: "ov-roll", hidden: true }),
};
root.replaceChildren(
  h("div", { class: "ov-board" }, seats.A.panel, h("section", { class: "ov-mid" }, el.score, el.clock, el.stage), seats.B.panel),
  el.roll,
);

const serverNow = () => Date.now() + offset.value;

/** One LP change as the overlay writes it: "-1200", "+500", "½", "= 4000". */
function changeText(c) {
  if (c.kind === "halve") return "\u00bd";
  if (c.kind === "set") return `= ${c.amount}`;
  return `${c.kind === "gain" ? "+" : "\u2212"}${c.amount}`;
}

function setText(node, text) {
  if (node.textContent !== text) node.textContent = text;
}

function render() {
  if (!data) return;
  for (const seat of ["A", "B"]) {
    const s = seats[seat];
    setText(s.name, data.names[seat] || "");
    setText(s.lp, String(data.lp[seat]));
    s.lp.dataset.lp = String(data.lp[seat]);
    const waiting = data.waiting.flatMap((p) => p.changes.filter((c) => c.seat === seat).map(changeText));
    setText(s.wait, waiting.length ? `${waiting.join(" ")} \u2026 ${t("pending.title")}` : "");
    s.wait.dataset.waiting = waiting.join(" ");
    const dots = [];
    for (let i = 0; i < data.wins_needed; i++) dots.push(h("span", { class: `ov-win${i < data.wins[seat] ? " is-won" : ""}` }));
    if (s.wins.dataset.wins !== String(data.wins[seat])) {
      s.wins.replaceChildren(...dots);
      s.wins.dataset.wins = String(data.wins[seat]);
    }
  }
  setText(el.score, `${t("duel.no", { n: data.duel_no })} \u00b7 ${data.wins.A}\u2013${data.wins.B}`);
  const c = data.clock;
  const ms = c.status === "running" && c.deadline_ms != null ? c.deadline_ms - serverNow() : c.remaining_ms;
  setText(el.clock, formatDuration(ms == null ? 0 : ms));
  el.clock.dataset.status = c.status;
  const tm = data.time;
  let stage = "";
  if (tm.stage) {
    stage = stageText(tm.stage, { n: tm.extra_turn, of: tm.of });
  } else if (tm.called) stage = t("time.called");
  setText(el.stage, stage);
  el.stage.dataset.stage = tm.stage || (tm.called ? "called" : "");
  const roll = data.roll;
  el.roll.hidden = !roll;
  if (roll) {
    const results = roll.kind === "coin" ? roll.results.map((r) => t(`coin.${r}`)) : roll.results.map(String);
    setText(el.roll, `${data.names[roll.by] || roll.by}: ${results.join(" ")}`);
    el.roll.dataset.kind = roll.kind;
  }
}

/** A few round trips to /api/time: the offset of the server's clock (best round trip wins). */
async function sync() {
  await offset.syncOverHttp(SYNC_SAMPLES);
  synced = true;
}

async function poll() {
  try {
    if (!synced) await sync();
    const res = await fetch(`/api/tables/${encodeURIComponent(code)}/overlay.json`, { cache: "no-store" });
    if (res.status === 404) {
      data = null;
      root.dataset.state = "off"; // not shown (or no such table): draw nothing over the video
      return;
    }
    if (!res.ok) throw new Error(String(res.status));
    data = await res.json();
    root.dataset.state = "on";
    root.dataset.seq = String(data.seq);
    render();
  } catch {
    synced = false; // measure the clock again once the server answers
  } finally {
    setTimeout(poll, POLL_MS);
  }
}

setInterval(render, 200);
poll();
