// The table connection: one websocket per open table.
//
// It says hello (token + the last seq it holds), keeps commands in a queue until the server
// acknowledges them (the queue survives reloads in localStorage, so commands made offline are
// sent in order once the socket is back), reconnects with exponential backoff and jitter, sends
// an app-level ping every few seconds both as a heartbeat and to estimate the offset to server
// time, and asks for a resync when an update arrives after a gap in seq.
//
// Listeners: conn.on("welcome" | "update" | "reply" | "status" | "queue" | "offset" | "fatal" |
// "error", fn). "state" is emitted for both welcome and update with the message itself.
//
// It speaks protocol 3 (docs/protocol.md): an update carries only what changed ("delta", and the
// new "ledger" rows); the connection merges it into the state it holds and puts the complete
// state back on the message as `msg.state`, so listeners see whole states as before. A stored
// command's reply carries this phone's own update ("update"): it is taken right after the
// reply, as if it had come in a frame of its own.

/** The protocol version this client speaks (sent in hello). */
export const PROTOCOL = 3;

/** `state` after a protocol-2 update: changed top-level keys replaced, the ledger's rows from
 * `ledger.from` on replaced by `ledger.rows`. A new object; `state` is left as it was. */
export function applyDelta(state, msg) {
  const next = { ...state, ...(msg.delta || {}) };
  const part = msg.ledger;
  if (part && typeof part.from === "number" && Array.isArray(part.rows)) {
    const held = Array.isArray(state.ledger) ? state.ledger : [];
    next.ledger = held.slice(0, part.from).concat(part.rows);
  }
  return next;
}

export const PING_MS = 5000;
export const DEAD_MS = 12000;
export const RESEND_MS = 10000;
export const RESYNC_MS = 6000;
export const OFFSET_SAMPLES = 8;
export const BACKOFF_MIN_MS = 500;
export const BACKOFF_MAX_MS = 20000;

/** The websocket address of a table, on the page's own host. */
export function wsUrl(code, loc = globalThis.location) {
  const proto = loc.protocol === "https:" ? "wss:" : "ws:";
  return `${proto}//${loc.host}/ws/table/${encodeURIComponent(code)}`;
}

/** Exponential backoff with jitter: half fixed, half random, so phones do not reconnect in step. */
export function backoffDelay(attempt, rnd = Math.random) {
  const cap = Math.min(BACKOFF_MAX_MS, BACKOFF_MIN_MS * 2 ** Math.min(attempt, 10));
  return Math.round(cap / 2 + rnd() * (cap / 2));
}

