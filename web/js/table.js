// The table screen: players' and spectators' view of one table, rendered from the state alone.

import { alertWatcher, muted, setMuted } from "./alerts.js";
import { api, getTableEvent, qrUrl } from "./api.js";
import { Connection } from "./conn.js";
import { keepReceipts, signs } from "./receipts.js";
import { watchSeatAsks } from "./seat_asks.js";
import { buzz, formatDuration, formatTime, h, reducedMotion } from "./dom.js";
import { LANGS, callReason, has, lang, onLangChange, setLang, t } from "./i18n.js";
import { KINDS, afterPending, applyChanges, signed, signedDelta } from "./lp.js";
import { TableStore, get, other } from "./state.js";
import { sheetHref } from "./sheet_link.js";
import { toast, toastError } from "./toast.js";

const CHECK_ITEMS = ["handshake", "side_shown", "shuffled", "cut"];
const HANDS = ["rock", "paper", "scissors"];
const HAND_ICON = { rock: "\u270a", paper: "\u270b", scissors: "\u270c\ufe0f" };
const QUICK = [100, 500, 1000];
const MAX_AMOUNT = 1000000;
const ROLLS_SHOWN = 5;

/** A language picker (a native select: big enough and accessible everywhere). */
export function langSelect() {
  const sel = h("select", {
    class: "lang",
    testid: "lang",
    "aria-label": t("lang.label"),
    onchange: (e) => setLang(e.target.value),
  });
  for (const l of LANGS) sel.append(h("option", { value: l.code, text: l.label, selected: l.code === lang() }));
  return sel;
}

/**
 * Mount the table screen into root. opts: code, token (null: spectator), onLeave() to go home,
 * onBadToken() when the server refuses the stored token. Returns {destroy}.
 */
