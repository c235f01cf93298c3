// The router and the home and join screens. "/" is home; "/t/<CODE>" is a table: the join screen
// when this phone holds no seat there (unless it chose to watch), else the table itself.

import { cancelSeatRequest, createTable, disownSeat, getSeatRequest, getTable, getTableEvent, joinTable, recoverTable } from "./api.js";
import { h } from "./dom.js";
import { has, initLang, onLangChange, t } from "./i18n.js";
import { get } from "./state.js";
import { insecureNote } from "./panels/share.js";
import { showSeatLost } from "./seat_asks.js";
import { forgetSeat, getSeat, listSeats, normaliseCode, saveSeat } from "./seats.js";
import { deviceId, mountDuo } from "./duo.js";
import { langSelect, mountTable } from "./table.js";
import { errorText, toast, toastError } from "./toast.js";

const root = document.getElementById("app");
let current = null; // the mounted screen: {destroy}
let routeToken = 0;

/** Go to a path inside the app without reloading. */
export function navigate(path, { replace = false } = {}) {
  if (replace) history.replaceState(null, "", path);
  else history.pushState(null, "", path);
  route();
}

function unmount() {
  if (current && current.destroy) current.destroy();
  current = null;
}

function route() {
  unmount();
  const token = ++routeToken;
  const m = location.pathname.match(/^\/t\/([^/]+)\/?$/);
  if (m) {
    const code = normaliseCode(decodeURIComponent(m[1]));
    if (!code) return showNotFound(m[1]);
    if (location.pathname !== `/t/${code}`) history.replaceState(null, "", `/t/${code}${location.search}`);
    return openTable(code, token);
  }
  if (location.pathname !== "/") history.replaceState(null, "", "/");
  return showHome();
}

// --- home ---------------------------------------------------------------------------------------

function showHome() {
  document.title = t("app.name");
  let busy = false;
  const newTable = async (btn) => {
    if (busy) return;
    busy = true;
    btn.disabled = true;
    const res = await createTable(matchLength.minutes() ? { match_minutes: matchLength.minutes() } : {});
    busy = false;
    btn.disabled = false;
    if (!res.ok || !res.body.code) return toastError(res.body);
    navigate(`/t/${res.body.code}`);
  };
  const codeInput = h("input", {
    id: "f-code",
    type: "text",
    testid: "join-code",
    autocomplete: "off",
    autocapitalize: "characters",
    spellcheck: "false",
    maxlength: "8",
    placeholder: "K7QF2M",
    "aria-describedby": "code-err",
  });
  const codeErr = h("p", { id: "code-err", class: "form-error", testid: "join-code-error", role: "alert" });
  const join = () => {
    const code = normaliseCode(codeInput.value);
    if (!code) {
      codeErr.textContent = t("home.bad_code");
      return;
    }
    navigate(`/t/${code}`);
  };
  codeInput.addEventListener("keydown", (e) => e.key === "Enter" && join());
  // A table card's QR of another round (or a wrong one) leads here, with no table code.
  if (new URLSearchParams(location.search).get("card") === "invalid") toast(t("home.card_invalid"), "error", 10000);
  const held = listSeats();
  const newBtn = h("button", { class: "btn btn-primary btn-wide btn-big", testid: "new-table", text: t("home.new_table") });
  newBtn.addEventListener("click", () => newTable(newBtn));
  const matchLength = matchLengthField();
  const screen = h(
    "main",
    { class: "home", testid: "home-screen" },
    h("header", { class: "bar" }, h("h1", { class: "brand", text: t("app.name") }), langSelect()),
    h("p", { class: "muted lead", text: t("home.lead") }),
    insecureNote(),
    matchLength.node,
    newBtn,
    h(
      "section",
      { class: "card", "aria-label": t("home.join_title") },
      h("h2", { text: t("home.join_title") }),
      h("label", { class: "field", for: "f-code" }, h("span", { text: t("home.code_label") }), codeInput),
      codeErr,
      h("button", { class: "btn btn-wide", testid: "join-go", onclick: join, text: t("home.join") }),
    ),
    h(
      "section",
      { class: "card", "aria-label": t("home.my_tables") },
      h("h2", { text: t("home.my_tables") }),
      held.length
        ? h(
            "ul",
            { class: "list", testid: "my-tables" },
            held.map((s) =>
              h(
                "li",
                { class: "my-table", testid: "my-table", dataset: { code: s.code } },
                h("a", { class: "my-table-link", href: `/t/${s.code}`, testid: "my-table-open", onclick: (e) => { e.preventDefault(); navigate(`/t/${s.code}`); } },
                  h("b", { text: s.code }),
                  h("span", { class: "muted", text: ` ${t("role.seat", { seat: s.seat })} \u00b7 ${s.name || ""}` }),
                ),
                h("button", {
                  class: "btn btn-small btn-quiet",
                  testid: "my-table-forget",
                  "aria-label": t("home.forget", { code: s.code }),
                  onclick: () => {
                    // This phone gives the seat up: at a casual table the opponent can then move
                    // it to the player's new phone at once (an event table's judges move seats).
                    for (const tok of [s.token, s.duo && s.duo.token]) if (tok) disownSeat(s.code, tok);
                    forgetSeat(s.code);
                    route();
                  },
                  text: "\u2715",
                }),
              ),
            ),
          )
        : h("p", { class: "muted", testid: "my-tables-empty", text: t("home.none") }),
    ),
  );
  root.replaceChildren(screen);
  current = { destroy: onLangChange(() => route()) };
}

