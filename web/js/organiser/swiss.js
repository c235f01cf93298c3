// The tournament section of an event page: players, Swiss pairing, open tables, judges'
// results, drops, live standings, exports, the top cut to the winner (server/api/swiss.py).

import { h, holdWhilePressed } from "../dom.js";
import { t } from "../i18n.js";
import { call, refusal } from "../staff/common.js";

const RESULTS = ["A", "B", "draw", "loss"];

/** 33726677 -> "33 726 677" (points, OMW%, OOMW% in thousandths). */
function tiebreak(n) {
  const s = String(n).padStart(7, "0");
  return `${Number(s.slice(0, -6))} ${s.slice(-6, -3)} ${s.slice(-3)}`;
}

// What the organiser picked in a select of this section (a top cut's size, a judge's result),
// kept across the section's redraws: a refresh between the pick and the tap never resets it.
const chosen = new Map();

function keep(select, key) {
  if (chosen.has(key)) select.value = chosen.get(key);
  select.addEventListener("change", () => chosen.set(key, select.value));
  return select;
}

function field(label, input) {
  return h("label", { class: "field" }, h("span", { text: label }), input);
}

/** "1000" thousandths -> "100.0%". */
function percent(n) {
  return `${(n / 10).toFixed(1)}%`;
}

/**
 * The round cycle's card: the current step first, the next action as its one primary button
 * (the server's `cycle`: an action the server would refuse is never offered).
 * `hooks.confirmEnd(number, tables)` asks before "End round"; `hooks.reload()` redraws the page.
 */
function cycleCard(card, eventId, s, act, hooks) {
  const c = s.cycle;
  const base = `/api/events/${eventId}`;
  const n = c.round;
  const text = t(`run.cycle.step.${c.step}`, { n, count: c.waiting.length, list: c.waiting.join(", ") });
  const parts = [h("h2", { text: t("run.cycle.title") }), h("p", { class: "cycle-step", testid: "cycle-step", "data-step": c.step, text })];
  const primary = (label, testid, onclick) => h("button", { class: "btn btn-primary", type: "button", testid, "data-action": c.action, text: label, onclick });
  const after = c.step === "results_in" ? n + 1 : n;
  if (c.action === "pair") {
    parts.push(primary(t("swiss.pair", { n: after }), "cycle-pair", () => act("POST", `${base}/swiss/pair`, undefined, true)));
  } else if (c.action === "start") {
    parts.push(primary(t("staff.start_round", { n }), "round-start", async () => {
      const r = await act("POST", `${base}/round/start`, undefined, false);
      if (r.ok) hooks.reload(r);
    }));
  } else if (c.action === "end") {
    parts.push(primary(t("staff.end_round", { n }), "round-end", async () => {
      const open = await call("GET", `${base}/round/unfinished`);
      if (!open.ok || !(await hooks.confirmEnd(n, open.body.tables))) return;
      const r = await call("POST", `${base}/round/end`);
      hooks.ended(r);
    }));
  } else if (c.action === "cut") {
    const size = h("select", { testid: "cycle-cut-size", "aria-label": t("swiss.cut_size") });
    for (const k of [4, 8, 16, 32]) size.append(h("option", { value: String(k), text: t("swiss.top_n", { n: k }), selected: k === (s.cut_size || 8) }));
    keep(size, `${eventId}:cut`);
    parts.push(h("div", { class: "row" }, size, primary(t("swiss.start_cut"), "cycle-cut", () => act("POST", `${base}/swiss/cut`, { size: Number(size.value) }, true))));
  } else if (c.action === "cut_next") {
    parts.push(primary(t("swiss.next_cut"), "cycle-cut-next", () => act("POST", `${base}/swiss/cut/next`, undefined, true)));
  } else if (c.action === "next") {
    parts.push(primary(t("run.cycle.next_manual", { n: n + 1 }), "round-next", () => act("POST", `${base}/round/next`, undefined, true)));
  }
  if (c.no_shows && c.no_shows.length) {
    // As loud as a judge call on the floor: a seat still empty after the round's start.
    parts.push(h("p", { class: "staff-toast bad", role: "alert", testid: "cycle-no-shows", text: t("run.cycle.no_shows", { list: c.no_shows.join(", ") }) }));
  }
  if (c.waiting.length && c.step === "results") {
    // The tables still without a result: a judge's result ends each one (the table's log).
    parts.push(h("ul", { class: "staff-list", testid: "cycle-waiting" }, c.waiting.map((no) => {
      const pick = h("select", { testid: `cycle-result-pick-${no}`, "aria-label": t("run.cycle.result_for", { n: no }) });
      for (const r of s.stage === "cut" ? ["A", "B"] : RESULTS) pick.append(h("option", { value: r, text: t(`swiss.result.${r}`) }));
      keep(pick, `${eventId}:${n}:${no}`);
      return h("li", { testid: `cycle-waiting-${no}` }, `${t("staff.table_no", { n: no })} `, pick,
        h("button", { class: "btn btn-small", type: "button", testid: `cycle-result-${no}`, text: t("run.cycle.enter"),
          onclick: () => act("POST", `${base}/tables/${no}/result`, { result: pick.value }, true) }));
    })));
  }
  card.replaceChildren(...parts);
}

