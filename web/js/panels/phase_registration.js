// The registration phase: deck counts declared and confirmed (R1.6), and the deck list pasted,
// checked live by the server and registered (R2.1-R2.6), with a casual table's ban list pick.

import { api } from "../api.js";
import { rememberNames } from "../card_names.js";
import { h } from "../dom.js";
import { has, lang, t } from "../i18n.js";
import { get, other } from "../state.js";
import { toastError } from "../toast.js";
import { card, countsText, may, numberField, seatName } from "./kit.js";

export const reads = ["decks", "seats", "banlist", "ruleset", "may_send", "forms"];
export const local = ["banlists", "eventList"];
// The list check's answer is painted in place as it arrives (not a redraw).
// The deck counts last declared on this phone (kept by web/js/ui.js) start the form.
// The card-name suggestions for the line being typed are painted in place the same way.
export const own = ["listCheck", "listChecks", "listTimer", "listRefs", "deckLast", "suggestTimer", "suggestAsks"];

/** The registration card. */
export function build(ctx) {
  return phaseRegistration(ctx);
}

// Deck counts to start the form with: the declared (or registered list's) counts, else the
// last ones declared on this phone, else the smallest main deck and the largest extra and side.
function deckDefaults(declared, last, size) {
  const c = declared || (last && Number.isInteger(last.main) ? last : { main: size.main[0], extra: size.extra[1], side: size.side[1] });
  return { main: String(c.main), extra: String(c.extra ?? 0), side: String(c.side ?? 0) };
}



function phaseRegistration(ctx) {
  const { s, view, ui, send } = ctx;
  const decks = s.decks || {};
  const meSeat = view.seat;
  const size = s.forms.deck_sizes;
  const parts = [];
  if (view.isSeat) {
    const mine = get(decks, `${meSeat}.declared`, null);
    const form = (ui.forms.deck ||= {});
    const seen = JSON.stringify(mine);
    if (form.main === undefined || (mine && form.seen !== seen)) Object.assign(form, deckDefaults(mine, ui.deckLast, size), { seen });
    const err = h("p", { class: "form-error", testid: "deck-error", role: "alert" });
    const declare = () => {
      const v = { main: Number(form.main), extra: Number(form.extra || 0), side: Number(form.side || 0) };
      // The sizes are the rules' (R2.1-R2.3, the view's `forms`): a count outside them is named
      // here at once, as the server would refuse it.
      const problems = [];
      const outside = (part) => !Number.isInteger(v[part]) || v[part] < size[part][0] || v[part] > size[part][1];
      if (form.main === "" || outside("main")) problems.push(t("deck.err_main"));
      if (outside("extra")) problems.push(t("deck.err_extra"));
      if (outside("side")) problems.push(t("deck.err_side"));
      err.textContent = problems.join(" ");
      if (problems.length) return;
      send("deck.declare", v);
      ui.keep({ deckLast: v });
      // The opponent's counts, already on screen and named on this button, confirmed with it.
      if (theirsOpen) send("deck.confirm", { seat: other(meSeat) });
    };
    const theirs = get(decks, `${other(meSeat)}.declared`, null);
    const theirsOpen = Boolean(theirs && may(s, "deck.confirm")); // the rules say (R1.6)
    parts.push(
      h("p", { class: "muted", text: t("deck.hint") }),
      h("div", { class: "fields3" },
        numberField(ui, "deck", "main", t("deck.main"), "deck-main", { min: size.main[0], max: size.main[1] }),
        numberField(ui, "deck", "extra", t("deck.extra"), "deck-extra", { min: size.extra[0], max: size.extra[1] }),
        numberField(ui, "deck", "side", t("deck.side"), "deck-side", { min: size.side[0], max: size.side[1] }),
      ),
      err,
      h("button", { class: "btn btn-primary btn-wide", testid: "deck-declare", onclick: declare,
        text: mine ? t("deck.redeclare") : theirsOpen ? t("deck.declare_and_confirm", { name: seatName(s, other(meSeat)), counts: countsText(theirs) }) : t("deck.declare") }),
      h("p", { class: "status-line", testid: "deck-mine", text: mine ? t("deck.mine", { counts: countsText(mine) }) + " \u00b7 " + (get(decks, `${meSeat}.confirmed`, false) ? t("deck.confirmed_by_opp") : t("deck.waiting_opp")) : t("deck.not_declared") }),
    );
    parts.push(deckListForm(ctx));
  }
  for (const seat of view.isSeat ? [other(meSeat)] : ["A", "B"]) {
    const decl = get(decks, `${seat}.declared`, null);
    const confirmed = get(decks, `${seat}.confirmed`, false);
    parts.push(
      h("div", { class: ["status-line", view.isSeat && decl && !confirmed && "attention"], testid: `deck-${seat}` },
        h("span", { text: decl ? t("deck.theirs", { name: seatName(s, seat), counts: countsText(decl) }) : t("deck.theirs_none", { name: seatName(s, seat) }) }),
        decl && confirmed ? h("span", { class: "ok", text: " \u2713" }) : null,
      ),
    );
    if (view.isSeat && decl && may(s, "deck.confirm")) {
      parts.push(h("button", { class: "btn btn-primary btn-wide", testid: "confirm-deck", onclick: () => send("deck.confirm", { seat }), text: t("deck.confirm", { name: seatName(s, seat) }) }));
    }
  }
  return card(t("phase.registration"), "registration", parts);
}

