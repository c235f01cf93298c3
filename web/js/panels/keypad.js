// The LP keypad: target, kind, amount and Propose, the resulting LP inside the button. Taps
// change ui.kp and repaint the keypad in place; it is built again when its inputs change.

import { h } from "../dom.js";
import { t } from "../i18n.js";
import { KINDS, afterPending, applyChanges } from "../lp.js";
import { get, other } from "../state.js";
import { openPending, seatName } from "./kit.js";

const QUICK = [100, 500, 1000];
const MAX_AMOUNT = 1000000;

export const name = "keypad";
export const reads = ["phase", "lp", "pending", "seats"];
// ui.kp is what is being typed: the keypad repaints it in place, so it is not a redraw input.
export const own = ["kp"];

function typeDigits(kp, d) {
  if (kp.kind === "halve") return;
  const next = (kp.amount + d).replace(/^0+(?=\d)/, "");
  if (Number(next) <= MAX_AMOUNT) kp.amount = next === "0" && d !== "0" ? "" : next;
}

function addAmount(kp, q) {
  if (kp.kind === "halve") return;
  kp.amount = String(Math.min(MAX_AMOUNT, (Number(kp.amount) || 0) + q));
}

function keypadChanges(kp, seat) {
  const seats = kp.target === "both" ? ["A", "B"] : [kp.target === "me" ? seat : other(seat)];
  const amount = kp.kind === "halve" ? 0 : Number(kp.amount) || 0;
  return seats.map((x) => ({ seat: x, kind: kp.kind, amount }));
}

function keypadReady(kp) {
  return kp.kind === "halve" || kp.kind === "set" ? kp.kind === "halve" || kp.amount !== "" : Number(kp.amount) > 0;
}

export function render({ s, view, ui, send }) {
  if (!view.isSeat || s.phase !== "duel") return null;
  const kp = ui.kp;
  const refs = { target: [], kind: [] };
  const update = () => {
    for (const group of ["target", "kind"]) {
      for (const [v, b] of refs[group]) {
        b.setAttribute("aria-checked", String(kp[group] === v));
        b.classList.toggle("on", kp[group] === v);
      }
    }
    const halve = kp.kind === "halve";
    refs.amount.textContent = halve ? "\u00bd" : kp.amount || "0";
    refs.amount.classList.toggle("empty", !halve && !kp.amount);
    for (const b of refs.keys) b.disabled = halve && !["keypad-clear"].includes(b.dataset.testid);
    const start = afterPending(get(s, "lp", {}), openPending(s));
    const after = applyChanges(start, keypadChanges(kp, view.seat));
    refs.preview.replaceChildren(
      ...["A", "B"].map((seat) =>
        h("span", { class: ["kp-prev", after[seat] !== start[seat] && "changed"], testid: `preview-${seat}` },
          h("span", { class: "kp-prev-name", text: `${seatName(s, seat)} ` }),
          "\u2192",
          h("b", { text: String(after[seat]) }),
        ),
      ),
    );
    refs.propose.disabled = !keypadReady(kp);
  };
  const propose = () => {
    if (!keypadReady(kp)) return;
    send("lp.propose", { changes: keypadChanges(kp, view.seat), note: "" });
    // Back to the commonest entry, "opponent, damage", after each one.
    Object.assign(kp, { target: "opp", kind: "damage", amount: "" });
    update();
  };
  const seg = (group, values, label, labelOf) =>
    h(
      "div",
      { class: "seg", role: "radiogroup", "aria-label": label },
      values.map((v) => {
        const b = h("button", {
          class: "seg-btn",
          role: "radio",
          testid: `keypad-${group}-${v}`,
          text: labelOf(v),
          onclick: () => {
            kp[group] = v;
            if (group === "kind" && v === "halve") kp.amount = "";
            update();
          },
        });
        refs[group].push([v, b]);
        return b;
      }),
    );
  const key = (label, testid, fn, cls = "") =>
    h("button", { class: ["key", cls], testid, "aria-label": label, text: label, onclick: () => { fn(); update(); } });
  const digit = (d) => key(d, `keypad-digit-${d}`, () => typeDigits(kp, d));
  refs.amount = h("output", { class: "kp-amount", testid: "keypad-amount", "aria-live": "polite", "aria-label": t("kp.amount") });
  // The resulting LP sit inside Propose: what the tap will send, where the thumb is.
  refs.preview = h("span", { class: "kp-preview", testid: "keypad-preview" });
  refs.propose = h("button", { class: "btn btn-primary key-propose", testid: "propose", onclick: propose },
    h("span", { class: "kp-propose-label", text: t("kp.propose") }),
    refs.preview,
  );
  // One grid, four rows: digits on the left, the quick amounts beside them, Propose three rows
  // tall on the right under the thumb (the whole keypad fits one phone screen with the board).
  const quick = QUICK.map((q) => key(`+${q}`, `keypad-quick-${q}`, () => addAmount(kp, q), "key-quick"));
  const grid = h(
    "div",
    { class: "keys" },
    ["7", "8", "9"].map(digit), quick[0], key("C", "keypad-clear", () => (kp.amount = ""), "key-quick"),
    ["4", "5", "6"].map(digit), quick[1], refs.propose,
    ["1", "2", "3"].map(digit), quick[2],
    key("00", "keypad-00", () => typeDigits(kp, "00")),
    digit("0"),
    key("000", "keypad-000", () => typeDigits(kp, "000")),
    key("\u232b", "keypad-back", () => (kp.amount = kp.amount.slice(0, -1)), "key-quick"),
  );
  refs.keys = [...grid.querySelectorAll("button")].filter((b) => b !== refs.propose);
  for (const b of refs.keys) if (b.dataset.testid === "keypad-back") b.setAttribute("aria-label", t("kp.back"));
  for (const b of refs.keys) if (b.dataset.testid === "keypad-clear") b.setAttribute("aria-label", t("kp.clear"));
  const node = h(
    "section",
    { class: "card keypad", testid: "keypad", "aria-label": t("kp.title") },
    h("div", { class: "kp-display" }, seg("target", ["me", "opp", "both"], t("kp.target"), (v) => t(`kp.target_${v}`)), refs.amount),
    seg("kind", KINDS, t("kp.kind"), (v) => t(`kind.${v}`)),
    grid,
  );
  update();
  return node;
}
