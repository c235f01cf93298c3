// The table screen's panels, in screen order. The bar and the banners sit in the sticky top.
// To add a panel: write panels/<name>.js exporting name, reads, render (and local, own if it
// shows UI state), add it here and to web/sw.js, and e2e/test_panels.py checks its reads.

import * as ask from "./ask.js";
import * as banners from "./banners.js";
import * as bar from "./bar.js";
import * as board from "./board.js";
import * as counters from "./counters.js";
import * as dice from "./dice.js";
import * as disputes from "./disputes.js";
import * as judge from "./judge.js";
import * as keypad from "./keypad.js";
import * as ledger from "./ledger.js";
import * as pending from "./pending.js";
import * as phase from "./phase.js";
import * as share from "./share.js";

export const TOP = [bar, banners];
export const PANELS = [bar, banners, board, share, phase, keypad, pending, dice, counters, judge, ledger, disputes, ask];
