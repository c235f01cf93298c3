// The seats this phone holds, kept in localStorage: {CODE: {seat, token, name, at_ms}}.

const KEY = "dt.seats";
export const CODE_RE = /^[23456789ABCDEFGHJKMNPQRSTUVWXYZ]{6}$/;

/** Normalise a typed table code (case, spaces, dashes); "" if it cannot be one. */
export function normaliseCode(raw) {
  const code = String(raw || "")
    .toUpperCase()
    .replace(/[\s-]/g, "");
  return CODE_RE.test(code) ? code : "";
}

function readAll() {
  try {
    const all = JSON.parse(localStorage.getItem(KEY) || "{}");
    return all && typeof all === "object" ? all : {};
  } catch {
    return {};
  }
}

function writeAll(all) {
  try {
    localStorage.setItem(KEY, JSON.stringify(all));
  } catch {
    /* storage blocked: the seat lasts only for this page */
  }
}

export function getSeat(code) {
  return readAll()[code] || null;
}

export function saveSeat(code, info) {
  const all = readAll();
  all[code] = { ...info, at_ms: Date.now() };
  writeAll(all);
}

export function forgetSeat(code) {
  const all = readAll();
  delete all[code];
  writeAll(all);
  try {
    localStorage.removeItem(`dt.queue.${code}`);
    localStorage.removeItem(`dt.state.${code}`);
  } catch {
    /* ignore */
  }
}

/** Held seats, newest first. */
export function listSeats() {
  return Object.entries(readAll())
    .map(([code, info]) => ({ code, ...info }))
    .sort((a, b) => (b.at_ms || 0) - (a.at_ms || 0));
}
