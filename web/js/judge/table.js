// One table in detail for a judge: its whole log and the judge's tools. The page joins the
// table's websocket with no token; the login cookie makes it "judge" (or "organiser") there, so
// every action is a command in the table's log, signed with the judge's name, and both phones
// see it at once.

import { Connection } from "../conn.js";
import { formatDuration, formatTime, h } from "../dom.js";
import { has, lang, t } from "../i18n.js";
import { PanelHost } from "../panels/kit.js";
import { sheetHref } from "../sheet_link.js";
import { TableStore } from "../state.js";
import { call, refusal, topBar } from "../staff/common.js";
import { clockText, phaseText } from "./floor.js";
import { ledgerPages } from "./ledger_pages.js";
import { JUDGE_PANELS } from "./panels.js";
import { seatsCard } from "./seats.js";
import { eventWords, setEventWords, whoText } from "../words.js";

function select(testid, options) {
  const el = h("select", { testid });
  for (const [value, label] of options) el.append(h("option", { value, text: label }));
  return el;
}

/** Give `el` the options `values` (worded by `label`) when they changed, keeping the chosen
 * one while it is still offered (a live update does not undo a judge's choice). */
function offer(el, values, label) {
  const now = [...el.options].map((o) => o.value);
  if (now.length === values.length && now.every((v, i) => v === values[i])) return;
  const chosen = el.value;
  el.replaceChildren(...values.map((v) => h("option", { value: v, text: label(v) })));
  if (values.includes(chosen)) el.value = chosen;
}

function field(label, input) {
  return h("label", { class: "field" }, h("span", { text: label }), input);
}

function actorLabel(a) {
  if (!a) return "";
  if (a.role === "seat") return `${a.seat} ${a.name || ""}`.trim();
  const role = a.role === "system" ? "server" : a.role;
  if (!["judge", "organiser", "server"].includes(role)) return whoText(a);
  return a.name ? t(`sheet.who.${role}`, { name: a.name }) : t(`sheet.who.${role}_role`); // as the sheet names them
}

/** What a judge's command did, in the catalogue's words (never the command's code). */
export function doneText(command) {
  const args = command.args || {};
  const name = command.cmd === "result.set"
    ? ("match_winner" in args ? "result_set_match" : "result_set_duel")
    : String(command.cmd || "").replace(".", "_");
  const key = `staff.did.${name}`;
  return has(key) ? t(key) : t("staff.done");
}

