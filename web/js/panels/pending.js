// The LP entries waiting for the other seat's yes, with the LP each would leave.

import { h } from "../dom.js";
import { t } from "../i18n.js";
import { applyChanges } from "../lp.js";
import { get } from "../state.js";
import { changesText, openPending, seatName } from "./kit.js";

export const name = "pending";
export const reads = ["pending", "lp", "seats"];
// Entries made offline wait in the phone's queue (ui.unsent): listed after the server's, until sent.
export const local = ["unsent", "status"];

export function render({ s, view, ui, send }) {
  const pending = openPending(s);
  const unsent = view.isSeat && ui.status !== "online" ? ui.unsent || [] : [];
  if (!pending.length && !unsent.length) return null;
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
  return h("section", { class: "card", "aria-label": t("pending.title") }, h("h2", { text: t("pending.title") }), h("ul", { class: "list", testid: "pending-list" }, rows));
}
