// Toasts: short messages at the top of the screen (errors from the server, confirmations).

import { h } from "./dom.js";
import { errorText } from "./i18n.js";

let region = null;

function ensureRegion() {
  if (region && region.isConnected) return region;
  region = h("div", { class: "toasts", role: "status", "aria-live": "polite", testid: "toasts" });
  document.body.append(region);
  return region;
}

/** Show a message for a few seconds, replacing any shown; kind "error" | "info". Tapping it closes it. */
export function toast(message, kind = "info", ms = 5000) {
  const el = h("div", {
    class: ["toast", `toast-${kind}`],
    testid: "toast",
    role: kind === "error" ? "alert" : null,
    dataset: { kind },
    text: message,
  });
  const close = () => el.remove();
  el.addEventListener("click", close);
  const box = ensureRegion();
  // One at a time: a new message replaces the last one (toasts never pile up over the table).
  box.replaceChildren(el);
  setTimeout(close, ms);
  return el;
}

// The text for a server error (one rule for every page: web/js/i18n.js).
export { errorText };

/** Show a server error as a toast. */
export function toastError(error) {
  const el = toast(errorText(error), "error", 6000);
  if (error && error.code) el.dataset.code = error.code;
  return el;
}
