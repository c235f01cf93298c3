// HTTP calls to the server's JSON API. Errors come back in the one error shape {code, message}.

/** Fetch JSON; resolves to {ok, status, body} (body null when there is none; status 0 when the
 * network failed) and never throws. Shared by the players' and the staff pages. */
export async function fetchJson(method, path, body, headers = {}) {
  const init = { method, headers: { Accept: "application/json", ...headers }, credentials: "same-origin" };
  if (body !== undefined) {
    init.headers["Content-Type"] = "application/json";
    init.body = JSON.stringify(body);
  }
  let res;
  try {
    res = await fetch(path, init);
  } catch {
    return { ok: false, status: 0, body: null };
  }
  let data = null;
  try {
    data = await res.json();
  } catch {
    data = null;
  }
  return { ok: res.ok, status: res.status, body: data };
}

/** Call the API; resolves to {ok, status, body} and never throws (network errors included).
 * A seat's token, when given, goes as `Authorization: Bearer`. */
export async function api(method, path, body, token) {
  const res = await fetchJson(method, path, body, token ? { Authorization: `Bearer ${token}` } : {});
  if (res.status === 0) return { ok: false, status: 0, body: { code: "network", message: "" } };
  let data = res.body;
  if (!res.ok && (!data || typeof data.code !== "string")) {
    data = { code: res.status === 404 ? "no_such_table" : "http_" + res.status, message: "" };
  }
  return { ok: res.ok, status: res.status, body: data || {} };
}

export const createTable = (opts = {}) => api("POST", "/api/tables", opts);
/** A table card's seat and claim as a query: the request is then charged to the card's seat,
 * not to the hall's shared address. */
const cardQuery = (seat, claim) =>
  seat && claim ? `?seat=${encodeURIComponent(seat)}&claim=${encodeURIComponent(claim)}` : "";
export const getTable = (code, seat, claim) => api("GET", `/api/tables/${encodeURIComponent(code)}${cardQuery(seat, claim)}`);
export const joinTable = (code, body) =>
  api("POST", `/api/tables/${encodeURIComponent(code)}/join${cardQuery(body.seat, body.claim)}`, body);
/** The event table's info; a table card's seat and claim (?seat=&claim=) unlock that seat's pairing. */
export const getTableEvent = (code, seat, claim) => api("GET", `/api/tables/${encodeURIComponent(code)}/event${cardQuery(seat, claim)}`);
/** How a seat request that waits for approval stands (its own token). */
export const getSeatRequest = (code, ref, token) =>
  api("GET", `/api/tables/${encodeURIComponent(code)}/seat-requests/${encodeURIComponent(ref)}`, undefined, token);
/** A waiting phone takes its own seat request back (its request token). */
export const cancelSeatRequest = (code, ref, token) =>
  api("POST", `/api/tables/${encodeURIComponent(code)}/seat-requests/${encodeURIComponent(ref)}/cancel`, undefined, token);
/** A one-phone table moves to this phone with its recovery code. */
export const recoverTable = (code, body) => api("POST", `/api/tables/${encodeURIComponent(code)}/recover`, body);
/** This phone says it is not the seat's player's any more (a casual table). */
export const disownSeat = (code, token) => api("POST", `/api/tables/${encodeURIComponent(code)}/seat/disown`, {}, token);
/** The table's signed chain heads (receipts); a seat's token, when given, charges the seat's own
 * rate budget rather than the address a whole hall shares. */
export const getHeads = (code, token) => api("GET", `/api/tables/${encodeURIComponent(code)}/heads`, undefined, token);
export const qrUrl = (code) => `/api/tables/${encodeURIComponent(code)}/qr.svg`;