// The match length of a new casual table: 40 minutes (the rules' own), 50, 30 or any other.
const MATCH_LENGTHS = ["40", "50", "30"];

function matchLengthField() {
  const custom = h("input", { id: "f-match-custom", type: "number", inputmode: "numeric", min: "1", max: "600", testid: "match-minutes-custom", value: "45", hidden: true, "aria-label": t("home.custom_minutes") });
  const choice = h(
    "select",
    { id: "f-match-length", testid: "match-length" },
    MATCH_LENGTHS.map((m) => h("option", { value: m, text: t("home.minutes", { n: m }) })),
    h("option", { value: "custom", text: t("home.custom") }),
  );
  choice.addEventListener("change", () => {
    custom.hidden = choice.value !== "custom";
    if (!custom.hidden) custom.focus();
  });
  const minutes = () => {
    const n = choice.value === "custom" ? Number(custom.value) : Number(choice.value);
    return Number.isFinite(n) && n >= 1 && n <= 600 ? n : null;
  };
  const node = h("div", { class: "field match-length" },
    h("label", { for: "f-match-length", text: t("home.match_length") }),
    h("div", { class: "row" }, choice, custom),
  );
  return { node, minutes };
}

// --- a table: join or open ------------------------------------------------------------------------

async function openTable(code, token) {
  document.title = `${code} \u00b7 ${t("app.name")}`;
  const seat = getSeat(code);
  const watching = new URLSearchParams(location.search).has("watch");
  if (seat && seat.token && seat.duo) return mountBoth(code, seat.token, seat.duo.token);
  if (seat && seat.token) return mountSeat(code, seat.token);
  root.replaceChildren(h("main", { class: "loading", testid: "loading", text: t("table.connecting") }));
  const card = new URLSearchParams(location.search); // a table card's QR: ?seat=A&claim=...
  const res = await getTable(code, card.get("seat"), card.get("claim"));
  if (token !== routeToken) return undefined;
  if (!res.ok) {
    if (res.status === 404 || res.body.code === "no_such_table") return showNotFound(code);
    // Spectators off: the join screen still opens (a card's claim, or a judge, seats the phone).
    if (res.status !== 0 && res.body.code !== "spectators_off") toastError(res.body);
    // offline: the table screen still opens and waits for the connection
    return watching ? mountSeat(code, null) : showJoin(code, null);
  }
  if (watching) return mountSeat(code, null);
  return showJoin(code, res.body.state || {});
}

