// The organisers' app: /organiser (events, new event) and /organiser/e/<id> (one event: settings,
// judges, pairings, the round, exports, table cards).

import { formatTime, h } from "../dom.js";
import { errorText, has, lang, t } from "../i18n.js";
import { call, initStrings, loginScreen, refusal, topBar, whoami } from "../staff/common.js";
import { swissSection } from "./swiss.js";

const root = document.getElementById("app");
// A message that outlives the page's redraw after an action (the round started, ended, ...).
let flash = null;

/** What needs HTTPS and where the README says how to serve it: the organiser's note, on the
 * organiser's page only (players read what their phone cannot do, web/js/panels/share.js). */
function insecureNote() {
  if (globalThis.isSecureContext !== false) return null;
  return h("p", { class: "muted insecure-note", testid: "organiser-insecure-note", text: t("run.insecure") });
}

/** A rule set's human name (its id when the catalogue has none). */
function rulesetName(id) {
  return has(`run.ruleset.${id}`) ? t(`run.ruleset.${id}`) : id;
}

/** A refusal's reason in the reader's language when the catalogue knows its code. */
function reason(code, message) {
  return errorText({ code, message });
}

/** "End round": a dialog naming the tables still playing; resolves true to go ahead. */
function confirmEndRound(number, tables) {
  return new Promise((resolve) => {
    const dialog = h("dialog", { class: "card staff-dialog", testid: "end-round-dialog", "aria-labelledby": "end-round-title" });
    const done = (answer) => {
      dialog.close();
      dialog.remove();
      resolve(answer);
    };
    const names = (tb) => {
      const n = [tb.names.A, tb.names.B].filter(Boolean).join(` ${t("staff.vs")} `);
      return n || t("run.no_names");
    };
    dialog.append(
      h("h2", { id: "end-round-title", text: t("run.end_title", { n: number }) }),
      h("p", { text: tables.length ? t("run.end_playing", { n: tables.length }) : t("run.end_none") }),
      tables.length
        ? h("ul", { class: "staff-list", testid: "end-round-tables" }, tables.map((tb) =>
            h("li", { testid: `end-round-table-${tb.number}`, text: `${t("staff.table_no", { n: tb.number })}: ${names(tb)}` })))
        : null,
      h("div", { class: "row" },
        h("button", { class: "btn btn-danger", type: "button", testid: "end-round-confirm", text: t("run.end_confirm"), onclick: () => done(true) }),
        h("button", { class: "btn", type: "button", testid: "end-round-cancel", text: t("run.cancel"), onclick: () => done(false) })),
    );
    dialog.addEventListener("cancel", (e) => {
      e.preventDefault();
      done(false);
    });
    document.body.append(dialog);
    dialog.showModal();
  });
}

/** "Re-issue table cards": a dialog saying what it does (the printed cards seat nobody after);
 * resolves true to go ahead. */
function confirmReissue() {
  return new Promise((resolve) => {
    const dialog = h("dialog", { class: "card staff-dialog", testid: "reissue-dialog", "aria-labelledby": "reissue-title" });
    const done = (answer) => {
      dialog.close();
      dialog.remove();
      resolve(answer);
    };
    dialog.append(
      h("h2", { id: "reissue-title", text: t("run.cards_reissue_title") }),
      h("p", { text: t("run.cards_reissue_text") }),
      h("div", { class: "row" },
        h("button", { class: "btn btn-danger", type: "button", testid: "reissue-confirm", text: t("run.cards_reissue_confirm"), onclick: () => done(true) }),
        h("button", { class: "btn", type: "button", testid: "reissue-cancel", text: t("run.cancel"), onclick: () => done(false) })),
    );
    dialog.addEventListener("cancel", (e) => {
      e.preventDefault();
      done(false);
    });
    document.body.append(dialog);
    dialog.showModal();
  });
}

function navigate(path) {
  history.pushState(null, "", path);
  route();
}

function field(label, input) {
  return h("label", { class: "field" }, h("span", { text: label }), input);
}

