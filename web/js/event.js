// The players' event page: /e/<slug>, from the event's public link (its table cards and the
// hall clock). A player finds themselves by name or by their player ID and sees, in their
// language, this round's table, seat and opponent, the round's clock and their record, and the
// standings once the organiser publishes them. It polls the event's cached projection
// (/api/e/<slug>) and redraws when it changed, so the next round's pairing appears by itself.
// Names are shown with textContent (h()); the player's ID is never sent by the server: only
// this phone shows the one its player typed.

import { formatDuration, h } from "./dom.js";
import { LANGS, errorText, initLang, lang, onLangChange, setLang, t } from "./i18n.js";

const POLL_MS = 5000;
const slug = decodeURIComponent(location.pathname.split("/")[2] || "");
const KEY = `dt.event.${slug}`;
const root = document.getElementById("event");
let data = null;
let text = "";
let me = load();
let deckSection = null; // the deck list form (deckForm), kept across redraws

initLang();

function load() {
  try {
    return JSON.parse(localStorage.getItem(KEY) || "null");
  } catch {
    return null;
  }
}

function save(value) {
  if (!value || !me || value.number !== me.number) deckSection = null; // another player's form
  me = value;
  try {
    if (value) localStorage.setItem(KEY, JSON.stringify(value));
    else localStorage.removeItem(KEY);
  } catch {
    /* private mode */
  }
}

function name(number) {
  const p = data.players.find((x) => x.number === number);
  return p ? p.name : "";
}

function picker() {
  const select = h("select", { testid: "ev-lang", "aria-label": t("event.language") });
  for (const l of LANGS) select.append(h("option", { value: l.code, text: l.label, selected: l.code === lang() }));
  select.addEventListener("change", () => setLang(select.value));
  return select;
}

function finder() {
  const input = h("input", { type: "search", testid: "ev-find-input", maxlength: "64", autocomplete: "off", "aria-label": t("event.find_label"), placeholder: t("event.find_hint") });
  const list = h("ul", { class: "ev-list", testid: "ev-find-results" });
  const go = async (e) => {
    e.preventDefault();
    const q = input.value.trim();
    if (!q) return;
    const r = await fetch(`/api/e/${encodeURIComponent(slug)}/find?q=${encodeURIComponent(q)}`);
    const found = r.ok ? (await r.json()).players : [];
    list.replaceChildren(...(found.length ? found.map((p) => h("li", {},
      h("button", { class: "btn", type: "button", testid: `ev-pick-${p.number}`, text: p.name,
        onclick: () => { save({ number: p.number, id: p.by_id ? q : "" }); draw(); } }))) : [h("li", { class: "muted", testid: "ev-find-none", text: t("event.find_none") })]));
  };
  return h("section", { class: "card" },
    h("h2", { text: t("event.find_title") }),
    h("form", { class: "ev-find", onsubmit: go }, input, h("button", { class: "btn btn-primary", type: "submit", testid: "ev-find-go", text: t("event.find_go") })),
    list);
}

function mySeat() {
  const r = data.round;
  const table = data.tables.find((x) => x.a === me.number || x.b === me.number);
  const parts = [h("h2", { testid: "ev-round", text: t("event.round", { n: r.number }) })];
  if (!r.paired) {
    parts.push(h("p", { testid: "ev-not-paired", text: t("event.not_paired", { n: r.number }) }));
  } else if (data.bye === me.number) {
    parts.push(h("p", { class: "ev-seat", testid: "ev-bye", text: t("event.bye") }));
  } else if (table) {
    const seat = table.a === me.number ? "A" : "B";
    const opp = seat === "A" ? table.b : table.a;
    parts.push(h("div", { class: "ev-seat", testid: "ev-seat" },
      h("span", { text: t("event.table") }),
      h("span", { class: "ev-table-no", testid: "ev-table", text: String(table.table) }),
      h("span", { testid: "ev-seat-letter", text: t("event.seat", { seat }) }),
      h("span", { testid: "ev-opponent", text: t("event.against", { name: name(opp) }) }),
      table.result ? h("span", { testid: "ev-result", text: t("event.result_in") }) : null));
  } else {
    parts.push(h("p", { testid: "ev-not-playing", text: t("event.not_playing", { n: r.number }) }));
  }
  if (r.started_ms === null && r.paired) parts.push(h("p", { class: "attention", testid: "ev-starts-soon", text: t("event.starts_soon", { n: r.number }) }));
  if (r.started_ms !== null) parts.push(h("p", { class: "ev-clock num", testid: "ev-clock", role: "timer" }));
  const p = data.players.find((x) => x.number === me.number);
  if (p) parts.push(h("p", { testid: "ev-record", text: t("event.record", { record: p.record, points: p.points }) }));
  if (me.id) parts.push(h("p", { class: "muted", testid: "ev-my-id", text: t("event.my_id", { id: me.id }) }));
  parts.push(h("button", { class: "btn btn-quiet", type: "button", testid: "ev-not-me", text: t("event.not_me"), onclick: () => { save(null); draw(); } }));
  return h("section", { class: "card", testid: "ev-me" }, h("h2", { testid: "ev-name", text: name(me.number) }), ...parts);
}

