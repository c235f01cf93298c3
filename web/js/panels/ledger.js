// The score sheet: every confirmed LP entry, newest first, grouped by duel, with a link to
// the printable sheet.

import { formatTime, h } from "../dom.js";
import { lang, t } from "../i18n.js";
import { sheetHref } from "../sheet_link.js";
import { get } from "../state.js";
import { changesText, seatName } from "./kit.js";

export const name = "ledger";
export const reads = ["ledger", "seats"];

export function render({ s, code }) {
  const ledger = Array.isArray(s.ledger) ? s.ledger : [];
  const head = h("div", { class: "ledger-head" },
    h("span", { text: t("ledger.entry") }),
    h("span", { class: "num", text: seatName(s, "A") }),
    h("span", { class: "num", text: seatName(s, "B") }),
  );
  const rows = [];
  let lastDuel = null;
  for (const e of [...ledger].reverse()) {
    if (e.duel !== lastDuel && e.duel != null) {
      rows.push(h("li", { class: "ledger-duel", text: t("duel.no", { n: e.duel }) }));
      lastDuel = e.duel;
    }
    const who = [t("ledger.by", { name: seatName(s, e.by) })];
    if (e.confirmed_by) {
      const cb = String(e.confirmed_by);
      who.push(t("ledger.confirmed_by", { name: seatName(s, cb) }));
    }
    rows.push(
      h("li", { class: "ledger-row", testid: "ledger-row", dataset: { entry: String(e.entry) } },
        h("div", { class: "ledger-main" },
          h("span", { class: "ledger-what" }, h("span", { class: "entry-no", text: `#${e.entry}` }), " ", changesText(s, e.changes, null)),
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
