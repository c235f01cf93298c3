// Disputed LP entries and penalties at this table, as the players see them.

import { h } from "../dom.js";
import { has, t } from "../i18n.js";
import { get } from "../state.js";
import { card, changesText, seatName } from "./kit.js";

export const name = "disputes";
export const reads = ["disputes", "penalties", "seats", "ruleset"];

export function render({ s }) {
  const disputes = Array.isArray(s.disputes) ? s.disputes : [];
  const penalties = Array.isArray(s.penalties) ? s.penalties : [];
  if (!disputes.length && !penalties.length) return null;
  const parts = [];
  for (const d of disputes) {
    const status = d.status || (d.settled ? "settled" : "open");
    const statusKey = status === "open" && !get(s, "ruleset.staff_start", false) ? "open_casual" : status === "corrected" && d.judge ? "corrected_judge" : status;
    parts.push(h("li", { class: "dispute", testid: "dispute-row", dataset: { entry: String(d.entry ?? ""), status } },
      h("span", { text: `${d.entry != null ? `#${d.entry} ` : ""}${d.changes ? changesText(s, d.changes, null) : ""}` }),
      h("span", { class: "muted", text: [d.by ? t("ledger.by", { name: seatName(s, d.by) }) : null, d.reason || null, t(`dispute.${statusKey}`), d.action ? t(`dispute.action_${d.action}`) : null, d.note || null].filter(Boolean).join(" \u00b7 ") }),
    ));
  }
  for (const p of penalties) {
    parts.push(h("li", { class: "dispute", testid: "penalty-row" },
      h("span", { text: `${seatName(s, p.seat)}: ${t(`penalty.${p.level}`)}` }),
      h("span", { class: "muted", text: [p.infraction ? (has(`staff.inf.${p.infraction}`) ? t(`staff.inf.${p.infraction}`) : String(p.infraction)) : null, p.note || null].filter(Boolean).join(" \u00b7 ") }),
    ));
  }
  return card(t("disputes.title"), "disputes", h("ul", { class: "list" }, parts));
}
