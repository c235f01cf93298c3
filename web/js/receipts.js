// Receipts: the signed chain heads this phone was shown (at each confirmed result and at the
// match's end), kept in local storage. The score sheet page checks them against the log, so a
// log edited afterwards is caught even by someone holding the server's signing key.

import { getHeads } from "./api.js";

const SIGNED = new Set(["duel.final", "match.decided", "match.confirmed"]);
const KEY = (code) => `dt.receipts.${code}`;

/** The receipts kept for a table: [{seq, hash, signature}]. */
export function receipts(code) {
  try {
    const list = JSON.parse(localStorage.getItem(KEY(code)) || "[]");
    return Array.isArray(list) ? list : [];
  } catch {
    return [];
  }
}

/** Fetch the table's signed heads and keep those not kept yet (a kept one is never replaced). */
export async function keepReceipts(code) {
  const res = await getHeads(code);
  if (!res.ok || !Array.isArray(res.body.heads)) return;
  const kept = receipts(code);
  const seen = new Set(kept.map((r) => r.seq));
  for (const h of res.body.heads) {
    if (!seen.has(h.seq)) kept.push({ seq: h.seq, hash: h.hash, signature: h.signature, key: res.body.public_key });
  }
  try {
    localStorage.setItem(KEY(code), JSON.stringify(kept));
  } catch {
    /* storage blocked or full */
  }
}

/** Whether an update carries an event the server signs a head at. */
export const signs = (msg) => (msg.events || []).some((e) => SIGNED.has(e.type));
