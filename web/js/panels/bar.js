// The header: back home, the table code, who this phone is, the connection, mute, language.

import { h } from "../dom.js";
import { t } from "../i18n.js";
import { langSelect } from "./lang.js";

export const name = "bar";
export const reads = [];
export const local = ["muted"];
export const link = ["status", "queued"];
export const always = true;

export function render({ view, ui, link, code, leave }) {
  const statusText = t(`conn.${link.status}`);
  const role = view.isSeat ? t("role.seat", { seat: view.seat }) : view.role === "judge" ? t("role.judge") : t("role.spectator");
  return h(
    "header",
    { class: "bar" },
    h("button", { class: "icon-btn", testid: "go-home", "aria-label": t("nav.home"), onclick: () => leave(), text: "\u2190" }),
    h("h1", { class: "sr-only", text: `${t("table.title")} ${code}` }),
    h("div", { class: "bar-title" },
      h("span", { class: "bar-code", testid: "table-code", "aria-label": t("table.code"), text: code }),
      h("span", { class: "bar-role", testid: "role", text: view.role ? role : "" }),
    ),
    h("span", {
      class: ["conn", `conn-${link.status}`],
      testid: "conn-status",
      role: "status",
      dataset: { status: link.status },
      text: statusText,
    }),
    link.queued > 0
      ? h("span", { class: "queued", testid: "queue-count", dataset: { count: String(link.queued) }, text: t("conn.queued", { n: link.queued }) })
      : null,
    h("button", {
      testid: "mute",
      "aria-pressed": String(ui.muted),
      "aria-label": t("alerts.mute"),
      class: ["icon-btn", "mute", ui.muted && "muted"],
      text: "\u266a",
      onclick: () => ui.set({ muted: !ui.muted }),
    }),
    langSelect(),
  );
}
