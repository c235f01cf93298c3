// Toasts: short messages at the top of the screen (errors from the server, confirmations).

import { h } from "./dom.js";
import { errorText } from "./i18n.js";

let region = null;

// What heads the screen: the note that the phone is offline, and the table's bar (its code and
// seat). A toast sits just under whichever of them is in view, so it never covers them; the note
// takes one line or two by language, and pushes the bar down when it shows.
const HEADS = ".offline-note, .bar";
const GAP = 6;

function place() {
  if (!region || !region.firstChild) return;
  let bottom = 0;
  for (const el of document.querySelectorAll(HEADS)) {
    const r = el.getBoundingClientRect();
    if (r.height > 0 && r.bottom > bottom) bottom = r.bottom;
  }
  // Nothing in view (scrolled past, or a page with no bar): the stylesheet's place.
  region.style.top = bottom > 0 ? `${Math.round(bottom + GAP)}px` : "";
}

function ensureRegion() {
  if (region && region.isConnected) return region;
  region = h("div", { class: "toasts", role: "status", "aria-live": "polite", testid: "toasts" });
  document.body.append(region);
  addEventListener("scroll", place, { passive: true });
  addEventListener("resize", place);
  if (typeof ResizeObserver === "function") {
    // The offline note shown or hidden, or the bar wrapped anew, moves what is under them:
    // the page's size changes.
    new ResizeObserver(place).observe(document.body);
  }
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
  place();
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
