// LP arithmetic for previews and descriptions. The server decides; this only shows what a
// proposal would do, so the numbers on the keypad match what the opponent will be asked.

export const KINDS = ["damage", "gain", "cost", "halve", "set"];

/** LP after one change: {kind, amount} or the short form {delta}. Never below 0. */
export function applyChange(lp, change) {
  const cur = Number(lp) || 0;
  const amount = Math.max(0, Number(change.amount) || 0);
  if (typeof change.delta === "number" && !change.kind) return Math.max(0, cur + change.delta);
  switch (change.kind) {
    case "damage":
    case "cost":
      return Math.max(0, cur - amount);
    case "gain":
      return cur + amount;
    case "halve":
      return Math.ceil(cur / 2);
    case "set":
      return amount;
    default:
      return cur;
  }
}

/** LP of both seats after a list of changes. */
export function applyChanges(lp, changes) {
  const out = { A: Number(lp?.A) || 0, B: Number(lp?.B) || 0 };
  for (const c of changes || []) {
    if (c && (c.seat === "A" || c.seat === "B")) out[c.seat] = applyChange(out[c.seat], c);
  }
  return out;
}

/** LP once the pending entries (in the order proposed) are all confirmed. */
export function afterPending(lp, pending) {
  let cur = { A: Number(lp?.A) || 0, B: Number(lp?.B) || 0 };
  for (const p of pending || []) cur = applyChanges(cur, p.changes);
  return cur;
}

/** The signed amount a change makes from a given LP, e.g. -1000 (for halve/set too). */
export function signedDelta(lp, change) {
  return applyChange(lp, change) - (Number(lp) || 0);
}

/** "−1000" / "+500" with a real minus sign. */
export function signed(n) {
  if (n > 0) return `+${n}`;
  if (n < 0) return `\u2212${-n}`;
  return "\u00b10";
}
