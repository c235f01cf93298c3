// The judge's seat tools on a table's page: the phones that wait for a seat (Approve / Refuse)
// and the seats a judge can release (after a confirmation). The routes are staff HTTP calls;
// the table's socket brings the new state to every screen.

import { h } from "../dom.js";
import { t } from "../i18n.js";
import { age, call, refusal } from "../staff/common.js";

/** The card and its render(state, now); `say(text, ok)` shows the outcome. */
export function seatsCard(code, say) {
  const box = h("section", { class: "card", testid: "judge-seats" });
  let armed = null; // the seat whose release waits for its confirmation
  let last = null;
  let lastNow = 0;

  const post = async (path, done) => {
    const res = await call("POST", path, {});
    say(res.ok ? done : refusal(res.body), res.ok);
  };
  const approve = (r) =>
    post(`/api/staff/tables/${code}/seat-requests/${encodeURIComponent(r.request)}/approve`, t("staff.seat_approved", { seat: r.seat }));
  const refuse = (r) =>
    post(`/api/staff/tables/${code}/seat-requests/${encodeURIComponent(r.request)}/refuse`, t("staff.seat_refused", { seat: r.seat }));
  const release = (seat) => {
    armed = null;
    render(last, lastNow);
    post(`/api/staff/tables/${code}/seats/${seat}/release`, t("staff.seat_released", { seat }));
  };

  function render(state, now) {
    if (!state) return;
    last = state;
    lastNow = now;
    const waiting = state.seat_requests || [];
    const holder = (seat) => (state.seats[seat].joined ? state.seats[seat].name || seat : "");
    const requests = waiting.length
      ? h("ul", { class: "staff-list", testid: "seat-requests" }, waiting.map((r) =>
          h("li", { class: "jt-call", testid: `seat-request-${r.seat}` },
            h("strong", { text: `${t("staff.seat")} ${r.seat} ` }),
            h("span", { testid: "seat-request-name", text: r.name }),
            r.player_id ? h("span", { class: "muted", text: ` · ${t("staff.seat_request_id", { id: r.player_id })}` }) : null,
            h("span", { class: "muted", text: ` · ${age(now - r.at_ms)}` }),
            h("p", { class: "muted", testid: "seat-request-holder", text: holder(r.seat) ? t("staff.seat_request_taken", { name: holder(r.seat) }) : t("staff.seat_request_free") }),
            h("div", { class: "row" },
              h("button", { class: "btn btn-primary btn-small", type: "button", testid: `seat-approve-${r.seat}`, text: t("staff.seat_approve"), onclick: () => approve(r) }),
              h("button", { class: "btn btn-small", type: "button", testid: `seat-refuse-${r.seat}`, text: t("staff.seat_refuse"), onclick: () => refuse(r) })),
          )))
      : h("p", { class: "muted", testid: "seat-requests-none", text: t("staff.seat_requests_none") });
    const seats = h("div", { class: "row" }, ["A", "B"].map((seat) => {
      if (!state.seats[seat].joined) return h("span", { class: "muted", text: `${seat} · ${t("staff.seat_free")}` });
      if (armed === seat) {
        return h("div", { class: "row", role: "group", testid: `seat-release-confirm-${seat}` },
          h("span", { text: t("staff.seat_release_sure", { seat, name: holder(seat) }) }),
          h("button", { class: "btn btn-danger btn-small", type: "button", testid: `seat-release-yes-${seat}`, text: t("staff.seat_release_yes"), onclick: () => release(seat) }),
          h("button", { class: "btn btn-small", type: "button", testid: `seat-release-no-${seat}`, text: t("staff.cancel_release"), onclick: () => { armed = null; render(last, lastNow); } }));
      }
      return h("button", {
        class: "btn btn-small", type: "button", testid: `seat-release-${seat}`,
        text: t("staff.seat_release", { seat, name: holder(seat) }),
        onclick: () => { armed = seat; render(last, lastNow); },
      });
    }));
    box.replaceChildren(h("h2", { text: t("staff.seat_requests") }), requests, h("h3", { text: t("staff.seats_title") }), seats);
  }

  return { box, render };
}