// --- deck lists (R1.6, R2.1-R2.6): paste, live problems from the server, register -------------

// A card of a list is its passcode where the server read one (a .ydk file, a ydke:// link or a
// loaded name): shown by the name the server gave in this phone's language, else as it is.
function cardName(names, card) {
  return (names && names[card]) || card;
}

function problemText(p, names) {
  const link = p.code === "unreadable" && p.part && !p.line; // a ydke:// link's broken part
  const key = link ? "list.problem.unreadable_link" : `list.problem.${p.code}`;
  if (!has(key)) return p.message || p.code;
  return `${p.rule}: ${t(key, { card: p.card ? cardName(names, p.card) : "", count: p.count ?? "", max: p.max ?? "", min: p.min ?? "", part: p.part ? t(`deck.${p.part}`) : "", line: p.line ?? "" })}`;
}

// The list as the server read it, part by part, each card by name in the reader's language.
function cardRows(res) {
  const rows = [];
  for (const part of ["main", "extra", "side"]) {
    const cards = (res.cards && res.cards[part]) || {};
    const keys = Object.keys(cards);
    if (!keys.length) continue;
    rows.push(h("li", { class: "list-part", text: t(`deck.${part}`) }));
    const named = keys.map((k) => [cardName(res.names, k), cards[k]]).sort((a, b) => a[0].localeCompare(b[0]));
    for (const [name, n] of named) rows.push(h("li", { testid: "deck-list-card", dataset: { part }, text: t("list.card_row", { n, card: name }) }));
  }
  return rows;
}

function paintListCheck(ctx) {
  const { ui } = ctx;
  const refs = ui.listRefs;
  if (!refs) return;
  const res = ui.listCheck;
  if (!res) {
    refs.counts.textContent = "";
    refs.problems.replaceChildren();
    refs.cards.replaceChildren();
    return;
  }
  refs.counts.textContent = res.counts ? countsText(res.counts) : "";
  refs.cards.replaceChildren(...cardRows(res));
  const problems = res.problems || [];
  refs.problems.replaceChildren(
    ...(problems.length
      ? problems.map((p) => h("li", { class: "bad", testid: "deck-list-problem", dataset: { rule: p.rule, code: p.code }, text: problemText(p, res.names) }))
      : res.counts ? [h("li", { class: "ok", testid: "deck-list-ok", text: t("list.legal") })] : []),
  );
}

