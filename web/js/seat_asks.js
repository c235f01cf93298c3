// Seat requests on a phone. At a casual table a new phone may ask for a taken seat (a lost or
// flat phone): the other seat's phone is asked to confirm it (two keys) or refuse. A phone whose
// seat went to another phone, or that a judge released, is told so and offered to join again.

import { api } from "./api.js";
import { h } from "./dom.js";
import { t } from "./i18n.js";
import { toast, toastError } from "./toast.js";

/** Show the other seat's requests on this seat's phone (`screen` gets the prompt). Returns the
 * function that stops it. */
export function watchSeatAsks(screen, { code, token, store }) {
  const box = h("div", { class: "seat-asks", testid: "seat-asks", hidden: true });
  screen.prepend(box);
  const busy = new Set();
  let shown = "";
  const answer = async (r, how) => {
    if (busy.has(r.request)) return;
    busy.add(r.request);
    const path = `/api/tables/${encodeURIComponent(code)}/seat-requests/${encodeURIComponent(r.request)}/${how}`;
    const res = await api("POST", path, {}, token);
    busy.delete(r.request);
    if (!res.ok) toastError(res.body);
    else toast(t(how === "confirm" ? "seatask.confirmed" : "seatask.refused", { seat: r.seat }), "info", 4000);
  };
  const render = () => {
    const mine = store.isSeat ? store.seat : null;
    const asks = mine ? (store.s && store.s.seat_requests) || [] : [];
    const open = asks.filter((r) => r.why === "takeover" && r.seat !== mine);
    const sig = JSON.stringify(open.map((r) => [r.request, r.name])) + t("seatask.confirm");
    if (sig === shown) return;
    shown = sig;
    box.hidden = open.length === 0; // no gap in the table screen's layout when nothing is asked
    box.replaceChildren(
      ...open.map((r) =>
        h("section", { class: "card attention", role: "alertdialog", "aria-labelledby": `ask-${r.request}`, testid: "seat-ask" },
          h("p", { id: `ask-${r.request}`, testid: "seat-ask-text", text: t("seatask.prompt", { seat: r.seat, name: r.name }) }),
          h("p", { class: "muted", text: t("seatask.why") }),
          h("div", { class: "row" },
            h("button", { class: "btn btn-primary", testid: "seat-ask-confirm", onclick: () => answer(r, "confirm"), text: t("seatask.confirm") }),
            h("button", { class: "btn", testid: "seat-ask-refuse", onclick: () => answer(r, "refuse"), text: t("seatask.refuse") }),
          ),
        ),
      ),
    );
  };
  const off = store.subscribe(render);
  render();
  return () => {
    off();
    box.remove();
  };
}

/** The screen of a phone whose seat was moved to another phone or released by a judge. */
export function showSeatLost(root, code, seat, joinAgain) {
  root.replaceChildren(
    h("main", { class: "join", testid: "seat-lost" },
      h("h1", { text: t("join.title", { code }) }),
      h("p", { class: "status-line attention", role: "alert", testid: "seat-lost-text", text: t("seatlost.text", { seat: seat || "?" }) }),
      h("button", { class: "btn btn-big btn-primary", testid: "seat-lost-join", onclick: joinAgain, text: t("seatlost.join") }),
    ),
  );
}