/** A seat request waits for a judge (event table) or the other seat (casual table): poll it. */
function waitForSeat(code, request, name, retry = null) {
  const routeAt = routeToken;
  const key = request.why === "takeover" ? "join.waiting_seat" : "join.waiting_judge";
  const parts = [h("p", { role: "status", testid: "join-waiting-text", text: t(key, { seat: request.seat }) })];
  // Why it waits, in words: a mistyped player ID is the usual one, and the player fixes it here.
  if (has(`join.why_${request.why}`)) parts.push(h("p", { class: "attention", testid: "join-waiting-why", text: t(`join.why_${request.why}`) }));
  const withdraw = () => cancelSeatRequest(code, request.request, request.token);
  if (retry && request.why === "id_mismatch") {
    const fixed = h("input", { id: "f-fix-id", type: "text", maxlength: "40", autocomplete: "off", testid: "join-fix-id" });
    parts.push(
      h("label", { class: "field", for: "f-fix-id" }, h("span", { text: t("join.player_id_pairing") }), fixed),
      h("button", {
        class: "btn btn-primary btn-wide", type: "button", testid: "join-fix-go", text: t("join.fix_go"),
        onclick: async () => {
          const pid = fixed.value.trim();
          if (!pid) return fixed.focus();
          routeToken += 1; // this screen's poll stops: the new join answers
          await withdraw();
          retry(pid);
        },
      }),
    );
  }
  parts.push(h("button", {
    class: "btn btn-wide", type: "button", testid: "join-cancel", text: t("join.cancel_request"),
    onclick: async () => {
      routeToken += 1;
      await withdraw();
      navigate("/");
    },
  }));
  root.replaceChildren(h("main", { class: "loading stack", testid: "join-waiting", dataset: { why: request.why || "" } }, parts));
  const poll = async () => {
    if (routeAt !== routeToken) return;
    const res = await getSeatRequest(code, request.request, request.token);
    if (routeAt !== routeToken) return;
    const status = res.ok ? res.body.status : "";
    if (status === "approved") {
      saveSeat(code, { seat: request.seat, token: request.token, name });
      toast(t("join.seated", { seat: request.seat }), "info", 3000);
      mountSeat(code, request.token);
      return;
    }
    if (res.ok && status !== "waiting") {
      // Expired: its phone stopped asking for a minute, or five minutes passed unanswered.
      toast(t(status === "expired" ? "join.expired" : "join.refused"), "error", 5000);
      route();
      return;
    }
    setTimeout(poll, 2000);
  };
  setTimeout(poll, 2000);
}

function mountSeat(code, token) {
  unmount();
  current = mountTable(root, {
    code,
    token,
    onLeave: () => navigate("/"),
    onBadToken: (err) => {
      const held = getSeat(code);
      forgetSeat(code);
      // The seat went to another phone or a judge released it (told at once, or on the
      // phone's return when it was away): say so, offer to join again.
      if ((err && err.code === "revoked") || (held && held.seat)) {
        unmount();
        showSeatLost(root, code, held && held.seat, () => navigate(`/t/${code}`, { replace: true }));
        return;
      }
      navigate(`/t/${code}`, { replace: true });
    },
  });
}

/** One phone for both seats (table mode): seat A's half near, seat B's turned across. */
function mountBoth(code, tokenA, tokenB) {
  unmount();
  current = mountDuo(root, {
    code,
    seats: { A: tokenA, B: tokenB },
    onLeave: () => navigate("/"),
    onBadToken: () => {
      const held = getSeat(code);
      if (!held) return; // the other half has told it already
      forgetSeat(code);
      unmount();
      // Both seats went to another phone (the recovery code) or a judge released one.
      showSeatLost(root, code, held ? "A+B" : "?", () => navigate(`/t/${code}`, { replace: true }));
    },
  });
}

