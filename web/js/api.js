// HTTP calls to the server's JSON API. Errors come back in the one error shape {code, message}.

/** Call the API; resolves to {ok, status, body} and never throws (network errors included).
 * A seat's token, when given, goes as `Authorization: Bearer`. */
export async function api(method, path, body, token) {
  const init = { method, headers: { Accept: "application/json" }, credentials: "same-origin" };
  if (token) init.headers.Authorization = `Bearer ${token}`;
  if (body !== undefined) {
    init.headers["Content-Type"] = "application/json";
    init.body = JSON.stringify(body);
  }
  let res;
  try {
    res = await fetch(path, init);
  } catch {
    return { ok: false, status: 0, body: { code: "network", message: "" } };
  }
  let data = null;
  try {
    data = await res.json();
  } catch {
    data = null;
  }
  if (!res.ok && (!data || typeof data.code !== "string")) {
    data = { code: res.status === 404 ? "no_such_table" : "http_" + res.status, message: "" };
  }
  return { ok: res.ok, status: res.status, body: data || {} };
}

export const createTable = (opts = {}) => api("POST", "/api/tables", opts);
export const getTable = (code) => api("GET", `/api/tables/${encodeURIComponent(code)}`);
export const joinTable = (code, body) => api("POST", `/api/tables/${encodeURIComponent(code)}/join`, body);
export const getTableEvent = (code) => api("GET", `/api/tables/${encodeURIComponent(code)}/event`);
export const qrUrl = (code) => `/api/tables/${encodeURIComponent(code)}/qr.svg`;
