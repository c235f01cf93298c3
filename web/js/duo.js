// One phone for two players (table mode): the phone lies flat between them and shows both seats,
// the far half turned 180 degrees. Each half is a seat's own table view (its own token, socket,
// keypad and confirm banner), so each player proposes and confirms on their own half and the
// two-key ledger holds. Both seats joined with the same device id, so the score sheet marks the
// entries confirmed this way.

import { newId } from "./conn.js";
import { h } from "./dom.js";
import { onLangChange, t } from "./i18n.js";
import { langSelect, mountTable } from "./table.js";

/** A fresh id for this phone's pair of joins (what the server keeps as `device`). */
export function deviceId() {
  return `duo-${newId().replace(/[^A-Za-z0-9]/g, "").slice(0, 24)}`;
}

/** localStorage seen through a per-seat prefix: each half keeps its own offline queue. */
function seatStorage(seat) {
  const key = (k) => `${k}.${seat}`;
  try {
    const ls = globalThis.localStorage;
    return {
      getItem: (k) => ls.getItem(key(k)),
      setItem: (k, v) => ls.setItem(key(k), v),
      removeItem: (k) => ls.removeItem(key(k)),
    };
  } catch {
    return null;
  }
}

/**
 * Mount both seats of table `code` on this phone. seats: {A: token, B: token}; `far` is the seat
 * whose half is turned (the player across the table). onLeave() goes home; onBadToken() when a
 * seat's token stops working. Returns {destroy}.
 */
export function mountDuo(root, { code, seats, far = "B", onLeave, onBadToken }) {
  const near = far === "A" ? "B" : "A";
  const halves = {};
  const views = [];
  for (const seat of [far, near]) {
    halves[seat] = h("div", {
      class: ["duo-half", seat === far && "duo-far"],
      testid: `duo-${seat}`,
      dataset: { seat },
      role: "region",
      "aria-label": t("duo.half", { seat }),
    });
  }
  const strip = h(
    "div",
    { class: "duo-strip" },
    h("button", { class: "icon-btn", testid: "go-home", "aria-label": t("nav.home"), onclick: () => onLeave?.(), text: "\u2190" }),
    h("span", { class: "bar-code", testid: "table-code", text: code }),
    h("span", { class: "duo-tag", testid: "duo-tag", text: t("duo.tag") }),
    langSelect(),
  );
  const screen = h("main", { class: "duo", testid: "duo-screen" }, halves[far], strip, halves[near]);
  root.replaceChildren(screen);
  document.body.classList.add("duo-mode");
  for (const seat of [far, near]) {
    views.push(
      mountTable(halves[seat], {
        code,
        token: seats[seat],
        storage: seatStorage(seat),
        onLeave,
        onBadToken,
      }),
    );
  }
  // The strip's words and the halves' names follow the language; the picker is built again.
  const offLang = onLangChange(() => {
    strip.replaceChild(langSelect(), strip.querySelector("select"));
    strip.querySelector('[data-testid="duo-tag"]').textContent = t("duo.tag");
    strip.querySelector('[data-testid="go-home"]').setAttribute("aria-label", t("nav.home"));
    for (const [seat, half] of Object.entries(halves)) half.setAttribute("aria-label", t("duo.half", { seat }));
  });
  return {
    destroy() {
      offLang();
      for (const v of views) v?.destroy?.();
      document.body.classList.remove("duo-mode", "has-ask");
    },
  };
}
