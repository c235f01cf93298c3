// What the player acts on comes into view when the table moves on: the LP board (and the keypad
// under it) when a duel starts, the phase's card (the result to confirm, the checklist, the side
// deck window) at every other phase change, and the keypad when the confirmation banner comes up
// over it. A player who is scrolling is not fought: the move waits until they have stopped.
//
// Each element is brought with scrollIntoView and scroll margins of the sticky header above and
// the banner at the foot, so it works the same in the page and in a half of the one-phone table
// (its own scroller, the far half turned).

import { reducedMotion } from "./dom.js";

const QUIET_MS = 1200; // no scrolling input for this long: the player has stopped
const SCROLL_KEYS = new Set(["ArrowDown", "ArrowUp", "PageDown", "PageUp", "Home", "End", " "]);

/**
 * Watch the screen of one table view. follow(phase) after each render: a new phase brings its
 * part into view; a confirmation banner that has just appeared keeps the keypad clear of it.
 * Returns {follow, destroy}.
 */
export function inViewKeeper(screen, slots) {
  let lastInput = 0;
  let phase = null;
  let asked = false;
  let timer = null;
  const mine = (e) => screen.contains(e.target) || !screen.closest(".duo-half");
  const mark = (e) => {
    if (mine(e)) lastInput = Date.now();
  };
  const key = (e) => {
    if (SCROLL_KEYS.has(e.key)) mark(e);
  };
  const opts = { passive: true, capture: true };
  globalThis.addEventListener("wheel", mark, opts);
  globalThis.addEventListener("touchmove", mark, opts);
  globalThis.addEventListener("keydown", key, true);

  const space = (el) => (el && el.isConnected ? el.getBoundingClientRect().height : 0);

  function bring(el, block) {
    if (!el || !el.isConnected) return;
    el.style.scrollMarginTop = `${Math.ceil(space(screen.querySelector(".top"))) + 4}px`;
    el.style.scrollMarginBottom = `${Math.ceil(space(slots.ask.firstElementChild)) + 4}px`;
    el.scrollIntoView({ block, inline: "nearest", behavior: reducedMotion() ? "auto" : "smooth" });
  }

  // Run `move` once the player is not scrolling (at once if they are not).
  function when(move) {
    clearTimeout(timer);
    const wait = lastInput + QUIET_MS - Date.now();
    if (wait <= 0) requestAnimationFrame(move);
    else timer = setTimeout(() => when(move), wait);
  }

  function toPhase(now) {
    if (now === "duel") bring(slots.board.firstElementChild, "start");
    else bring(slots.phase.firstElementChild, "start");
  }

  // The banner came up over the keypad the player is looking at: the page moves up by what the
  // banner covers, as far as the LP board stays under the header. A half of the one-phone table
  // has room for the board, the whole keypad and the banner at its foot: it shows its board at
  // the top.
  function clearKeypad() {
    const keypad = slots.keypad.firstElementChild;
    const ask = slots.ask.firstElementChild;
    const board = slots.board.firstElementChild;
    if (!keypad || !ask || !board) return;
    if (screen.closest(".duo-half")) {
      const half = screen.closest(".duo-half");
      if (half.scrollTop > 0) bring(board, "start");
      return;
    }
    const k = keypad.getBoundingClientRect();
    const a = ask.getBoundingClientRect();
    if (k.bottom <= a.top || k.top >= globalThis.innerHeight) return;
    const header = screen.querySelector(".top")?.getBoundingClientRect().bottom ?? 0;
    const by = Math.min(k.bottom + 4 - a.top, board.getBoundingClientRect().top - header - 2);
    if (by > 0) globalThis.scrollBy({ top: by, behavior: reducedMotion() ? "auto" : "smooth" });
  }

  return {
    follow(now) {
      const asking = Boolean(slots.ask.firstElementChild);
      if (phase !== null && now !== phase) when(() => toPhase(now));
      else if (asking && !asked && now === "duel") when(clearKeypad);
      phase = now;
      asked = asking;
    },
    destroy() {
      clearTimeout(timer);
      globalThis.removeEventListener("wheel", mark, opts);
      globalThis.removeEventListener("touchmove", mark, opts);
      globalThis.removeEventListener("keydown", key, true);
    },
  };
}
