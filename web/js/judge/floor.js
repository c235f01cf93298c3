// The floor view: every table of the event at a glance, live over /ws/floor/<event id>.
// Tables with alerts float to the top (oldest alert first) with the age of each alert.

import { backoffDelay, ClockOffset } from "../conn.js";
import { formatDuration, h, holdWhilePressed } from "../dom.js";
import { callReason, errorText, stageText, t } from "../i18n.js";
import { age, call, refusal, topBar } from "../staff/common.js";
import { createAlarm, notificationsAvailable } from "./alarm.js";
import { disputeLine } from "./lines.js";
import { reasonWords } from "../words.js";

export function floorUrl(eventId, loc = location) {
  const proto = loc.protocol === "https:" ? "wss:" : "ws:";
  return `${proto}//${loc.host}/ws/floor/${eventId}`;
}

/** Time left on a table's clock at server time `now`. */
export function timeLeft(clock, now) {
  if (clock.status === "running" && typeof clock.deadline_ms === "number") return clock.deadline_ms - now;
  if (typeof clock.remaining_ms === "number") return clock.remaining_ms;
  return null;
}

/** The phase line of a summary, in words. */
export function phaseText(p, now) {
  if (p.kind === "between") {
    return t("staff.phase.between", { time: age(now - (p.since_ms || now)) });
  }
  // The time-over stage (R5) in its one wording, with the duel it belongs to.
  if (p.stage) return t("staff.phase.stage", { duel: p.duel, stage: stageText(p.stage, { n: p.n || 1, of: p.of }) });
  return t(`staff.phase.${p.kind}`, { duel: p.duel });
}

export function clockText(c, now) {
  const left = timeLeft(c, now);
  if (c.status === "running") return formatDuration(left);
  if (c.status === "paused") return t("staff.clock.paused", { time: formatDuration(left) });
  return t(`staff.clock.${c.status}`);
}

/** A match over, in words: who won and why (a judge's ruling leaves the duel score as it was). */
export function overText(p, names) {
  if (p.kind !== "match_over") return "";
  const why = reasonWords(p.reason);
  if (!p.winner) return t("staff.phase.match_over_draw", { why });
  return t("staff.phase.match_over_won", { name: names[p.winner === "A" ? 0 : 1] || p.winner, why });
}

function sortKey(s) {
  if (s.alerts.length) return [0, Math.min(...s.alerts.map((a) => a.since_ms || 0)), s.number || 0];
  return [1, 0, s.number || 0];
}

function compare(a, b) {
  const x = sortKey(a);
  const y = sortKey(b);
  for (let i = 0; i < 3; i++) if (x[i] !== y[i]) return x[i] - y[i];
  return 0;
}