export function mountTable(root, { code, token = null, onLeave, onBadToken, storage }) {
  const store = new TableStore();
  const conn = new Connection(code, { token, storage }); // storage: one phone, two seats (duo.js)
  const ui = {
    kp: { target: "opp", kind: "damage", amount: "" },
    rollCount: 1,
    seenRolls: null,
    seenAsks: new Set(),
    concedeArmed: false,
    judgeOpen: false,
    resultDisputeOpen: false,
    status: "connecting",
    queued: conn.pendingCount,
    forms: {}, // values typed into forms survive re-renders
    listCheck: null, // the server's last answer about the pasted deck list
    banlists: null, // the lists a casual table may pick ([] at an event table or when none is loaded)
    listChecks: 0,
    listTimer: null,
    listRefs: null,
  };
  const slots = {};
  const sigs = {};
  // The keypad's live elements. Declared before the first render: a state cached from the last
  // visit renders at once, before the code below this function's first lines has run.
  const kpRefs = {};
  const order = [
    "bar",
    "banners",
    "board",
    "share",
    // The phase card (whose turn, End turn) sits above the keypad: a player ends a turn every
    // turn and must not scroll past the keypad for it.
    "phase",
    "keypad",
    "pending",
    "dice",
    "counters",
    "judge",
    "ledger",
    "disputes",
    "ask",
    "overlay",
  ];
  const screen = h("main", { class: "table-screen", testid: "table-screen", "aria-label": t("table.title") });
  // The header and the time banners stay in view while the page scrolls (sticky).
  const top = h("div", { class: "top" });
  screen.append(top);
  for (const name of order) {
    slots[name] = h("div", { class: `slot slot-${name}` });
    (name === "bar" || name === "banners" ? top : screen).append(slots[name]);
  }
  // LP changes read out by screen readers: one region that stays, its text replaced.
  const lpLive = h("div", { class: "sr-only", testid: "lp-live", role: "status", "aria-live": "polite" });
  screen.append(lpLive);
  root.replaceChildren(screen);

  const s = () => store.s;
  const me = () => store.me;
  const opp = () => store.opp;
  const isSeat = () => store.isSeat;
  const send = (cmd, args = {}) => conn.send(cmd, args);
  const name = (seat) => get(s(), `seats.${seat}.name`, "") || t("seat.name", { seat });
  const phase = () => get(s(), "phase", "");

  /** Re-render a slot only when what it shows changed (keeps focus and typed values). */
  function slot(nameOfSlot, sig, build) {
    const key = JSON.stringify([lang(), sig]);
    if (sigs[nameOfSlot] === key) return;
    sigs[nameOfSlot] = key;
    const node = build();
    slots[nameOfSlot].replaceChildren(...(node ? [node] : []));
  }

  function forceRender() {
    for (const k of Object.keys(sigs)) delete sigs[k];
    render();
  }

  // --- wiring --------------------------------------------------------------------------------

  const offs = [
    conn.on("welcome", (msg) => {
      store.welcome(msg);
      if (token) keepReceipts(code);
    }),
    conn.on("update", (msg) => {
      store.take(msg);
      if (token && signs(msg)) keepReceipts(code); // a phone keeps the heads it was shown
    }),
    conn.on("status", (st) => {
      ui.status = st;
      render();
    }),
    conn.on("queue", (n) => {
      ui.queued = n;
      render();
    }),
    conn.on("reply", ({ command, reply }) => {
      if (!reply.ok) toastError(reply.error || {});
      else if (command && command.cmd === "side.exchange") {
        // The state does not change (counts stay equal, R6.8): say that it was recorded.
        ui.forms.side = {};
        delete sigs.phase;
        render();
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
    onLangChange(() => forceRender()),
    token ? watchSeatAsks(screen, { code, token, store }) : () => {},
  ];

  // The last state seen, shown while offline after a reload (marked by the offline badge).
  const cacheKey = `dt.state.${code}`;
  try {
    const cached = JSON.parse(localStorage.getItem(cacheKey) || "null");
    if (cached && cached.state && cached.token === (token ? token.slice(-12) : "")) {
      store.welcome({ role: cached.role, seat: cached.seat, state: cached.state });
      store.seq = 0; // the socket still asks for a full state
    }
  } catch {
    /* no cache */
  }
  let cacheTimer = null;
  offs.push(
    store.subscribe(() => {
      clearTimeout(cacheTimer);
      cacheTimer = setTimeout(() => {
        try {
          localStorage.setItem(cacheKey, JSON.stringify({ token: token ? token.slice(-12) : "", role: store.role, seat: store.seat, state: store.state }));
        } catch {
          /* storage full: no offline copy */
        }
      }, 500);
    }),
  );

  // The deciding duel's confirmation also confirmed the match (its button said so): send it
  // once the match result is there to confirm.
  offs.push(
    store.subscribe(() => {
      const st = store.state;
      if (!st || ui.matchConfirmAfter == null || !isSeat()) return;
      if (st.phase === "match_result" && !get(st, `match.confirmed.${store.seat}`, false)) {
        ui.matchConfirmAfter = null;
        send("match.confirm");
      } else if (st.phase !== "duel_result") ui.matchConfirmAfter = null;
    }),
  );

  const alerts = alertWatcher();
  const ticker = setInterval(tick, 250);
  const wake = wakeLock(() => store.state && phase() !== "match_over");
  conn.start();
  render();

  // --- rendering -----------------------------------------------------------------------------

  function render() {
    const st = s();
    const seat = isSeat();
    const view = { role: store.role, seat: store.seat };
    slot("bar", [view, ui.status, ui.queued, code], renderBar);
    if (!store.state) {
      slot("board", ["loading"], () =>
        h("p", { class: "loading", testid: "loading", text: t("table.connecting") }),
      );
      return;
    }
    slot("banners", [view, st.time, st.phase, st.result, st.lp, st.turn, st.match, st.wins, st.seats, st.flags], renderBanners);
    slot("board", [view, st.seats, st.lp, st.wins, st.phase, st.duel_no, st.turn, st.clock, st.tokens], renderBoard);
    const lpText = st.lp ? t("lp.live", { a: name("A"), la: get(st, "lp.A", ""), b: name("B"), lb: get(st, "lp.B", "") }) : "";
    if (lpLive.textContent !== lpText) lpLive.textContent = lpText;
    slot("share", [view, st.seats], renderShare);
    slot("pending", [view, st.pending, st.lp, st.seats], renderPending);
    slot("phase", [view, st.phase, st.decks, st.pregame, st.turn, st.result, st.match, st.window, st.duel_no, st.new_match_votes,
      st.clock && st.clock.status, st.clock && st.clock.start_votes, st.seats, ui.concedeArmed, ui.resultDisputeOpen,
      st.banlist && st.banlist.name, ui.banlists, st.pending, st.disputes], renderPhase);
    slot("keypad", [view, st.phase], renderKeypad);
    updateKeypad();
    slot("dice", [view, st.rolls, st.seats, ui.rollCount], renderDice);
    slot("counters", [view, st.phase, st.counters, st.tokens, st.seats], renderCounters);
    slot("judge", [view, st.calls, ui.judgeOpen], renderJudge);
    slot("ledger", [view, st.ledger, st.seats], renderLedger);
    slot("disputes", [view, st.disputes, st.penalties, st.seats, st.ruleset], renderDisputes);
    slot("ask", [view, st.pending, st.lp, st.seats, st.disputes, st.duel_no, ui.rejecting, ui.correcting], renderAsk);
    document.body.classList.toggle("has-ask", Boolean(slots.ask.firstChild));
    tick();
  }

  function renderBar() {
    const statusText = t(`conn.${ui.status}`);
    const role = isSeat() ? t("role.seat", { seat: store.seat }) : store.role === "judge" ? t("role.judge") : t("role.spectator");
    return h(
      "header",
      { class: "bar" },
      h("button", { class: "icon-btn", testid: "go-home", "aria-label": t("nav.home"), onclick: () => onLeave?.(), text: "\u2190" }),
      h("h1", { class: "sr-only", text: `${t("table.title")} ${code}` }),
      h("div", { class: "bar-title" },
        h("span", { class: "bar-code", testid: "table-code", "aria-label": t("table.code"), text: code }),
        h("span", { class: "bar-role", testid: "role", text: store.role ? role : "" }),
      ),
      h("span", {
        class: ["conn", `conn-${ui.status}`],
        testid: "conn-status",
        role: "status",
        dataset: { status: ui.status },
        text: statusText,
      }),
      ui.queued > 0
        ? h("span", { class: "queued", testid: "queue-count", dataset: { count: String(ui.queued) }, text: t("conn.queued", { n: ui.queued }) })
        : null,
      h("button", {
        testid: "mute",
        "aria-pressed": String(muted()),
        "aria-label": t("alerts.mute"),
        class: ["icon-btn", "mute", muted() && "muted"],
        text: "\u266a",
        onclick: () => {
          setMuted(!muted());
          delete sigs.bar;
          render();
        },
      }),
      langSelect(),
    );
  }

  function renderBanners() {
    const st = s();
    const out = [];
    const stage = get(st, "time.stage", null);
    const called = get(st, "time.called", false);
    // The time banner belongs to a duel (or the Extra Duel still to come), not to its result.
    if ((stage || called) && !["duel_result", "match_result", "match_over"].includes(st.phase)) {
      let text = t("time.called");
      if (stage === "finish_turn") text = t("time.finish_turn");
      else if (stage === "extra_turns")
        text = t("time.extra_turn", { n: get(st, "time.extra_turn", 0) || 1, of: get(st, "time.extra_turns", 3) });
      else if (stage === "sudden_death" || stage === "extra_duel_sudden_death") text = t("time.sudden_death");
      else if (stage === "extra_duel") text = t("time.extra_duel", { n: get(st, "turn.no", 1), of: get(st, "time.extra_duel_turns", 4) });
      out.push(h("div", { class: "banner banner-time", testid: "time-banner", role: "alert", dataset: { stage: stage || "called" }, text }));
    }
    const lp = st.lp || {};
    if (st.phase === "duel" && (lp.A <= 0 || lp.B <= 0)) {
      const text = lp.A <= 0 && lp.B <= 0 ? t("duel.both_zero") : t("duel.zero", { name: name(lp.A <= 0 ? "A" : "B") });
      out.push(h("div", { class: "banner banner-end", testid: "duel-over", role: "alert", text }));
    }
    if (st.phase === "duel_result" && st.result) {
      out.push(h("div", { class: "banner banner-end", testid: "duel-result", role: "alert", text: resultText(st.result) }));
    }
    if ((st.phase === "match_result" || st.phase === "match_over") && st.match) {
      out.push(h("div", { class: "banner banner-end", testid: "match-result", role: "alert", text: matchText(st.match) }));
    }
    // The organiser ended the event's round while this match was still on.
    const ended = (st.flags || []).find((f) => f.kind === "round_ended");
    if (ended) {
      out.push(h("div", { class: "banner banner-time", testid: "round-ended", role: "alert", text: t("round.ended", { n: ended.detail || "" }) }));
    }
    return out.length ? h("div", { class: "banners" }, out) : null;
  }

  function resultText(result) {
    const reason = result.reason ? t(`reason.${result.reason}`) : "";
    const duel = result.duel || get(s(), "duel_no", 1);
    const main = result.winner
      ? t("result.duel_win", { duel, name: name(result.winner) })
      : t("result.duel_draw", { duel });
    return result.reason && has(`reason.${result.reason}`) ? `${main} (${reason})` : main;
  }

  function matchText(match) {
    const wins = get(s(), "wins", {});
    const score = `${wins.A || 0}\u2013${wins.B || 0}`;
    const main = match.winner ? t("result.match_win", { name: name(match.winner), score }) : t("result.match_draw", { score });
    const reason = match.reason && match.reason !== "wins" && has(`reason.${match.reason}`) ? t(`reason.${match.reason}`) : "";
    return reason ? `${main} (${reason})` : main;
  }

  function seatBlock(seat, big) {
    const st = s();
    const lp = get(st, `lp.${seat}`, null);
    const wins = get(st, `wins.${seat}`, 0);
    const mine = isSeat() && seat === store.seat;
    const turnPlayer = st.phase === "duel" && get(st, "turn.player", null) === seat;
    const wrapId = isSeat() ? (mine ? "my-lp" : "opp-lp") : big ? "lp-bottom" : "lp-top";
    const joined = get(st, `seats.${seat}.joined`, Boolean(get(st, `seats.${seat}.name`, "")));
    return h(
      "section",
      {
        class: ["seat", big ? "seat-me" : "seat-opp", turnPlayer && "seat-turn", lp !== null && lp <= 0 && "seat-zero"],
        "aria-label": t("seat.label", { name: name(seat) }),
        dataset: { seat },
      },
      h("div", { class: "seat-head" },
        h("span", { class: "seat-name", testid: `name-${seat}`, text: joined ? name(seat) : t("seat.empty", { seat }) }),
        mine ? h("span", { class: "tag", text: t("seat.you") }) : null,
        turnPlayer ? h("span", { class: "tag tag-turn", text: t("duel.turn_tag") }) : null,
        h("span", { class: "wins", testid: `wins-${seat}`, "aria-label": t("seat.wins", { n: wins }), text: "\u25cf".repeat(wins) + "\u25cb".repeat(Math.max(0, 2 - wins)) }),
      ),
      h("div", { class: "lp-wrap", testid: wrapId },
        h("span", { class: "lp", testid: `lp-${seat}`, "aria-label": t("lp.aria", { name: name(seat) }), text: lp === null ? "\u2013" : String(lp) }),
      ),
    );
  }

  function renderBoard() {
    const st = s();
    const turnNo = get(st, "turn.no", null);
    const turnPlayer = get(st, "turn.player", null);
    const strip = h(
      "div",
      { class: "strip" },
      h("span", { class: "phase", testid: "phase", dataset: { phase: st.phase || "" }, text: st.phase ? t(`phase.${st.phase}`) : "" }),
      st.duel_no && st.phase !== "match_result" && st.phase !== "match_over" ? h("span", { class: "duel-no", testid: "duel-no", text: t("duel.no", { n: st.duel_no }) }) : null,
      st.phase === "duel" && turnNo
        ? h("span", {
            class: "turn-info",
            testid: "turn-info",
            dataset: { turn: String(turnNo), player: turnPlayer || "" },
            text: t("duel.turn", { n: turnNo, name: name(turnPlayer) }),
          })
        : null,
      h("span", { class: "clock", testid: "clock", role: "timer", "aria-label": t("clock.label"), dataset: { status: get(st, "clock.status", "idle") } }),
    );
    return h("div", { class: "board" }, seatBlock(opp(), false), strip, seatBlock(me(), true));
  }

  function renderShare() {
    const st = s();
    const empty = ["A", "B"].filter((x) => !get(st, `seats.${x}.joined`, false));
    if (!empty.length) return null;
    const link = `${location.origin}/t/${code}`;
    const copy = async () => {
      try {
        await navigator.clipboard.writeText(link);
        toast(t("share.copied"));
      } catch {
        toast(link);
      }
    };
    return h(
      "section",
      { class: "card share", testid: "share-panel", "aria-label": t("share.title") },
      h("h2", { text: t("share.title") }),
      h("p", { class: "muted", text: t("share.hint") }),
      h("div", { class: "share-code", testid: "share-code", "aria-label": t("table.code"), text: code }),
      h("img", { class: "qr", testid: "share-qr", src: qrUrl(code), alt: t("share.qr_alt"), width: "220", height: "220" }),
      h("a", { class: "share-link", testid: "share-link", href: `/t/${code}`, text: link }),
      h("div", { class: "row" },
        h("button", { class: "btn", testid: "share-copy", onclick: copy, text: t("share.copy") }),
        navigator.share
          ? h("button", { class: "btn", testid: "share-native", onclick: () => navigator.share({ title: "Duel Table", url: link }).catch(() => {}), text: t("share.share") })
          : null,
      ),
    );
  }

  // --- LP entries ----------------------------------------------------------------------------

  function changeText(change, lpBefore) {
    const who = name(change.seat);
    const kind = change.kind || (change.delta < 0 ? "damage" : "gain");
    const amount = change.kind ? change.amount : Math.abs(change.delta || 0);
    if (kind === "halve") return t("change.halve", { name: who });
    if (kind === "set") return t("change.set", { name: who, amount });
    const base = t(`change.${kind}`, { name: who, amount });
    return lpBefore == null ? base : `${base} (${signed(signedDelta(lpBefore, change))})`;
  }

  function changesText(changes, lpBefore) {
    return (changes || []).map((c) => changeText(c, lpBefore ? lpBefore[c.seat] : null)).join(" \u00b7 ");
  }

  function openPending() {
    return (get(s(), "pending", []) || []).filter((p) => p && !p.confirmed);
  }

  function renderPending() {
    const pending = openPending();
    if (!pending.length) return null;
    let lp = { ...get(s(), "lp", {}) };
    const rows = pending.map((p) => {
      const before = lp;
      lp = applyChanges(lp, p.changes);
      const mineP = isSeat() && p.by === store.seat;
      const theirs = isSeat() && p.by !== store.seat;
      return h(
        "li",
        { class: ["pending", theirs && "pending-theirs"], testid: "pending-entry", dataset: { entry: String(p.entry), by: p.by || "" } },
        h("div", { class: "pending-main" },
          h("span", { class: "entry-no", text: `#${p.entry}` }),
          h("span", { class: "pending-text", text: changesText(p.changes, before) }),
        ),
        h("div", { class: "pending-after muted", text: t("pending.after", { a: name("A"), la: lp.A, b: name("B"), lb: lp.B }) }),
        h("div", { class: "pending-foot" },
          h("span", { class: "muted", text: mineP ? t("pending.waiting") : theirs ? t("pending.yours_to_confirm") : t("pending.by", { name: name(p.by) }) }),
          mineP
            ? h("button", { class: "btn btn-small", testid: "withdraw-entry", dataset: { entry: String(p.entry) }, onclick: () => send("lp.withdraw", { entry: p.entry }), text: t("pending.withdraw") })
            : null,
        ),
      );
    });
    return h("section", { class: "card", "aria-label": t("pending.title") }, h("h2", { text: t("pending.title") }), h("ul", { class: "list", testid: "pending-list" }, rows));
  }

  // The banner asking this phone to confirm the opponent's LP entry: fixed at the bottom, loud.
  function renderAsk() {
    if (!isSeat()) return null;
    const pending = openPending();
    const i = pending.findIndex((p) => p.by && p.by !== store.seat);
    if (i < 0) return renderRejected();
    const p = pending[i];
    const before = afterPending(get(s(), "lp", {}), pending.slice(0, i));
    const after = applyChanges(before, p.changes);
    const mineFirst = pending.slice(0, i).some((x) => x.by === store.seat);
    return h(
      "div",
      { class: "ask", testid: "confirm-banner", role: "alertdialog", "aria-live": "assertive", "aria-label": t("ask.title"), dataset: { entry: String(p.entry) } },
      h("div", { class: "ask-title", id: "confirm-banner-title", text: t("ask.title_by", { name: name(p.by), n: p.entry }) }),
      h("div", { class: "ask-text", text: changesText(p.changes, before) }),
      h("div", { class: "ask-after", text: `${name("A")} ${after.A} \u00b7 ${name("B")} ${after.B}` }),
      mineFirst ? h("div", { class: "muted", text: t("ask.after_yours") }) : null,
      ui.rejecting === p.entry ? rejectForm(p) : h("div", { class: "ask-buttons" },
        h("button", { class: "btn btn-danger", testid: "reject-entry", dataset: { entry: String(p.entry) }, onclick: () => { ui.rejecting = p.entry; render(); document.getElementById("f-reject")?.focus(); }, text: t("ask.reject") }),
        h("button", { class: "btn btn-primary", testid: "confirm-entry", dataset: { entry: String(p.entry) }, onclick: () => send("lp.confirm", { entry: p.entry }), text: t("ask.confirm") }),
      ),
    );
  }

  // Rejecting asks a short reason (optional), which the proposer's phone shows at once.
  function rejectForm(p) {
    const form = (ui.forms.reject ||= { reason: "" });
    const done = (reason) => {
      ui.rejecting = null;
      form.reason = "";
      if (reason !== null) send("lp.reject", { entry: p.entry, reason });
      render();
    };
    return h("div", { class: "reject-form" },
      h("label", { class: "field", for: "f-reject" }, h("span", { text: t("ask.reject_reason") }),
        h("input", { id: "f-reject", type: "text", maxlength: "200", testid: "reject-reason", value: form.reason, oninput: (e) => (form.reason = e.target.value) }),
      ),
      h("div", { class: "ask-buttons" },
        h("button", { class: "btn", testid: "reject-cancel", onclick: () => done(null), text: t("common.cancel") }),
        h("button", { class: "btn btn-danger", testid: "reject-send", dataset: { entry: String(p.entry) }, onclick: () => done(form.reason.trim()), text: t("ask.reject_send") }),
      ),
    );
  }

  // The proposer's banner for an entry the opponent rejected: the reason, and at a casual table
  // (no judges) the way to settle it at the table: withdraw it or propose a corrected one.
  function renderRejected() {
    const st = s();
    const d = (st.disputes || []).find((x) => x.status === "open" && x.by === store.seat && x.duel === st.duel_no);
    if (!d) return null;
    const casual = !get(st, "ruleset.staff_start", false);
    const parts = [
      h("div", { class: "ask-title", id: "rejected-title", text: t("rejected.title", { name: name(d.rejected_by), n: d.entry }) }),
      h("div", { class: "ask-text", text: changesText(d.changes, null) }),
      h("div", { class: "rejected-reason", testid: "rejected-reason", text: d.reason ? t("rejected.reason", { reason: d.reason }) : t("rejected.no_reason") }),
      h("div", { class: "muted", text: casual ? t("rejected.casual") : t("rejected.judge") }),
    ];
    if (casual && ui.correcting === d.entry) {
      const form = (ui.forms.correct ||= {});
      if (form.entry !== d.entry) Object.assign(form, { entry: d.entry, amounts: d.changes.map((c) => String(c.amount ?? 0)) });
      parts.push(h("div", { class: "correct-form" },
        d.changes.map((c, k) => c.kind === "halve" ? null : h("label", { class: "field", for: `f-correct-${k}` },
          h("span", { text: t("rejected.amount", { name: name(c.seat) }) }),
          h("input", { id: `f-correct-${k}`, type: "number", inputmode: "numeric", min: "0", testid: "correct-amount", value: form.amounts[k], oninput: (e) => (form.amounts[k] = e.target.value) }),
        )),
        h("div", { class: "ask-buttons" },
          h("button", { class: "btn", testid: "correct-cancel", onclick: () => { ui.correcting = null; render(); }, text: t("common.cancel") }),
          h("button", { class: "btn btn-primary", testid: "correct-send", onclick: () => {
            const changes = d.changes.map((c, k) => ({ seat: c.seat, kind: c.kind, amount: Math.max(0, parseInt(form.amounts[k], 10) || 0) }));
            ui.correcting = null;
            ui.forms.correct = {};
            send("dispute.repropose", { entry: d.entry, changes, note: d.note || "" });
            render();
          }, text: t("rejected.send") }),
        ),
      ));
    } else if (casual) {
      parts.push(h("div", { class: "ask-buttons" },
        h("button", { class: "btn", testid: "dispute-withdraw", dataset: { entry: String(d.entry) }, onclick: () => send("dispute.withdraw", { entry: d.entry }), text: t("rejected.withdraw") }),
        h("button", { class: "btn btn-primary", testid: "dispute-correct", dataset: { entry: String(d.entry) }, onclick: () => { ui.correcting = d.entry; render(); }, text: t("rejected.correct") }),
      ));
    }
    return h("div", { class: "ask ask-rejected", testid: "rejected-banner", role: "alert", "aria-labelledby": "rejected-title", dataset: { entry: String(d.entry) } }, parts);
  }

  // --- LP keypad: built once per phase/seat, updated in place as keys are tapped --------------

  function renderKeypad() {
    if (!isSeat() || phase() !== "duel") return null;
    const kp = ui.kp;
    const seg = (group, values, label, labelOf) =>
      h(
        "div",
        { class: "seg", role: "radiogroup", "aria-label": label },
        values.map((v) => {
          const b = h("button", {
            class: "seg-btn",
            role: "radio",
            testid: `keypad-${group}-${v}`,
            text: labelOf(v),
            onclick: () => {
              kp[group] = v;
              if (group === "kind" && v === "halve") kp.amount = "";
              updateKeypad();
            },
          });
          (kpRefs[group] ||= []).push([v, b]);
          return b;
        }),
      );
    kpRefs.target = [];
    kpRefs.kind = [];
    const key = (label, testid, fn, cls = "") =>
      h("button", { class: ["key", cls], testid, "aria-label": label, text: label, onclick: () => { fn(); updateKeypad(); } });
    const digit = (d) => key(d, `keypad-digit-${d}`, () => typeDigits(d));
    kpRefs.amount = h("output", { class: "kp-amount", testid: "keypad-amount", "aria-live": "polite", "aria-label": t("kp.amount") });
    // The resulting LP sit inside Propose: what the tap will send, where the thumb is.
    kpRefs.preview = h("span", { class: "kp-preview", testid: "keypad-preview" });
    kpRefs.propose = h("button", { class: "btn btn-primary key-propose", testid: "propose", onclick: propose },
      h("span", { class: "kp-propose-label", text: t("kp.propose") }),
      kpRefs.preview,
    );
    kpRefs.keys = [];
    // One grid, four rows: digits on the left, the quick amounts beside them, Propose three rows
    // tall on the right under the thumb (the whole keypad fits one phone screen with the board).
    const quick = QUICK.map((q) => key(`+${q}`, `keypad-quick-${q}`, () => addAmount(q), "key-quick"));
    const grid = h(
      "div",
      { class: "keys" },
      ["7", "8", "9"].map(digit), quick[0], key("C", "keypad-clear", () => (kp.amount = ""), "key-quick"),
      ["4", "5", "6"].map(digit), quick[1], kpRefs.propose,
      ["1", "2", "3"].map(digit), quick[2],
      key("00", "keypad-00", () => typeDigits("00")),
      digit("0"),
      key("000", "keypad-000", () => typeDigits("000")),
      key("\u232b", "keypad-back", () => (kp.amount = kp.amount.slice(0, -1)), "key-quick"),
    );
    kpRefs.keys = [...grid.querySelectorAll("button")].filter((b) => b !== kpRefs.propose);
    for (const b of kpRefs.keys) if (b.dataset.testid === "keypad-back") b.setAttribute("aria-label", t("kp.back"));
    for (const b of kpRefs.keys) if (b.dataset.testid === "keypad-clear") b.setAttribute("aria-label", t("kp.clear"));
    return h(
      "section",
      { class: "card keypad", testid: "keypad", "aria-label": t("kp.title") },
      h("div", { class: "kp-display" }, seg("target", ["me", "opp", "both"], t("kp.target"), (v) => t(`kp.target_${v}`)), kpRefs.amount),
      seg("kind", KINDS, t("kp.kind"), (v) => t(`kind.${v}`)),
      grid,
    );
  }

  function typeDigits(d) {
    const kp = ui.kp;
    if (kp.kind === "halve") return;
    const next = (kp.amount + d).replace(/^0+(?=\d)/, "");
    if (Number(next) <= MAX_AMOUNT) kp.amount = next === "0" && d !== "0" ? "" : next;
  }

  function addAmount(q) {
    const kp = ui.kp;
    if (kp.kind === "halve") return;
    kp.amount = String(Math.min(MAX_AMOUNT, (Number(kp.amount) || 0) + q));
  }

  function keypadChanges() {
    const kp = ui.kp;
    const seats = kp.target === "both" ? ["A", "B"] : [kp.target === "me" ? store.seat : other(store.seat)];
    const amount = kp.kind === "halve" ? 0 : Number(kp.amount) || 0;
    return seats.map((seat) => ({ seat, kind: kp.kind, amount }));
  }

  function keypadReady() {
    const kp = ui.kp;
    return kp.kind === "halve" || kp.kind === "set" ? kp.kind === "halve" || kp.amount !== "" : Number(kp.amount) > 0;
  }

  function updateKeypad() {
    if (!kpRefs.amount || !kpRefs.amount.isConnected) return;
    const kp = ui.kp;
    for (const group of ["target", "kind"]) {
      for (const [v, b] of kpRefs[group] || []) {
        b.setAttribute("aria-checked", String(kp[group] === v));
        b.classList.toggle("on", kp[group] === v);
      }
    }
    const halve = kp.kind === "halve";
    kpRefs.amount.textContent = halve ? "\u00bd" : kp.amount || "0";
    kpRefs.amount.classList.toggle("empty", !halve && !kp.amount);
    for (const b of kpRefs.keys) b.disabled = halve && !["keypad-clear"].includes(b.dataset.testid);
    const start = afterPending(get(s(), "lp", {}), openPending());
    const after = applyChanges(start, keypadChanges());
    kpRefs.preview.replaceChildren(
      ...["A", "B"].map((seat) =>
        h("span", { class: ["kp-prev", after[seat] !== start[seat] && "changed"], testid: `preview-${seat}` },
          h("span", { class: "kp-prev-name", text: `${name(seat)} ` }),
          "\u2192",
          h("b", { text: String(after[seat]) }),
        ),
      ),
    );
    kpRefs.propose.disabled = !keypadReady();
  }

  function propose() {
    if (!keypadReady()) return;
    send("lp.propose", { changes: keypadChanges(), note: "" });
    // Back to the commonest entry, "opponent, damage", after each one.
    Object.assign(ui.kp, { target: "opp", kind: "damage", amount: "" });
    updateKeypad();
  }

  // --- the match flow, by phase ----------------------------------------------------------------

  function renderPhase() {
    const st = s();
    const parts = [];
    const clock = renderClockControls();
    if (clock) parts.push(clock);
    const builder = {
      registration: phaseRegistration,
      pregame: phasePregame,
      duel: phaseDuel,
      duel_result: phaseDuelResult,
      between: phaseBetween,
      match_result: phaseMatchResult,
      match_over: phaseMatchOver,
    }[st.phase];
    if (builder) {
      const node = builder();
      if (node) parts.push(node);
    }
    return parts.length ? h("div", { class: "phase-panel", testid: "phase-panel", dataset: { phase: st.phase || "" } }, parts) : null;
  }

  function card(title, testid, ...children) {
    return h("section", { class: "card", testid, "aria-label": title }, h("h2", { text: title }), children);
  }

  function renderClockControls() {
    const st = s();
    const status = get(st, "clock.status", "idle");
    if (status !== "idle" || !isSeat() || st.phase === "match_over") return null;
    // An event table: the organiser starts every table's clock at once with the round.
    if (get(st, "ruleset.staff_start", false)) {
      return h("p", { class: "status-line", testid: "clock-wait-round", text: t("clock.wait_round") });
    }
    const votes = get(st, "clock.start_votes", []) || [];
    const voted = votes.includes(store.seat);
    return h(
      "div",
      { class: "row clock-row" },
      // Until the clock runs, the table says both must tap Start and how many have.
      h("p", { class: ["status-line", votes.length && !voted && "attention"], testid: "clock-prompt", dataset: { votes: String(votes.length) }, text: t("clock.prompt", { n: votes.length }) }),
      // The opponent has pressed start: this phone's press is what the table waits for.
      votes.length && !voted ? h("p", { class: "attention status-line", text: t("clock.opp_voted") }) : null,
      h("button", { class: ["btn", votes.length && !voted && "btn-primary"], testid: "clock-start", disabled: voted, onclick: () => send("clock.start"), text: voted ? t("clock.start_waiting") : t("clock.start_count", { n: votes.length }) }),
    );
  }

  function numberField(form, key, label, testid, { min = 0, max = 99 } = {}) {
    const id = `f-${form}-${key}`;
    const values = (ui.forms[form] ||= {});
    const input = h("input", {
      id,
      type: "number",
      inputmode: "numeric",
      min: String(min),
      max: String(max),
      testid,
      value: values[key] ?? "",
      oninput: (e) => (values[key] = e.target.value),
    });
    return h("label", { class: "field", for: id }, h("span", { text: label }), input);
  }

  // Deck counts to start the form with: the declared (or registered list's) counts, else the
  // last ones declared on this phone, else 40/15/15.
  function deckDefaults(declared) {
    let last = null;
    try {
      last = JSON.parse(localStorage.getItem("dt.deck.last") || "null");
    } catch {
      last = null;
    }
    const c = declared || (last && Number.isInteger(last.main) ? last : { main: 40, extra: 15, side: 15 });
    return { main: String(c.main), extra: String(c.extra ?? 0), side: String(c.side ?? 0) };
  }

  function rememberDeck(counts) {
    try {
      localStorage.setItem("dt.deck.last", JSON.stringify(counts));
    } catch {
      /* storage full: the defaults next time */
    }
  }

  function countsText(c) {
    if (!c) return "\u2013";
    return t("deck.counts", { main: c.main ?? "?", extra: c.extra ?? "?", side: c.side ?? "?" });
  }

  function phaseRegistration() {
    const st = s();
    const decks = st.decks || {};
    const meSeat = store.seat;
    const parts = [];
    if (isSeat()) {
      const mine = get(decks, `${meSeat}.declared`, null);
      const form = (ui.forms.deck ||= {});
      const seen = JSON.stringify(mine);
      if (form.main === undefined || (mine && form.seen !== seen)) Object.assign(form, deckDefaults(mine), { seen });
      const err = h("p", { class: "form-error", testid: "deck-error", role: "alert" });
      const declare = () => {
        const v = { main: Number(form.main), extra: Number(form.extra || 0), side: Number(form.side || 0) };
        const problems = [];
        if (!Number.isInteger(v.main) || form.main === "" || v.main < 40 || v.main > 60) problems.push(t("deck.err_main"));
        if (!Number.isInteger(v.extra) || v.extra < 0 || v.extra > 15) problems.push(t("deck.err_extra"));
        if (!Number.isInteger(v.side) || v.side < 0 || v.side > 15) problems.push(t("deck.err_side"));
        err.textContent = problems.join(" ");
        if (problems.length) return;
        send("deck.declare", v);
        rememberDeck(v);
        // The opponent's counts, already on screen and named on this button, confirmed with it.
        if (theirsOpen) send("deck.confirm", { seat: other(meSeat) });
      };
      const theirs = get(decks, `${other(meSeat)}.declared`, null);
      const theirsOpen = Boolean(theirs && !get(decks, `${other(meSeat)}.confirmed`, false));
      parts.push(
        h("p", { class: "muted", text: t("deck.hint") }),
        h("div", { class: "fields3" },
          numberField("deck", "main", t("deck.main"), "deck-main", { min: 40, max: 60 }),
          numberField("deck", "extra", t("deck.extra"), "deck-extra", { max: 15 }),
          numberField("deck", "side", t("deck.side"), "deck-side", { max: 15 }),
        ),
        err,
        h("button", { class: "btn btn-primary btn-wide", testid: "deck-declare", onclick: declare,
          text: mine ? t("deck.redeclare") : theirsOpen ? t("deck.declare_and_confirm", { name: name(other(meSeat)), counts: countsText(theirs) }) : t("deck.declare") }),
        h("p", { class: "status-line", testid: "deck-mine", text: mine ? t("deck.mine", { counts: countsText(mine) }) + " \u00b7 " + (get(decks, `${meSeat}.confirmed`, false) ? t("deck.confirmed_by_opp") : t("deck.waiting_opp")) : t("deck.not_declared") }),
      );
      parts.push(deckListForm());
    }
    for (const seat of isSeat() ? [other(meSeat)] : ["A", "B"]) {
      const decl = get(decks, `${seat}.declared`, null);
      const confirmed = get(decks, `${seat}.confirmed`, false);
      parts.push(
        h("div", { class: ["status-line", isSeat() && decl && !confirmed && "attention"], testid: `deck-${seat}` },
          h("span", { text: decl ? t("deck.theirs", { name: name(seat), counts: countsText(decl) }) : t("deck.theirs_none", { name: name(seat) }) }),
          decl && confirmed ? h("span", { class: "ok", text: " \u2713" }) : null,
        ),
      );
      if (isSeat() && decl && !confirmed) {
        parts.push(h("button", { class: "btn btn-primary btn-wide", testid: "confirm-deck", onclick: () => send("deck.confirm", { seat }), text: t("deck.confirm", { name: name(seat) }) }));
      }
    }
    return card(t("phase.registration"), "registration", parts);
  }

  // --- deck lists (R1.6, R2.1-R2.6): paste, live problems from the server, register -------------

  function problemText(p) {
    const key = `list.problem.${p.code}`;
    if (!has(key)) return p.message || p.code;
    return `${p.rule}: ${t(key, { card: p.card ?? "", count: p.count ?? "", max: p.max ?? "", min: p.min ?? "", part: p.part ? t(`deck.${p.part}`) : "", line: p.line ?? "" })}`;
  }

  function paintListCheck() {
    const refs = ui.listRefs;
    if (!refs) return;
    const res = ui.listCheck;
    if (!res) {
      refs.counts.textContent = "";
      refs.problems.replaceChildren();
      return;
    }
    refs.counts.textContent = res.counts ? countsText(res.counts) : "";
    const problems = res.problems || [];
    refs.problems.replaceChildren(
      ...(problems.length
        ? problems.map((p) => h("li", { class: "bad", testid: "deck-list-problem", dataset: { rule: p.rule, code: p.code }, text: problemText(p) }))
        : res.counts ? [h("li", { class: "ok", testid: "deck-list-ok", text: t("list.legal") })] : []),
    );
  }

  async function checkList() {
    const text = (ui.forms.list && ui.forms.list.text) || "";
    const mine = ++ui.listChecks;
    if (!text.trim() || !token) {
      ui.listCheck = null;
      paintListCheck();
      return;
    }
    try {
      const res = await fetch(`/api/tables/${encodeURIComponent(code)}/decklist/check`, {
        method: "POST",
        headers: { "Content-Type": "application/json", Accept: "application/json", Authorization: `Bearer ${token}` },
        body: JSON.stringify({ text }),
      });
      const body = await res.json();
      if (mine !== ui.listChecks) return; // a later check is on its way
      ui.listCheck = res.ok ? body : { problems: [{ rule: "", code: body.code, message: body.message }] };
    } catch {
      if (mine !== ui.listChecks) return;
      ui.listCheck = null;
    }
    paintListCheck();
  }

  function deckListForm() {
    const st = s();
    const form = (ui.forms.list ||= {});
    const deck = get(st, `decks.${store.seat}`, {}) || {};
    const registered = deck.list && deck.cards && deck.cards.registered;
    const area = h("textarea", {
      rows: "8",
      testid: "deck-list-text",
      "aria-label": t("list.paste"),
      placeholder: t("list.placeholder"),
      spellcheck: false,
      oninput: (e) => {
        form.text = e.target.value;
        clearTimeout(ui.listTimer);
        ui.listTimer = setTimeout(checkList, 350);
      },
    });
    area.value = form.text ?? ""; // a textarea's text is its value, not an attribute
    ui.listRefs = {
      counts: h("p", { class: "muted", testid: "deck-list-counts", "aria-live": "polite" }),
      problems: h("ul", { class: "list-problems", testid: "deck-list-problems", "aria-live": "polite" }),
    };
    paintListCheck();
    const banlist = st.banlist;
    return h("div", { class: "deck-list", testid: "deck-list" },
      h("h3", { text: t("list.title") }),
      h("p", { class: "muted", testid: "deck-list-banlist", text: banlist && banlist.name ? t("list.banlist", { name: banlist.name }) : t("list.no_banlist") }),
      banlistPicker(),
      h("label", { class: "field" }, h("span", { text: t("list.paste") }), area),
      ui.listRefs.counts,
      ui.listRefs.problems,
      h("button", {
        class: "btn btn-primary btn-wide",
        testid: "deck-list-register",
        onclick: () => send("deck.register", { text: form.text || "" }),
        text: registered ? t("list.register_again") : t("list.register"),
      }),
      registered ? h("p", { class: "status-line ok", testid: "deck-list-mine", text: t("list.mine", { counts: countsText(deck.declared) }) }) : null,
    );
  }

  // A casual table picks its ban list here (R2.5), before either seat registers a list; an
  // event table uses its event's list and shows no picker.
  function loadBanlists() {
    if (ui.banlists !== null || !token) return;
    ui.banlists = [];
    Promise.all([getTableEvent(code), api("GET", "/api/banlists")]).then(([ev, lists]) => {
      if (ev.ok || ev.status !== 404 || !lists.ok) return;
      const casual = (lists.body.banlists || []).filter((b) => b.event_id === null || b.event_id === undefined);
      if (!casual.length) return;
      ui.banlists = casual;
      render();
    });
  }

  function banlistPicker() {
    loadBanlists();
    const st = s();
    const lists = ui.banlists || [];
    if (!lists.length || Object.values(st.decks || {}).some((d) => d && d.cards)) return null;
    const current = (st.banlist && st.banlist.name) || "";
    const select = h("select", {
      id: "f-banlist",
      testid: "deck-list-banlist-pick",
      onchange: async (e) => {
        const res = await api("POST", `/api/tables/${encodeURIComponent(code)}/banlist`, { name: e.target.value }, token);
        if (!res.ok) {
          toastError(res.body);
          e.target.value = current;
        }
      },
    },
      h("option", { value: "", text: t("list.pick_none"), selected: current === "" }),
      lists.map((b) => h("option", { value: b.name, text: t("list.pick_option", { name: b.name, n: b.size }), selected: current === b.name })),
    );
    return h("label", { class: "field", for: "f-banlist" }, h("span", { text: t("list.pick") }), select);
  }

  function phasePregame() {
    const st = s();
    const pg = st.pregame || {};
    const checks = pg.checks || {};
    const parts = [];
    // R6.1-R6.4 checklist
    const mineChecks = isSeat() ? checks[store.seat] || [] : [];
    const list = h(
      "div",
      { class: ["checklist", isSeat() && CHECK_ITEMS.every((i) => mineChecks.includes(i)) && "compact"], role: "group", "aria-label": t("pre.checklist") },
      CHECK_ITEMS.map((item) => {
        const done = mineChecks.includes(item);
        return h("button", {
          class: ["check", done && "done"],
          testid: `check-${item}`,
          "aria-pressed": String(done),
          disabled: !isSeat() || done,
          onclick: () => send("pregame.check", { items: [item] }),
          text: `${done ? "\u2611" : "\u2610"} ${t(`pre.item_${item}`)}`,
        });
      }),
    );
    const allDone = CHECK_ITEMS.every((i) => mineChecks.includes(i));
    parts.push(h("h3", { text: t("pre.checklist") }));
    if (isSeat()) {
      parts.push(list);
      if (!allDone)
        parts.push(h("button", { class: "btn btn-primary btn-wide", testid: "checks-all-done", onclick: () => send("pregame.check", { items: CHECK_ITEMS.filter((i) => !mineChecks.includes(i)) }),
          text: t("pre.all_done_items", { items: CHECK_ITEMS.map((i) => t(`pre.item_${i}`)).join(" \u00b7 ") }) }));
    }
    for (const seat of isSeat() ? [other(store.seat)] : ["A", "B"]) {
      const n = (checks[seat] || []).filter((i) => CHECK_ITEMS.includes(i)).length;
      parts.push(h("p", { class: "status-line", testid: `checks-${seat}`, text: t("pre.progress", { name: name(seat), n, of: CHECK_ITEMS.length }) }));
    }
    // R6.5 who chooses: rock-paper-scissors, unless the chooser is known (duel 2+: the loser)
    const chooser = pg.chooser || null;
    const first = pg.first || null;
    if (!chooser) parts.push(rpsPanel(pg));
    else if (!first) {
      parts.push(h("h3", { text: t("pre.order") }));
      if (pg.rps_winner) parts.push(h("p", { class: "status-line", testid: "rps-winner", text: t("rps.winner", { name: name(pg.rps_winner) }) }));
      if (isSeat() && chooser === store.seat) {
        parts.push(
          h("p", { class: "attention status-line", testid: "chooser", text: t("pre.you_choose") }),
          h("div", { class: "row" },
            h("button", { class: "btn btn-primary", testid: "choose-first", onclick: () => send("duel.choose", { order: "first" }), text: t("pre.go_first") }),
            h("button", { class: "btn", testid: "choose-second", onclick: () => send("duel.choose", { order: "second" }), text: t("pre.go_second") }),
          ),
        );
      } else parts.push(h("p", { class: "status-line", testid: "chooser", text: t("pre.they_choose", { name: name(chooser) }) }));
    } else {
      parts.push(h("p", { class: "status-line", testid: "first-player", dataset: { seat: first }, text: t("pre.first_is", { name: name(first) }) }));
      const drawn = pg.drawn || {};
      if (isSeat()) {
        parts.push(
          drawn[store.seat]
            ? h("p", { class: "status-line ok", testid: "drawn-me", text: t("pre.drawn_done") })
            : h("button", { class: "btn btn-primary btn-wide", testid: "draw-5", onclick: () => send("duel.draw"), text: t("pre.drawn_5") }),
        );
      }
      for (const seat of isSeat() ? [other(store.seat)] : ["A", "B"]) {
        parts.push(h("p", { class: "status-line", testid: `drawn-${seat}`, text: drawn[seat] ? t("pre.drawn_them", { name: name(seat) }) : t("pre.drawing_them", { name: name(seat) }) }));
      }
    }
    return card(t("phase.pregame"), "pregame", parts);
  }

  // R6.5 in the app: secret picks (the view says only whether the opponent has picked) or a
  // physical result reported by one seat and confirmed by the other.
  function rpsPanel(pg) {
    const parts = [h("h3", { text: t("rps.title") })];
    const picked = pg.picked || {};
    const report = pg.report || null;
    const throws = Array.isArray(pg.throws) ? pg.throws : [];
    const last = throws.length ? throws[throws.length - 1] : null;
    if (last && last.A && last.B) {
      parts.push(h("p", { class: "status-line", testid: "rps-last", text: t("rps.last", { a: name("A"), ha: handText(last.A), b: name("B"), hb: handText(last.B) }) + (last.A === last.B ? ` \u2014 ${t("rps.tie")}` : "") }));
    }
    if (report && report.winner) {
      const by = report.by || null;
      const theirs = isSeat() && by && by !== store.seat;
      parts.push(h("p", { class: ["status-line", theirs && "attention"], testid: "rps-report", text: t("rps.reported", { name: name(by), winner: name(report.winner) }) }));
      if (theirs) parts.push(h("button", { class: "btn btn-primary btn-wide", testid: "rps-confirm", onclick: () => send("rps.confirm"), text: t("rps.confirm") }));
      else if (isSeat()) parts.push(h("p", { class: "muted", text: t("pending.waiting") }));
    }
    if (isSeat()) {
      const mine = pg.my_pick || null;
      const theyPicked = Boolean(picked[other(store.seat)]);
      parts.push(
        h("div", { class: "row rps-hands", role: "group", "aria-label": t("rps.pick") },
          HANDS.map((hand) =>
            h("button", {
              class: ["btn", "hand", mine === hand && "on"],
              testid: `rps-${hand}`,
              "aria-pressed": String(mine === hand),
              disabled: Boolean(mine),
              onclick: () => send("rps.pick", { hand }),
              text: `${HAND_ICON[hand]} ${t(`rps.${hand}`)}`,
            }),
          ),
        ),
        h("p", { class: "status-line", testid: "rps-status", text: mine ? t("rps.waiting") : theyPicked ? t("rps.they_picked", { name: name(other(store.seat)) }) : t("rps.pick_hint") }),
      );
      if (!report) {
        parts.push(
          h("p", { class: "muted", text: t("rps.physical") }),
          h("div", { class: "row" },
            h("button", { class: "btn", testid: "rps-report-me", onclick: () => send("rps.report", { winner: store.seat }), text: t("rps.i_won") }),
            h("button", { class: "btn", testid: "rps-report-opp", onclick: () => send("rps.report", { winner: other(store.seat) }), text: t("rps.they_won") }),
          ),
        );
      }
    } else {
      parts.push(h("p", { class: "status-line", testid: "rps-status", text: t("rps.in_progress") }));
    }
    return h("div", { class: "rps", testid: "rps" }, parts);
  }

  function handText(hand) {
    if (!HANDS.includes(hand)) return "?";
    return `${HAND_ICON[hand]} ${t(`rps.${hand}`)}`;
  }

  function phaseDuel() {
    const st = s();
    const turn = st.turn || {};
    const parts = [];
    const myTurn = isSeat() && turn.player === store.seat;
    parts.push(h("p", { class: "status-line big-line", testid: "whose-turn", text: turn.no ? (myTurn ? t("duel.your_turn", { n: turn.no }) : t("duel.turn", { n: turn.no, name: name(turn.player) })) : "" }));
    if (!isSeat()) return card(t("phase.duel"), "duel", parts);
    if (myTurn) {
      // R5.5: a turn cannot end while an LP entry of this duel waits for a yes or a judge.
      const disputed = (st.disputes || []).filter((d) => d.status === "open" && d.duel === st.duel_no).length;
      const waiting = (st.pending || []).length + disputed;
      // Entries waiting for this phone's yes already have the banner at the bottom saying so;
      // the line explains the rest (the opponent's yes, a judge) without taking the keypad's room.
      const elsewhere = (st.pending || []).filter((p) => !p.by || p.by === store.seat).length + disputed;
      const why = elsewhere ? "end-turn-why" : waiting ? "confirm-banner-title" : null;
      parts.push(h("button", { class: "btn btn-primary btn-wide", testid: "end-turn", disabled: waiting > 0, "aria-describedby": why, onclick: () => send("turn.end", { turn: turn.no }), text: t("duel.end_turn", { n: turn.no }) }));
      if (elsewhere) parts.push(h("p", { class: "muted", id: "end-turn-why", testid: "end-turn-blocked", text: t("duel.end_turn_pending", { n: waiting }) }));
    }
    if (!ui.concedeArmed) {
      parts.push(h("button", { class: "btn btn-quiet", testid: "concede", onclick: () => { ui.concedeArmed = true; render(); }, text: t("duel.concede") }));
    } else {
      parts.push(
        h("p", { class: "attention status-line", text: t("duel.concede_sure") }),
        h("div", { class: "row" },
          h("button", { class: "btn", testid: "concede-cancel", onclick: () => { ui.concedeArmed = false; render(); }, text: t("common.cancel") }),
          h("button", { class: "btn btn-danger", testid: "concede-confirm", onclick: () => { ui.concedeArmed = false; send("duel.concede"); render(); }, text: t("duel.concede_yes") }),
        ),
      );
    }
    return card(t("phase.duel"), "duel", parts);
  }

  function confirmedLine(confirmed, testid) {
    return ["A", "B"].map((seat) =>
      h("p", { class: "status-line", testid: `${testid}-${seat}`, text: `${name(seat)}: ${confirmed && confirmed[seat] ? t("common.confirmed") : t("common.not_yet")}` }),
    );
  }

  function phaseDuelResult() {
    const st = s();
    const result = st.result || {};
    const duel = result.duel || st.duel_no || 1;
    const confirmed = result.confirmed || {};
    const parts = [confirmedLine(confirmed, "result-confirmed")]; // the result itself is in the banner
    if (isSeat() && !confirmed[store.seat]) {
      // The duel that decides the match (R3.1): one tap confirms the duel and, named on the
      // button, the match result it makes (R7.4: each is still a confirmation of this seat).
      const w = result.winner;
      const wins = st.wins || {};
      const needed = get(st, "ruleset.wins_needed", 2);
      const decides = Boolean(w && !st.extra_duel && !get(st, "time.called", false) && (wins[w] || 0) + 1 >= needed);
      const score = decides ? `${(wins[w] || 0) + 1}\u2013${wins[other(w)] || 0}` : "";
      parts.push(h("button", { class: "btn btn-primary btn-wide", testid: "result-confirm",
        onclick: () => {
          ui.matchConfirmAfter = decides ? duel : null;
          send("result.confirm", { duel });
        },
        text: decides ? t("result.confirm_match", { name: name(w), score }) : t("result.confirm") }));
      parts.push(disputeControl(duel));
    }
    return card(t("phase.duel_result"), "duel-result-panel", parts);
  }

  function disputeControl(duel) {
    if (!ui.resultDisputeOpen) {
      return h("button", { class: "btn btn-quiet", testid: "result-dispute", onclick: () => { ui.resultDisputeOpen = true; render(); }, text: t("result.dispute") });
    }
    const form = (ui.forms.dispute ||= { reason: "" });
    return h("div", { class: "stack" },
      h("label", { class: "field", for: "f-dispute" }, h("span", { text: t("result.dispute_reason") }),
        h("input", { id: "f-dispute", type: "text", maxlength: "200", testid: "result-dispute-reason", value: form.reason, oninput: (e) => (form.reason = e.target.value) }),
      ),
      h("div", { class: "row" },
        h("button", { class: "btn", testid: "result-dispute-cancel", onclick: () => { ui.resultDisputeOpen = false; render(); }, text: t("common.cancel") }),
        h("button", { class: "btn btn-danger", testid: "result-dispute-send", onclick: () => { ui.resultDisputeOpen = false; send("result.dispute", { duel, reason: form.reason || "" }); render(); }, text: t("result.dispute_send") }),
      ),
    );
  }

  function phaseBetween() {
    const st = s();
    const decks = st.decks || {};
    const parts = [h("p", { class: "status-line", testid: "window-timer", role: "timer" })];
    if (isSeat()) {
      const mine = decks[store.seat] || {};
      // The deck check (R7.5) and ready come after side decking: one tap once the deck is set.
      const check = [h("h3", { text: t("between.deck_check") })];
      if (mine.checked) check.push(h("p", { class: "status-line ok", testid: "deck-checked", text: t("between.checked") }));
      else
        check.push(h("div", { class: "row" },
          h("button", { class: "btn btn-primary", testid: "deck-check-ok",
            onclick: () => {
              send("deck.check", { ok: true, note: "" });
              if (!mine.ready) send("between.ready"); // one tap: the deck is complete and I am ready
            },
            text: t(mine.ready ? "between.check_ok" : "between.check_ok_ready", { counts: countsText(mine.current || mine.declared) }) }),
          h("button", { class: "btn btn-quiet", testid: "deck-check-problem", onclick: () => send("deck.check", { ok: false, note: "" }), text: t("between.check_problem") }),
        ));
      if (mine.list && mine.cards && mine.cards.current) {
        parts.push(sideByCard(mine), check);
        parts.push(
          mine.ready
            ? h("p", { class: "status-line ok", testid: "ready-me", text: t("between.ready_done") })
            : mine.checked ? h("button", { class: "btn btn-primary btn-wide", testid: "between-ready", onclick: () => send("between.ready"), text: t("between.ready") }) : null,
        );
        for (const seat of [other(store.seat)]) {
          const d = decks[seat] || {};
          parts.push(h("p", { class: "status-line", testid: `between-${seat}`, text: `${name(seat)}: ${d.checked ? t("between.checked_short") : t("between.not_checked")} \u00b7 ${d.ready ? t("between.is_ready") : t("between.not_ready")}` }));
        }
        return card(t("phase.between"), "between", parts);
      }
      // R6.8 side decking: the deck keeps its count
      const form = (ui.forms.side ||= {});
      const err = h("p", { class: "form-error", testid: "side-error", role: "alert" });
      const submit = () => {
        const n = (k) => Number(form[k] || 0);
        const v = { main: { in: n("main_in"), out: n("main_out") }, extra: { in: n("extra_in"), out: n("extra_out") } };
        const bad = [v.main.in, v.main.out, v.extra.in, v.extra.out].some((x) => !Number.isInteger(x) || x < 0 || x > 15);
        // R6.8 (in = out) is the server's to judge: its refusal names the deck and the difference.
        if (bad) err.textContent = t("side.err_range");
        else {
          err.textContent = "";
          send("side.exchange", v);
        }
      };
      parts.push(
        h("h3", { text: t("side.title") }),
        h("p", { class: "muted", text: t("side.hint") }),
        h("div", { class: "fields4" },
          numberField("side", "main_in", t("side.main_in"), "side-main-in", { max: 15 }),
          numberField("side", "main_out", t("side.main_out"), "side-main-out", { max: 15 }),
          numberField("side", "extra_in", t("side.extra_in"), "side-extra-in", { max: 15 }),
          numberField("side", "extra_out", t("side.extra_out"), "side-extra-out", { max: 15 }),
        ),
        err,
        h("button", { class: "btn btn-wide", testid: "side-submit", onclick: submit, text: t("side.submit") }),
        mine.current ? h("p", { class: "muted", testid: "deck-current", text: t("side.current", { counts: countsText(mine.current) }) }) : null,
      );
      parts.push(check);
      parts.push(
        mine.ready
          ? h("p", { class: "status-line ok", testid: "ready-me", text: t("between.ready_done") })
          : mine.checked ? h("button", { class: "btn btn-primary btn-wide", testid: "between-ready", onclick: () => send("between.ready"), text: t("between.ready") }) : null,
      );
    }
    for (const seat of isSeat() ? [other(store.seat)] : ["A", "B"]) {
      const d = decks[seat] || {};
      parts.push(h("p", { class: "status-line", testid: `between-${seat}`, text: `${name(seat)}: ${d.checked ? t("between.checked_short") : t("between.not_checked")} \u00b7 ${d.ready ? t("between.is_ready") : t("between.not_ready")}` }));
    }
    return card(t("phase.between"), "between", parts);
  }

  /** Side decking card by card (R6.8, R2.6): side-deck cards in, main or extra deck cards out. */
  function sideByCard(mine) {
    const cur = mine.cards.current;
    const reg = mine.cards.registered || cur;
    const picks = (ui.forms.sidecards ||= { in: {}, out: {}, to: {} });
    const err = h("p", { class: "form-error", testid: "side-error", role: "alert" });
    const picker = (kind, part, cardName, max) => {
      const key = `${part}|${cardName}`;
      const sel = h("select", {
        testid: kind === "in" ? "side-in" : "side-out",
        dataset: { card: cardName, part },
        "aria-label": `${cardName} (${kind === "in" ? t("side.card_in") : t("side.card_out")})`,
        onchange: (e) => (picks[kind][key] = Number(e.target.value)),
      });
      for (let n = 0; n <= max; n++) sel.append(h("option", { value: String(n), text: String(n), selected: (picks[kind][key] || 0) === n }));
      return h("li", { class: "card-pick" }, h("span", { text: `${cardName} \u00d7${max}` }), sel);
    };
    const inRows = Object.entries(cur.side || {}).map(([c, n]) => {
      const to = h("select", {
        testid: "side-in-part",
        dataset: { card: c },
        "aria-label": t("side.to_part", { card: c }),
        onchange: (e) => (picks.to[c] = e.target.value),
      });
      for (const p of ["main", "extra"]) to.append(h("option", { value: p, text: t(`deck.${p}`), selected: (picks.to[c] || "main") === p }));
      const row = picker("in", "side", c, n);
      row.append(to);
      return row;
    });
    const outRows = ["main", "extra"].flatMap((part) => Object.entries(cur[part] || {}).map(([c, n]) => picker("out", part, c, n)));
    const submit = () => {
      const v = { main_in: {}, main_out: {}, extra_in: {}, extra_out: {} };
      for (const [key, n] of Object.entries(picks.in)) {
        const c = key.slice(key.indexOf("|") + 1);
        if (n > 0) v[`${picks.to[c] || "main"}_in`][c] = n;
      }
      for (const [key, n] of Object.entries(picks.out)) {
        const [part] = key.split("|", 1);
        const c = key.slice(part.length + 1);
        if (n > 0) v[`${part}_out`][c] = n;
      }
      const total = (o) => Object.values(o).reduce((a, b) => a + b, 0);
      if (!total(v.main_in) && !total(v.extra_in)) err.textContent = t("side.err_none");
      else if (total(v.main_in) !== total(v.main_out) || total(v.extra_in) !== total(v.extra_out)) err.textContent = t("side.err_equal");
      else {
        err.textContent = "";
        for (const k of Object.keys(v)) if (!total(v[k])) delete v[k];
        ui.forms.sidecards = { in: {}, out: {}, to: {} };
        send("side.exchange", v);
      }
    };
    // what differs from the registration, card by card
    const diff = [];
    for (const part of ["main", "extra", "side"]) {
      const names = new Set([...Object.keys(reg[part] || {}), ...Object.keys(cur[part] || {})]);
      for (const c of [...names].sort()) {
        const d = ((cur[part] || {})[c] || 0) - ((reg[part] || {})[c] || 0);
        if (d) diff.push(`${t(`deck.${part}`)} ${d > 0 ? "+" : "\u2212"}${Math.abs(d)} ${c}`);
      }
    }
    return h("div", { class: "side-cards", testid: "side-by-card" },
      h("h3", { text: t("side.title") }),
      h("p", { class: "muted", text: t("side.hint_cards") }),
      h("h4", { text: t("side.card_in") }),
      h("ul", { class: "card-picks", testid: "side-in-list" }, inRows.length ? inRows : h("li", { class: "muted", text: t("side.empty") })),
      h("h4", { text: t("side.card_out") }),
      h("ul", { class: "card-picks", testid: "side-out-list" }, outRows),
      err,
      h("button", { class: "btn btn-wide", testid: "side-submit", onclick: submit, text: t("side.submit") }),
      h("p", { class: "muted", testid: "deck-current", text: t("side.current", { counts: countsText(mine.current) }) }),
      h("p", { class: "muted", testid: "side-diff", text: diff.length ? t("side.diff", { changes: diff.join(", ") }) : t("side.as_registered") }),
    );
  }

  function phaseMatchResult() {
    const st = s();
    const match = st.match || {};
    const confirmed = match.confirmed || {};
    const parts = [confirmedLine(confirmed, "match-confirmed")];
    if (isSeat() && !confirmed[store.seat]) {
      parts.push(h("button", { class: "btn btn-primary btn-wide", testid: "match-confirm", onclick: () => send("match.confirm"), text: t("match.confirm") }));
    }
    return card(t("phase.match_result"), "match-result-panel", parts);
  }

  function phaseMatchOver() {
    const st = s();
    const parts = [];
    const votes = st.new_match_votes || [];
    if (isSeat()) {
      const voted = votes.includes(store.seat);
      parts.push(h("button", { class: "btn btn-primary btn-wide", testid: "match-new", disabled: voted, onclick: () => send("match.new"), text: voted ? t("match.new_waiting") : t("match.new") }));
    }
    for (const seat of votes) if (!isSeat() || seat !== store.seat) parts.push(h("p", { class: "status-line", testid: `match-new-${seat}`, text: t("match.new_voted", { name: name(seat) }) }));
    return card(t("phase.match_over"), "match-over", parts);
  }

  // --- coin and die ------------------------------------------------------------------------------

  function rollText(roll) {
    const results = (roll.results || []).map((r) => (roll.kind === "coin" ? t(`coin.${r}`) : String(r)));
    return results.join(" \u00b7 ");
  }

  function renderDice() {
    const st = s();
    const rolls = (st.rolls || []).slice(-ROLLS_SHOWN).reverse();
    const parts = [];
    if (isSeat()) {
      parts.push(
        h("div", { class: "seg", role: "radiogroup", "aria-label": t("dice.count") },
          [1, 2, 3].map((n) =>
            h("button", { class: ["seg-btn", ui.rollCount === n && "on"], role: "radio", "aria-checked": String(ui.rollCount === n), testid: `roll-count-${n}`, onclick: () => { ui.rollCount = n; render(); }, text: `\u00d7${n}` }),
          ),
        ),
        h("div", { class: "row" },
          h("button", { class: "btn", testid: "coin-toss", onclick: () => send("coin.toss", { count: ui.rollCount }), text: t("dice.coin") }),
          h("button", { class: "btn", testid: "die-roll", onclick: () => send("die.roll", { count: ui.rollCount }), text: t("dice.die") }),
        ),
      );
    }
    parts.push(
      rolls.length
        ? h("ul", { class: "list rolls", testid: "roll-list" },
            rolls.map((r) =>
              h("li", { class: ["roll", r.void && "void"], testid: "roll-row", dataset: { roll: String(r.roll), kind: r.kind || "", results: (r.results || []).join(",") } },
                h("span", { class: "roll-result", text: rollText(r) }),
                h("span", { class: "muted", text: `${t(`dice.${r.kind === "coin" ? "coin" : "die"}`)} \u00b7 ${name(r.by)} \u00b7 ${formatTime(r.at_ms)}${r.void ? ` \u00b7 ${t("dice.void")}` : ""}` }),
              ),
            ),
          )
        : h("p", { class: "muted", text: t("dice.none") }),
    );
    return card(t("dice.title"), "dice", parts);
  }

  // A short reveal for a new roll: a neutral tumble (no faces) and then the result alone, so the
  // animation can never be read as a different result. With reduced motion: the result at once.
  function showRoll(roll) {
    const result = h("div", { class: "roll-big", testid: "roll-overlay-result", dataset: { roll: String(roll.roll), results: (roll.results || []).join(",") }, text: rollText(roll) });
    const box = h(
      "div",
      { class: "overlay", testid: "roll-overlay", role: "status", "aria-live": "assertive", onclick: () => box.remove() },
      h("div", { class: "overlay-card" },
        h("div", { class: "muted", text: `${name(roll.by)} \u00b7 ${t(`dice.${roll.kind === "coin" ? "coin" : "die"}`)}` }),
        result,
      ),
    );
    if (!reducedMotion()) {
      result.classList.add("rolling");
      result.textContent = "?";
      setTimeout(() => {
        result.classList.remove("rolling");
        result.textContent = rollText(roll);
      }, 700);
    }
    slots.overlay.replaceChildren(box);
    setTimeout(() => box.remove(), 3500);
  }

  // --- counters and tokens -------------------------------------------------------------------------

  function renderCounters() {
    const st = s();
    const any = ["A", "B"].some((x) => Object.keys(get(st, `counters.${x}`, {})).length || get(st, `tokens.${x}`, 0));
    if (st.phase !== "duel" && !any) return null; // counters belong to a duel
    const seats = isSeat() ? [store.seat, other(store.seat)] : ["A", "B"];
    const parts = seats.map((seat) => {
      const own = isSeat() && seat === store.seat;
      const counters = get(st, `counters.${seat}`, {}) || {};
      const tokens = get(st, `tokens.${seat}`, 0);
      const rows = Object.entries(counters).map(([cname, value]) =>
        h("li", { class: "counter", testid: "counter-row", dataset: { seat, name: cname } },
          h("span", { class: "counter-name", text: cname }),
          own ? h("button", { class: "btn btn-small", testid: "counter-dec", dataset: { name: cname }, "aria-label": t("counters.dec", { name: cname }), onclick: () => send("counter.change", { name: cname, delta: -1 }), text: "\u2212" }) : null,
          h("b", { class: "counter-value", testid: "counter-value", text: String(value) }),
          own ? h("button", { class: "btn btn-small", testid: "counter-inc", dataset: { name: cname }, "aria-label": t("counters.inc", { name: cname }), onclick: () => send("counter.change", { name: cname, delta: 1 }), text: "+" }) : null,
          own ? h("button", { class: "btn btn-small btn-quiet", testid: "counter-clear", dataset: { name: cname }, "aria-label": t("counters.clear_one", { name: cname }), onclick: () => send("counter.clear", { name: cname }), text: "\u2715" }) : null,
        ),
      );
      const tokenRow = h("div", { class: "counter tokens" },
        h("span", { class: "counter-name", text: t("counters.tokens") }),
        own ? h("button", { class: "btn btn-small", testid: "token-dec", "aria-label": t("counters.token_dec"), onclick: () => send("token.change", { delta: -1 }), text: "\u2212" }) : null,
        h("b", { class: "counter-value", testid: `token-count-${seat}`, text: String(tokens) }),
        own ? h("button", { class: "btn btn-small", testid: "token-inc", "aria-label": t("counters.token_inc"), onclick: () => send("token.change", { delta: 1 }), text: "+" }) : null,
      );
      const block = [h("h3", { text: own ? t("counters.mine") : name(seat) }), tokenRow, rows.length ? h("ul", { class: "list" }, rows) : null];
      if (own) {
        const form = (ui.forms.counter ||= { name: "" });
        const add = () => {
          const cname = (form.name || "").trim().slice(0, 40);
          if (!cname) return;
          send("counter.change", { name: cname, delta: 1 });
          form.name = "";
          input.value = "";
        };
        const input = h("input", { id: "f-counter", type: "text", maxlength: "40", testid: "counter-name", placeholder: t("counters.name_ph"), value: form.name, oninput: (e) => (form.name = e.target.value), onkeydown: (e) => e.key === "Enter" && add() });
        block.push(
          h("div", { class: "row" },
            h("label", { class: "sr-only", for: "f-counter", text: t("counters.name") }),
            input,
            h("button", { class: "btn", testid: "counter-add", onclick: add, text: t("counters.add") }),
          ),
          Object.keys(counters).length ? h("button", { class: "btn btn-quiet btn-small", testid: "counters-clear-all", onclick: () => send("counter.clear", {}), text: t("counters.clear_all") }) : null,
        );
      }
      return h("div", { class: "counter-block", testid: `counters-${seat}` }, block);
    });
    return card(t("counters.title"), "counters", parts);
  }

  // --- judge calls -------------------------------------------------------------------------------

  function renderJudge() {
    const st = s();
    const calls = (st.calls || []).filter((c) => c && c.status !== "closed");
    const parts = [];
    for (const c of calls) {
      const coming = c.status === "acknowledged";
      parts.push(h("p", { class: ["status-line", coming ? "ok" : "attention"], testid: "judge-status", dataset: { status: c.status || "" },
        text: `${coming ? t("judge.coming") : t("judge.called", { name: name(c.seat) })}${c.judge && coming ? ` (${c.judge})` : ""}${c.reason ? ` \u2014 ${callReason(c.reason)}` : ""}` }));
    }
    if (isSeat()) {
      if (!ui.judgeOpen) {
        parts.push(h("button", { class: "btn btn-wide", testid: "call-judge", onclick: () => { ui.judgeOpen = true; render(); }, text: `\u2691 ${t("judge.call")}` }));
      } else {
        const form = (ui.forms.judge ||= { reason: "" });
        parts.push(
          h("label", { class: "field", for: "f-judge" }, h("span", { text: t("judge.reason") }),
            h("input", { id: "f-judge", type: "text", maxlength: "200", testid: "judge-reason", value: form.reason, oninput: (e) => (form.reason = e.target.value) }),
          ),
          h("div", { class: "row" },
            h("button", { class: "btn", testid: "judge-cancel", onclick: () => { ui.judgeOpen = false; render(); }, text: t("common.cancel") }),
            h("button", { class: "btn btn-primary", testid: "judge-send", onclick: () => { send("judge.call", { reason: form.reason || "" }); form.reason = ""; ui.judgeOpen = false; render(); }, text: t("judge.send") }),
          ),
        );
      }
    }
    if (!parts.length) return null;
    return card(t("judge.title"), "judge", parts);
  }

  // --- the score sheet ---------------------------------------------------------------------------

  function renderLedger() {
    const st = s();
    const ledger = Array.isArray(st.ledger) ? st.ledger : [];
    const head = h("div", { class: "ledger-head" },
      h("span", { text: t("ledger.entry") }),
      h("span", { class: "num", text: name("A") }),
      h("span", { class: "num", text: name("B") }),
    );
    const rows = [];
    let lastDuel = null;
    for (const e of [...ledger].reverse()) {
      if (e.duel !== lastDuel && e.duel != null) {
        rows.push(h("li", { class: "ledger-duel", text: t("duel.no", { n: e.duel }) }));
        lastDuel = e.duel;
      }
      const who = [t("ledger.by", { name: name(e.by) })];
      if (e.confirmed_by) {
        const cb = String(e.confirmed_by);
        who.push(t("ledger.confirmed_by", { name: cb.startsWith("judge") ? t("ledger.judge", { name: cb.split(":")[1] || "" }).trim() : name(cb) }));
      }
      rows.push(
        h("li", { class: "ledger-row", testid: "ledger-row", dataset: { entry: String(e.entry) } },
          h("div", { class: "ledger-main" },
            h("span", { class: "ledger-what" }, h("span", { class: "entry-no", text: `#${e.entry}` }), " ", changesText(e.changes, null)),
            h("span", { class: "num", testid: "ledger-lp-A", text: String(get(e, "lp.A", "")) }),
            h("span", { class: "num", testid: "ledger-lp-B", text: String(get(e, "lp.B", "")) }),
          ),
          h("div", { class: "ledger-meta muted", text: [e.turn ? t("ledger.turn", { n: e.turn }) : null, ...who, formatTime(e.at_ms), e.note || null].filter(Boolean).join(" \u00b7 ") }),
        ),
      );
    }
    return h("section", { class: "card ledger", testid: "ledger", "aria-label": t("ledger.title") },
      h("h2", { text: t("ledger.title") }),
      h("a", { class: "sheet-link", testid: "sheet-link", href: sheetHref(code, lang()), text: t("ledger.sheet") }),
      head,
      rows.length ? h("ol", { class: "list" }, rows) : h("p", { class: "muted", testid: "ledger-empty", text: t("ledger.empty") }),
    );
  }

  function renderDisputes() {
    const st = s();
    const disputes = Array.isArray(st.disputes) ? st.disputes : [];
    const penalties = Array.isArray(st.penalties) ? st.penalties : [];
    if (!disputes.length && !penalties.length) return null;
    const parts = [];
    for (const d of disputes) {
      const status = d.status || (d.settled ? "settled" : "open");
      const statusKey = status === "open" && !get(st, "ruleset.staff_start", false) ? "open_casual" : status;
      parts.push(h("li", { class: "dispute", testid: "dispute-row", dataset: { entry: String(d.entry ?? ""), status } },
        h("span", { text: `${d.entry != null ? `#${d.entry} ` : ""}${d.changes ? changesText(d.changes, null) : ""}` }),
        h("span", { class: "muted", text: [d.by ? t("ledger.by", { name: name(d.by) }) : null, d.reason || null, t(`dispute.${statusKey}`), d.action ? t(`dispute.action_${d.action}`) : null, d.note || null].filter(Boolean).join(" \u00b7 ") }),
      ));
    }
    for (const p of penalties) {
      parts.push(h("li", { class: "dispute", testid: "penalty-row" },
        h("span", { text: `${name(p.seat)}: ${t(`penalty.${p.level}`)}` }),
        h("span", { class: "muted", text: [p.infraction ? String(p.infraction).replace(/_/g, " ") : null, p.note || null].filter(Boolean).join(" \u00b7 ") }),
      ));
    }
    return card(t("disputes.title"), "disputes", h("ul", { class: "list" }, parts));
  }

  // --- time, alerts and the screen --------------------------------------------------------------

  function tick() {
    const st = store.state;
    if (!st) return;
    const now = conn.serverNow();
    alerts(st, isSeat() ? store.seat : null, now);
    const clockEl = slots.board.querySelector('[data-testid="clock"]');
    if (clockEl) {
      const status = get(st, "clock.status", "idle");
      let ms = get(st, "clock.duration_ms", get(st, "ruleset.match_minutes", 40) * 60000);
      if (status === "running") ms = get(st, "clock.deadline_ms", now) - now;
      else if (status !== "idle") ms = get(st, "clock.remaining_ms", 0); // paused, expired, stopped
      const text = formatDuration(ms);
      if (clockEl.textContent !== text) clockEl.textContent = text;
      // What is shown, in ms, and the local time it was computed at: phones can be compared.
      clockEl.dataset.remainingMs = String(Math.max(0, Math.round(ms)));
      clockEl.dataset.atMs = String(Date.now());
      clockEl.classList.toggle("low", status !== "idle" && ms < 5 * 60000);
      clockEl.classList.toggle("out", status !== "idle" && ms <= 0);
    }
    const win = slots.phase.querySelector('[data-testid="window-timer"]');
    if (win) {
      const started = get(st, "window.started_ms", null);
      const limit = get(st, "window.limit_ms", 180000);
      if (started) {
        const used = Math.max(0, now - started);
        win.textContent = t("between.window", { used: formatDuration(used), limit: formatDuration(limit) });
        win.classList.toggle("attention", used > limit);
      } else win.textContent = t("between.window", { used: "0:00", limit: formatDuration(limit) });
    }
  }

  // Buzz and reveal on what is new: the opponent's LP entry to confirm, a new coin/die result.
  function notice() {
    const st = s();
    const rolls = st.rolls || [];
    const lastRoll = rolls.length ? rolls[rolls.length - 1] : null;
    if (ui.seenRolls === null) ui.seenRolls = lastRoll ? lastRoll.roll : 0;
    else if (lastRoll && lastRoll.roll > ui.seenRolls) {
      ui.seenRolls = lastRoll.roll;
      if (!lastRoll.void) showRoll(lastRoll);
    }
    if (!isSeat()) return;
    const asks = [];
    for (const p of openPending()) if (p.by && p.by !== store.seat) asks.push(`lp:${p.entry}`);
    for (const seat of ["A", "B"]) {
      if (seat !== store.seat && get(st, `decks.${seat}.declared`, null) && !get(st, `decks.${seat}.confirmed`, false))
        asks.push(`deck:${seat}:${JSON.stringify(get(st, `decks.${seat}.declared`))}`);
    }
    const report = get(st, "pregame.report", null);
    if (report && report.by && report.by !== store.seat) asks.push(`rps:${report.winner}`);
    const fresh = asks.filter((a) => !ui.seenAsks.has(a));
    ui.seenAsks = new Set(asks);
    if (fresh.length && !muted()) buzz();
  }

  function destroy() {
    clearInterval(ticker);
    for (const off of offs) off();
    wake.release();
    conn.stop();
    document.body.classList.remove("has-ask");
  }

  return { destroy, conn, store };
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
