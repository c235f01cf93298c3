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
    line.textContent = bad.length
      ? `This phone's receipt for event ${bad[0].seq} does NOT match the log: the log was changed after it was signed. Call the head judge.`
      : `This phone's ${kept.length} signed receipt(s) match the log.`;
    const head = section.querySelector("code.head");
    (head ? head.parentElement : section).after(line);
  }
});