export function mountFloor(root, eventId, navigate) {
  const tables = new Map();
  const offset = new ClockOffset();
  let ws = null;
  let stopped = false;
  let attempt = 0;
  let reconnect = null;
  let info = null;
  const status = h("span", { class: "staff-conn", testid: "floor-status", text: t("staff.offline") });
  const title = h("span", { class: "muted" });
  const filter = h("input", { type: "search", placeholder: t("staff.filter"), class: "staff-filter", testid: "floor-filter" });
  const onlyAlerts = h("input", { type: "checkbox", testid: "floor-alerts-only" });
  const count = h("span", { class: "muted" });
  // A round that has started is paired again only by a judge, who confirms it here: its
  // tables are set aside and the new pairing starts on fresh ones (docs/tournament.md).
  const repairNote = h("span", { class: "muted", testid: "floor-repair-note", role: "status" });
  const repair = h("button", {
    class: "btn btn-small", type: "button", testid: "floor-repair", hidden: true,
    onclick: async () => {
      if (!info || !confirm(t("staff.repair_confirm", { n: info.round }))) return;
      repair.disabled = true;
      const res = await call("POST", `/api/events/${eventId}/swiss/repair`, { confirm: true });
      repair.disabled = false;
      repairNote.textContent = res.ok ? t("staff.repaired", { n: info.round }) : refusal(res.body);
    },
  });
  const list = h("div", { class: "floor", testid: "floor" });
  const now = () => Date.now() + offset.value;
  const alarm = createAlarm();
  const notifyText = () =>
    Notification.permission === "granted" ? t("run.notify_on") : Notification.permission === "denied" ? t("run.notify_denied") : t("run.notify");
  const notify = notificationsAvailable()
    ? h("button", {
        class: "btn btn-small", type: "button", testid: "floor-notify", text: notifyText(),
        onclick: async () => {
          try {
            await Notification.requestPermission();
          } catch {
            /* an old browser's callback form: nothing to wait for */
          }
          notify.textContent = notifyText();
        },
      })
    : null;

  root.replaceChildren(
    topBar(t("staff.judges"), [title, status]),
    h(
      "main",
      { class: "staff-main staff-wide" },
      h("div", { class: "floor-tools" }, filter,
        h("label", { class: "check-inline" }, onlyAlerts, h("span", { text: t("staff.alerts_only") })), count, notify,
        repair, repairNote),
      list,
    ),
  );

  // A no-show alert is sent ahead with the time it becomes due: shown from then on.
  function due(s, at) {
    const alerts = s.alerts.filter((a) => a.kind !== "no_show" || (a.since_ms || 0) <= at);
    return alerts.length === s.alerts.length ? s : { ...s, alerts };
  }

  function card(s, at) {
    const paired = s.pairing || {};
    const names = [s.names.A || paired.A || "—", s.names.B || paired.B || "—"];
    const left = timeLeft(s.clock, at);
    const alerts = s.alerts.map((a) =>
      h(
        "li",
        { class: `alert alert-${a.kind}`, testid: `alert-${a.kind}` },
        h("span", { text: t(`staff.alert.${a.kind}`) }),
        a.seat ? h("span", { class: "alert-seat", text: ` ${a.seat}` }) : null,
        a.judge ? h("span", { class: "muted", text: ` · ${t("staff.alert.taken", { judge: a.judge })}` }) : null,
        a.detail && a.kind === "judge_call" ? h("span", { class: "muted", text: ` · ${callReason(a.detail, a)}` }) : null,
        a.kind === "dispute" ? h("span", { class: "alert-line", testid: "dispute-line", text: ` · ${disputeLine(a, s.names)}` }) : null,
        a.kind === "no_show" ? h("span", { text: ` · ${a.detail.split(",").map((k) => paired[k] || k).join(", ")}` }) : null,
        a.kind === "seat_mismatch" ? h("span", { text: ` · ${t("run.mismatch", { seated: a.detail.split(" / ")[0], paired: paired[a.seat] || "" })}` }) : null,
        a.kind === "seat_request" ? h("span", { testid: "seat-request-line", text: ` · ${a.detail}${a.taken_by ? ` · ${t("staff.alert.seat_request_taken", { name: a.taken_by })}` : ""}${a.why === "old_claim" ? ` · ${t("staff.alert.seat_request_old_claim")}` : ""}${a.why === "id_mismatch" ? ` · ${t("staff.alert.seat_request_id_mismatch")}` : ""}${a.twin ? ` · ${t("staff.alert.seat_request_twin")}` : ""}` }) : null,
        a.since_ms ? h("span", { class: "alert-age", text: ` ${age(at - a.since_ms)}` }) : null,
      ),
    );
    return h(
      "a",
      {
        class: ["fl-table", s.alerts.length && "has-alerts"],
        href: `/judge/e/${eventId}/t/${s.code}`,
        testid: `floor-table-${s.number}`,
        "data-phase": s.phase.kind,
        onclick: (e) => {
          e.preventDefault();
          navigate(`/judge/e/${eventId}/t/${s.code}`);
        },
      },
      h("span", { class: "fl-no", text: String(s.number) }),
      h("span", { class: "fl-names" }, h("span", { class: "seat-a", text: names[0] }), ` ${t("staff.vs")} `,
        h("span", { class: "seat-b", text: names[1] })),
      h("span", { class: "fl-score num", testid: "floor-score", text: `${s.wins.A}-${s.wins.B}` }),
      h("span", { class: "fl-lp num", testid: "floor-lp", text: `${s.lp.A} / ${s.lp.B}` }),
      h("span", { class: "fl-phase", testid: "floor-phase", text: overText(s.phase, names) || phaseText(s.phase, at) }),
      h("span", { class: ["fl-time num", left !== null && left < 5 * 60000 && "low"], testid: "floor-time",
        text: clockText(s.clock, at) }),
      alerts.length ? h("ul", { class: "fl-alerts" }, alerts) : null,
    );
  }

  // A table's card being pressed is not replaced by the next redraw (every second, and on each
  // update): its click would be lost. Drawn again once the tap is over.
  const hold = holdWhilePressed({ list }, () => render());

  function render() {
    if (hold.held()) return;
    const at = now();
    const q = filter.value.trim().toLowerCase();
    let rows = [...tables.values()].map((s) => due(s, at));
    if (q) {
      rows = rows.filter((s) => String(s.number) === q || `${s.names.A} ${s.names.B} ${s.code}`.toLowerCase().includes(q));
    }
    if (onlyAlerts.checked) rows = rows.filter((s) => s.alerts.length);
    rows.sort(compare);
    list.replaceChildren(...rows.map((s) => card(s, at)));
    count.textContent = t("staff.tables_n", { n: tables.size });
  }

  function onMessage(msg) {
    if (msg.type === "floor") {
      info = msg.event;
      title.textContent = `${info.name} · ${t("staff.round", { n: info.round })}`;
      repair.hidden = !(info.playing && msg.role === "judge");
      repair.textContent = t("staff.repair", { n: info.round });
      tables.clear();
      for (const s of msg.tables) tables.set(s.code, s);
      if (offset.rtt == null) offset.setRough(msg.now_ms);
      render();
      alarm.update([...tables.values()].map((s) => due(s, now())));
    } else if (msg.type === "tables") {
      for (const s of msg.tables) {
        const old = tables.get(s.code);
        if (!old || old.seq <= s.seq) tables.set(s.code, s);
      }
      render();
      alarm.update([...tables.values()].map((s) => due(s, now())));
    } else if (msg.type === "pong") {
      offset.add(msg.t, Date.now(), msg.now_ms);
    } else if (msg.type === "error") {
      status.textContent = errorText(msg.error || {});
    }
  }

  function open() {
    if (stopped) return;
    const sock = new WebSocket(floorUrl(eventId));
    ws = sock;
    sock.onopen = () => {
      attempt = 0;
      status.textContent = t("staff.live");
      status.classList.add("on");
      sock.send(JSON.stringify({ type: "ping", t: Date.now() }));
    };
    sock.onmessage = (ev) => {
      try {
        onMessage(JSON.parse(ev.data));
      } catch (err) {
        console.error(err);
      }
    };
    sock.onclose = (ev) => {
      if (ws !== sock) return;
      ws = null;
      status.textContent = t("staff.offline");
      status.classList.remove("on");
      if (ev.code === 4003) return; // not staff of this event: do not retry
      reconnect = setTimeout(open, backoffDelay(attempt++));
    };
  }

  const tick = setInterval(() => {
    render();
    alarm.update([...tables.values()].map((s) => due(s, now()))); // a no-show falls due
    if (ws && ws.readyState === 1) ws.send(JSON.stringify({ type: "ping", t: Date.now() }));
  }, 1000);
  filter.addEventListener("input", render);
  onlyAlerts.addEventListener("change", render);
  open();

  return {
    destroy() {
      stopped = true;
      alarm.reset();
      clearInterval(tick);
      clearTimeout(reconnect);
      if (ws) {
        const sock = ws;
        ws = null;
        sock.close(1000);
      }
    },
  };
}
