// The score sheet page: a Print button (no inline script: the page's CSP forbids it).
document.addEventListener("DOMContentLoaded", () => {
  for (const button of document.querySelectorAll("[data-print]")) {
    button.hidden = false;
    button.addEventListener("click", () => window.print());
  }
});

// A one-phone table's recovery code, kept on the phone that holds both seats (never sent by the
// server): shown on that phone's own sheet, and so on what it prints.
document.addEventListener("DOMContentLoaded", () => {
  let seats = {};
  try {
    seats = JSON.parse(localStorage.getItem("dt.seats") || "{}") || {};
  } catch {
    seats = {};
  }
  for (const section of document.querySelectorAll("section.sheet[data-code]")) {
    const held = seats[section.dataset.code];
    const recovery = held && held.duo && held.duo.recovery;
    if (!recovery || typeof recovery !== "string") continue;
    const line = document.createElement("p");
    line.className = "recovery";
    line.dataset.testid = "sheet-recovery";
    line.textContent = (section.dataset.recovery || "{code}").replace("{code}", recovery);
    const head = section.querySelector(".sheet-head");
    if (head) head.after(line);
    else section.prepend(line);
  }
});

// A seat's own player ID: the public sheet leaves IDs out (they tell one round's player from the
// next); the phone holding the seat asks for its own view with its token and fills its line in.
document.addEventListener("DOMContentLoaded", async () => {
  let seats = {};
  try {
    seats = JSON.parse(localStorage.getItem("dt.seats") || "{}") || {};
  } catch {
    seats = {};
  }
  for (const section of document.querySelectorAll("section.sheet[data-code]")) {
    const held = seats[section.dataset.code];
    const tokens = [];
    if (held && typeof held.token === "string") tokens.push(held.token);
    if (held && held.duo && typeof held.duo.token === "string") tokens.push(held.duo.token); // the one-phone table's other seat
    for (const token of tokens) {
      try {
        const res = await fetch(`/api/tables/${encodeURIComponent(section.dataset.code)}`, { headers: { Authorization: `Bearer ${token}` } });
        if (!res.ok) continue;
        const body = await res.json();
        for (const [seat, info] of Object.entries((body.state && body.state.seats) || {})) {
          const cell = section.querySelector(`td.pid[data-seat="${seat}"]`);
          if (cell && info && typeof info.player_id === "string" && info.player_id && !cell.textContent.trim()) cell.textContent = info.player_id;
        }
      } catch {
        /* offline: the sheet as printed */
      }
    }
  }
});

// Receipts this phone kept (web/js/receipts.js): each signed head must be the log's hash at its
// event, or the log was changed after the players saw it.
document.addEventListener("DOMContentLoaded", async () => {
  for (const section of document.querySelectorAll("section.sheet[data-code]")) {
    const code = section.dataset.code;
    let kept = [];
    try {
      kept = JSON.parse(localStorage.getItem(`dt.receipts.${code}`) || "[]");
    } catch {
      kept = [];
    }
    if (!Array.isArray(kept) || !kept.length) continue;
    let log;
    try {
      const res = await fetch(`/api/tables/${encodeURIComponent(code)}/export.json`, { credentials: "same-origin" });
      log = await res.json();
    } catch {
      continue;
    }
    const byseq = new Map((log.events || []).map((e) => [e.seq, e.hash]));
    const bad = kept.filter((r) => byseq.get(r.seq) !== r.hash);
    const line = document.createElement("p");
    line.className = bad.length ? "receipts warn" : "receipts";
    line.dataset.testid = "receipts";
    // The words come from the catalogue (web/i18n/<lang>.json, read by server/core/i18n.py), in the sheet's language.
    line.textContent = bad.length
      ? (section.dataset.receiptsBad || "").replace("{seq}", String(bad[0].seq))
      : (section.dataset.receiptsOk || "").replace("{n}", String(kept.length));
    const head = section.querySelector("code.head");
    (head ? head.parentElement : section).after(line);
  }
});

// On screen, a long ledger is shown PAGE entries at a time, with "earlier" / "later" buttons;
// the rows off the page are hidden by a screen-only rule (css/sheet.css), so printing still
// prints every row (R1.4). The page holds every row already: the printed sheet needs them.
const PAGE = 50;

function pageLedger(section) {
  const rows = [...section.querySelectorAll("tr.entry")];
  if (rows.length <= PAGE) return;
  const d = section.dataset;
  let from = 0;
  const nav = document.createElement("nav");
  nav.className = "sheet-pages";
  nav.setAttribute("aria-label", d.pages || "");
  nav.dataset.testid = "sheet-pages";
  const button = (label, testid) => {
    const b = document.createElement("button");
    b.type = "button";
    b.textContent = label || "";
    b.dataset.testid = testid;
    return b;
  };
  const earlier = button(d.earlier, "sheet-earlier");
  const later = button(d.later, "sheet-later");
  const range = document.createElement("span");
  range.setAttribute("aria-live", "polite");
  range.dataset.testid = "sheet-range";
  nav.append(earlier, range, later);

  function show() {
    const to = Math.min(from + PAGE, rows.length);
    rows.forEach((r, i) => r.classList.toggle("off-page", i < from || i >= to));
    // A duel's table with none of its entries on this page is hidden too (its start line and
    // result stay with the page that holds its entries).
    for (const table of section.querySelectorAll("table.ledger")) {
      const entries = [...table.querySelectorAll("tr.entry")];
      const wrap = table.closest(".scroll") || table;
      wrap.classList.toggle("off-page", entries.length > 0 && entries.every((r) => r.classList.contains("off-page")));
    }
    range.textContent = (d.rows || "{from}–{to} / {total}")
      .replace("{from}", String(from + 1))
      .replace("{to}", String(to))
      .replace("{total}", String(rows.length));
    earlier.disabled = from === 0;
    later.disabled = to >= rows.length;
    section.dataset.pageFrom = String(from);
  }
  earlier.addEventListener("click", () => {
    from = Math.max(0, from - PAGE);
    show();
  });
  later.addEventListener("click", () => {
    from = Math.min(from + PAGE, Math.floor((rows.length - 1) / PAGE) * PAGE);
    show();
  });
  const first = section.querySelector("table.ledger");
  (first.closest(".scroll") || first).before(nav);
  show();
}

document.addEventListener("DOMContentLoaded", () => {
  for (const section of document.querySelectorAll("section.sheet[data-code]")) pageLedger(section);
});
