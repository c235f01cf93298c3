// The live parts of a judge's table page as panels (see web/js/panels/kit.js): each declares the
// state fields it reads and is redrawn when they change, so a half-typed note survives updates
// that do not touch its part. The context gives s (the declared fields), send and now.

import { nameCards } from "../card_names.js";
import { formatTime, h } from "../dom.js";
import { callReason, t } from "../i18n.js";
import { age } from "../staff/common.js";
import { disputeLine } from "./lines.js";

const calls = {
  name: "calls",
  reads: ["calls"],
  render({ s, send, now }) {
    const open = (s.calls || []).filter((c) => c.status !== "closed");
    return h("section", { class: "card" },
      h("h2", { text: t("staff.calls") }),
      open.length
        ? h("ul", { class: "staff-list" }, open.map((c) => {
            const note = h("input", { type: "text", maxlength: "200", placeholder: t("staff.note"), testid: `call-note-${c.call}` });
            return h("li", { class: "jt-call", testid: `call-${c.call}` },
              h("strong", { text: `#${c.call} ${c.seat || ""} ` }),
              h("span", { text: callReason(c.reason, c) }),
              h("span", { class: "muted", text: ` · ${age(now - c.at_ms)}` }),
              c.judge ? h("span", { class: "muted", text: ` · ${t("staff.alert.taken", { judge: c.judge })}` }) : null,
              h("div", { class: "row" },
                c.status === "open"
                  ? h("button", { class: "btn btn-primary btn-small", type: "button", testid: `ack-${c.call}`, text: t("staff.ack"),
                      onclick: () => send("judge.ack", { call: c.call }) })
                  : null,
                note,
                h("button", { class: "btn btn-small", type: "button", testid: `close-${c.call}`, text: t("staff.close"),
                  onclick: () => send("judge.close", { call: c.call, note: note.value }) })),
            );
          }))
        : h("p", { class: "muted", text: t("staff.no_calls") }),
    );
  },
};

function seatNames(s) {
  return { A: s.seats.A.name || "A", B: s.seats.B.name || "B" };
}

const disputes = {
  name: "disputes",
  reads: ["disputes", "seats"],
  render({ s, send }) {
    const open = (s.disputes || []).filter((d) => d.status === "open");
    if (!open.length) return null;
    return h("section", { class: "card" },
      h("h2", { text: t("staff.disputes") }),
      h("ul", { class: "staff-list" }, open.map((d) => {
        // One step (R7.1): apply it, void it, or correct it to the amount it should have been
        // ("it was 2500, not 3000"); the entries queued behind it then apply in order.
        const changes = d.changes || [];
        const amountable = Boolean(d.by_amount); // the rules say (a halving has no amount)
        const amount = h("input", { type: "number", inputmode: "numeric", min: "0", max: "1000000", step: "1", value: String(changes[0]?.amount ?? ""),
          "aria-label": t("staff.correct_amount", { n: d.entry }), testid: `settle-amount-${d.entry}` });
        const err = h("span", { class: "bad", role: "alert", testid: `settle-error-${d.entry}` });
        const correct = () => {
          const n = Number(amount.value);
          if (amount.value.trim() === "" || !Number.isInteger(n) || n < 0 || n > 1000000) {
            err.textContent = t("staff.correct_bad");
            amount.focus();
            return;
          }
          err.textContent = "";
          send("dispute.settle", { entry: d.entry, action: "correct", amount: n, note: "" });
        };
        return h("li", { testid: `dispute-${d.entry}` },
          h("strong", { text: `#${d.entry} ` }),
          h("span", { testid: `dispute-line-${d.entry}`, text: disputeLine(d, seatNames(s)) }),
          h("div", { class: "row" },
            h("button", { class: "btn btn-small", type: "button", testid: `settle-apply-${d.entry}`, text: t("staff.apply"),
              onclick: () => send("dispute.settle", { entry: d.entry, action: "apply", note: "" }) }),
            h("button", { class: "btn btn-small", type: "button", testid: `settle-void-${d.entry}`, text: t("staff.void"),
              onclick: () => send("dispute.settle", { entry: d.entry, action: "void", note: "" }) })),
          amountable
            ? h("div", { class: "row" },
                h("label", { class: "check-inline" }, h("span", { text: t("staff.correct_to") }), amount),
                h("button", { class: "btn btn-primary btn-small", type: "button", testid: `settle-correct-${d.entry}`, text: t("staff.correct_settle"), onclick: correct }),
                err)
            : null,
        );
      })),
    );
  },
};