export function mountTable(root, eventId, code, navigate) {
  const conn = new Connection(code, { token: null });
  const store = new TableStore(); // the same store as the players' screen (web/js/state.js)
  let info = null;
  let log = [];
  const toast = h("p", { class: "staff-toast", role: "status", testid: "judge-toast" });
  const head = h("section", { class: "card jt-head", testid: "judge-table-head" });
  const slots = Object.fromEntries(JUDGE_PANELS.map((p) => [p.name, h("div", { class: `slot slot-${p.name}` })]));
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
    toast.textContent = reply.ok ? doneText(command) : refusal(reply.error);
    toast.className = reply.ok ? "staff-toast ok" : "staff-toast bad";
  });
  conn.on("error", (e) => {
    toast.textContent = refusal(e);
  });

  // A seat's player: the seated one, else the pairing's (not seated yet), else a dash.
  const who = (seat) => {
    const sat = store.state?.seats?.[seat];
    if (sat?.joined && sat.name) return sat.name;
    const paired = info?.pairing?.[seat]?.name;
    return paired ? t("staff.not_seated", { name: paired }) : "—";
  };
  const whoWins = (seat) => (seat ? `${seat} ${who(seat)}` : t("staff.draw"));

  // A ruling that decides the match is asked first, with its note (the players read it).
  const ask = h("div", { class: "jt-ask", role: "group", testid: "ruling-confirm", hidden: true });
  function askFirst(text, note, go) {
    if (!note.value.trim()) {
      toast.textContent = t("staff.note_needed");
      toast.className = "staff-toast bad";
      note.focus();
      return;
    }
    const place = note.closest("section");
    ask.replaceChildren(
      h("p", { testid: "ruling-confirm-text", text: text }),
      h("div", { class: "row" },
        h("button", { class: "btn btn-danger btn-small", type: "button", testid: "ruling-yes", text: t("staff.ruling_yes"),
          onclick: () => { ask.hidden = true; go(); } }),
        h("button", { class: "btn btn-small", type: "button", testid: "ruling-no", text: t("staff.cancel_release"),
          onclick: () => { ask.hidden = true; } })));
    ask.hidden = false;
    place.append(ask);
  }

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

  // A feature match on the stream: the overlay page (OBS's browser source) shows this table
  // only while its staff say so (`overlay.set`).
  const overlayTools = h(
    "section",
    { class: "card" },
    h("h2", { text: t("staff.overlay") }),
    h("div", { class: "row" },
      h("button", { class: "btn", type: "button", testid: "overlay-show", text: t("staff.overlay_show"), onclick: () => send("overlay.set", { on: true }) }),
      h("button", { class: "btn", type: "button", testid: "overlay-hide", text: t("staff.overlay_hide"), onclick: () => send("overlay.set", { on: false }) }),
      h("a", { href: `/t/${encodeURIComponent(code)}/overlay`, target: "_blank", rel: "noopener", class: "btn btn-quiet", testid: "overlay-link", text: t("staff.overlay_link") }),
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
  // The levels and infractions a judge may record here come from the rules (the judges'
  // view's `penalty_choices`, server/rules/judge.py), filled in as the state arrives.
  const pLevel = select("penalty-level", []);
  const pInf = select("penalty-infraction", []);
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
      onclick: () => {
        const args = { seat: pSeat.value, level: pLevel.value, infraction: pInf.value, note: pNote.value };
        // The levels that decide the match are asked first, with a note the players read.
        const deciding = store.state?.penalty_choices?.decide_match || [];
        if (!deciding.includes(args.level)) return send("penalty.record", args);
        askFirst(t("staff.ruling_penalty", { level: t(`staff.level.${args.level}`), who: whoWins(args.seat) }), pNote,
          () => send("penalty.record", args));
      },
    }),
  );

  const rDuel = h("input", { type: "number", min: "1", value: "1", testid: "result-duel", class: "num-in" });
  const rWinner = select("result-winner", [["A", "A"], ["B", "B"], ["", t("staff.draw")]]);
  const mWinner = select("match-winner", [["A", "A"], ["B", "B"], ["", t("staff.draw")]]);
  const rNote = h("input", { type: "text", maxlength: "200", testid: "result-note" });
  let duelTyped = false; // the duel's number follows the table until the judge types one
  rDuel.addEventListener("input", () => { duelTyped = true; });
  const resultForm = h(
    "section",
    { class: "card" },
    h("h2", { text: t("staff.result") }),
    h("div", { class: "row" }, field(t("staff.duel"), rDuel), field(t("staff.winner"), rWinner),
      h("button", {
        class: "btn", type: "button", testid: "result-go", text: t("staff.set_duel"),
        onclick: () => send("result.set", { duel: Number(rDuel.value), winner: rWinner.value || null, note: rNote.value }),
      })),
    h("div", { class: "row" }, field(t("staff.winner"), mWinner),
      h("button", {
        class: "btn", type: "button", testid: "match-go", text: t("staff.set_match"),
        onclick: () => {
          const args = { match_winner: mWinner.value || null, note: rNote.value };
          askFirst(t("staff.ruling_match", { who: whoWins(args.match_winner) }), rNote, () => send("result.set", args));
        },
      })),
    field(t("staff.ruling_note"), rNote),
  );

  const eventLists = h("section", { class: "card", testid: "judge-event-lists", hidden: true });
  // --- live parts: panels on the table's store, each redrawn when what it reads changes ------
  const host = new PanelHost(JUDGE_PANELS, slots, (panel, picked) => ({ s: picked, send, now: conn.serverNow() }));

  function renderHead() {
    const state = store.state;
    if (!state) return;
    const now = conn.serverNow();
    const p = { kind: state.phase, duel: state.duel_no };
    if (state.time.stage && state.phase === "duel") {
      // the stage's turns as the rules count them (`stage_turns`, server/rules/time_over.py)
      Object.assign(p, { stage: state.time.stage, n: state.time.extra_turn, of: state.stage_turns });
    } else if (state.phase === "between" && state.window) p.since_ms = state.window.started_ms;
    head.replaceChildren(
      h("h1", { text: info ? t("staff.table_no", { n: info.number }) : code }),
      h("p", { class: "jt-names" },
        h("span", { class: "seat-a", testid: "judge-name-A", text: `A ${who("A")}` }), ` ${t("staff.vs")} `,
        h("span", { class: "seat-b", testid: "judge-name-B", text: `B ${who("B")}` })),
      h("p", { class: "jt-lp num", testid: "judge-lp" }, `${state.lp.A} / ${state.lp.B}`,
        h("span", { class: "muted", text: `  (${state.wins.A}-${state.wins.B})` })),
      h("p", { text: phaseText(p, now) }),
    );
    if (!duelTyped && document.activeElement !== rDuel) rDuel.value = String(state.duel_no);
    const c = state.clock;
    const deadline = c.deadline_ms;
    clockLine.textContent =
      c.status === "running" && typeof deadline === "number" ? formatDuration(deadline - now) : clockText(c, now);
  }

  function renderLog() {
    logBox.replaceChildren(...log.slice().reverse().map((e) => {
      const said = eventWords(e);
      return h("li", { value: e.seq, dataset: { type: e.type } },
        h("span", { class: "muted num", text: `${e.seq} ${formatTime(e.at_ms)} ` }),
        h("strong", { text: said.text }),
        " ",
        h("code", { class: "jt-type muted", translate: "no", text: e.type }),
        h("span", { class: "muted", text: ` ${actorLabel(e.actor)}` }),
        e.hidden && e.type === "rps.picked" ? h("span", { class: "muted", text: ` ${t("event.hidden")}` }) : null,
        said.note ? [" \u00b7 ", h("q", { class: "jt-note", text: said.note })] : null);
    }));
  }

  // A deck check at an event table: each seat's list at the table against the one registered
  // for the player at the event (R2.6), as the server compares them.
  function renderEventLists(lists) {
    eventLists.hidden = !lists; // a casual table has no event list
    if (!lists) {
      eventLists.replaceChildren();
      return;
    }
    const state = store.state;
    eventLists.replaceChildren(h("h3", { text: t("staff.event_lists") }), ...["A", "B"].map((seat) => {
      const who = `${seat} ${(state && state.seats[seat].name) || ""}`.trim();
      const found = lists[seat];
      if (!found) return h("p", { class: "muted", testid: `judge-event-list-${seat}`, text: t("staff.event_list_none", { who }) });
      // The list itself, part by part, for a deck check by hand.
      const cards = h("details", {}, h("summary", { text: t("staff.event_list_show") }),
        h("ul", { class: "staff-list", testid: `judge-event-cards-${seat}` }, ["main", "extra", "side"].flatMap((part) =>
          Object.entries(found.cards[part] || {}).map(([card, n]) => h("li", { text: `${t(`staff.part.${part}`)}: ${n} ${card}` })))));
      if (found.same === null) return h("div", { testid: `judge-event-list-${seat}` }, h("p", { class: "muted", text: t("staff.event_list_only", { who }) }), cards);
      if (found.same) return h("div", { testid: `judge-event-list-${seat}` }, h("p", { class: "ok", text: t("staff.event_list_same", { who }) }), cards);
      return h("div", { testid: `judge-event-list-${seat}` },
        h("p", { class: "bad", text: t("staff.event_list_differs", { who, n: found.differences.length }) }),
        h("ul", { class: "staff-list" }, found.differences.map((d) => h("li", {
          text: t("staff.event_list_line", { part: t(`staff.part.${d.part}`), card: d.card, registered: d.registered, given: d.given }),
        }))), cards);
    }));
  }

  async function loadLog() {
    const res = await call("GET", `/api/staff/tables/${code}`);
    if (!res.ok) {
      toast.textContent = refusal(res.body);
      return;
    }
    info = res.body.info;
    setEventWords(res.body.words);
    log = res.body.log;
    renderLog();
    renderHead();
    renderEventLists(res.body.event_lists);
  }

  conn.on("welcome", (msg) => store.welcome(msg));
  conn.on("update", (msg) => {
    const events = msg.events || [];
    const last = log.length ? log[log.length - 1].seq : 0;
    if (events.length && events[0].seq === last + 1) {
      log.push(...events);
      renderLog();
      if (events.some((e) => e.type === "deck.registered")) loadLog(); // compared again
    } else if (msg.seq > last) loadLog();
    store.take(msg);
  });
  store.subscribe(() => {
    renderHead();
    const choices = store.state?.penalty_choices;
    if (choices) {
      offer(pLevel, choices.levels, (l) => t(`staff.level.${l}`));
      offer(pInf, choices.infractions, (i) => t(`staff.inf.${i}`));
    }
    host.update(store.state, null, {});
    seats.render(store.state, conn.serverNow());
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
      h("div", { class: "jt-col" }, head, toast, slots.calls, seats.box, slots.disputes, slots.decks, eventLists, clockTools, overlayTools, correction, penaltyForm, resultForm, slots.penalties),
      h("div", { class: "jt-col" }, ledgerPages(code, { on: (_kind, fn) => store.subscribe(() => fn({ state: store.state })) }), h("section", { class: "card" }, h("h2", { text: t("staff.log") }), logBox))),
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