/** A registered list as text, part by part ("Main deck (40)", then "3 Card" lines). */
function listText(cards, counts) {
  return ["main", "extra", "side"].filter((part) => Object.keys(cards[part] || {}).length)
    .map((part) => [`${t(`deck.${part}`)} (${counts[part]})`, ...Object.entries(cards[part]).map(([card, n]) => `${n} ${card}`)].join("\n"))
    .join("\n\n");
}

/** A player's deck list for the event (R2.6): shown to staff; the organiser registers or
 * replaces it (the server refuses once the player's first round has started). */
function deckBox(eventId, number, say, canSet, redraw) {
  const path = `/api/events/${eventId}/swiss/players/${number}/decklist`;
  const shown = h("pre", { class: "deck-text", testid: `deck-list-${number}` });
  const text = h("textarea", { rows: "6", testid: `deck-text-${number}`, "aria-label": t("swiss.deck_paste") });
  const box = h("div", { class: "deck-box", testid: `deck-box-${number}` }, shown);
  call("GET", path).then((r) => {
    shown.textContent = r.ok && r.body.cards ? listText(r.body.cards, r.body.counts) : t("swiss.deck_none");
  });
  if (canSet) {
    box.append(field(t("swiss.deck_paste"), text), h("button", {
      class: "btn btn-small", type: "button", testid: `deck-save-${number}`, text: t("swiss.deck_save"),
      onclick: async () => {
        const r = await call("PUT", path, { text: text.value });
        say(r, t("swiss.deck_saved"));
        if (r.ok) redraw();
      },
    }));
  }
  return box;
}

/** The section; it refreshes itself every few seconds while the page is open. The round cycle's
 * card (`hooks.card`) is drawn from the same summary. */
