// The table screen: players' and spectators' view of one table, rendered from the state alone.
// This is the mount: the connection feeding the store (the one owner of table state), the UI
// state (web/js/ui.js, the one owner of what the panels show besides it), the panels in order
// (web/js/panels/, each declaring what it reads beside its render and, for the time, its tick),
// and destroy.

import { alertWatcher } from "./alerts.js";
import { Connection } from "./conn.js";
import { inViewKeeper } from "./in_view.js";
import { buzz, h } from "./dom.js";
import { onLangChange, t } from "./i18n.js";
import { keepReceipts, signs } from "./receipts.js";
import { watchSeatAsks } from "./seat_asks.js";
import { PANELS, TOP } from "./panels/index.js";
import { PanelHost, seatName } from "./panels/kit.js";
import { showRoll } from "./panels/dice.js";
import { TableStore, get } from "./state.js";
import { toast, toastError } from "./toast.js";
import { ScreenUi } from "./ui.js";

export { langSelect } from "./panels/lang.js";

/**
 * Mount the table screen into root. opts: code, token (null: spectator), onLeave() to go home,
 * onBadToken() when the server refuses the stored token. Returns {destroy, conn, store}.
 */
export function mountTable(root, { code, token = null, onLeave, onBadToken, storage }) {
  const store = new TableStore({ code, token, storage }); // storage: one phone, two seats (duo.js)
  const conn = new Connection(code, { token, storage: store.queueStorage });
  // LP entries made offline, not yet on the server, are part of the link the store keeps.
  store.setLink({ queued: conn.pendingCount, unsent: unsentEntries(conn) });
  const ui = new ScreenUi();
  // What this mount has noticed (for the buzz and the reveal): not shown by any panel.
  const seen = { rolls: null, asks: new Set() };
  const slots = {};
  const screen = h("main", { class: "table-screen", testid: "table-screen", "aria-label": t("table.title") });
  // The header and the time banners stay in view while the page scrolls (sticky).
  const top = h("div", { class: "top" });
  screen.append(top);
  for (const panel of PANELS) {
    slots[panel.name] = h("div", { class: `slot slot-${panel.name}` });
    (TOP.includes(panel) ? top : screen).append(slots[panel.name]);
  }
  // The reveal of a new coin or die result.
  slots.overlay = h("div", { class: "slot slot-overlay" });
  screen.append(slots.overlay);
  // LP changes read out by screen readers: one region that stays, its text replaced.
  const lpLive = h("div", { class: "sr-only", testid: "lp-live", role: "status", "aria-live": "polite" });
  screen.append(lpLive);
  root.replaceChildren(screen);

  const s = () => store.s;
  const isSeat = () => store.isSeat;
  const send = (cmd, args = {}) => conn.send(cmd, args);
  const phase = () => get(s(), "phase", "");
  const view = () => ({ role: store.role, seat: store.seat, isSeat: store.isSeat, me: store.me, opp: store.opp });
  const host = new PanelHost(PANELS, slots, (panel, picked) => ({
    s: picked,
    view: view(),
    ui: ui.handle(panel.name),
    link: store.link,
    code,
    token,
    send,
    leave: () => onLeave?.(),
    /** Draw again after a change of UI state (name: that panel even if its inputs look the same). */
    redraw: (name = null) => {
      if (name) host.forget(name);
      render();
    },
  }), () => render());

  function forceRender() {
    host.forget();
    render();
  }

  // --- wiring --------------------------------------------------------------------------------

  // Before anything can render: the cached state below renders (and ticks) at once.
  const alerts = alertWatcher(() => ui.get("muted"));
  const inView = inViewKeeper(screen, slots);

  const offs = [
    conn.on("welcome", (msg) => {
      store.welcome(msg);
      if (token) keepReceipts(code, token, store.storage);
    }),
    conn.on("update", (msg) => {
      store.take(msg);
      // A phone keeps the heads it was shown: each result's, and every head of a decided match.
      if (token && signs(msg, phase())) keepReceipts(code, token, store.storage);
    }),
    conn.on("status", (st) => store.setLink({ status: st })),
    conn.on("queue", (n) => store.setLink({ queued: n, unsent: unsentEntries(conn) })),
    conn.on("reply", ({ command, reply }) => {
      if (!reply.ok) toastError(reply.error || {});
      else if (command && command.cmd === "side.exchange") {
        // The state does not change (counts stay equal, R6.8): say that it was recorded.
        host.forget("phase");
        ui.formDone("side");
        toast(t("side.recorded"));
      }
    }),
    conn.on("error", (err) => {
      if (err && err.code === "revoked" && token) return onBadToken?.(err); // the seat went away
      if (err && err.code !== "bad_token") toastError(err);
    }),
    conn.on("fatal", (err) => {
      toastError(err);
      if (err.code === "bad_token") onBadToken?.();
      else onLeave?.();
    }),
    store.subscribe(() => {
      render();
      notice();
    }),
    ui.subscribe(() => render()),
    onLangChange(() => forceRender()),
    token ? watchSeatAsks(screen, { code, token, store }) : () => {},
  ];

  // The last state seen, shown while offline after a reload (marked by the offline badge).
  store.restore();

  // The deciding duel's confirmation also confirmed the match (its button said so): send it
  // once the match result is there to confirm.
  offs.push(
    store.subscribe(() => {
      const st = store.state;
      if (!st || ui.get("matchConfirmAfter") == null || !isSeat()) return;
      if (st.phase === "match_result" && !get(st, `match.confirmed.${store.seat}`, false)) {
        ui.matchConfirmDone();
        send("match.confirm");
      } else if (st.phase !== "duel_result") ui.matchConfirmDone();
    }),
  );

  const ticker = setInterval(tick, 250);
  const wake = wakeLock(() => store.state && phase() !== "match_over");
  conn.start();
  // Offline from the start (a reload with no network) is not "connecting".
  if (conn.status !== store.link.status) store.setLink({ status: conn.status });
  else render();


  // --- rendering -----------------------------------------------------------------------------

  function render() {
    const st = store.state;
    host.update(st, view(), ui.snapshot(), store.link);
    if (!st) {
      if (!slots.board.firstChild) slots.board.replaceChildren(h("p", { class: "loading", testid: "loading", text: t("table.connecting") }));
      return;
    }
    const lpText = st.lp ? t("lp.live", { a: seatName(st, "A"), la: get(st, "lp.A", ""), b: seatName(st, "B"), lb: get(st, "lp.B", "") }) : "";
    if (lpLive.textContent !== lpText) lpLive.textContent = lpText;
    document.body.classList.toggle("has-ask", Boolean(slots.ask.firstChild));
    // The banner at the foot takes its own space: the page ends above it.
    document.body.style.setProperty("--ask-space", `${Math.ceil(slots.ask.firstElementChild?.getBoundingClientRect().height || 0)}px`);
    inView.follow(st.phase);
    tick();
  }

  // --- time, alerts and the screen --------------------------------------------------------------

  // Four times a second: the alerts that time brings, and the time each panel shows (its tick).
  function tick() {
    const st = store.state;
    if (!st) return;
    const now = conn.serverNow();
    alerts(st, isSeat() ? store.seat : null, now);
    host.tick(st, now);
  }

  // Buzz and reveal on what is new: the opponent's deck counts or rock-paper-scissors result to
  // confirm, a new coin/die result. An LP entry to confirm is the entry alert's (alerts.js): one
  // vibration, not two.
  function notice() {
    const st = s();
    const rolls = st.rolls || [];
    const lastRoll = rolls.length ? rolls[rolls.length - 1] : null;
    if (seen.rolls === null) seen.rolls = lastRoll ? lastRoll.roll : 0;
    else if (lastRoll && lastRoll.roll > seen.rolls) {
      seen.rolls = lastRoll.roll;
      if (!lastRoll.void) showRoll(slots.overlay, lastRoll, seatName(st, lastRoll.by));
    }
    if (!isSeat()) return;
    const asks = [];
    for (const seat of ["A", "B"]) {
      if (seat !== store.seat && get(st, `decks.${seat}.declared`, null) && !get(st, `decks.${seat}.confirmed`, false))
        asks.push(`deck:${seat}:${JSON.stringify(get(st, `decks.${seat}.declared`))}`);
    }
    const report = get(st, "pregame.report", null);
    if (report && report.by && report.by !== store.seat) asks.push(`rps:${report.winner}`);
    const fresh = asks.filter((a) => !seen.asks.has(a));
    seen.asks = new Set(asks);
    if (fresh.length && !ui.get("muted")) buzz();
  }

  function destroy() {
    clearInterval(ticker);
    inView.destroy();
    for (const off of offs) off();
    wake.release();
    conn.stop();
    store.stop();
    document.body.classList.remove("has-ask");
  }

  return { destroy, conn, store };
}

