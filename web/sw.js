// The service worker: serves the app shell offline. Table state and the API are never cached:
// they live on the server and reach the page through the websocket and /api/.

// Bump with every release of web/: a new name re-fetches the shell and drops the old cache.
const VERSION = "v32";
const CACHE = `duel-table-shell-${VERSION}`;
const SHELL = [
  "/",
  "/index.html",
  "/manifest.webmanifest",
  "/css/app.css",
  "/js/app.js",
  "/js/alerts.js",
  "/js/api.js",
  "/js/card_names.js",
  "/js/conn.js",
  "/js/dom.js",
  "/js/duo.js",
  "/js/i18n.js",
  "/js/in_view.js",
  "/i18n/languages.json",
  "/js/lp.js",
  "/js/panels/ask.js",
  "/js/panels/banners.js",
  "/js/panels/bar.js",
  "/js/panels/board.js",
  "/js/panels/counters.js",
  "/js/panels/dice.js",
  "/js/panels/disputes.js",
  "/js/panels/index.js",
  "/js/panels/judge.js",
  "/js/panels/keypad.js",
  "/js/panels/kit.js",
  "/js/panels/lang.js",
  "/js/panels/ledger.js",
  "/js/panels/pending.js",
  "/js/panels/phase.js",
  "/js/panels/phase_between.js",
  "/js/panels/phase_duel.js",
  "/js/panels/phase_pregame.js",
  "/js/panels/phase_registration.js",
  "/js/panels/share.js",
  "/js/seat_asks.js",
  "/js/seats.js",
  "/js/sheet_link.js",
  "/js/receipts.js",
  "/js/state.js",
  "/js/table.js",
  "/js/toast.js",
  "/js/ui.js",
  "/js/words.js",
  "/icons/icon.svg",
  "/icons/icon-192.png",
  "/icons/icon-512.png",
  "/icons/icon-maskable-192.png",
  "/icons/icon-maskable-512.png",
];

self.addEventListener("install", (event) => {
  event.waitUntil(
    (async () => {
      const cache = await caches.open(CACHE);
      // One catalogue per language of the list (web/i18n/languages.json).
      const listed = await (await fetch("/i18n/languages.json", { cache: "reload" })).json();
      for (const l of listed.languages) SHELL.push(`/i18n/${l.code}.json`);
      await cache.addAll(SHELL.map((url) => new Request(url, { cache: "reload" })));
      await self.skipWaiting();
    })(),
  );
});

self.addEventListener("activate", (event) => {
  event.waitUntil(
    (async () => {
      const names = await caches.keys();
      await Promise.all(names.filter((n) => n.startsWith("duel-table-") && n !== CACHE).map((n) => caches.delete(n)));
      await self.clients.claim();
    })(),
  );
});

function neverCache(url) {
  return url.pathname.startsWith("/api/") || url.pathname.startsWith("/ws/") || url.pathname.startsWith("/judge");
}

// The pages the shell renders: the home screen and a table (`/t/<code>`). Every other page is
// the server's own (a score sheet `/t/<code>/sheet`, a round's `/sheets`, the organiser's
// pages): those go to the network untouched, and never get the shell in their place.
function shellPage(url) {
  return url.pathname === "/" || url.pathname === "/index.html" || /^\/t\/[^/]+\/?$/.test(url.pathname);
}

self.addEventListener("fetch", (event) => {
  const req = event.request;
  if (req.method !== "GET") return;
  const url = new URL(req.url);
  if (url.origin !== self.location.origin || neverCache(url)) return; // straight to the network

  if (req.mode === "navigate") {
    if (!shellPage(url)) return; // a server-rendered page: straight to the network
    // Network first, so a deployed update shows at once; the cached shell when offline.
    event.respondWith(
      (async () => {
        try {
          return await fetch(req);
        } catch {
          const cache = await caches.open(CACHE);
          return (await cache.match("/index.html")) || (await cache.match("/")) || Response.error();
        }
      })(),
    );
    return;
  }

  // Shell files: from the cache, refreshed in the background for the next start.
  event.respondWith(
    (async () => {
      const cache = await caches.open(CACHE);
      const hit = await cache.match(req);
      const fresh = fetch(req)
        .then((res) => {
          if (res.ok && (SHELL.includes(url.pathname) || url.pathname.startsWith("/i18n/"))) cache.put(req, res.clone());
          return res;
        })
        .catch(() => null);
      if (hit) {
        event.waitUntil(fresh);
        return hit;
      }
      return (await fresh) || Response.error();
    })(),
  );
});
