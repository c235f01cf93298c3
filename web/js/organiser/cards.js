// The table cards page: a print button (no inline script under the page's CSP).

document.getElementById("print")?.addEventListener("click", () => window.print());