function link(path, text, testid) {
  return h("a", {
    href: path, text, testid,
    onclick: (e) => {
      e.preventDefault();
      navigate(path);
    },
  });
}

async function showEvents() {
  const res = await call("GET", "/api/events");
  const events = res.ok ? res.body.events : [];
  const rulesets = res.ok ? res.body.rulesets : ["ocg-2008"];
  const name = h("input", { type: "text", maxlength: "80", required: true, testid: "ev-name" });
  const date = h("input", { type: "date", required: true, testid: "ev-date", value: new Date().toISOString().slice(0, 10) });
  const rules = h("select", { testid: "ev-ruleset" });
  for (const r of rulesets) rules.append(h("option", { value: r, text: rulesetName(r) }));
  // What the chosen rule set does differently, not only its year.
  const about = h("p", { class: "muted", testid: "ev-ruleset-about", "aria-live": "polite" });
  const describe = () => {
    about.textContent = has(`run.ruleset_about.${rules.value}`) ? t(`run.ruleset_about.${rules.value}`) : "";
  };
  rules.addEventListener("change", describe);
  describe();
  const minutes = h("input", { type: "number", min: "1", max: "600", value: "40", testid: "ev-minutes" });
  const tables = h("input", { type: "number", min: "1", max: "1000", value: "8", testid: "ev-tables" });
  const err = h("p", { class: "form-error", role: "alert", testid: "ev-error" });
  const create = async (e) => {
    e.preventDefault();
    const r = await call("POST", "/api/events", {
      name: name.value.trim(), date: date.value, ruleset: rules.value,
      match_minutes: Number(minutes.value), tables: Number(tables.value),
    });
    if (!r.ok) {
      err.textContent = refusal(r.body);
      return;
    }
    navigate(`/organiser/e/${r.body.id}`);
  };
  root.replaceChildren(
    topBar(t("staff.organiser")),
    h("main", { class: "staff-main" },
      h("h1", { text: t("staff.events") }),
      insecureNote(),
      events.length
        ? h("ul", { class: "staff-list" }, events.map((ev) =>
            h("li", {}, link(`/organiser/e/${ev.id}`, `${ev.name} · ${ev.date} · ${t("staff.tables_n", { n: ev.tables })}`, `event-${ev.id}`))))
        : h("p", { class: "muted", text: t("staff.no_events") }),
      h("form", { class: "card", onsubmit: create },
        h("h2", { text: t("staff.create_event") }),
        field(t("staff.event_name"), name), field(t("staff.event_date"), date), field(t("staff.ruleset"), rules), about,
        field(t("staff.match_minutes"), minutes), field(t("staff.table_count"), tables), err,
        h("button", { class: "btn btn-primary", type: "submit", testid: "ev-create", text: t("staff.create") }))),
  );
}

