// The LP ledger of one table for a judge, a page at a time: each page is fetched by range
// (GET /api/tables/<code>/ledger?from=&limit=), so a long match's sheet never travels whole.
// The newest page follows the table live; "earlier" / "later" step through the rest.

import { formatTime, h } from "../dom.js";
import { t } from "../i18n.js";
import { call, refusal } from "../staff/common.js";
import { whoText } from "../words.js";

export const PAGE = 50;

const SIGN = { damage: "\u2212", cost: "\u2212", gain: "+", set: "=" };

function changeText(c) {
  return c.kind === "halve" ? `${c.seat} \u00bd` : `${c.seat} ${SIGN[c.kind] || c.kind}${c.amount}`;
}

function row(e) {
  return h("tr", { testid: "jl-row", dataset: { entry: String(e.entry) } },
    h("td", { class: "num", text: `#${e.entry}` }),
    h("td", { class: "num", text: String(e.duel) }),
    h("td", { class: "num", text: e.turn ? String(e.turn) : "" }),
    h("td", { text: (e.changes || []).map(changeText).join(" \u00b7 ") }),
    h("td", { class: "num", text: `${e.lp.A} / ${e.lp.B}` }),
    h("td", { class: "muted", text: [whoText(e.by), whoText(e.confirmed_by), formatTime(e.at_ms), e.note || null].filter(Boolean).join(" \u00b7 ") }));
}

/** The ledger card of table `code`; `conn` (the table's socket) tells it when the table moves. */
export function ledgerPages(code, conn) {
  let start = null; // null: follow the newest page
  let shown = null; // the last answer shown
  let asked = 0; // answers to older requests are dropped
  let lastCount = -1;
  const status = h("span", { class: "muted num", testid: "jl-range", "aria-live": "polite" });
  const earlier = h("button", { class: "btn btn-small", type: "button", testid: "jl-earlier", text: t("staff.ledger_earlier") });
  const later = h("button", { class: "btn btn-small", type: "button", testid: "jl-later", text: t("staff.ledger_later") });
  const body = h("tbody", {});
  const table = h("table", { class: "staff-table jl-table" },
    h("thead", {}, h("tr", {},
      ["#", t("staff.duel"), t("staff.ledger_turn"), t("staff.ledger_change"), "LP A / B", ""].map((x) => h("th", { text: x })))),
    body);
  const empty = h("p", { class: "muted", testid: "jl-empty", text: t("staff.ledger_empty") });
  const box = h("section", { class: "card", testid: "judge-ledger" },
    h("h2", { text: t("staff.ledger") }),
    h("div", { class: "row jl-nav" }, earlier, status, later),
    table, empty);

  const get = async (query) => {
    const res = await call("GET", `/api/tables/${encodeURIComponent(code)}/ledger${query}`);
    if (!res.ok) throw res.body;
    return res.body;
  };

  function show(page) {
    shown = page;
    body.replaceChildren(...page.rows.map(row));
    const to = page.from + page.rows.length;
    status.textContent = page.total
      ? t("staff.ledger_range", { from: page.from + 1, to, total: page.total })
      : "";
    table.hidden = !page.rows.length;
    empty.hidden = page.total > 0;
    earlier.disabled = page.from <= 0;
    later.disabled = to >= page.total;
    box.dataset.from = String(page.from);
    box.dataset.total = String(page.total);
  }

  async function load() {
    const mine = ++asked;
    try {
      let page;
      if (start === null) {
        // The newest page, aligned on PAGE so "earlier" steps through whole pages.
        page = await get(`?limit=${PAGE}`);
        const last = Math.floor(Math.max(page.total - 1, 0) / PAGE) * PAGE;
        if (page.from !== last) page = await get(`?from=${last}&limit=${PAGE}`);
      } else {
        page = await get(`?from=${start}&limit=${PAGE}`);
      }
      if (mine === asked) show(page);
    } catch (e) {
      if (mine === asked) status.textContent = refusal(e);
    }
  }

  earlier.onclick = () => {
    if (!shown) return;
    start = Math.max(0, shown.from - PAGE);
    load();
  };
  later.onclick = () => {
    if (!shown) return;
    const next = shown.from + PAGE;
    // The page that holds the newest row follows the table again.
    start = next + PAGE >= shown.total ? null : next;
    load();
  };

  conn.on("state", (msg) => {
    const count = Array.isArray(msg.state && msg.state.ledger) ? msg.state.ledger.length : null;
    if (count !== null && count === lastCount) return;
    lastCount = count === null ? -1 : count;
    if (start === null || !shown) load();
  });
  load();
  return box;
}
