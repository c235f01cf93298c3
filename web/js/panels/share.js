// Inviting the opponent while a seat is empty: the code, a QR code, the link.

import { api, qrUrl } from "../api.js";
import { h } from "../dom.js";
import { t } from "../i18n.js";
import { get } from "../state.js";
import { toast } from "../toast.js";

export const name = "share";
export const reads = ["seats"];

// The link another phone can open, as the server sees it (PUBLIC_URL, or the LAN address for a
// page opened on 127.0.0.1): asked once per table (the page's own address if it cannot answer).
const invites = new Map();

function inviteLink(code, apply) {
  const known = invites.get(code);
  if (typeof known === "string") return known;
  if (!known) {
    invites.set(code, api("GET", `/api/tables/${encodeURIComponent(code)}/invite`).then((res) => {
      // Unanswered: the page's own address, unless it is this computer's alone (127.0.0.1).
      const own = /^(localhost|127\.|\[::1\])/.test(location.host) ? "" : `${location.origin}/t/${code}`;
      invites.set(code, res.ok && res.body.url ? res.body.url : own);
      return invites.get(code);
    }));
  }
  invites.get(code).then(apply);
  return ""; // until the server answers: never this page's own 127.0.0.1 for a moment
}

/** What a player's phone cannot do over plain http on a hall's Wi-Fi (not a secure context), in
 * a player's words; how to serve it over HTTPS is the organiser's note (web/js/organiser/main.js). */
export function insecureNote() {
  if (globalThis.isSecureContext !== false) return null;
  return h("p", { class: "muted insecure-note", testid: "insecure-note", text: t("share.insecure") });
}

export function render({ s, code }) {
  const empty = ["A", "B"].filter((x) => !get(s, `seats.${x}.joined`, false));
  if (!empty.length) return null;
  let link = "";
  const anchor = h("a", { class: "share-link", testid: "share-link" });
  const show = (url) => {
    link = url;
    anchor.textContent = url;
    // No link to show yet (or none another phone could open): no empty link on the page either.
    anchor.hidden = !url;
    if (url) anchor.href = url;
    else anchor.removeAttribute("href");
  };
  show(inviteLink(code, show));
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
    anchor,
    h("div", { class: "row" },
      h("button", { class: "btn", testid: "share-copy", onclick: copy, text: t("share.copy") }),
      navigator.share
        ? h("button", { class: "btn", testid: "share-native", onclick: () => navigator.share({ title: "Duel Table", url: link }).catch(() => {}), text: t("share.share") })
        : null,
    ),
    insecureNote(),
  );
}
