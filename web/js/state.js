// The latest table state as the server sent it, and who this phone is at the table.
// Screens render from this alone; nothing here is computed from events.

const EMPTY = Object.freeze({});

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

export class TableStore {
  constructor() {
    this.state = null;
    this.seq = 0;
    this.role = null; // "seat" | "spectator" | "judge"
    this.seat = null; // "A" | "B" | null
    this.listeners = new Set();
  }

  /** Subscribe to changes; returns the unsubscribe function. */
  subscribe(fn) {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }

  notify() {
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
