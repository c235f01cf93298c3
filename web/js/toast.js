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
  const top = bottom > 0 ? `${Math.round(bottom + GAP)}px` : "";
  if (region.style.top !== top) region.style.top = top;
}

// While a toast shows, every change of the page places it again at the end of the task that
// made it (the offline note shown, the bar drawn anew), before anything is painted or read;
// a resize or a scroll too.
const changes = typeof MutationObserver === "function" ? new MutationObserver(place) : null;
const WATCH = { childList: true, subtree: true, attributes: true, characterData: true };

function watch(on) {
  if (!changes) return;
  if (on) changes.observe(document.body, WATCH);
  else changes.disconnect();
}

function ensureRegion() {
  if (region && region.isConnected) return region;
  region = h("div", { class: "toasts", role: "status", "aria-live": "polite", testid: "toasts" });
  document.body.append(region);
  addEventListener("scroll", place, { passive: true });
  addEventListener("resize", place);
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
  const box = ensureRegion();
  const close = () => {
    el.remove();
    if (!box.firstChild) watch(false);
  };
  el.addEventListener("click", close);
  // One at a time: a new message replaces the last one (toasts never pile up over the table).
  box.replaceChildren(el);
  place();
  watch(true);
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
