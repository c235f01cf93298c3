// One table in detail for a judge: its whole log and the judge's tools. The page joins the
// table's websocket with no token; the login cookie makes it "judge" (or "organiser") there, so
// every action is a command in the table's log, signed with the judge's name, and both phones
// see it at once.

import { Connection } from "../conn.js";
import { formatDuration, formatTime, h } from "../dom.js";
import { callReason, lang, t } from "../i18n.js";
import { sheetHref } from "../sheet_link.js";
import { age, call, refusal, topBar } from "../staff/common.js";
import { clockText, phaseText } from "./floor.js";
import { ledgerPages } from "./ledger_pages.js";
import { disputeLine } from "./lines.js";
import { seatsCard } from "./seats.js";

const LEVELS = ["caution", "warning", "duel_loss", "match_loss", "disqualification", "disqualification_total"];
const INFRACTIONS = [
  "procedural_error", "tardiness", "deck_problem", "deck_list_problem", "marked_cards", "slow_play",
  "improper_result", "unsporting_conduct", "cheating", "other",
];

function select(testid, options) {
  const el = h("select", { testid });
  for (const [value, label] of options) el.append(h("option", { value, text: label }));
  return el;
}

function field(label, input) {
  return h("label", { class: "field" }, h("span", { text: label }), input);
}

function summaryOf(env) {
  const d = env.data || {};
  const bits = Object.entries(d)
    .filter(([k]) => k !== "ruleset")
    .map(([k, v]) => `${k}=${typeof v === "object" ? JSON.stringify(v) : v}`);
  return bits.join(" ");
}

function actorLabel(a) {
  if (!a) return "";
  if (a.role === "seat") return `${a.seat} ${a.name || ""}`.trim();
  return a.name ? `${a.role}:${a.name}` : a.role;
}

