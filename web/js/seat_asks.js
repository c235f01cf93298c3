// Seat requests on a phone. At a casual table a new phone may ask for a taken seat (a lost or
// flat phone). The seat's own phone is asked first: it gives its seat to the new phone or says
// no. The other seat's phone may confirm only once the owner's phone has been away for a while
// or said it is not the player's any more (the server's rule, server/rules/table.py
// `seat_answer`); until then it is told that the owner is asked. Either seat may refuse. A
// phone whose seat went to another phone, or that a judge released, is told so and offered to
// join again.

import { api } from "./api.js";
import { h } from "./dom.js";
import { t } from "./i18n.js";
import { toast, toastError } from "./toast.js";

/** Show the requests for this table's seats on this seat's phone (`screen` gets the prompt).
 * Returns the function that stops it. */
export function watchSeatAsks(screen, { code, token, store }) {
  const box = h("div", { class: "seat-asks", testid: "seat-asks", hidden: true });
  screen.prepend(box);
  const busy = new Set();
  const waits = new Map(); // request -> the owner's wait the server named {seconds, until}
  let shown = "";
  const answer = async (r, how) => {
    if (busy.has(r.request)) return;
    busy.add(r.request);
    const path = `/api/tables/${encodeURIComponent(code)}/seat-requests/${encodeURIComponent(r.request)}/${how}`;
    const res = await api("POST", path, {}, token);
    busy.delete(r.request);
    if (!res.ok) {
      if (res.body && res.body.code === "owner_online") {
        const seconds = Number((res.body.details || {}).seconds) || 0;
        const online = Boolean((res.body.details || {}).online);
        waits.set(r.request, { seconds, online, until: Date.now() + seconds * 1000 });
        shown = "";
        render();
        return;
      }
      toastError(res.body);
      return;
    }
    const own = r.seat === store.seat;
    const key = how === "refuse" ? "seatask.refused" : own ? "seatask.given" : "seatask.confirmed";
    toast(t(key, { seat: r.seat }), "info", 4000);
  };
  const ownPrompt = (r) =>
    h("section", { class: "card attention", role: "alertdialog", "aria-labelledby": `ask-${r.request}`, testid: "seat-ask-own" },
      h("p", { id: `ask-${r.request}`, testid: "seat-ask-text", text: t("seatask.own_prompt", { seat: r.seat, name: r.name }) }),
      h("p", { class: "muted", text: t("seatask.own_why") }),
      h("div", { class: "row" },
        h("button", { class: "btn", testid: "seat-ask-give", onclick: () => answer(r, "confirm"), text: t("seatask.give") }),
        h("button", { class: "btn btn-primary", testid: "seat-ask-refuse", onclick: () => answer(r, "refuse"), text: t("seatask.refuse") }),
      ),
    );
  const otherPrompt = (r) => {
    const wait = waits.get(r.request);
    const left = wait ? Math.max(0, Math.ceil((wait.until - Date.now()) / 1000)) : 0;
    return h("section", { class: "card attention", role: "alertdialog", "aria-labelledby": `ask-${r.request}`, testid: "seat-ask" },
      h("p", { id: `ask-${r.request}`, testid: "seat-ask-text", text: t("seatask.prompt", { seat: r.seat, name: r.name }) }),
      h("p", { class: "muted", text: t("seatask.why") }),
      wait
        ? h("p", {
            class: "status-line",
            role: "status",
            testid: "seat-ask-wait",
            text: wait.online ? t("seatask.owner_online", { seat: r.seat }) : t("seatask.wait_owner", { seat: r.seat, seconds: left }),
          })
        : null,
      h("div", { class: "row" },
        h("button", { class: "btn btn-primary", testid: "seat-ask-confirm", onclick: () => answer(r, "confirm"), text: t("seatask.confirm") }),
        h("button", { class: "btn", testid: "seat-ask-refuse", onclick: () => answer(r, "refuse"), text: t("seatask.refuse") }),
      ),
    );
  };
  const render = () => {
    const mine = store.isSeat ? store.seat : null;
    const asks = mine ? (store.s && store.s.seat_requests) || [] : [];
    const open = asks.filter((r) => r.why === "takeover");
    for (const ref of [...waits.keys()]) if (!open.some((r) => r.request === ref)) waits.delete(ref);
    const sig = JSON.stringify(open.map((r) => [r.request, r.name, r.seat === mine])) + t("seatask.confirm");
    if (sig === shown) return;
    shown = sig;
    box.hidden = open.length === 0; // no gap in the table screen's layout when nothing is asked
    box.replaceChildren(...open.map((r) => (r.seat === mine ? ownPrompt(r) : otherPrompt(r))));
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