const penalties = {
  name: "penalties",
  reads: ["penalties"],
  render({ s }) {
    const list = s.penalties || [];
    if (!list.length) return null;
    return h("section", { class: "card" },
      h("h2", { text: t("staff.penalties") }),
      h("ul", { class: "staff-list" }, list.map((p) =>
        h("li", { text: `${formatTime(p.at_ms)} ${p.seat} ${t(`staff.level.${p.level}`)} · ${t(`staff.inf.${p.infraction}`)} · ${p.judge} ${p.note}` }))),
    );
  },
};

// R7.5: a failed after-duel deck check holds the table until a judge clears it, with a note.
function deckClear(send, seat, who) {
  const note = h("input", { type: "text", maxlength: "200", placeholder: t("staff.note"), "aria-label": t("staff.note"), testid: `deck-clear-note-${seat}` });
  return h("div", { class: "row", testid: `deck-failed-${seat}` },
    h("p", { class: "bad", text: t("staff.deck_check_failed", { who }) }),
    note,
    h("button", { class: "btn btn-primary btn-small", type: "button", testid: `deck-clear-${seat}`, text: t("staff.deck_clear"),
      onclick: () => send("deck.clear", { seat, note: note.value }) }));
}

// Each seat's deck now (after side decking) against its registered list (R2.6, R6.8).
const decks = {
  name: "decks",
  reads: ["decks", "seats", "banlist"],
  render({ s, send }) {
    const parts = [h("h2", { text: t("staff.decks") })];
    if (s.banlist) parts.push(h("p", { class: "muted", testid: "judge-banlist", text: t("staff.banlist", { name: s.banlist.name }) }));
    for (const seat of ["A", "B"]) {
      const d = (s.decks || {})[seat] || {};
      const who = `${seat} ${s.seats[seat].name || ""}`.trim();
      if (d.check_failed) parts.push(deckClear(send, seat, who));
      if (!d.list || !d.cards) {
        const counts = d.declared ? `${d.declared.main}/${d.declared.extra}/${d.declared.side}` : "—";
        parts.push(h("p", { testid: `judge-deck-${seat}`, text: `${who}: ${t("staff.deck_none", { counts })}` }));
        continue;
      }
      const reg = d.cards.registered || {};
      const cur = d.cards.current || reg;
      const rows = [];
      const cells = [];
      let changed = 0;
      for (const part of ["main", "extra", "side"]) {
        const names = [...new Set([...Object.keys(reg[part] || {}), ...Object.keys(cur[part] || {})])].sort();
        for (const c of names) {
          const r = (reg[part] || {})[c] || 0;
          const n = (cur[part] || {})[c] || 0;
          if (r !== n) changed++;
          const cell = h("td", { text: c });
          cells.push([cell, c]);
          rows.push(h("tr", { class: r !== n ? "changed" : "", dataset: { card: c, part } },
            h("td", { text: t(`staff.part.${part}`) }), cell,
            h("td", { class: "num", text: String(r) }), h("td", { class: "num", testid: "judge-deck-now", text: String(n) })));
        }
      }
      parts.push(h("div", { testid: `judge-deck-${seat}` },
        h("h3", { text: who }),
        h("p", { class: changed ? "bad" : "muted", testid: `judge-deck-${seat}-status`, text: changed ? t("staff.deck_changed", { n: changed }) : t("staff.deck_as_registered") }),
        h("table", { class: "staff-table" },
          h("thead", {}, h("tr", {}, ["", t("staff.card"), t("staff.deck_registered"), t("staff.deck_current")].map((x) => h("th", { text: x })))),
          h("tbody", {}, rows))));
      nameCards(cells); // a card kept by passcode, shown by its name in the judge's language
    }
    return h("section", { class: "card", testid: "judge-decks" }, parts);
  },
};

/** The judge page's panels, by name; the page places each one's slot. */
export const JUDGE_PANELS = [calls, disputes, penalties, decks];