async function checkList(ctx) {
  const { ui, code, token } = ctx;
  const text = (ui.forms.list && ui.forms.list.text) || "";
  const mine = ui.listChecks + 1;
  ui.keep({ listChecks: mine });
  if (!text.trim() || !token) {
    ui.keep({ listCheck: null });
    paintListCheck(ctx);
    return;
  }
  try {
    const res = await fetch(`/api/tables/${encodeURIComponent(code)}/decklist/check?lang=${encodeURIComponent(lang())}`, {
      method: "POST",
      headers: { "Content-Type": "application/json", Accept: "application/json", Authorization: `Bearer ${token}` },
      body: JSON.stringify({ text }),
    });
    const body = await res.json();
    if (mine !== ui.listChecks) return; // a later check is on its way
    if (res.ok) rememberNames(body.names); // the same cards named later, between duels
    ui.keep({ listCheck: res.ok ? body : { problems: [{ rule: "", code: body.code, message: body.message }] } });
  } catch {
    if (mine !== ui.listChecks) return;
    ui.keep({ listCheck: null });
  }
  paintListCheck(ctx);
}

// --- card-name suggestions for the line being typed (loaded names, the player's language) ---

// The line the caret is on: its start and end in the text, and the name typed on it (without
// a leading or trailing count).
function caretLine(area) {
  const text = area.value;
  const at = area.selectionStart ?? text.length;
  const start = text.lastIndexOf("\n", at - 1) + 1;
  const end = text.indexOf("\n", at) === -1 ? text.length : text.indexOf("\n", at);
  const line = text.slice(start, end);
  const m = line.match(/^(\s*\d{1,2}\s*[xX×]?\s+)?(.*?)(\s*[xX×*]\s*\d{1,2})?\s*$/);
  return { start, end, count: (m && m[1]) || "", name: ((m && m[2]) || "").trim(), tail: (m && m[3]) || "" };
}

function paintSuggestions(ctx, area, found) {
  const refs = ctx.ui.listRefs;
  if (!refs) return;
  refs.suggest.replaceChildren(
    ...found.map((c) => h("li", {},
      h("button", {
        type: "button",
        class: "btn btn-small",
        testid: "deck-list-suggestion",
        text: c.name,
        onclick: () => {
          const line = caretLine(area);
          const text = area.value;
          area.value = text.slice(0, line.start) + line.count + c.name + line.tail + text.slice(line.end);
          const caret = line.start + line.count.length + c.name.length + line.tail.length;
          area.setSelectionRange(caret, caret);
          area.focus();
          area.dispatchEvent(new Event("input"));
          refs.suggest.replaceChildren();
        },
      }))),
  );
}

async function suggest(ctx, area) {
  const { ui } = ctx;
  const { name } = caretLine(area);
  const mine = (ui.suggestAsks || 0) + 1;
  ui.keep({ suggestAsks: mine });
  // Two letters narrow a Latin name; one kanji or kana already does.
  if (!name || /^\d+$/.test(name) || (name.length < 2 && /^[\x00-\x7f]$/.test(name)) || name.startsWith("ydke:")) {
    paintSuggestions(ctx, area, []);
    return;
  }
  const res = await api("GET", `/api/cards/suggest?q=${encodeURIComponent(name.slice(0, 80))}&lang=${encodeURIComponent(lang())}`);
  if (mine !== ui.suggestAsks) return; // a later ask is on its way
  paintSuggestions(ctx, area, res.ok ? (res.body.cards || []).filter((c) => c.name !== name) : []);
}

// A .ydk file from the phone (the deck builders' export) goes into the box as its text.
function ydkPicker(area) {
  const input = h("input", {
    type: "file",
    accept: ".ydk,text/plain",
    testid: "deck-list-ydk",
    onchange: async (e) => {
      const file = e.target.files && e.target.files[0];
      if (!file) return;
      area.value = (await file.text()).slice(0, 8000);
      area.dispatchEvent(new Event("input"));
    },
  });
  return h("label", { class: "field" }, h("span", { text: t("list.ydk_file") }), input);
}