export function swissSection(eventId, slug, say, hooks) {
  const box = h("section", { class: "card", testid: "swiss" });
  const base = `/api/events/${eventId}/swiss`;
  let timer = null;
  // What the organiser typed in the desk's forms, kept when the server refuses it; Name takes
  // the focus again after a player is added, for the next one (one by one at the door).
  let draft = { name: "", id: "", deck: "", list: "" };
  let focusName = false;
  const openDecks = new Set();

  async function act(method, path, body, redraw = false) {
    const r = await call(method, path, body);
    say(r, t("staff.done"));
    if (redraw && r.ok && hooks) hooks.reload(r);
    else await draw();
    return r;
  }

  function resultLabel(r) {
    return r === null ? t("swiss.open") : t(`swiss.result.${r}`);
  }

  // The organiser is typing or picking in a field of this section: the periodic refresh waits
  // (a button last tapped does not hold it up).
  const editing = () => {
    const el = document.activeElement;
    return Boolean(el) && [box, hooks && hooks.card].some((part) => part && part.contains(el)) && el.matches("input, textarea, select");
  };

  // background: the periodic refresh, which never replaces a form the organiser is typing in
  // (checked again once the answer is in: typing may have begun while it was on its way)
  // A button being pressed is not replaced by the refresh (its click would be lost): the next
  // refresh draws it.
  const hold = holdWhilePressed({ box, card: hooks && hooks.card }, () => {});

  async function draw(background = false) {
    const res = await call("GET", base);
    if (background && (editing() || hold.held())) return;
    if (!res.ok) {
      box.replaceChildren(h("p", { text: refusal(res.body) }));
      return;
    }
    const s = res.body;
    if (hooks) cycleCard(hooks.card, eventId, s, act, hooks);
    const current = s.rounds[s.rounds.length - 1];
    const names = Object.fromEntries(s.players.map((p) => [p.number, p.name]));

    // players: one by one at the door, or a whole list (a spreadsheet's CSV, or pasted)
    // Each field writes its draft as it is typed, so a redraw puts back what was there.
    const typed = (el, key) => {
      el.value = draft[key];
      el.addEventListener("input", () => { draft[key] = el.value; });
      return el;
    };
    const pName = typed(h("input", { type: "text", maxlength: "64", testid: "player-name" }), "name");
    const pId = typed(h("input", { type: "text", maxlength: "40", testid: "player-id" }), "id");
    const pDeck = typed(h("textarea", { rows: "3", testid: "player-deck" }), "deck");
    const listText_ = typed(h("textarea", { rows: "4", testid: "import-text", "aria-label": t("swiss.import_paste"), placeholder: t("swiss.import_hint") }), "list");
    const listFile = h("input", { type: "file", accept: ".csv,.txt,text/csv,text/plain", testid: "import-file", "aria-label": t("swiss.import_file"),
      onchange: async () => {
        const file = listFile.files && listFile.files[0];
        if (!file) return;
        // The whole file, as read (a byte order mark included: the server reads it).
        draft.list = await file.text();
        listText_.value = draft.list;
      } });
    const importForm = h("form", {
      class: "desk-import", testid: "import", onsubmit: async (e) => {
        e.preventDefault();
        const r = await call("POST", `${base}/players/import`, { text: listText_.value });
        say(r, r.ok ? t("swiss.imported", { n: r.body.imported }) : "");
        draft.list = r.ok ? "" : listText_.value;
        await draw();
      },
    }, h("h4", { text: t("swiss.import_title") }), field(t("swiss.import_paste"), listText_), field(t("swiss.import_file"), listFile),
    h("button", { class: "btn", type: "submit", testid: "import-go", text: t("swiss.import_go") }));
    const checkIn = h("input", { type: "checkbox", checked: Boolean(s.check_in), testid: "swiss-check-in" });
    checkIn.addEventListener("change", () => act("PATCH", base, { check_in: checkIn.checked }));
    const isOrganiser = hooks && hooks.card; // the organiser's page (a judge's has no cycle card)
    const playerLine = (p) => {
      const parts = [`${p.number}. ${p.name} (${p.player_id})`,
        p.entered_round > 1 ? ` · ${t("swiss.late", { n: p.entered_round })}` : "",
        p.dropped_after === null ? " "
          : ` · ${t(p.disqualified ? "swiss.disqualified" : "swiss.dropped", { n: p.dropped_after })}`];
      if (s.check_in && p.dropped_after === null) {
        parts.push(p.checked_in
          ? h("span", { class: "ok", testid: `checked-in-${p.number}`, text: `${t("swiss.checked_in")} ` })
          : null,
        h("button", {
          class: p.checked_in ? "btn btn-small btn-quiet" : "btn btn-small", type: "button",
          testid: p.checked_in ? `checkout-${p.number}` : `checkin-${p.number}`,
          text: p.checked_in ? t("swiss.check_out") : t("swiss.check_in_one"),
          onclick: () => act("POST", `${base}/players/${p.number}/checkin`, { present: !p.checked_in }),
        }));
      }
      parts.push(h("button", {
        class: "btn btn-small btn-quiet", type: "button", testid: `deck-${p.number}`, "aria-expanded": String(openDecks.has(p.number)),
        text: p.has_decklist ? t("swiss.deck_registered") : t("swiss.deck_missing"),
        onclick: () => {
          if (openDecks.has(p.number)) openDecks.delete(p.number);
          else openDecks.add(p.number);
          draw();
        },
      }));
      if (p.dropped_after === null) parts.push(h("button", {
        class: "btn btn-small btn-quiet", type: "button", testid: `drop-${p.number}`, text: t("swiss.drop"),
        onclick: () => act("POST", `${base}/players/${p.number}/drop`),
      }));
      if (openDecks.has(p.number)) parts.push(deckBox(eventId, p.number, say, isOrganiser, () => draw()));
      return h("li", { testid: `player-${p.number}` }, ...parts.filter(Boolean));
    };
    const players = h("div", {},
      h("h3", { text: t("swiss.players_n", { n: s.players.length }) }),
      h("label", { class: "check-inline" }, checkIn, h("span", { text: t("swiss.check_in") })),
      s.check_in ? h("p", { testid: "checked-in-count", text: t("swiss.checked_in_n", { n: s.checked_in, of: s.players.length }) }) : null,
      h("form", {
        class: "row", testid: "player-form", onsubmit: async (e) => {
          e.preventDefault();
          const sent = { name: pName.value.trim(), player_id: pId.value.trim(), decklist: pDeck.value };
          const r = await call("POST", `${base}/players`, sent);
          say(r, t("staff.done"));
          draft = r.ok ? { ...draft, name: "", id: "", deck: "" } : { ...draft, name: pName.value, id: pId.value, deck: pDeck.value };
          focusName = true;
          await draw();
        },
      }, field(t("swiss.name"), pName), field(t("swiss.player_id"), pId), field(t("swiss.decklist"), pDeck),
      h("button", { class: "btn", type: "submit", testid: "player-add", text: t("swiss.register") })),
      isOrganiser ? importForm : null,
      h("ul", { class: "staff-list", testid: "player-list" }, s.players.map(playerLine)));

    // the round and its tables
    const roundBox = h("div", {});
    const next = current ? current.number + 1 : 1;
    const stage = s.stage;
    roundBox.append(h("h3", { text: current ? t(current.stage === "cut" ? "swiss.cut_round" : "swiss.round", { n: current.number }) : t("swiss.not_paired") }));
    roundBox.append(h("p", { testid: "swiss-progress", text: t("swiss.progress", { played: s.swiss_played, of: s.swiss_rounds, open: s.open_tables.length }) }));
    const buttons = h("div", { class: "row" });
    if (stage === "swiss") {
      buttons.append(h("button", {
        class: "btn", type: "button", testid: "swiss-pair", text: t("swiss.pair", { n: next }),
        disabled: s.cycle.action !== "pair",
        onclick: () => act("POST", `${base}/pair`, undefined, true),
      }));
      // Re-pairing: the organiser's correction before the round starts (after it, a judge's).
      if (current) buttons.append(h("button", { class: "btn", type: "button", testid: "swiss-repair", text: t("swiss.repair", { n: current.number }), disabled: s.cycle.step !== "start" || current.number !== s.cycle.round, onclick: () => act("POST", `${base}/repair`, {}, true) }));
      const size = h("select", { testid: "cut-size", "aria-label": t("swiss.cut_size") });
      for (const n of [4, 8, 16, 32]) size.append(h("option", { value: String(n), text: t("swiss.top_n", { n }), selected: n === (s.cut_size || 8) }));
      keep(size, `${eventId}:cut`);
      buttons.append(size, h("button", {
        class: "btn", type: "button", testid: "cut-start", text: t("swiss.start_cut"),
        disabled: s.cycle.action !== "cut" && s.cycle.action !== "pair",
        onclick: () => act("POST", `${base}/cut`, { size: Number(size.value) }, true),
      }));
    } else if (!s.champion) {
      buttons.append(h("button", {
        class: "btn btn-primary", type: "button", testid: "cut-next", text: t("swiss.next_cut"),
        disabled: s.cycle.action !== "cut_next", onclick: () => act("POST", `${base}/cut/next`, undefined, true),
      }));
    }
    roundBox.append(buttons);
    if (s.champion) roundBox.append(h("p", { class: "staff-toast ok", testid: "champion", text: t("swiss.champion", { name: s.champion.name }) }));
    if (current) {
      if (current.bye) roundBox.append(h("p", { testid: "swiss-bye", text: t("swiss.bye", { name: current.bye.name }) }));
      roundBox.append(h("table", { class: "staff-table", testid: "swiss-tables" },
        h("thead", {}, h("tr", {}, [t("staff.tables"), "A", "B", t("swiss.result"), ""].map((x) => h("th", { text: x })))),
        h("tbody", {}, current.tables.map((tb) => {
          const pick = h("select", { testid: `result-pick-${tb.table}` });
          for (const r of current.stage === "cut" ? ["A", "B"] : RESULTS) pick.append(h("option", { value: r, text: t(`swiss.result.${r}`) }));
          keep(pick, `${eventId}:${current.number}:${tb.table}`);
          return h("tr", { testid: `swiss-table-${tb.table}`, class: tb.result === null ? "open" : "" },
            h("td", {}, h("a", { href: `/t/${tb.code}?watch`, text: String(tb.table) })),
            h("td", { text: tb.a.name }), h("td", { text: tb.b.name }),
            h("td", { testid: `result-${tb.table}`, text: resultLabel(tb.result) + (tb.judged ? ` (${t("swiss.judged")})` : "") }),
            h("td", {}, pick, h("button", {
              class: "btn btn-small", type: "button", testid: `result-enter-${tb.table}`, text: t("swiss.enter"),
              onclick: () => act("POST", `${base}/result`, { round: current.number, table: tb.table, result: pick.value }),
            })));
        }))));
    }

    // the bracket
    const cut = s.rounds.filter((r) => r.stage === "cut");
    const bracket = cut.length ? h("div", { class: "row", testid: "bracket" }, cut.map((r) => h("div", {},
      h("h4", { text: t("swiss.cut_round", { n: r.number }) }),
      h("ul", { class: "staff-list" }, r.tables.map((tb) => h("li", {
        text: `${tb.a.name} ${t("staff.vs")} ${tb.b.name} · ${tb.result === "A" ? tb.a.name : tb.result === "B" ? tb.b.name : t("swiss.open")}`,
      })))))) : null;

    // standings
    const standings = h("table", { class: "staff-table", testid: "standings" },
      h("thead", {}, h("tr", {}, ["#", t("swiss.name"), t("swiss.points"), t("swiss.record"), "OMW%", "OOMW%", t("swiss.tiebreak")].map((x) => h("th", { text: x })))),
      h("tbody", {}, s.standings.map((row) => h("tr", { testid: `standing-${row.rank}` },
        h("td", { text: String(row.rank) }),
        h("td", { text: row.name + (row.disqualified ? ` (${t("swiss.dq")})` : row.dropped ? ` (${t("swiss.drop")})` : "") }),
        h("td", { text: String(row.points) }), h("td", { text: row.record }),
        h("td", { testid: `omw-${row.rank}`, text: percent(row.omw) }), h("td", { testid: `oomw-${row.rank}`, text: percent(row.oomw) }),
        h("td", { text: tiebreak(row.tiebreak) })))));

    // settings and exports
    const rounds = h("input", { type: "number", min: "1", max: "20", value: String(s.swiss_rounds), testid: "swiss-rounds" });
    const pub = h("input", { type: "checkbox", checked: s.public, testid: "swiss-public" });
    const settings = h("div", { class: "row" },
      field(t("swiss.rounds"), rounds),
      h("button", { class: "btn btn-small", type: "button", testid: "swiss-rounds-save", text: t("staff.apply"), onclick: () => act("PATCH", base, { rounds: Number(rounds.value) }) }),
      h("label", { class: "check-inline" }, pub, h("span", { text: t("swiss.public") })),
      s.public ? h("a", { href: `/e/${slug}/standings`, target: "_blank", testid: "public-link", text: t("swiss.public_page") }) : null,
      h("a", { class: "btn btn-small", href: `/api/events/${eventId}/standings.csv`, download: "", testid: "standings-csv", text: t("swiss.csv") }),
      h("a", { class: "btn btn-small", href: `/organiser/events/${eventId}/standings`, target: "_blank", testid: "standings-print", text: t("swiss.print") }));
    pub.addEventListener("change", () => act("PATCH", base, { public: pub.checked }));

    // replaceChildren writes a null as the text "null": only the parts there are
    box.replaceChildren(...[h("h2", { text: t("swiss.title") }), settings, players, roundBox, bracket,
      h("h3", { text: t("swiss.standings") }), standings].filter(Boolean));
    if (focusName) {
      focusName = false;
      pName.focus();
    }
  }

  draw();
  timer = setInterval(() => {
    if (!box.isConnected) clearInterval(timer);
    else if (!editing()) draw(true);
  }, 5000);
  return box;
}
