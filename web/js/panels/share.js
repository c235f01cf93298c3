// Inviting the opponent while a seat is empty: the code, a QR code, the link.

import { qrUrl } from "../api.js";
import { h } from "../dom.js";
import { t } from "../i18n.js";
import { get } from "../state.js";
import { toast } from "../toast.js";

export const name = "share";
export const reads = ["seats"];

export function render({ s, code }) {
  const empty = ["A", "B"].filter((x) => !get(s, `seats.${x}.joined`, false));
  if (!empty.length) return null;
  const link = `${location.origin}/t/${code}`;
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(link);
      toast(t("share.copied"));
    } catch {
      toast(link);
    }
  };
  return h(
    "section",
    { class: "card share", testid: "share-panel", "aria-label": t("share.title") },
    h("h2", { text: t("share.title") }),
    h("p", { class: "muted", text: t("share.hint") }),
    h("div", { class: "share-code", testid: "share-code", "aria-label": t("table.code"), text: code }),
    h("img", { class: "qr", testid: "share-qr", src: qrUrl(code), alt: t("share.qr_alt"), width: "220", height: "220" }),
    h("a", { class: "share-link", testid: "share-link", href: `/t/${code}`, text: link }),
    h("div", { class: "row" },
      h("button", { class: "btn", testid: "share-copy", onclick: copy, text: t("share.copy") }),
      navigator.share
        ? h("button", { class: "btn", testid: "share-native", onclick: () => navigator.share({ title: "Duel Table", url: link }).catch(() => {}), text: t("share.share") })
        : null,
    ),
  );
}
