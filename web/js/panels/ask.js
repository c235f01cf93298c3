// The banner fixed at the bottom: confirm the opponent's LP entry (or reject it with a reason),
// or, for the proposer, the opponent's rejection and at a casual table the way to settle it.

import { h } from "../dom.js";
import { t } from "../i18n.js";
import { afterPending, applyChanges } from "../lp.js";
import { get } from "../state.js";
import { changesText, openPending, seatName } from "./kit.js";

export const name = "ask";
export const reads = ["pending", "lp", "seats", "disputes", "duel_no", "ruleset"];
export const local = ["rejecting", "correcting"];

export function render(ctx) {
  const { s, view, ui, send } = ctx;
  if (!view.isSeat) return null;
  const pending = openPending(s);
  const i = pending.findIndex((p) => p.by && p.by !== view.seat);
  if (i < 0) return renderRejected(ctx);
  const p = pending[i];
  const before = afterPending(get(s, "lp", {}), pending.slice(0, i));
  const after = applyChanges(before, p.changes);
  const mineFirst = pending.slice(0, i).some((x) => x.by === view.seat);
  return h(
    "div",
    { class: "ask", testid: "confirm-banner", role: "alertdialog", "aria-live": "assertive", "aria-label": t("ask.title"), dataset: { entry: String(p.entry) } },
    h("div", { class: "ask-title", id: "confirm-banner-title", text: t("ask.title_by", { name: seatName(s, p.by), n: p.entry }) }),
    h("div", { class: "ask-text", text: changesText(s, p.changes, before) }),
    h("div", { class: "ask-after", text: `${seatName(s, "A")} ${after.A} \u00b7 ${seatName(s, "B")} ${after.B}` }),
    mineFirst ? h("div", { class: "muted", text: t("ask.after_yours") }) : null,
    ui.rejecting === p.entry ? rejectForm(ctx, p) : h("div", { class: "ask-buttons" },
      h("button", { class: "btn btn-danger", testid: "reject-entry", dataset: { entry: String(p.entry) }, onclick: () => { ui.set({ rejecting: p.entry }); document.getElementById("f-reject")?.focus(); }, text: t("ask.reject") }),
      h("button", { class: "btn btn-primary", testid: "confirm-entry", dataset: { entry: String(p.entry) }, onclick: () => send("lp.confirm", { entry: p.entry }), text: t("ask.confirm") }),
    ),
  );
}

// Rejecting asks a short reason (optional), which the proposer's phone shows at once.
function rejectForm({ ui, send }, p) {
  const form = (ui.forms.reject ||= { reason: "" });
  const done = (reason) => {
    form.reason = "";
    if (reason !== null) send("lp.reject", { entry: p.entry, reason });
    ui.set({ rejecting: null });
  };
  return h("div", { class: "reject-form" },
    h("label", { class: "field", for: "f-reject" }, h("span", { text: t("ask.reject_reason") }),
      h("input", { id: "f-reject", type: "text", maxlength: "200", testid: "reject-reason", value: form.reason, oninput: (e) => (form.reason = e.target.value) }),
    ),
    h("div", { class: "ask-buttons" },
      h("button", { class: "btn", testid: "reject-cancel", onclick: () => done(null), text: t("common.cancel") }),
      h("button", { class: "btn btn-danger", testid: "reject-send", dataset: { entry: String(p.entry) }, onclick: () => done(form.reason.trim()), text: t("ask.reject_send") }),
    ),
  );
}

// The proposer's banner for an entry the opponent rejected: the reason, and at a casual table
// (no judges) the way to settle it at the table: withdraw it or propose a corrected one.
function renderRejected({ s, view, ui, send }) {
  const d = (s.disputes || []).find((x) => x.status === "open" && x.by === view.seat && x.duel === s.duel_no);
  if (!d) return null;
  const casual = !get(s, "ruleset.staff_start", false);
  const parts = [
    h("div", { class: "ask-title", id: "rejected-title", text: t("rejected.title", { name: seatName(s, d.rejected_by), n: d.entry }) }),
    h("div", { class: "ask-text", text: changesText(s, d.changes, null) }),
    h("div", { class: "rejected-reason", testid: "rejected-reason", text: d.reason ? t("rejected.reason", { reason: d.reason }) : t("rejected.no_reason") }),
    h("div", { class: "muted", text: casual ? t("rejected.casual") : t("rejected.judge") }),
  ];
  if (casual && ui.correcting === d.entry) {
    const form = (ui.forms.correct ||= {});
    if (form.entry !== d.entry) Object.assign(form, { entry: d.entry, amounts: d.changes.map((c) => String(c.amount ?? 0)) });
    parts.push(h("div", { class: "correct-form" },
      d.changes.map((c, k) => c.kind === "halve" ? null : h("label", { class: "field", for: `f-correct-${k}` },
        h("span", { text: t("rejected.amount", { name: seatName(s, c.seat) }) }),
        h("input", { id: `f-correct-${k}`, type: "number", inputmode: "numeric", min: "0", testid: "correct-amount", value: form.amounts[k], oninput: (e) => (form.amounts[k] = e.target.value) }),
      )),
      h("div", { class: "ask-buttons" },
        h("button", { class: "btn", testid: "correct-cancel", onclick: () => { ui.set({ correcting: null }); }, text: t("common.cancel") }),
        h("button", { class: "btn btn-primary", testid: "correct-send", onclick: () => {
          const changes = d.changes.map((c, k) => ({ seat: c.seat, kind: c.kind, amount: Math.max(0, parseInt(form.amounts[k], 10) || 0) }));
          ui.forms.correct = {};
          send("dispute.repropose", { entry: d.entry, changes, note: d.note || "" });
          ui.set({ correcting: null });
        }, text: t("rejected.send") }),
      ),
    ));
  } else if (casual) {
    parts.push(h("div", { class: "ask-buttons" },
      h("button", { class: "btn", testid: "dispute-withdraw", dataset: { entry: String(d.entry) }, onclick: () => send("dispute.withdraw", { entry: d.entry }), text: t("rejected.withdraw") }),
      h("button", { class: "btn btn-primary", testid: "dispute-correct", dataset: { entry: String(d.entry) }, onclick: () => { ui.set({ correcting: d.entry }); }, text: t("rejected.correct") }),
    ));
  }
  return h("div", { class: "ask ask-rejected", testid: "rejected-banner", role: "alert", "aria-labelledby": "rejected-title", dataset: { entry: String(d.entry) } }, parts);
}
