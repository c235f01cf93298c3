// The hall clock: /e/<slug>/hall on a projector or TV. The round, the time left (the server's
// clock, as the phones count it), how many tables are still playing, those in extra turns, a
// TIME banner when the round's time is up, and the organiser's message. It polls the public
// /api/hall/<slug> each second, keeps counting through a network drop and catches up after.

import { ClockOffset } from "./conn.js";
import { formatDuration, h } from "./dom.js";
import { initLang, t } from "./i18n.js";

const POLL_MS = 1000;
const SYNC_SAMPLES = 5;
const slug = decodeURIComponent(location.pathname.split("/")[2] || "");
const root = document.getElementById("hall");
const offset = new ClockOffset();
let data = null;
let failures = 0;
let synced = false;

initLang();
document.title = `${t("app.name")} \u00b7 ${t("run.hall")}`;
document.documentElement.lang = document.documentElement.lang || "en";

const el = {
  title: h("h1", { class: "hall-title", testid: "hall-title" }),
  status: h("span", { class: "hall-status", testid: "hall-status", role: "status", dataset: { status: "connecting" } }),
  clock: h("div", { class: "hall-clock num", testid: "hall-clock", role: "timer", "aria-live": "off" }),
  banner: h("div", { class: "hall-banner", testid: "hall-time", role: "alert", hidden: true, text: t("hall.time") }),
  note: h("p", { class: "hall-note", testid: "hall-note" }),
  playing: h("p", { class: "hall-playing", testid: "hall-playing" }),
  extra: h("p", { class: "hall-extra", testid: "hall-extra" }),
  message: h("p", { class: "hall-message", testid: "hall-message", "aria-live": "polite", hidden: true }),
  link: h("p", { class: "hall-link", testid: "hall-event-link" }),
  full: h("button", { class: "hall-full", type: "button", text: t("hall.fullscreen"), onclick: () => document.documentElement.requestFullscreen?.().catch(() => {}) }),
};
root.replaceChildren(
  h("header", { class: "hall-head" }, el.title, el.status, el.full),
  h("section", { class: "hall-body" }, el.clock, el.banner, el.note),
  h("section", { class: "hall-stats" }, el.playing, el.extra),
  el.message,
  // The players' page as a phone opens it (the server's LAN address or PUBLIC_URL, never the
  // 127.0.0.1 this screen may run on): a QR code to scan from a seat, and the address to type.
  h("footer", { class: "hall-foot" },
    h("img", { class: "hall-qr", testid: "hall-qr", src: `/api/e/${encodeURIComponent(slug)}/qr.svg`, alt: t("hall.qr_alt") }),
    el.link),
);

const serverNow = () => Date.now() + offset.value;

function render() {
  if (!data) return;
  const now = serverNow();
  el.title.textContent = `${data.event.name} · ${t("hall.round", { n: data.round })}`;
  let ms = data.match_ms;
  let note = "";
  if (data.deadline_ms == null) note = t("hall.waiting");
  else ms = data.deadline_ms - now;
  if (data.ended_ms != null) note = t("hall.over");
  const text = formatDuration(ms);
  if (el.clock.textContent !== text) el.clock.textContent = text;
  // What is shown, in ms, and the local time it was computed at (as the phones expose theirs).
  el.clock.dataset.remainingMs = String(Math.max(0, Math.round(ms)));
  el.clock.dataset.atMs = String(Date.now());
  const up = data.deadline_ms != null && ms <= 0 && data.ended_ms == null;
  el.banner.hidden = !up;
  root.classList.toggle("is-up", up);
  root.classList.toggle("is-low", data.deadline_ms != null && ms > 0 && ms < 5 * 60000);
  el.note.textContent = note;
  const tb = data.tables;
  el.playing.textContent = data.deadline_ms == null ? "" : t("hall.playing", { n: tb.playing, total: tb.total });
  el.playing.dataset.playing = String(tb.playing);
  el.extra.textContent = tb.extra.length ? t("hall.extra", { list: tb.extra.join(", ") }) : "";
  el.extra.dataset.tables = tb.extra.join(",");
  const link = data.link ? t("hall.event_link", { url: data.link.replace(/^https?:\/\//, "") }) : "";
  if (el.link.textContent !== link) el.link.textContent = link;
  const msg = data.message && data.message.text;
  el.message.hidden = !msg;
  if (el.message.textContent !== (msg || "")) el.message.textContent = msg || "";
}

function setStatus(status) {
  el.status.dataset.status = status;
  el.status.textContent = status === "offline" ? t("hall.offline") : "";
}

/** A few round trips to /api/time: the offset of the server's clock (best round trip wins). */
async function sync() {
  await offset.syncOverHttp(SYNC_SAMPLES);
  synced = true;
}

async function poll() {
  try {
    if (!synced) await sync();
    const res = await fetch(`/api/hall/${encodeURIComponent(slug)}`, { cache: "no-store" });
    if (res.status === 404) {
      el.note.textContent = "404";
      return;
    }
    if (!res.ok) throw new Error(String(res.status));
    data = await res.json();
    if (failures > 0) synced = false; // back after a drop: measure the clock again next time
    failures = 0;
    setStatus("online");
    render();
  } catch {
    failures += 1;
    if (failures >= 2) setStatus("offline");
  } finally {
    setTimeout(poll, POLL_MS);
  }
}

// Keep the projector's screen on (where the browser has a wake lock), again after a tab switch.
let wake = null;
async function keepAwake() {
  try {
    if ("wakeLock" in navigator && document.visibilityState === "visible" && !wake) {
      wake = await navigator.wakeLock.request("screen");
      root.dataset.wake = "on";
      wake.addEventListener("release", () => {
        wake = null;
        root.dataset.wake = "off";
      });
    }
  } catch {
    root.dataset.wake = "refused";
  }
}
document.addEventListener("visibilitychange", keepAwake);
keepAwake();

setInterval(render, 100);
poll();
