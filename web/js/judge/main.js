// The judges' app: /judge (events), /judge/e/<id> (the floor), /judge/e/<id>/t/<code> (a table).

import { h } from "../dom.js";
import { t } from "../i18n.js";
import { call, initStrings, loginScreen, topBar, whoami } from "../staff/common.js";
import { mountFloor } from "./floor.js";
import { mountTable } from "./table.js";

const root = document.getElementById("app");
let current = null;

export function navigate(path) {
  history.pushState(null, "", path);
  route();
}

async function route() {
  if (current && current.destroy) current.destroy();
  current = null;
  const path = location.pathname;
  let m = path.match(/^\/judge\/e\/(\d+)\/t\/([A-Za-z0-9]+)\/?$/);
  if (m) {
    current = mountTable(root, Number(m[1]), m[2].toUpperCase(), navigate);
    return;
  }
  m = path.match(/^\/judge\/e\/(\d+)\/?$/);
  if (m) {
    current = mountFloor(root, Number(m[1]), navigate);
    return;
  }
  const res = await call("GET", "/api/events");
  const events = res.ok ? res.body.events : [];
  if (events.length === 1) {
    history.replaceState(null, "", `/judge/e/${events[0].id}`);
    return route();
  }
  const list = h("ul", { class: "staff-list" });
  for (const ev of events) {
    list.append(
      h("li", {}, h("a", {
        href: `/judge/e/${ev.id}`,
        text: `${ev.name} · ${ev.date}`,
        onclick: (e) => {
          e.preventDefault();
          navigate(`/judge/e/${ev.id}`);
        },
      })),
    );
  }
  root.replaceChildren(
    topBar(t("staff.judges")),
    h("main", { class: "staff-main" }, h("h1", { text: t("staff.events") }),
      events.length ? list : h("p", { class: "muted", text: t("staff.no_events") })),
  );
}

async function start() {
  initStrings();
  document.title = `${t("app.name")} \u00b7 ${t("staff.judges")}`;
  if (!(await whoami())) await loginScreen(root, t("staff.judges"));
  addEventListener("popstate", route);
  route();
}

start();
