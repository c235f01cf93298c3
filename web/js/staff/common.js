// Shared by the judges' and organisers' pages: the staff API (cookie + CSRF token), the login
// screen, the top bar and the strings.

import { fetchJson } from "../api.js";
import { h } from "../dom.js";
import { LANGS, errorText, initLang, lang, setLang, t } from "../i18n.js";

let csrf = "";
let me = null;

/** Pick the page's language (the staff strings are in the one catalogue per language). */
export function initStrings() {
  return initLang();
}

/** Call the staff API; resolves to {ok, status, body}; never throws. */
export async function call(method, path, body) {
  const res = await fetchJson(method, path, body, method !== "GET" ? { "X-CSRF-Token": csrf } : {});
  if (res.status === 0) return { ok: false, status: 0, body: { code: "network", message: "Network error." } };
  return { ok: res.ok, status: res.status, body: res.body || { code: "http_" + res.status, message: "" } };
}

/** The logged-in account, or null. */
export async function whoami() {
  // 200 with `me: null` when nobody is logged in: the login screen is not an error.
  const res = await call("GET", "/api/auth/session");
  if (!res.ok || !res.body.me) return null;
  csrf = res.body.me.csrf;
  me = res.body.me;
  return me;
}

export const account = () => me;

/** Why a login was refused, in the page's language (a lock-out says how long to wait). */
export function loginError(res) {
  if (res.body.code === "login_throttled") {
    const seconds = Number(res.body.details?.retry_after) || 1;
    return t("staff.login_throttled", { seconds });
  }
  if (res.body.code === "bad_login") return t("staff.bad_login");
  return errorText(res.body);
}

/** The login form; resolves once logged in. */
export function loginScreen(root, title) {
  return new Promise((resolve) => {
    const user = h("input", { id: "f-user", autocomplete: "username", testid: "login-user" });
    const pass = h("input", { id: "f-pass", type: "password", autocomplete: "current-password", testid: "login-pass" });
    const err = h("p", { class: "form-error", role: "alert", testid: "login-error" });
    const go = async (ev) => {
      ev.preventDefault();
      const res = await call("POST", "/api/auth/login", { username: user.value.trim(), password: pass.value });
      if (!res.ok) {
        err.textContent = loginError(res);
        return;
      }
      csrf = res.body.csrf;
      me = res.body;
      resolve(me);
    };
    const form = h(
      "form",
      { class: "card staff-login", onsubmit: go },
      h("h1", { text: title }),
      h("label", { class: "field" }, h("span", { text: t("staff.username") }), user),
      h("label", { class: "field" }, h("span", { text: t("staff.password") }), pass),
      err,
      h("button", { class: "btn btn-primary btn-wide", type: "submit", testid: "login-go", text: t("staff.login") }),
    );
    root.replaceChildren(form);
    user.focus();
  });
}

/** The top bar: title, language, the account and log out. */
export function topBar(title, extra = []) {
  const select = h("select", { "aria-label": t("lang.label"), class: "staff-lang" });
  for (const l of LANGS) select.append(h("option", { value: l.code, text: l.label, selected: l.code === lang() }));
  select.addEventListener("change", () => {
    setLang(select.value);
    location.reload();
  });
  const out = h("button", {
    class: "btn btn-small btn-quiet",
    type: "button",
    text: t("staff.logout"),
    onclick: async () => {
      await call("POST", "/api/auth/logout");
      location.reload();
    },
  });
  return h(
    "header",
    { class: "staff-bar" },
    h("strong", { class: "staff-title", text: title }),
    ...extra,
    h("span", { class: "staff-spacer" }),
    select,
    me ? h("span", { class: "muted", text: me.username }) : null,
    me ? out : null,
  );
}

/** m:ss of an age in ms (h:mm:ss past an hour). */
export function age(ms) {
  const s = Math.max(0, Math.floor(ms / 1000));
  const hh = Math.floor(s / 3600);
  const mm = Math.floor((s % 3600) / 60);
  const ss = String(s % 60).padStart(2, "0");
  return hh ? `${hh}:${String(mm).padStart(2, "0")}:${ss}` : `${mm}:${ss}`;
}

/** A short message from an error body. */
export function refusal(body) {
  return t("staff.refused", { message: errorText(body || {}) });
}
