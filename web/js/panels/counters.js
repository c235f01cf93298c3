// Counters and tokens, per seat: this phone's own can be changed, the other's are shown.

import { h } from "../dom.js";
import { t } from "../i18n.js";
import { get, other } from "../state.js";
import { card, may, seatName } from "./kit.js";

export const name = "counters";
export const reads = ["phase", "counters", "tokens", "seats", "may_send"];

export function render({ s, view, ui, send }) {
  const any = ["A", "B"].some((x) => Object.keys(get(s, `counters.${x}`, {})).length || get(s, `tokens.${x}`, 0));
  if (s.phase !== "duel" && !any) return null; // counters belong to a duel
  const seats = view.isSeat ? [view.seat, other(view.seat)] : ["A", "B"];
  const parts = seats.map((seat) => {
    const mine = view.isSeat && seat === view.seat;
    const own = mine && may(s, "counter.change"); // changed while the rules let it (a duel)
    const counters = get(s, `counters.${seat}`, {}) || {};
    const tokens = get(s, `tokens.${seat}`, 0);
    const rows = Object.entries(counters).map(([cname, value]) =>
      h("li", { class: "counter", testid: "counter-row", dataset: { seat, name: cname } },
        h("span", { class: "counter-name", text: cname }),
        own ? h("button", { class: "btn btn-small", testid: "counter-dec", dataset: { name: cname }, "aria-label": t("counters.dec", { name: cname }), onclick: () => send("counter.change", { name: cname, delta: -1 }), text: "\u2212" }) : null,
        h("b", { class: "counter-value", testid: "counter-value", text: String(value) }),
        own ? h("button", { class: "btn btn-small", testid: "counter-inc", dataset: { name: cname }, "aria-label": t("counters.inc", { name: cname }), onclick: () => send("counter.change", { name: cname, delta: 1 }), text: "+" }) : null,
        own ? h("button", { class: "btn btn-small btn-quiet", testid: "counter-clear", dataset: { name: cname }, "aria-label": t("counters.clear_one", { name: cname }), onclick: () => send("counter.clear", { name: cname }), text: "\u2715" }) : null,
      ),
    );
    const tokenRow = h("div", { class: "counter tokens" },
      h("span", { class: "counter-name", text: t("counters.tokens") }),
      own ? h("button", { class: "btn btn-small", testid: "token-dec", "aria-label": t("counters.token_dec"), onclick: () => send("token.change", { delta: -1 }), text: "\u2212" }) : null,
      h("b", { class: "counter-value", testid: `token-count-${seat}`, text: String(tokens) }),
      own ? h("button", { class: "btn btn-small", testid: "token-inc", "aria-label": t("counters.token_inc"), onclick: () => send("token.change", { delta: 1 }), text: "+" }) : null,
    );
    const block = [h("h3", { text: mine ? t("counters.mine") : seatName(s, seat) }), tokenRow, rows.length ? h("ul", { class: "list" }, rows) : null];
    if (own) {
      const form = (ui.forms.counter ||= { name: "" });
      const add = () => {
        const cname = (form.name || "").trim().slice(0, 40);
        if (!cname) return;
        send("counter.change", { name: cname, delta: 1 });
        form.name = "";
        input.value = "";
      };
      const input = h("input", { id: "f-counter", type: "text", maxlength: "40", testid: "counter-name", placeholder: t("counters.name_ph"), value: form.name, oninput: (e) => (form.name = e.target.value), onkeydown: (e) => e.key === "Enter" && add() });
      block.push(
        h("div", { class: "row" },
          h("label", { class: "sr-only", for: "f-counter", text: t("counters.name") }),
          input,
          h("button", { class: "btn", testid: "counter-add", onclick: add, text: t("counters.add") }),
        ),
        may(s, "counter.clear") ? h("button", { class: "btn btn-quiet btn-small", testid: "counters-clear-all", onclick: () => send("counter.clear", {}), text: t("counters.clear_all") }) : null,
      );
    }
    return h("div", { class: "counter-block", testid: `counters-${seat}` }, block);
  });
  return card(t("counters.title"), "counters", parts);
}