// The player's one deck list for the event (R2.6, R1.6): sent once with their player ID, before
// their first round; every table of the event then takes it. Built once, so what is typed
// survives the page's redraws (which wait while it has the focus).

function deckForm() {
  if (deckSection) {
    const id = deckSection.querySelector("[data-testid=ev-deck-id]");
    if (id && !id.value && me && me.id) id.value = me.id;
    return deckSection;
  }
  const id = h("input", { type: "text", maxlength: "40", autocomplete: "off", testid: "ev-deck-id", "aria-label": t("event.deck_id") });
  if (me && me.id) id.value = me.id;
  const text = h("textarea", { rows: "8", spellcheck: false, testid: "ev-deck-text", "aria-label": t("event.deck_text"), placeholder: t("list.placeholder") });
  const said = h("p", { role: "status", testid: "ev-deck-said" });
  const form = h("form", {
    class: "ev-deck", onsubmit: async (e) => {
      e.preventDefault();
      const r = await fetch(`/api/e/${encodeURIComponent(slug)}/decklist`, {
        method: "POST",
        headers: { "Content-Type": "application/json", Accept: "application/json" },
        body: JSON.stringify({ player_id: id.value.trim(), text: text.value }),
      }).catch(() => null);
      const body = r ? await r.json().catch(() => ({})) : { code: "network" };
      if (r && r.ok) {
        save({ ...me, deck: body.counts });
        said.className = "ok";
        said.textContent = t("event.deck_done", { main: body.counts.main, extra: body.counts.extra, side: body.counts.side });
        form.replaceWith(said);
        return;
      }
      said.className = "form-error";
      said.textContent = errorText(body);
    },
  },
  h("label", { class: "field" }, h("span", { text: t("event.deck_id") }), id),
  h("label", { class: "field" }, h("span", { text: t("event.deck_text") }), text),
  said,
  h("button", { class: "btn btn-primary", type: "submit", testid: "ev-deck-go", text: t("event.deck_go") }));
  deckSection = h("section", { class: "card", testid: "ev-deck" },
    h("h2", { text: t("event.deck_title") }),
    h("p", { class: "muted", text: t("event.deck_hint") }),
    me && me.deck ? h("p", { class: "ok", testid: "ev-deck-said", text: t("event.deck_done", me.deck) }) : form);
  return deckSection;
}

function standings() {
  if (!data.standings) return h("p", { class: "muted", testid: "ev-standings-hidden", text: t("event.standings_hidden") });
  return h("section", { class: "card" }, h("h2", { text: t("event.standings") }),
    h("table", { class: "ev-standings", testid: "ev-standings" },
      h("thead", {}, h("tr", {}, ["#", t("event.col_name"), t("event.col_points"), t("event.col_record")].map((x) => h("th", { text: x })))),
      h("tbody", {}, data.standings.map((row) => h("tr", { class: row.player === (me && me.number) ? "me" : "", testid: `ev-standing-${row.rank}` },
        h("td", { text: String(row.rank) }), h("td", { text: row.disqualified ? `${row.name} ${t("standings.disqualified")}` : row.dropped ? `${row.name} ${t("standings.dropped")}` : row.name }), h("td", { text: String(row.points) }), h("td", { text: row.record }))))));
}

function tick() {
  const clock = root.querySelector("[data-testid=ev-clock]");
  if (!clock || !data || data.round.deadline_ms === null) return;
  const end = data.round.ended_ms || Date.now();
  clock.textContent = formatDuration(data.round.deadline_ms - end);
}

function draw() {
  if (!data) return;
  document.title = `${data.event.name} · Duel Table`;
  const known = me && data.players.some((x) => x.number === me.number);
  root.replaceChildren(...[
    h("header", { class: "ev-head" }, h("h1", { testid: "ev-title", text: `${data.event.name} · ${data.event.date}` }), picker()),
    known ? mySeat() : finder(),
    known ? deckForm() : null,
    standings(),
  ].filter(Boolean));
  tick();
}

async function poll() {
  try {
    const r = await fetch(`/api/e/${encodeURIComponent(slug)}`, { cache: "no-store" });
    if (r.ok) {
      const body = await r.text();
      if (body !== text) {
        text = body;
        data = JSON.parse(body);
        const typing = deckSection && deckSection.contains(document.activeElement);
        if (!root.contains(document.activeElement) || document.activeElement === document.body) draw();
        else if (me && !typing) draw();
      }
    }
  } catch {
    /* offline: keep what is shown, try again */
  }
}

onLangChange(() => {
  deckSection = null; // its words in the new language
  draw();
});
poll();
setInterval(poll, POLL_MS);
setInterval(tick, 1000);
