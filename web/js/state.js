// The latest table state as the server sent it, and who this phone is at the table.
// Screens render from this alone; nothing here is computed from events.

const EMPTY = Object.freeze({});

function localStore() {
  try {
    return globalThis.localStorage || null;
  } catch {
    return null; // storage blocked
  }
}

/** Read a nested value without throwing: get(state, "clock.status", "idle"). */
export function get(obj, path, fallback = undefined) {
  let cur = obj;
  for (const key of path.split(".")) {
    if (cur == null || typeof cur !== "object") return fallback;
    cur = cur[key];
  }
  return cur === undefined || cur === null ? fallback : cur;
}

/** The other seat. */
export function other(seat) {
  return seat === "A" ? "B" : seat === "B" ? "A" : null;
}

/**
 * The one owner of a table's state on this phone: what the server sent (fed by the connection),
 * who this phone is at the table, the connection's link (status, commands waiting to be sent)
 * and the offline copy of the state, kept in this phone's storage. Screens render from it alone.
 */
export class TableStore {
  /** code and token: the offline copy's key and owner. storage: where the connection keeps its
   * queue of commands not yet sent (store.queueStorage): localStorage, or one seat's view of it
   * (one phone, two seats: duo.js). */
  constructor({ code = null, token = null, storage = null } = {}) {
    this.state = null;
    this.seq = 0;
    this.role = null; // "seat" | "spectator" | "judge"
    this.seat = null; // "A" | "B" | null
    this.link = Object.freeze({ status: "connecting", queued: 0, unsent: [] });
    this.listeners = new Set();
    this.code = code;
    this.owner = token ? token.slice(-12) : "";
    this.storage = localStore();
    this.queueStorage = storage || this.storage;
    this.saveTimer = null;
  }

  /** The connection's link changed: {status?, queued?, unsent?}. */
  setLink(patch) {
    this.link = Object.freeze({ ...this.link, ...patch });
    this.notify();
  }

  /** The last state seen on this phone, shown while offline after a reload (the socket still
   * asks for a full state). Returns whether there was one. */
  restore() {
    try {
      const cached = JSON.parse(this.storage?.getItem(this.cacheKey()) || "null");
      if (!cached || !cached.state || cached.token !== this.owner) return false;
      // A copy kept by an older shell lacks what the panels now read from the view (`forms`):
      // it waits for the server's welcome instead of drawing from a partial state.
      if (!cached.state.forms) return false;
      this.welcome({ role: cached.role, seat: cached.seat, state: cached.state });
      this.seq = 0;
      return true;
    } catch {
      return false; // no copy
    }
  }

  /** Keep the offline copy (half a second after the last change). */
  persistSoon() {
    if (!this.code || !this.state) return;
    clearTimeout(this.saveTimer);
    this.saveTimer = setTimeout(() => {
      try {
        this.storage?.setItem(this.cacheKey(), JSON.stringify({ token: this.owner, role: this.role, seat: this.seat, state: this.state }));
      } catch {
        /* storage full: no offline copy */
      }
    }, 500);
  }

  stop() {
    clearTimeout(this.saveTimer);
  }

  cacheKey() {
    return `dt.state.${this.code}`;
  }

  /** Subscribe to changes; returns the unsubscribe function. */
  subscribe(fn) {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }

  notify() {
    this.persistSoon();
    for (const fn of this.listeners) {
      try {
        fn(this);
      } catch (err) {
        console.error(err);
      }
    }
  }

  /** Take a welcome: who we are, plus a complete state. */
  welcome(msg) {
    this.role = msg.role || "spectator";
    this.seat = msg.role === "seat" ? msg.seat || null : null;
    this.take(msg);
  }

  /** Take a welcome or update message (the state in it is complete). */
  take(msg) {
    if (msg && msg.state && typeof msg.state === "object") {
      this.state = msg.state;
      if (typeof msg.seq === "number") this.seq = msg.seq;
      else if (typeof msg.state.seq === "number") this.seq = msg.state.seq;
      this.notify();
    }
  }

  /** Take a state from the HTTP API (before the socket is up). */
  takeSnapshot(body) {
    if (!body || !body.state) return;
    if (this.state && typeof body.seq === "number" && body.seq <= this.seq) return;
    this.take(body);
  }

  get s() {
    return this.state || EMPTY;
  }

  get isSeat() {
    return this.role === "seat" && (this.seat === "A" || this.seat === "B");
  }

  /** The seat shown at the bottom (own seat; A for a spectator). */
  get me() {
    return this.isSeat ? this.seat : "A";
  }

  get opp() {
    return other(this.me);
  }
}