/** A one-phone table's recovery code, shown once (and on this phone's score sheet). */
function showRecoveryCode(recovery) {
  const note = h("div", { class: "recovery-note", role: "dialog", "aria-modal": "true", "aria-labelledby": "recovery-title", testid: "recovery-shown" },
    h("section", { class: "card" },
      h("h2", { id: "recovery-title", text: t("recover.shown_title") }),
      h("p", { class: "recovery-code", testid: "recovery-code", text: recovery }),
      h("p", { class: "muted", text: t("recover.shown_text") }),
      h("button", { class: "btn btn-primary btn-wide", testid: "recovery-ok", onclick: () => note.remove(), text: t("recover.shown_ok") }),
    ),
  );
  document.body.append(note);
  note.querySelector("button").focus();
}

function showJoin(code, state) {
  const seats = ["A", "B"].map((seat) => ({
    seat,
    taken: Boolean(get(state, `seats.${seat}.joined`, false)),
    name: get(state, `seats.${seat}.name`, ""),
  }));
  const full = seats.every((s) => s.taken);
  const nameInput = h("input", { id: "f-name", type: "text", maxlength: "40", required: true, autocomplete: "nickname", testid: "name-input", "aria-describedby": "name-err" });
  const nameB = h("input", { id: "f-name-b", type: "text", maxlength: "40", autocomplete: "off", testid: "duo-name-b", "aria-describedby": "duo-err" });
  const duoErr = h("p", { id: "duo-err", class: "form-error", testid: "duo-error", role: "alert" });
  const pidInput = h("input", { id: "f-pid", type: "text", maxlength: "40", autocomplete: "off", testid: "player-id-input" });
  const err = h("p", { id: "name-err", class: "form-error", testid: "join-error", role: "alert" });
  // R1.1: the event may require a player ID (its /event answer says so).
  const pidLabel = h("span", { testid: "player-id-label", text: t("join.player_id") });
  let pidRequired = false;
  try {
    nameInput.value = localStorage.getItem("dt.name") || "";
    pidInput.value = localStorage.getItem("dt.player_id") || "";
  } catch {
    /* storage blocked */
  }
  // A table card's QR code names the seat (?seat=A); an event table may know its pairing.
  const wanted = new URLSearchParams(location.search).get("seat");
  const claim = new URLSearchParams(location.search).get("claim") || "";
  const eventLine = h("p", { class: "status-line", testid: "join-event", hidden: true });
  // Only an event table has an event to look up (a casual one would answer 404).
  const eventTable = Boolean(get(state, "ruleset.staff_start", false));
  (eventTable ? getTableEvent(code, wanted, claim) : Promise.resolve({ ok: false })).then((res) => {
    if (!res.ok) return;
    const info = res.body;
    duoCard.remove(); // one phone for both: a casual table's choice (an event seat needs its card)
    recoverCard.remove();
    eventLine.textContent = t("join.event_table", {
      event: get(info, "event.name", ""),
      round: info.round,
      number: info.number,
    });
    eventLine.hidden = false;
    if (info.require_player_id) {
      pidRequired = true;
      pidInput.required = true;
      pidInput.setAttribute("aria-describedby", "name-err");
      pidLabel.textContent = t("join.player_id_required");
    }
    // The card's claim gives this seat's name, never its player ID: the player types it (the
    // phone remembers its own), and the ID is what tells this round's player apart.
    const paired = wanted && get(info, `pairing.${wanted}`, null);
    if (paired && paired.name) {
      nameInput.value = paired.name;
      if (paired.id_needed) {
        pidRequired = true;
        pidInput.required = true;
        pidLabel.textContent = t("join.player_id_pairing");
      }
    }
  });
  let busy = false;
  const take = async (seat, takeover = false) => {
    const name = nameInput.value.trim();
    if (!name) {
      err.textContent = t("join.name_required");
      nameInput.focus();
      return;
    }
    if (name.length > 40) {
      err.textContent = t("join.name_long");
      return;
    }
    const player_id = pidInput.value.trim();
    if (pidRequired && !player_id) {
      err.textContent = t("err.player_id_required");
      pidInput.focus();
      return;
    }
    if (busy) return;
    busy = true;
    const body = { seat, name };
    if (player_id) body.player_id = player_id;
    if (claim && seat === wanted) body.claim = claim;
    if (takeover) body.takeover = true;
    const res = await joinTable(code, body);
    busy = false;
    if (res.status === 202 && res.body.request) {
      // A mistyped ID is corrected on the waiting screen: the same join again with it.
      waitForSeat(code, res.body, name, (pid) => {
        pidInput.value = pid;
        take(seat, takeover);
      });
      return;
    }
    if (!res.ok || !res.body.token) {
      toastError(res.body);
      if (res.body.code === "player_id_required") {
        err.textContent = t("err.player_id_required");
        pidInput.required = true;
        pidLabel.textContent = t("join.player_id_required");
        pidInput.focus();
      }
      if (res.body.code === "seat_taken" || res.body.code === "table_full") route();
      return;
    }
    try {
      localStorage.setItem("dt.name", name);
      localStorage.setItem("dt.player_id", player_id);
    } catch {
      /* storage blocked */
    }
    saveSeat(code, { seat: res.body.seat || seat, token: res.body.token, name });
    toast(t("join.seated", { seat: res.body.seat || seat }), "info", 3000);
    mountSeat(code, res.body.token);
  };
  // One phone for both players: both seats, two joins with one device id, both names asked.
  const takeBoth = async () => {
    const a = nameInput.value.trim();
    const b = nameB.value.trim();
    if (!a || !b) {
      duoErr.textContent = t("duo.names_required");
      (a ? nameB : nameInput).focus();
      return;
    }
    if (busy) return;
    busy = true;
    const device = deviceId();
    const first = await joinTable(code, { seat: "A", name: a, device });
    // Only seats taken at once (201): a request waiting for approval is not a seat.
    const seated = (res) => res && res.status === 201 && res.body.token;
    const second = seated(first) ? await joinTable(code, { seat: "B", name: b, device }) : null;
    busy = false;
    if (!seated(first)) {
      toastError(first.status === 202 ? { code: "duo_event" } : first.body);
      if (first.body.code === "seat_taken" || first.body.code === "table_full") route();
      return;
    }
    if (!seated(second)) {
      // Seat A is this phone's now; seat B went elsewhere: go on as seat A alone.
      toastError((second && second.body) || {});
      saveSeat(code, { seat: "A", token: first.body.token, name: a });
      mountSeat(code, first.body.token);
      return;
    }
    try {
      localStorage.setItem("dt.name", a);
    } catch {
      /* storage blocked */
    }
    const recovery = second.body.recovery || "";
    saveSeat(code, { seat: "A", token: first.body.token, name: a, duo: { seat: "B", token: second.body.token, name: b, recovery } });
    mountBoth(code, first.body.token, second.body.token);
    if (recovery) showRecoveryCode(recovery);
  };
  // A one-phone table whose phone is lost: its recovery code moves both seats here.
  const recoverInput = h("input", { id: "f-recover", type: "text", maxlength: "20", autocomplete: "off", autocapitalize: "characters", spellcheck: "false", testid: "recover-input", placeholder: "XXXX-XXXX-XXXX" });
  const recoverErr = h("p", { class: "form-error", testid: "recover-error", role: "alert" });
  const recover = async () => {
    if (busy) return;
    busy = true;
    const device = deviceId();
    const res = await recoverTable(code, { recovery: recoverInput.value.trim() || "-", device });
    busy = false;
    if (!res.ok || !res.body.seats) {
      recoverErr.textContent = errorText(res.body);
      return;
    }
    const tokens = res.body.seats;
    const names = res.body.names || {};
    saveSeat(code, { seat: "A", token: tokens.A, name: names.A || "", duo: { seat: "B", token: tokens.B, name: names.B || "", recovery: res.body.recovery || "" } });
    toast(t("recover.done"), "info", 3000);
    mountBoth(code, tokens.A, tokens.B);
    if (res.body.recovery) showRecoveryCode(res.body.recovery);
  };
  const recoverCard = full
    ? h("section", { class: "card", testid: "recover-card", "aria-labelledby": "recover-title" },
        h("h2", { id: "recover-title", text: t("recover.title") }),
        h("p", { class: "muted", text: t("recover.text") }),
        h("label", { class: "field", for: "f-recover" }, h("span", { text: t("recover.code") }), recoverInput),
        recoverErr,
        h("button", { class: "btn btn-wide", testid: "recover-go", onclick: recover, text: t("recover.go") }),
      )
    : h("span", { hidden: true });
  const free = seats.every((s) => !s.taken);
  const duoCard = free
    ? h(
        "section",
        { class: "card duo-join", testid: "duo-join", "aria-labelledby": "duo-join-title" },
        h("h2", { id: "duo-join-title", text: t("duo.title") }),
        h("p", { class: "muted", text: t("duo.text") }),
        h("label", { class: "field", for: "f-name-b" }, h("span", { text: t("duo.name_b") }), nameB),
        duoErr,
        h("button", { class: "btn btn-wide", testid: "duo-start", onclick: takeBoth, text: t("duo.start") }),
      )
    : h("span", { hidden: true });
  const watch = () => navigate(`/t/${code}?watch`);
  const screen = h(
    "main",
    { class: "join", testid: "join-screen" },
    h("header", { class: "bar" },
      h("button", { class: "icon-btn", testid: "go-home", "aria-label": t("nav.home"), onclick: () => navigate("/"), text: "\u2190" }),
      h("span", { class: "bar-code", testid: "table-code", text: code }),
      langSelect(),
    ),
    h("h1", { text: t("join.title", { code }) }),
    eventLine,
    full ? h("p", { class: "status-line attention", testid: "table-full", text: t("join.full") }) : null,
    h(
          "section",
          { class: "card", "aria-label": t("join.take_title") },
          h("label", { class: "field", for: "f-name" }, h("span", { text: t("join.name") }), nameInput),
          h("label", { class: "field", for: "f-pid" }, pidLabel, pidInput),
          err,
          h("div", { class: "seats-pick" },
            seats.map((s) =>
              h("button", {
                class: ["btn", "btn-big", !s.taken && (!wanted || wanted === s.seat) && "btn-primary"],
                testid: `take-seat-${s.seat}`,
                // A taken seat can be asked for (a new phone): the other seat or a judge confirms.
                onclick: () => take(s.seat, s.taken),
                text: s.taken ? t("join.seat_taken_ask", { seat: s.seat, name: s.name || "?" }) : t("join.take_seat", { seat: s.seat }),
              }),
            ),
          ),
        ),
    duoCard,
    recoverCard,
    h("button", { class: ["btn", "btn-wide", full && "btn-primary"], testid: "watch", onclick: watch, text: t("join.watch") }),
  );
  root.replaceChildren(screen);
  current = { destroy: onLangChange(() => route()) };
}

function showNotFound(code) {
  root.replaceChildren(
    h("main", { class: "notfound", testid: "not-found" },
      h("h1", { text: t("notfound.title") }),
      h("p", { text: t("notfound.text", { code: String(code).slice(0, 12) }) }),
      h("button", { class: "btn btn-primary btn-wide", testid: "go-home", onclick: () => navigate("/"), text: t("nav.home") }),
    ),
  );
}

// --- start ---------------------------------------------------------------------------------------

initLang();
window.addEventListener("popstate", route);
route();

// A notice on every screen while the phone has no network: what is shown may be old, and
// commands wait in the queue until the connection is back.
const offlineNote = h("p", { class: "offline-note", testid: "offline-notice", role: "status" });
function showNetwork() {
  offlineNote.hidden = navigator.onLine !== false;
  offlineNote.textContent = t("offline.notice");
}
document.body.prepend(offlineNote);
window.addEventListener("online", showNetwork);
window.addEventListener("offline", showNetwork);
onLangChange(showNetwork);
showNetwork();

if ("serviceWorker" in navigator && location.protocol !== "file:") {
  navigator.serviceWorker.register("/sw.js").catch(() => {
    /* the app still works without offline start */
  });
}
