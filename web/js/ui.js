// The table screen's UI state: what the panels show besides the table state (an open form, a
// chosen count, what is being typed, mute). One owner: every field is declared here with the one
// panel that may change it. A panel reads any field through its handle (ctx.ui.<field>) and
// changes only its own, with set() (what is shown changed: the screen redraws) or keep() (its
// own bookkeeping: nothing redraws). Assigning a field directly throws. The mount's few moves
// (a deciding duel's match confirmation sent, a form recorded) are named actions below.
// Fields kept on this phone (mute, the last deck counts) are read and written here alone.

const SCREEN = "screen"; // the mount (table.js): its actions only

/** field -> [owner panel, initial value (a function: a fresh one per screen), storage key?] */
const FIELDS = {
  kp: ["keypad", () => ({ target: "opp", kind: "damage", amount: "" })], // typed in place
  rollCount: ["dice", () => 1],
  judgeOpen: ["judge", () => false],
  rulingSeen: ["board", () => 0], // the last judge's ruling this phone's player has read
  rejecting: ["ask", () => null],
  correcting: ["ask", () => null],
  concedeArmed: ["phase", () => false],
  resultDisputeOpen: ["phase", () => false],
  matchConfirmAfter: ["phase", () => null], // the deciding duel whose confirmation confirms the match
  listCheck: ["phase", () => null], // the server's last answer about the pasted deck list
  listChecks: ["phase", () => 0],
  listTimer: ["phase", () => null],
  listRefs: ["phase", () => null],
  suggestTimer: ["phase", () => null], // the card-name suggestions for the line being typed
  suggestAsks: ["phase", () => 0],
  banlists: ["phase", () => null], // the lists a casual table may pick ([] at an event table)
  eventList: ["phase", () => null], // the deck list registered for this seat's player at the event
  eventRound: ["phase", () => null], // an event table's round number (0 while it is asked for)
  nextRound: ["phase", () => null], // a finished event table: where this seat's player sits next (0 while asked)
  deckLast: ["phase", () => null, "dt.deck.last"], // the deck counts last declared on this phone
  muted: ["bar", () => false, "dt.mute"], // tone and vibration off (the flash stays)
  forms: ["*", () => ({})], // values typed into forms survive redraws: each form is its panel's
};

function storage() {
  try {
    return globalThis.localStorage || null;
  } catch {
    return null; // storage blocked
  }
}

function load(key) {
  try {
    const raw = storage()?.getItem(key);
    if (raw == null) return undefined;
    return key === "dt.mute" ? raw === "1" : JSON.parse(raw);
  } catch {
    return undefined;
  }
}

function save(key, value) {
  try {
    storage()?.setItem(key, key === "dt.mute" ? (value ? "1" : "0") : JSON.stringify(value));
  } catch {
    /* storage full or blocked: for this page only */
  }
}

/** The UI state of one table screen. */
export class ScreenUi {
  constructor() {
    this.values = {};
    for (const [name, [, init]] of Object.entries(FIELDS)) this.values[name] = init();
    this.listeners = new Set();
    this.handles = new Map();
  }

  /** Subscribe to changes of what is shown; returns the unsubscribe function. */
  subscribe(fn) {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }

  get(name) {
    if (!(name in FIELDS)) throw new Error(`no UI field ${name}`);
    const key = FIELDS[name][2];
    if (key) {
      const kept = load(key);
      return kept === undefined ? this.values[name] : kept;
    }
    return this.values[name];
  }

  /** All fields as they are now (what a panel's redraw signature picks from). */
  snapshot() {
    const out = {};
    for (const name of Object.keys(FIELDS)) out[name] = this.get(name);
    return out;
  }

  write(owner, changes, notify) {
    for (const [name, value] of Object.entries(changes)) {
      const field = FIELDS[name];
      if (!field) throw new Error(`no UI field ${name}`);
      if (field[0] !== owner && owner !== SCREEN) throw new Error(`UI field ${name} is the ${field[0]} panel's, not ${owner}'s`);
      this.values[name] = value;
      if (field[2]) save(field[2], value);
    }
    if (notify) for (const fn of this.listeners) fn();
  }

  /** A panel's handle: reads every field, changes its own (the mount gives it as ctx.ui). */
  handle(owner) {
    if (this.handles.has(owner)) return this.handles.get(owner);
    const self = this;
    const api = {
      set: (changes) => self.write(owner, changes, true),
      keep: (changes) => self.write(owner, changes, false),
    };
    const handle = new Proxy(api, {
      get: (target, name) => (name in target ? target[name] : typeof name === "string" && name in FIELDS ? self.get(name) : undefined),
      set: (_t, name) => {
        throw new TypeError(`UI field ${String(name)} changes through set() or keep()`);
      },
      has: (target, name) => name in target || name in FIELDS,
    });
    this.handles.set(owner, handle);
    return handle;
  }

  // --- the mount's actions ------------------------------------------------------------------

  /** The deciding duel's match confirmation is sent (or no longer wanted). */
  matchConfirmDone() {
    this.write(SCREEN, { matchConfirmAfter: null }, false);
  }

  /** A form's values were recorded by the server: it starts empty again. */
  formDone(form) {
    this.values.forms[form] = {};
    for (const fn of this.listeners) fn();
  }
}

/** The declared fields and their owners (docs and the panel checks read them). */
export const UI_FIELDS = Object.fromEntries(Object.entries(FIELDS).map(([name, [owner, , key]]) => [name, { owner, kept: key || null }]));