/** A command id made by this phone. */
export function newId() {
  if (globalThis.crypto && typeof crypto.randomUUID === "function") return crypto.randomUUID();
  // randomUUID needs a secure context; over plain http on a LAN fall back to getRandomValues.
  const b = crypto.getRandomValues(new Uint8Array(16));
  b[6] = (b[6] & 0x0f) | 0x40;
  b[8] = (b[8] & 0x3f) | 0x80;
  const hex = [...b].map((x) => x.toString(16).padStart(2, "0")).join("");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** Estimate of server time minus local time, from the ping sample with the smallest round trip. */
export class ClockOffset {
  constructor(size = OFFSET_SAMPLES) {
    this.size = size;
    this.samples = [];
    this.rough = null;
  }

  /** A rough first value (e.g. from the welcome's now_ms), used until a ping comes back. */
  setRough(serverMs, localMs = Date.now()) {
    this.rough = serverMs - localMs;
  }

  /** Record a ping/pong sample: t sent, tBack received (local), serverMs from the pong. */
  add(t, tBack, serverMs) {
    const rtt = tBack - t;
    if (!(rtt >= 0)) return;
    this.samples.push({ rtt, offset: serverMs - (t + tBack) / 2 });
    if (this.samples.length > this.size) this.samples.shift();
  }

  /** The current offset in ms (0 when nothing is known yet). */
  get value() {
    if (this.samples.length) {
      let best = this.samples[0];
      for (const s of this.samples) if (s.rtt < best.rtt) best = s;
      return Math.round(best.offset);
    }
    return this.rough == null ? 0 : this.rough;
  }

  /** Samples taken afresh by `count` round trips to /api/time, for the pages without a table
   * socket to ping (the hall clock, the overlay); the best round trip wins as with pings. */
  async syncOverHttp(count) {
    const fresh = new ClockOffset(this.size);
    for (let i = 0; i < count; i++) {
      const sent = Date.now();
      const res = await fetch("/api/time", { cache: "no-store" });
      const body = await res.json();
      fresh.add(sent, Date.now(), body.now_ms);
    }
    this.samples = fresh.samples;
  }

  /** The round trip of the best sample, or null. */
  get rtt() {
    if (!this.samples.length) return null;
    return Math.min(...this.samples.map((s) => s.rtt));
  }
}

function safeStorage(storage) {
  try {
    if (storage) return storage;
    return globalThis.localStorage;
  } catch {
    return null;
  }
}

export class Connection {
  /**
   * code: the table code; token: the seat token (null for a spectator).
   * Options: storage (localStorage), WebSocketImpl, url (for tests), now (local clock).
   */
  constructor(code, { token = null, storage, WebSocketImpl, url, now } = {}) {
    this.code = code;
    this.token = token;
    this.pass = null; // the seat's socket pass, from its welcome (`server/api/opens.py`)
    this.storage = safeStorage(storage);
    this.WS = WebSocketImpl || globalThis.WebSocket;
    this.url = url || wsUrl(code);
    this.now = now || (() => Date.now());
    this.listeners = new Map();
    this.ws = null;
    this.status = "offline";
    this.welcomed = false;
    this.stopped = true;
    this.seq = 0;
    this.state = null; // the complete state as of this.seq (merged from the deltas)
    this.attempt = 0;
    this.lastMessageAt = 0;
    this.offset = new ClockOffset();
    this.timers = { reconnect: null, ping: null, watch: null, resync: null };
    this.sentAt = new Map(); // command id -> local ms of the last send
    this.queue = this.loadQueue();
    this.onOnline = () => this.reconnectNow();
    // The browser knows the network is gone before any ping can time out: say so at once.
    this.onOffline = () => {
      if (this.stopped) return;
      if (this.ws) this.drop();
      else this.setStatus("offline");
    };
    this.onVisible = () => {
      if (document.visibilityState === "visible") this.reconnectNow();
    };
  }

  // --- listeners ---------------------------------------------------------------------------

  /** Subscribe to an event; returns the unsubscribe function. */
  on(type, fn) {
    if (!this.listeners.has(type)) this.listeners.set(type, new Set());
    this.listeners.get(type).add(fn);
    return () => this.listeners.get(type).delete(fn);
  }

  emit(type, payload) {
    for (const fn of this.listeners.get(type) || []) {
      try {
        fn(payload);
      } catch (err) {
        console.error(err);
      }
    }
  }

  setStatus(status) {
    if (status === this.status) return;
    this.status = status;
    this.emit("status", status);
  }

  // --- the persistent queue ----------------------------------------------------------------

  queueKey() {
    return `dt.queue.${this.code}`;
  }

  // The queue belongs to one seat token: a queue left by another token (a seat given up and
  // taken again) must not be sent in the new seat's name.
  owner() {
    return this.token ? this.token.slice(-12) : "";
  }

  loadQueue() {
    if (!this.storage || !this.token) return [];
    try {
      const raw = JSON.parse(this.storage.getItem(this.queueKey()) || "null");
      if (raw && raw.owner === this.owner() && Array.isArray(raw.items)) return raw.items;
    } catch {
      /* a damaged queue is dropped */
    }
    return [];
  }

  saveQueue() {
    if (!this.storage) return;
    try {
      if (this.queue.length && this.token) {
        this.storage.setItem(this.queueKey(), JSON.stringify({ owner: this.owner(), items: this.queue }));
      } else {
        this.storage.removeItem(this.queueKey());
      }
    } catch {
      /* storage full or blocked: the queue still lives in memory */
    }
    this.emit("queue", this.queue.length);
  }

  /** Commands made but not yet acknowledged. */
  get pendingCount() {
    return this.queue.length;
  }

  // --- lifecycle ---------------------------------------------------------------------------

  /** Open the socket and keep it open until stop(). */
  start() {
    if (!this.stopped) return;
    this.stopped = false;
    globalThis.addEventListener?.("online", this.onOnline);
    globalThis.addEventListener?.("offline", this.onOffline);
    globalThis.document?.addEventListener?.("visibilitychange", this.onVisible);
    this.open();
    this.emit("queue", this.queue.length);
  }

  /** Close the socket for good (leaving the table). The queue stays stored. */
  stop() {
    this.stopped = true;
    globalThis.removeEventListener?.("online", this.onOnline);
    globalThis.removeEventListener?.("offline", this.onOffline);
    globalThis.document?.removeEventListener?.("visibilitychange", this.onVisible);
    this.clearTimers();
    if (this.ws) {
      const ws = this.ws;
      this.ws = null;
      try {
        ws.close(1000);
      } catch {
        /* already closed */
      }
    }
    this.welcomed = false;
    this.setStatus("offline");
  }

  clearTimers() {
    clearTimeout(this.timers.reconnect);
    clearInterval(this.timers.ping);
    clearInterval(this.timers.watch);
    clearTimeout(this.timers.resync);
    this.timers = { reconnect: null, ping: null, watch: null, resync: null };
  }

  open() {
    if (this.stopped) return;
    this.clearTimers();
    this.welcomed = false;
    // Trying again with no network is not "connecting": the badge stays true to the network.
    this.setStatus(globalThis.navigator?.onLine === false ? "offline" : "connecting");
    let ws;
    try {
      ws = new this.WS(this.pass ? `${this.url}?pass=${encodeURIComponent(this.pass)}` : this.url);
    } catch {
      this.scheduleReconnect();
      return;
    }
    this.ws = ws;
    this.lastMessageAt = this.now();
    ws.onopen = () => {
      if (ws !== this.ws) return;
      this.lastMessageAt = this.now();
      this.sendHello();
    };
    ws.onmessage = (ev) => {
      if (ws !== this.ws) return;
      this.lastMessageAt = this.now();
      let msg;
      try {
        msg = JSON.parse(ev.data);
      } catch {
        return;
      }
      this.handle(msg);
    };
    ws.onclose = (ev) => {
      if (ws !== this.ws) return;
      this.ws = null;
      this.welcomed = false;
      this.clearTimers();
      this.setStatus("offline");
      // 4001: the token is unknown; 4004: no such table. Retrying cannot help either.
      if (ev && (ev.code === 4001 || ev.code === 4004)) {
        this.stopped = true;
        this.emit("fatal", { code: ev.code === 4001 ? "bad_token" : "no_such_table" });
        return;
      }
      this.scheduleReconnect();
    };
    ws.onerror = () => {
      /* onclose follows */
    };
    // The watchdog: no message at all for DEAD_MS means the link is dead even if the socket
    // has not noticed (phones switching networks keep half-open sockets for minutes).
    this.timers.watch = setInterval(() => {
      if (this.now() - this.lastMessageAt > DEAD_MS) this.drop();
      else this.resendStale();
    }, 1000);
  }

  /** Close the current socket and reconnect (after backoff). */
  drop() {
    const ws = this.ws;
    if (!ws) return;
    this.ws = null;
    this.welcomed = false;
    this.clearTimers();
    try {
      ws.close(4000);
    } catch {
      /* ignore */
    }
    this.setStatus("offline");
    this.scheduleReconnect();
  }

  scheduleReconnect() {
    if (this.stopped) return;
    clearTimeout(this.timers.reconnect);
    const delay = backoffDelay(this.attempt++);
    this.timers.reconnect = setTimeout(() => this.open(), delay);
  }

  /** Reconnect at once if not connected (the network came back, the page became visible). */
  reconnectNow() {
    if (this.stopped || this.ws) return;
    this.attempt = 0;
    this.open();
  }

  rawSend(obj) {
    if (!this.ws || this.ws.readyState !== 1) return false;
    try {
      this.ws.send(JSON.stringify(obj));
      return true;
    } catch {
      return false;
    }
  }

  sendHello() {
    const hello = { type: "hello", v: PROTOCOL };
    if (this.token) hello.token = this.token;
    if (this.seq > 0) hello.since = this.seq;
    this.rawSend(hello);
  }

  // --- incoming ----------------------------------------------------------------------------

  handle(msg) {
    switch (msg.type) {
      case "welcome":
        return this.onWelcome(msg);
      case "update":
        return this.onUpdate(msg);
      case "reply":
        return this.onReply(msg);
      case "pong":
        return this.onPong(msg);
      case "error":
        this.emit("error", msg.error || {});
        if (msg.error && msg.error.code === "bad_token") {
          this.stopped = true;
          this.emit("fatal", msg.error);
        }
        return undefined;
      default:
        return undefined;
    }
  }

  onWelcome(msg) {
    clearTimeout(this.timers.resync);
    const first = !this.welcomed;
    this.welcomed = true;
    this.attempt = 0;
    // A seat's pass: its next opens spend its seat's budget, not its hall's shared address's.
    if (typeof msg.pass === "string") this.pass = msg.pass;
    if (typeof msg.now_ms === "number" && this.offset.rtt == null) {
      this.offset.setRough(msg.now_ms, this.now());
      this.emit("offset", this.offset.value);
    }
    if (typeof msg.seq === "number") this.seq = msg.seq;
    if (msg.state && typeof msg.state === "object") this.state = msg.state;
    this.emit("welcome", msg);
    this.emit("state", msg);
    if (first) {
      this.setStatus("online");
      this.startPings();
      this.flush(true);
    }
  }

  onUpdate(msg) {
    if (typeof msg.seq !== "number") return;
    if (msg.seq <= this.seq) return; // already held (a resync overlapped)
    const events = Array.isArray(msg.events) ? msg.events : [];
    const firstSeq = events.length && typeof events[0].seq === "number" ? events[0].seq : msg.seq;
    if (this.seq > 0 && firstSeq > this.seq + 1) {
      this.resync();
      return;
    }
    if (msg.delta && typeof msg.delta === "object") {
      if (!this.state) {
        this.resync(); // a delta with nothing to apply it to: ask for the whole state
        return;
      }
      this.state = applyDelta(this.state, msg);
      msg.state = this.state;
    } else if (msg.state && typeof msg.state === "object") {
      this.state = msg.state;
    }
    this.seq = msg.seq;
    this.emit("update", msg);
    this.emit("state", msg);
  }

  /** Ask for what was missed: hello again with since; reconnect if no welcome comes. */
  resync() {
    if (this.timers.resync) return;
    this.sendHello();
    this.timers.resync = setTimeout(() => {
      this.timers.resync = null;
      this.drop();
    }, RESYNC_MS);
  }

  onReply(msg) {
    const i = this.queue.findIndex((c) => c.id === msg.re);
    if (i >= 0) {
      const [command] = this.queue.splice(i, 1);
      this.sentAt.delete(command.id);
      this.saveQueue();
      this.emit("reply", { command, reply: msg });
    } // else a reply to a resend already answered
    if (msg.update && typeof msg.update === "object") this.onUpdate(msg.update);
  }

  onPong(msg) {
    if (typeof msg.t !== "number" || typeof msg.now_ms !== "number") return;
    this.offset.add(msg.t, this.now(), msg.now_ms);
    this.emit("offset", this.offset.value);
  }

  startPings() {
    clearInterval(this.timers.ping);
    const ping = () => this.rawSend({ type: "ping", t: this.now() });
    ping();
    this.timers.ping = setInterval(ping, PING_MS);
  }

  // --- outgoing commands -------------------------------------------------------------------

  /** Queue a command; it is sent now if online, else when the socket is back. Returns its id. */
  send(cmd, args = {}) {
    const command = { id: newId(), cmd, args, made_ms: this.now() };
    this.queue.push(command);
    this.saveQueue();
    if (this.welcomed) this.transmit(command);
    return command.id;
  }

  transmit(command) {
    const ok = this.rawSend({ type: "command", id: command.id, cmd: command.cmd, args: command.args });
    if (ok) this.sentAt.set(command.id, this.now());
    return ok;
  }

  /** Send every queued command in order (after a welcome: all of them, since replies were lost). */
  flush(all = false) {
    for (const c of this.queue) {
      if (all || !this.sentAt.has(c.id)) {
        if (!this.transmit(c)) break;
      }
    }
  }

  // A command with no reply after RESEND_MS is sent again; the id makes it idempotent.
  resendStale() {
    if (!this.welcomed) return;
    const now = this.now();
    for (const c of this.queue) {
      const at = this.sentAt.get(c.id);
      if (at == null || now - at > RESEND_MS) this.transmit(c);
    }
  }

  /** Forget a queued command (the user gave up on it). */
  discard(id) {
    const i = this.queue.findIndex((c) => c.id === id);
    if (i >= 0) {
      this.queue.splice(i, 1);
      this.sentAt.delete(id);
      this.saveQueue();
    }
  }

  /** Server time now, by the best offset estimate. */
  serverNow() {
    return this.now() + this.offset.value;
  }
}