export function mountTable(root, eventId, code, navigate) {
  const conn = new Connection(code, { token: null });
  let state = null;
  let info = null;
  let log = [];
  const toast = h("p", { class: "staff-toast", role: "status", testid: "judge-toast" });
  const head = h("section", { class: "card jt-head", testid: "judge-table-head" });
  const calls = h("section", { class: "card" });
  const disputes = h("section", { class: "card" });
  const penalties = h("section", { class: "card" });
  const decksBox = h("section", { class: "card", testid: "judge-decks" });
  const logBox = h("ol", { class: "jt-log", testid: "judge-log", reversed: true });
  const clockLine = h("p", { class: "jt-clock num", testid: "judge-clock" });
  const seats = seatsCard(code, (text, ok) => {
    toast.textContent = text;
    toast.className = ok ? "staff-toast ok" : "staff-toast bad";
  });

  const send = (cmd, args) => {
    conn.send(cmd, args);
  };
  conn.on("reply", ({ command, reply }) => {
    toast.textContent = reply.ok ? `${command.cmd}: ${t("staff.done")}` : refusal(reply.error);
    toast.className = reply.ok ? "staff-toast ok" : "staff-toast bad";
  });
  conn.on("error", (e) => {
    toast.textContent = refusal(e);
  });

  // --- forms (built once, so typing survives live updates) ---------------------------------
  const minutes = h("input", { type: "number", min: "1", max: "60", value: "2", testid: "extend-minutes", class: "num-in" });
  const clockTools = h(
    "section",
    { class: "card" },
    h("h2", { text: t("staff.clock") }),
    clockLine,
    h("div", { class: "row" },
      h("button", { class: "btn", type: "button", testid: "clock-start", text: t("staff.start_clock"), onclick: () => send("clock.start", {}) }),
      h("button", { class: "btn", type: "button", testid: "clock-pause", text: t("staff.pause"), onclick: () => send("clock.pause", {}) }),
      h("button", { class: "btn", type: "button", testid: "clock-resume", text: t("staff.resume"), onclick: () => send("clock.resume", {}) }),
    ),
    h("div", { class: "row" },
      field(t("staff.minutes"), minutes),
      h("button", {
        class: "btn btn-primary", type: "button", testid: "clock-extend", text: t("staff.extend"),
        onclick: () => send("clock.extend", { minutes: Number(minutes.value) }),
      }),
    ),
  );

  const seatSel = (id) => select(id, [["A", "A"], ["B", "B"]]);
  const cSeat = seatSel("correct-seat");
  const cKind = select("correct-kind", [["damage", "−"], ["gain", "+"], ["set", "="]]);
  const cAmount = h("input", { type: "number", min: "0", step: "50", testid: "correct-amount", class: "num-in" });
  const cNote = h("input", { type: "text", maxlength: "200", testid: "correct-note" });
  const correction = h(
    "section",
    { class: "card" },
    h("h2", { text: t("staff.correct") }),
    h("div", { class: "row" }, field(t("staff.seat"), cSeat), field(t("staff.kind"), cKind), field(t("staff.amount"), cAmount)),
    field(t("staff.note"), cNote),
    h("button", {
      class: "btn", type: "button", testid: "correct-go", text: t("staff.correct_go"),
      onclick: () => send("lp.correct", {
        changes: [{ seat: cSeat.value, kind: cKind.value, amount: Number(cAmount.value || 0) }],
        note: cNote.value,
      }),
    }),
  );

  const pSeat = seatSel("penalty-seat");
  const pLevel = select("penalty-level", LEVELS.map((l) => [l, t(`staff.level.${l}`)]));
  const pInf = select("penalty-infraction", INFRACTIONS.map((i) => [i, t(`staff.inf.${i}`)]));
  const pNote = h("input", { type: "text", maxlength: "200", testid: "penalty-note" });
  const penaltyForm = h(
    "section",
    { class: "card" },
    h("h2", { text: t("staff.penalty") }),
    h("div", { class: "row" }, field(t("staff.seat"), pSeat), field(t("staff.level"), pLevel)),
    field(t("staff.infraction"), pInf),
    field(t("staff.note"), pNote),
    h("button", {
      class: "btn btn-danger", type: "button", testid: "penalty-go", text: t("staff.record"),
      onclick: () => send("penalty.record", { seat: pSeat.value, level: pLevel.value, infraction: pInf.value, note: pNote.value }),
    }),
  );

  const rDuel = h("input", { type: "number", min: "1", value: "1", testid: "result-duel", class: "num-in" });
  const rWinner = select("result-winner", [["A", "A"], ["B", "B"], ["", t("staff.draw")]]);
  const mWinner = select("match-winner", [["A", "A"], ["B", "B"], ["", t("staff.draw")]]);
  const resultForm = h(
    "section",
    { class: "card" },
    h("h2", { text: t("staff.result") }),
    h("div", { class: "row" }, field(t("staff.duel"), rDuel), field(t("staff.winner"), rWinner),
      h("button", {
        class: "btn", type: "button", testid: "result-go", text: t("staff.set_duel"),
        onclick: () => send("result.set", { duel: Number(rDuel.value), winner: rWinner.value || null }),
      })),
    h("div", { class: "row" }, field(t("staff.winner"), mWinner),
      h("button", {
        class: "btn", type: "button", testid: "match-go", text: t("staff.set_match"),
        onclick: () => send("result.set", { match_winner: mWinner.value || null }),
      })),
  );

  // --- live parts ------------------------------------------------------------------------------
  function renderHead() {
    if (!state) return;
    const now = conn.serverNow();
    const p = { kind: state.phase, duel: state.duel_no };
    if (state.time.stage === "extra_turns" && state.phase === "duel") {
      Object.assign(p, { kind: "extra_turns", turn: state.time.extra_turn, of: state.time.extra_turns });
    } else if (state.phase === "between" && state.window) p.since_ms = state.window.started_ms;
    head.replaceChildren(
      h("h1", { text: info ? t("staff.table_no", { n: info.number }) : code }),
      h("p", { class: "jt-names" },
        h("span", { class: "seat-a", testid: "judge-name-A", text: `A ${state.seats.A.name || "—"}` }), ` ${t("staff.vs")} `,
        h("span", { class: "seat-b", testid: "judge-name-B", text: `B ${state.seats.B.name || "—"}` })),
      h("p", { class: "jt-lp num", testid: "judge-lp" }, `${state.lp.A} / ${state.lp.B}`,
        h("span", { class: "muted", text: `  (${state.wins.A}-${state.wins.B})` })),
      h("p", { text: phaseText(p, now) }),
    );
    const c = state.clock;
    const deadline = c.deadline_ms;
    clockLine.textContent =
      c.status === "running" && typeof deadline === "number" ? formatDuration(deadline - now) : clockText(c, now);
  }

  function renderCalls() {
    const open = state.calls.filter((c) => c.status !== "closed");
    const now = conn.serverNow();
    calls.replaceChildren(
      h("h2", { text: t("staff.calls") }),
      open.length
        ? h("ul", { class: "staff-list" }, open.map((c) => {
            const note = h("input", { type: "text", maxlength: "200", placeholder: t("staff.note"), testid: `call-note-${c.call}` });
            return h("li", { class: "jt-call", testid: `call-${c.call}` },
              h("strong", { text: `#${c.call} ${c.seat || ""} ` }),
              h("span", { text: callReason(c.reason) }),
              h("span", { class: "muted", text: ` · ${age(now - c.at_ms)}` }),
              c.judge ? h("span", { class: "muted", text: ` · ${t("staff.alert.taken", { judge: c.judge })}` }) : null,
              h("div", { class: "row" },
                c.status === "open"
                  ? h("button", { class: "btn btn-primary btn-small", type: "button", testid: `ack-${c.call}`, text: t("staff.ack"),
                      onclick: () => send("judge.ack", { call: c.call }) })
                  : null,
                note,
                h("button", { class: "btn btn-small", type: "button", testid: `close-${c.call}`, text: t("staff.close"),
                  onclick: () => send("judge.close", { call: c.call, note: note.value }) })),
            );
          }))
        : h("p", { class: "muted", text: t("staff.no_calls") }),
    );
  }

  function seatNames() {
    return { A: state.seats.A.name || "A", B: state.seats.B.name || "B" };
  }

  function renderDisputes() {
    const open = state.disputes.filter((d) => d.status === "open");
    disputes.hidden = !open.length;
    disputes.replaceChildren(
      h("h2", { text: t("staff.disputes") }),
      h("ul", { class: "staff-list" }, open.map((d) =>
        h("li", { testid: `dispute-${d.entry}` },
          h("strong", { text: `#${d.entry} ` }),
          h("span", { testid: `dispute-line-${d.entry}`, text: disputeLine(d, seatNames()) }),
          h("div", { class: "row" },
            h("button", { class: "btn btn-small", type: "button", testid: `settle-apply-${d.entry}`, text: t("staff.apply"),
              onclick: () => send("dispute.settle", { entry: d.entry, action: "apply", note: "" }) }),
            h("button", { class: "btn btn-small", type: "button", testid: `settle-void-${d.entry}`, text: t("staff.void"),
              onclick: () => send("dispute.settle", { entry: d.entry, action: "void", note: "" }) })),
        ))),
    );
  }

  function renderPenalties() {
    penalties.hidden = !state.penalties.length;
    penalties.replaceChildren(
      h("h2", { text: t("staff.penalties") }),
      h("ul", { class: "staff-list" }, state.penalties.map((p) =>
        h("li", { text: `${formatTime(p.at_ms)} ${p.seat} ${t(`staff.level.${p.level}`)} · ${t(`staff.inf.${p.infraction}`)} · ${p.judge} ${p.note}` }))),
    );
  }

  // Each seat's deck now (after side decking) against its registered list (R2.6, R6.8).
  function renderDecks() {
    const parts = [h("h2", { text: t("staff.decks") })];
    if (state.banlist) parts.push(h("p", { class: "muted", testid: "judge-banlist", text: t("staff.banlist", { name: state.banlist.name }) }));
    for (const seat of ["A", "B"]) {
      const d = state.decks[seat] || {};
      const who = `${seat} ${state.seats[seat].name || ""}`.trim();
      if (d.check_failed) parts.push(deckClear(seat, who));
      if (!d.list || !d.cards) {
        const counts = d.declared ? `${d.declared.main}/${d.declared.extra}/${d.declared.side}` : "—";
        parts.push(h("p", { testid: `judge-deck-${seat}`, text: `${who}: ${t("staff.deck_none", { counts })}` }));
        continue;
      }
      const reg = d.cards.registered || {};
      const cur = d.cards.current || reg;
      const rows = [];
      let changed = 0;
      for (const part of ["main", "extra", "side"]) {
        const names = [...new Set([...Object.keys(reg[part] || {}), ...Object.keys(cur[part] || {})])].sort();
        for (const c of names) {
          const r = (reg[part] || {})[c] || 0;
          const n = (cur[part] || {})[c] || 0;
          if (r !== n) changed++;
          rows.push(h("tr", { class: r !== n ? "changed" : "", dataset: { card: c, part } },
            h("td", { text: t(`staff.part.${part}`) }), h("td", { text: c }),
            h("td", { class: "num", text: String(r) }), h("td", { class: "num", testid: "judge-deck-now", text: String(n) })));
        }
      }
      parts.push(h("div", { testid: `judge-deck-${seat}` },
        h("h3", { text: who }),
        h("p", { class: changed ? "bad" : "muted", testid: `judge-deck-${seat}-status`, text: changed ? t("staff.deck_changed", { n: changed }) : t("staff.deck_as_registered") }),
        h("table", { class: "staff-table" },
          h("thead", {}, h("tr", {}, ["", t("staff.card"), t("staff.deck_registered"), t("staff.deck_current")].map((x) => h("th", { text: x })))),
          h("tbody", {}, rows))));
    }
    decksBox.replaceChildren(...parts);
  }

  // R7.5: a failed after-duel deck check holds the table until a judge clears it, with a note.
  function deckClear(seat, who) {
    const note = h("input", { type: "text", maxlength: "200", placeholder: t("staff.note"), "aria-label": t("staff.note"), testid: `deck-clear-note-${seat}` });
    return h("div", { class: "row", testid: `deck-failed-${seat}` },
      h("p", { class: "bad", text: t("staff.deck_check_failed", { who }) }),
      note,
      h("button", { class: "btn btn-primary btn-small", type: "button", testid: `deck-clear-${seat}`, text: t("staff.deck_clear"),
        onclick: () => send("deck.clear", { seat, note: note.value }) }));
  }

  function renderLog() {
    logBox.replaceChildren(...log.slice().reverse().map((e) =>
      h("li", { value: e.seq },
        h("span", { class: "muted num", text: `${e.seq} ${formatTime(e.at_ms)} ` }),
        h("strong", { text: e.type }),
        h("span", { class: "muted", text: ` ${actorLabel(e.actor)} ` }),
        h("span", { text: summaryOf(e) }))));
  }

  async function loadLog() {
    const res = await call("GET", `/api/staff/tables/${code}`);
    if (!res.ok) {
      toast.textContent = refusal(res.body);
      return;
    }
    info = res.body.info;
    log = res.body.log;
    renderLog();
    renderHead();
  }

  conn.on("state", (msg) => {
    state = msg.state;
    if (msg.type === "update") {
      const events = msg.events || [];
      const last = log.length ? log[log.length - 1].seq : 0;
      if (events.length && events[0].seq === last + 1) {
        log.push(...events);
        renderLog();
      } else if (msg.seq > last) loadLog();
    }
    renderHead();
    renderCalls();
    seats.render(state, conn.serverNow());
    renderDisputes();
    renderPenalties();
    renderDecks();
  });

  const back = h("a", {
    href: `/judge/e/${eventId}`, class: "btn btn-small btn-quiet", testid: "back-to-floor", text: t("staff.back"),
    onclick: (e) => {
      e.preventDefault();
      navigate(`/judge/e/${eventId}`);
    },
  });
  root.replaceChildren(
    topBar(t("staff.judges"), [back, h("a", { href: sheetHref(code, lang()), class: "btn btn-small btn-quiet", testid: "judge-sheet-link", text: t("staff.sheet") })]),
    h("main", { class: "staff-main jt" },
      h("div", { class: "jt-col" }, head, toast, calls, seats.box, disputes, decksBox, clockTools, correction, penaltyForm, resultForm, penalties),
      h("div", { class: "jt-col" }, ledgerPages(code, conn), h("section", { class: "card" }, h("h2", { text: t("staff.log") }), logBox))),
  );
  loadLog();
  conn.start();
  const tick = setInterval(renderHead, 1000);
  return {
    destroy() {
      clearInterval(tick);
      conn.stop();
    },
  };
}