async function showEvent(id) {
  const res = await call("GET", `/api/events/${id}`);
  if (!res.ok) {
    root.replaceChildren(topBar(t("staff.organiser")), h("main", { class: "staff-main" }, h("p", { text: refusal(res.body) })));
    return;
  }
  const ev = res.body;
  const rnd = ev.rounds[ev.rounds.length - 1];
  const msg = h("p", { class: "staff-toast", role: "status", testid: "org-msg" });
  const say = (r, ok, bad = false) => {
    msg.textContent = r.ok ? ok : refusal(r.body);
    msg.className = r.ok && !bad ? "staff-toast ok" : "staff-toast bad";
    flash = { text: msg.textContent, className: msg.className };
  };
  if (flash) {
    msg.textContent = flash.text;
    msg.className = flash.className;
    flash = null;
  }
  const reload = () => {
    showEvent(id);
  };

  // the round cycle: the current step first, the next action as its one primary button
  const cycleBox = h("section", { class: "card cycle", testid: "cycle" });
  const hooks = {
    card: cycleBox,
    confirmEnd: confirmEndRound,
    reload: (r) => {
      if (r && r.body && r.body.refused && r.body.refused.length) {
        const list = r.body.refused.map((x) => `${t("staff.table_no", { n: x.table })} (${reason(x.code, x.message)})`).join(", ");
        say(r, `${t("staff.round_started", { n: r.body.round, time: formatTime(r.body.now_ms) })} ${t("run.round_refused", { list })}`, true);
      } else if (r && r.body && r.body.started !== undefined) {
        say(r, t("staff.round_started", { n: r.body.round, time: formatTime(r.body.now_ms) }));
      }
      reload();
    },
    ended: (r) => {
      say(r, r.ok ? t("run.ended", { n: r.body.round, count: r.body.unfinished.length }) : "");
      if (r.ok) reload();
    },
  };

  // the round
  const roundBox = h("section", { class: "card" }, h("h2", { text: t("staff.round", { n: rnd.number }) }));
  if (rnd.started_ms) roundBox.append(h("p", { testid: "round-started", text: t("staff.round_started", { n: rnd.number, time: formatTime(rnd.started_ms) }) }));
  if (rnd.ended_ms) roundBox.append(h("p", { text: t("staff.round_ended", { n: rnd.number, time: formatTime(rnd.ended_ms) }) }));
  // Before printing: where the cards' QR codes will send the phones, and a warning when no
  // phone could open it (this computer's 127.0.0.1: no Wi-Fi address and no PUBLIC_URL).
  const printsAt = h("p", { class: "muted", testid: "print-address" });
  roundBox.append(printsAt);
  call("GET", "/api/addresses").then((r) => {
    if (!r.ok) return;
    if (r.body.phones) printsAt.textContent = t("run.prints_at", { address: r.body.base });
    else {
      printsAt.className = "attention";
      printsAt.setAttribute("role", "alert");
      printsAt.dataset.testid = "print-warning";
      printsAt.textContent = t("cards.loopback", { address: r.body.base });
    }
  });
  roundBox.append(
    h("p", { class: "row" },
      // Every round of the event in one sheet, its reasons in the organiser's language.
      h("a", { class: "btn btn-small", href: `/api/events/${id}/event-results.csv?lang=${encodeURIComponent(lang())}`, download: "", testid: "export", text: t("staff.export") }),
      h("a", { class: "btn btn-small", href: `/organiser/events/${id}/cards`, target: "_blank", testid: "cards", text: t("staff.cards") }),
      h("button", {
        class: "btn btn-small btn-quiet", type: "button", testid: "cards-reissue", text: t("run.cards_reissue"),
        onclick: async () => {
          if (!(await confirmReissue())) return;
          const r = await call("POST", `/api/events/${id}/cards/reissue`);
          say(r, r.ok ? t("run.cards_reissued", { n: r.body.cards_issue }) : "");
        },
      }),
      h("a", { class: "btn btn-small", href: `/organiser/events/${id}/pairings`, target: "_blank", testid: "print-pairings", text: t("run.print_pairings") }),
      h("a", { class: "btn btn-small", href: `/organiser/events/${id}/pairings?by=name`, target: "_blank", testid: "print-pairings-by-name", text: t("run.print_pairings_by_name") }),
      h("a", { class: "btn btn-small", href: `/e/${ev.slug}`, target: "_blank", testid: "players-page", text: t("run.players_page") }),
      h("a", { class: "btn btn-small", href: `/judge/e/${id}`, testid: "floor-link", text: t("staff.open_floor") })));

  // the hall clock: a public page for a projector, and the organiser's message on it
  const hallText = h("input", { id: "f-hall-message", type: "text", maxlength: "200", testid: "hall-message-text" });
  const postHall = async (text) => {
    const r = await call("POST", `/api/events/${id}/hall/message`, { text });
    say(r, text ? t("run.hall_shown") : t("run.hall_cleared"));
    if (r.ok && !text) hallText.value = "";
  };
  const hallBox = h("section", { class: "card", testid: "hall" },
    h("h2", { text: t("run.hall") }),
    h("p", { class: "muted", text: t("run.hall_help") }),
    h("p", { class: "row" }, h("a", { class: "btn btn-small", href: `/e/${ev.slug}/hall`, target: "_blank", testid: "hall-link", text: t("run.hall_open") })),
    h("label", { class: "field", for: "f-hall-message" }, h("span", { text: t("run.hall_message") }), hallText),
    h("div", { class: "row" },
      h("button", { class: "btn", type: "button", testid: "hall-message-show", text: t("run.hall_show"), onclick: () => postHall(hallText.value.trim()) }),
      h("button", { class: "btn btn-quiet", type: "button", testid: "hall-message-clear", text: t("run.hall_clear"), onclick: () => postHall("") })));

  // settings
  const spect = h("input", { type: "checkbox", checked: ev.spectators, testid: "spectators" });
  spect.addEventListener("change", async () => {
    const r = await call("PATCH", `/api/events/${id}`, { spectators: spect.checked });
    say(r, t("staff.done"));
  });
  // R1.1: players must give a player ID to join this event's tables.
  const needPid = h("input", { type: "checkbox", checked: Boolean(ev.require_player_id), testid: "require-player-id" });
  needPid.addEventListener("change", async () => {
    const r = await call("PATCH", `/api/events/${id}`, { require_player_id: needPid.checked });
    say(r, t("staff.done"));
  });

  // judges
  const jUser = h("input", { type: "text", maxlength: "40", testid: "judge-user", autocomplete: "off" });
  const jPass = h("input", { type: "password", testid: "judge-pass", autocomplete: "new-password" });
  const judges = h("section", { class: "card" },
    h("h2", { text: t("staff.judges_of") }),
    h("ul", { class: "staff-list", testid: "staff-list" }, ev.staff.map((s) => h("li", { text: `${s.username} ${t(`run.role.${s.role}`)}` }))),
    h("form", {
      onsubmit: async (e) => {
        e.preventDefault();
        const r = await call("POST", `/api/events/${id}/judges`, { username: jUser.value.trim(), password: jPass.value });
        say(r, t("staff.done"));
        if (r.ok) reload();
      },
    }, h("div", { class: "row" }, field(t("staff.username"), jUser), field(t("staff.judge_password"), jPass),
      h("button", { class: "btn", type: "submit", testid: "judge-add", text: t("staff.add_judge") }))));

  // pairings
  const text = h("textarea", { rows: "6", testid: "pairings-text", placeholder: "1,Yugi,0001,Kaiba,0002" });
  const file = h("input", { type: "file", accept: ".csv,text/csv,text/plain", testid: "pairings-file" });
  file.addEventListener("change", async () => {
    if (file.files && file.files[0]) text.value = await file.files[0].text();
  });
  const pairings = h("section", { class: "card" },
    h("h2", { text: t("staff.pairings", { n: rnd.number }) }),
    h("p", { class: "muted", text: t("staff.pairings_help") }),
    text, field(t("staff.pairings_file"), file),
    h("button", {
      class: "btn", type: "button", testid: "pairings-save", text: t("staff.save_pairings"), disabled: Boolean(rnd.started_ms),
      onclick: async () => {
        const r = await call("POST", `/api/events/${id}/pairings`, { csv: text.value });
        say(r, r.ok ? t("staff.paired", { n: r.body.paired }) : "");
        if (r.ok) reload();
      },
    }));

  // the ban list in force (R2.5): a CSV, JSON or lflist.conf file (the list whose header is the
  // name, or the file's only one), docs/banlists.md
  const blName = h("input", { type: "text", maxlength: "80", testid: "banlist-name", value: ev.banlist ? ev.banlist.name : "" });
  const blText = h("textarea", { rows: "4", testid: "banlist-text", placeholder: "card,status\nPot of Greed,forbidden", translate: "no" }); // the file format's own words
  const blFile = h("input", { type: "file", accept: ".csv,.json,.conf,text/csv,application/json,text/plain", testid: "banlist-file" });
  blFile.addEventListener("change", async () => {
    if (blFile.files && blFile.files[0]) {
      blText.value = await blFile.files[0].text();
      if (!blName.value.trim()) blName.value = blFile.files[0].name.replace(/\.(csv|json|txt)$/i, "");
    }
  });
  const banlistBox = h("section", { class: "card", testid: "banlist" },
    h("h2", { text: t("staff.banlist_title") }),
    h("p", { class: "muted", text: t("staff.banlist_help") }),
    h("p", { testid: "banlist-current", text: ev.banlist ? t("staff.banlist_current", { name: ev.banlist.name, n: ev.banlist.size }) : t("staff.banlist_none") }),
    field(t("staff.banlist_name"), blName), field(t("staff.banlist_file"), blFile), blText,
    h("button", {
      class: "btn", type: "button", testid: "banlist-upload", text: t("staff.banlist_upload"),
      onclick: async () => {
        const filename = blFile.files && blFile.files[0] ? blFile.files[0].name : "";
        const r = await call("POST", `/api/events/${id}/banlist`, { name: blName.value.trim(), text: blText.value, filename });
        say(r, r.ok ? t("staff.banlist_loaded", { name: r.body.name, n: r.body.size, tables: r.body.applied }) : "");
        if (r.ok) setTimeout(reload, 1500);
      },
    }));

  // tables
  const table = h("table", { class: "staff-table", testid: "tables" },
    h("thead", {}, h("tr", {}, [t("staff.tables"), t("staff.code"), t("staff.players"), "A", "B"].map((x) => h("th", { text: x })))),
    h("tbody", {}, ev.tables.map((tb) => h("tr", { testid: `table-row-${tb.number}` },
      h("td", { text: String(tb.number) }),
      h("td", {}, h("a", { href: `/t/${tb.code}?watch`, text: tb.code, testid: `table-code-${tb.number}` })),
      h("td", { text: [tb.pairing.A.name, tb.pairing.B.name].filter(Boolean).join(` ${t("staff.vs")} `) }),
      h("td", {}, h("a", { href: seatHref(tb, "A"), text: "A", testid: `seat-link-${tb.number}-A` })),
      h("td", {}, h("a", { href: seatHref(tb, "B"), text: "B", testid: `seat-link-${tb.number}-B` }))))));

  root.replaceChildren(
    topBar(t("staff.organiser"), [link("/organiser", t("staff.events"), "to-events")]),
    h("main", { class: "staff-main" },
      h("h1", { testid: "event-title", text: `${ev.name} · ${ev.date}` }),
      h("p", { class: "muted", testid: "event-rules", text: `${rulesetName(ev.ruleset)} · ${t("run.minutes", { n: ev.match_minutes })}` }),
      msg, cycleBox, roundBox, hallBox, swissSection(id, ev.slug, say, hooks),
      h("section", { class: "card" },
        h("label", { class: "check-inline" }, spect, h("span", { text: t("staff.spectators") })),
        h("label", { class: "check-inline" }, needPid, h("span", { text: t("staff.require_player_id") }))),
      judges, banlistBox, pairings,
      h("section", { class: "card" }, h("h2", { text: t("staff.tables") }), table)),
  );
}

function route() {
  const m = location.pathname.match(/^\/organiser\/e\/(\d+)\/?$/);
  if (m) return showEvent(Number(m[1]));
  return showEvents();
}

async function start() {
  initStrings();
  document.title = `${t("app.name")} \u00b7 ${t("staff.organiser")}`;
  if (!(await whoami())) await loginScreen(root, t("staff.organiser"));
  addEventListener("popstate", route);
  route();
}

start();

/** A seat's join link, with the table card's claim when the server gave it (organisers). */
function seatHref(tb, seat) {
  const claim = tb.claims && tb.claims[seat];
  return `/t/${tb.code}?seat=${seat}` + (claim ? `&claim=${encodeURIComponent(claim)}` : "");
}