function deckListForm(ctx) {
  const { s, view, ui, send } = ctx;
  const form = (ui.forms.list ||= {});
  const deck = get(s, `decks.${view.seat}`, {}) || {};
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
      ui.keep({ listTimer: setTimeout(() => checkList(ctx), 350) });
      clearTimeout(ui.suggestTimer);
      ui.keep({ suggestTimer: setTimeout(() => suggest(ctx, area), 250) });
    },
  });
  // At an event table the player's list for the event is the one the table takes (R2.6): the
  // form starts with it.
  loadEventList(ctx);
  const bound = ui.eventList && ui.eventList.text;
  if (bound && form.text === undefined) {
    form.text = bound;
    clearTimeout(ui.listTimer);
    ui.keep({ listTimer: setTimeout(() => checkList(ctx), 0) });
  }
  area.value = form.text ?? ""; // a textarea's text is its value, not an attribute
  ui.keep({
    listRefs: {
      counts: h("p", { class: "muted", testid: "deck-list-counts", "aria-live": "polite" }),
      problems: h("ul", { class: "list-problems", testid: "deck-list-problems", "aria-live": "polite" }),
      cards: h("ul", { class: "list-cards", testid: "deck-list-cards", "aria-label": t("list.cards") }),
      suggest: h("ul", { class: "list-suggest", testid: "deck-list-suggest", "aria-label": t("list.suggest") }),
    },
  });
  paintListCheck(ctx);
  const banlist = s.banlist;
  return h("div", { class: "deck-list", testid: "deck-list" },
    h("h3", { text: t("list.title") }),
    h("p", { class: "muted", testid: "deck-list-banlist", text: banlist && banlist.name ? t("list.banlist", { name: banlist.name }) : t("list.no_banlist") }),
    banlistPicker(ctx),
    bound ? h("p", { class: "status-line", testid: "deck-list-event", text: t("list.event_list") }) : null,
    h("label", { class: "field" }, h("span", { text: t("list.paste") }), area),
    ui.listRefs.suggest,
    ydkPicker(area),
    // The button sits above what the check paints (counts, problems, a row per card), so a
    // check that answers while the finger is on its way does not move it.
    h("button", {
      class: "btn btn-primary btn-wide",
      testid: "deck-list-register",
      onclick: () => send("deck.register", { text: form.text || "" }),
      text: registered ? t("list.register_again") : t("list.register"),
    }),
    registered ? h("p", { class: "status-line ok", testid: "deck-list-mine", text: t("list.mine", { counts: countsText(deck.declared) }) }) : null,
    ui.listRefs.counts,
    ui.listRefs.problems,
    ui.listRefs.cards,
  );
}

// The list registered for this seat's player at the table's event (R2.6), asked once.
function loadEventList(ctx) {
  const { s, ui, code, token } = ctx;
  if (ui.eventList !== null || !token || !get(s, "ruleset.staff_start", false)) return;
  ui.keep({ eventList: {} });
  api("GET", `/api/tables/${encodeURIComponent(code)}/decklist/event`, undefined, token).then((res) => {
    if (res.ok && res.body.text) ui.set({ eventList: res.body });
  });
}

// A casual table picks its ban list here (R2.5), before either seat registers a list; an
// event table uses its event's list and shows no picker.
function loadBanlists(ctx) {
  const { s, ui, token } = ctx;
  if (ui.banlists !== null || !token) return;
  ui.keep({ banlists: [] });
  if (get(s, "ruleset.staff_start", false)) return; // an event table: its event's list
  api("GET", "/api/banlists").then((lists) => {
    if (!lists.ok) return;
    const casual = (lists.body.banlists || []).filter((b) => b.event_id === null || b.event_id === undefined);
    if (!casual.length) return;
    ui.set({ banlists: casual });
  });
}

function banlistPicker(ctx) {
  const { s, ui, code, token } = ctx;
  loadBanlists(ctx);
  const lists = ui.banlists || [];
  if (!lists.length || Object.values(s.decks || {}).some((d) => d && d.cards)) return null;
  const current = (s.banlist && s.banlist.name) || "";
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
