// Judge calls: what is open, and for a seat the button (and reason) to call one.

import { h } from "../dom.js";
import { callReason, t } from "../i18n.js";
import { get } from "../state.js";
import { card, may, seatName } from "./kit.js";

export const name = "judge";
export const reads = ["calls", "seats", "ruleset", "may_send"];
export const local = ["judgeOpen"];

export function render({ s, view, ui, send }) {
  const calls = (s.calls || []).filter((c) => c && c.status !== "closed");
  // A casual table has no judge to come: say what the players can do instead of "waiting".
  const casual = !get(s, "ruleset.staff_start", false);
  const parts = [];
  for (const c of calls) {
    const coming = c.status === "acknowledged";
    const called = casual ? t("judge.called_casual", { name: seatName(s, c.seat) }) : t("judge.called", { name: seatName(s, c.seat) });
    parts.push(h("p", { class: ["status-line", coming ? "ok" : "attention"], testid: "judge-status", dataset: { status: c.status || "", casual: String(casual) },
      text: `${coming ? t("judge.coming") : called}${c.judge && coming ? ` (${c.judge})` : ""}${c.reason ? ` \u2014 ${callReason(c.reason, c)}` : ""}` }));
  }
  // A seat calls a judge while the rules let it (open calls are capped: `judge.call`).
  if (view.isSeat && may(s, "judge.call")) {
    if (!ui.judgeOpen) {
      parts.push(h("button", { class: "btn btn-wide", testid: "call-judge", onclick: () => { ui.set({ judgeOpen: true }); }, text: `\u2691 ${t("judge.call")}` }));
    } else {
      const form = (ui.forms.judge ||= { reason: "" });
      parts.push(
        h("label", { class: "field", for: "f-judge" }, h("span", { text: t("judge.reason") }),
          h("input", { id: "f-judge", type: "text", maxlength: "200", testid: "judge-reason", value: form.reason, oninput: (e) => (form.reason = e.target.value) }),
        ),
        h("div", { class: "row" },
          h("button", { class: "btn", testid: "judge-cancel", onclick: () => { ui.set({ judgeOpen: false }); }, text: t("common.cancel") }),
          h("button", { class: "btn btn-primary", testid: "judge-send", onclick: () => { send("judge.call", { reason: form.reason || "" }); form.reason = ""; ui.set({ judgeOpen: false }); }, text: t("judge.send") }),
        ),
      );
    }
  }
  if (!parts.length) return null;
  return card(t("judge.title"), "judge", parts);
}