/** The LP entries this phone proposed that wait in its queue: [{id, changes}]. */
function unsentEntries(conn) {
  return conn.queue.filter((c) => c.cmd === "lp.propose").map((c) => ({ id: c.id, changes: c.args.changes || [] }));
}

/** Keep the screen on while wanted() says so; re-acquired when the page becomes visible again. */
function wakeLock(wanted) {
  let sentinel = null;
  let stopped = false;
  const acquire = async () => {
    if (stopped || sentinel || !("wakeLock" in navigator) || document.visibilityState !== "visible" || !wanted()) return;
    try {
      sentinel = await navigator.wakeLock.request("screen");
      sentinel.addEventListener("release", () => (sentinel = null));
    } catch {
      sentinel = null; // refused (battery saver, no gesture yet): try again later
    }
  };
  const onVis = () => acquire();
  document.addEventListener("visibilitychange", onVis);
  const timer = setInterval(() => {
    if (!wanted() && sentinel) {
      sentinel.release().catch(() => {});
      sentinel = null;
    } else acquire();
  }, 5000);
  acquire();
  return {
    release() {
      stopped = true;
      clearInterval(timer);
      document.removeEventListener("visibilitychange", onVis);
      sentinel?.release().catch(() => {});
      sentinel = null;
    },
  };
}
