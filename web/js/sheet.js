// The score sheet page: a Print button (no inline script: the page's CSP forbids it).
document.addEventListener("DOMContentLoaded", () => {
  for (const button of document.querySelectorAll("[data-print]")) {
    button.hidden = false;
    button.addEventListener("click", () => window.print());
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
    // The words come from the sheet's catalogue (server/sheet_strings.py), in the sheet's language.
    line.textContent = bad.length
      ? (section.dataset.receiptsBad || "").replace("{seq}", String(bad[0].seq))
      : (section.dataset.receiptsOk || "").replace("{n}", String(kept.length));
    const head = section.querySelector("code.head");
    (head ? head.parentElement : section).after(line);
  }
});
