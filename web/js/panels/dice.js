// Coin and die: how many, toss or roll, the last few results; and the reveal of a new one.

import { formatTime, h, reducedMotion } from "../dom.js";
import { t } from "../i18n.js";
import { card, seatName } from "./kit.js";

const ROLLS_SHOWN = 5;

export const name = "dice";
export const reads = ["rolls", "seats"];
export const local = ["rollCount"];

function rollText(roll) {
  const results = (roll.results || []).map((r) => (roll.kind === "coin" ? t(`coin.${r}`) : String(r)));
  return results.join(" \u00b7 ");
}

export function render({ s, view, ui, send }) {
  const rolls = (s.rolls || []).slice(-ROLLS_SHOWN).reverse();
  const parts = [];
  if (view.isSeat) {
    parts.push(
      h("div", { class: "seg", role: "radiogroup", "aria-label": t("dice.count") },
        [1, 2, 3].map((n) =>
          h("button", { class: ["seg-btn", ui.rollCount === n && "on"], role: "radio", "aria-checked": String(ui.rollCount === n), testid: `roll-count-${n}`, onclick: () => { ui.set({ rollCount: n }); }, text: `\u00d7${n}` }),
        ),
      ),
      h("div", { class: "row" },
        h("button", { class: "btn", testid: "coin-toss", onclick: () => send("coin.toss", { count: ui.rollCount }), text: t("dice.coin") }),
        h("button", { class: "btn", testid: "die-roll", onclick: () => send("die.roll", { count: ui.rollCount }), text: t("dice.die") }),
      ),
    );
  }
  parts.push(
    rolls.length
      ? h("ul", { class: "list rolls", testid: "roll-list" },
          rolls.map((r) =>
            h("li", { class: ["roll", r.void && "void"], testid: "roll-row", dataset: { roll: String(r.roll), kind: r.kind || "", results: (r.results || []).join(",") } },
              h("span", { class: "roll-result", text: rollText(r) }),
              h("span", { class: "muted", text: `${t(`dice.${r.kind === "coin" ? "coin" : "die"}`)} \u00b7 ${seatName(s, r.by)} \u00b7 ${formatTime(r.at_ms)}${r.void ? ` \u00b7 ${t("dice.void")}` : ""}` }),
            ),
          ),
        )
      : h("p", { class: "muted", text: t("dice.none") }),
  );
  return card(t("dice.title"), "dice", parts);
}

/**
 * A short reveal for a new roll, drawn into slot: a neutral tumble (no faces) and then the
 * result alone, so the animation can never be read as a different result. With reduced
 * motion: the result at once. byName is the name of the seat that rolled.
 */
export function showRoll(slot, roll, byName) {
  const result = h("div", { class: "roll-big", testid: "roll-overlay-result", dataset: { roll: String(roll.roll), results: (roll.results || []).join(",") }, text: rollText(roll) });
  const box = h(
    "div",
    { class: "overlay", testid: "roll-overlay", role: "status", "aria-live": "assertive", onclick: () => box.remove() },
    h("div", { class: "overlay-card" },
      h("div", { class: "muted", text: `${byName} \u00b7 ${t(`dice.${roll.kind === "coin" ? "coin" : "die"}`)}` }),
      result,
    ),
  );
  if (!reducedMotion()) {
    result.classList.add("rolling");
    result.textContent = "?";
    setTimeout(() => {
      result.classList.remove("rolling");
      result.textContent = rollText(roll);
    }, 700);
  }
  slot.replaceChildren(box);
  setTimeout(() => box.remove(), 3500);
}
