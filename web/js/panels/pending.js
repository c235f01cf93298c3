// The LP entries waiting for the other seat's yes, with the LP each would leave; and, while an
// entry of this duel is under dispute, what holds the rest (R1.4, R7.1): nothing behind it
// applies until the judge rules (an event) or the players settle it (a casual table).

import { h } from "../dom.js";
import { t } from "../i18n.js";
import { applyChanges } from "../lp.js";
import { get } from "../state.js";
import { changesText, openPending, seatName } from "./kit.js";

export const name = "pending";
export const reads = ["pending", "lp", "seats", "disputes", "duel_no", "ruleset"];
// Entries made offline wait in the phone's queue (the store's link.unsent): listed after the
// server's, until sent.
export const link = ["unsent", "status"];

function holdLine(s) {
  const open = (get(s, "disputes", []) || []).filter((d) => d.status === "open" && d.duel === s.duel_no);
  if (!open.length) return null;
  const first = open.reduce((a, d) => (d.entry < a.entry ? d : a), open[0]);
  const behind = (get(s, "pending", []) || []).filter((p) => p.confirmed && p.entry > first.entry).length;
  const casual = !get(s, "ruleset.staff_start", false);
  const text = [t(casual ? "hold.casual" : "hold.judge", { n: first.entry }), behind ? t("hold.behind", { k: behind }) : null].filter(Boolean).join(" ");
  return h("p", { class: "status-line attention", testid: "dispute-hold", role: "status", dataset: { entry: String(first.entry) }, text });
}

export function render({ s, view, link, send }) {
  const pending = openPending(s);
  const hold = holdLine(s);
  const unsent = view.isSeat && link.status !== "online" ? link.unsent || [] : [];
  if (!pending.length && !unsent.length) return hold ? h("section", { class: "card", "aria-label": t("pending.title") }, hold) : null;
  let lp = { ...get(s, "lp", {}) };
  const rows = pending.map((p) => {
    const before = lp;
    lp = applyChanges(lp, p.changes);
    const mineP = view.isSeat && p.by === view.seat;
    const theirs = view.isSeat && p.by !== view.seat;
    return h(
      "li",
      { class: ["pending", theirs && "pending-theirs"], testid: "pending-entry", dataset: { entry: String(p.entry), by: p.by || "" } },
      h("div", { class: "pending-main" },
        h("span", { class: "entry-no", text: `#${p.entry}` }),
        h("span", { class: "pending-text", text: changesText(s, p.changes, before) }),
      ),
      h("div", { class: "pending-after muted", text: t("pending.after", { a: seatName(s, "A"), la: lp.A, b: seatName(s, "B"), lb: lp.B }) }),
      h("div", { class: "pending-foot" },
        h("span", { class: "muted", text: mineP ? t("pending.waiting") : theirs ? t("pending.yours_to_confirm") : t("pending.by", { name: seatName(s, p.by) }) }),
        mineP
          ? h("button", { class: "btn btn-small", testid: "withdraw-entry", dataset: { entry: String(p.entry) }, onclick: () => send("lp.withdraw", { entry: p.entry }), text: t("pending.withdraw") })
          : null,
      ),
    );
  });
  for (const u of unsent) {
    const before = lp;
    lp = applyChanges(lp, u.changes);
    rows.push(
      h(
        "li",
        { class: "pending pending-unsent", testid: "unsent-entry", dataset: { command: u.id } },
        h("div", { class: "pending-main" }, h("span", { class: "pending-text", text: changesText(s, u.changes, before) })),
        h("div", { class: "pending-after muted", text: t("pending.after", { a: seatName(s, "A"), la: lp.A, b: seatName(s, "B"), lb: lp.B }) }),
        h("div", { class: "pending-foot" }, h("span", { class: "muted", text: t("pending.unsent") })),
      ),
    );
  }
  return h("section", { class: "card", "aria-label": t("pending.title") }, h("h2", { text: t("pending.title") }), hold, h("ul", { class: "list", testid: "pending-list" }, rows));
}
