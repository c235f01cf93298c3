// Receipts: the signed chain heads this phone was shown (at each confirmed result, at the
// match's end and at every write after it), kept in local storage. The score sheet page checks them against the log, so a
// log edited afterwards is caught even by someone holding the server's signing key.

import { getHeads } from "./api.js";

const SIGNED = new Set(["duel.final", "match.decided", "match.confirmed"]);
const KEY = (code) => `dt.receipts.${code}`;

/** The receipts kept for a table: [{seq, hash, signature}]. storage: the table store's (the table
 * screen), localStorage otherwise. */
export function receipts(code, storage = null) {
  try {
    const list = JSON.parse((storage || globalThis.localStorage).getItem(KEY(code)) || "[]");
    return Array.isArray(list) ? list : [];
  } catch {
    return [];
  }
}

/** Fetch the table's signed heads and keep those not kept yet (a kept one is never replaced).
 * With the seat's token: the fetch is charged to the seat, not to the hall's shared address. */
export async function keepReceipts(code, token, storage) {
  const res = await getHeads(code, token);
  if (!res.ok || !Array.isArray(res.body.heads) || !storage) return;
  const kept = receipts(code, storage);
  const seen = new Set(kept.map((r) => r.seq));
  for (const h of res.body.heads) {
    if (!seen.has(h.seq)) kept.push({ seq: h.seq, hash: h.hash, signature: h.signature, key: res.body.public_key });
  }
  try {
    storage.setItem(KEY(code), JSON.stringify(kept));
  } catch {
    /* storage blocked or full */
  }
}

// Phases of a decided match: the server signs the head of every write then.
const DECIDED = new Set(["match_result", "match_over"]);

/** Whether the server signed the head an update leaves: one carrying a confirmed result or
 * the match's end, or any update once the match is decided (`phase`, after the update). */
export const signs = (msg, phase = "") =>
  (msg.events || []).some((e) => SIGNED.has(e.type)) || (DECIDED.has(phase) && (msg.events || []).length > 0);
