"""The table screen's panels (web/js/panels/) cannot go stale: each declares the state fields it
reads, the host redraws it when (and only when) those change, and a panel that reads a field it
did not declare is caught here.

For every panel, every viewer (seat A, seat B, a spectator) and table states taken from the rules
at each phase (registration, pregame, a duel with pending and rejected entries, counters, rolls,
calls and penalties, its result, between duels, the match's result and after), in real Chromium:

* rendering with a recording proxy of the full state touches only declared fields, and only the
  declared UI state (plus the panel's own typed values);
* rendering with only the declared fields gives the same DOM as with the full state.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Page

from server.rules.view import view
from tests.rules_helpers import Table

pytestmark = pytest.mark.browser

HERE = Path(__file__).resolve().parent

DECK_LIST = "\n".join(
    ["#main", *[f"3 Main {i}" for i in range(13)], "1 Main 13"]
    + ["#extra", *[f"3 Extra {i}" for i in range(5)]]
    + ["#side", *[f"3 Side {i}" for i in range(5)]]
)


def views(t: Table, label: str) -> list[dict[str, Any]]:
    """The state as seat A, seat B, a spectator and a judge see it, JSON as the socket sends it."""
    out = [
        {
            "label": f"{label}/{who or 'spectator'}",
            "seat": who,
            "state": json.loads(json.dumps(view(t.state, who))),
        }
        for who in ("A", "B", None)
    ]
    judge = json.loads(json.dumps(view(t.state, None, privileged=True)))
    return [*out, {"label": f"{label}/judge", "seat": None, "judge": True, "state": judge}]


def sample_states() -> list[dict[str, Any]]:
    """Realistic states at every phase, with something in every field a panel shows."""
    out: list[dict[str, Any]] = []
    t = Table()
    out += views(t, "empty")
    t.do("system", "seat.join", seat="A", name="Yugi", player_id="0001")
    out += views(t, "half-seated")
    t.do("system", "seat.join", seat="B", name="Kaiba", player_id="0002")
    t.declare("A")
    out += views(t, "registration")
    t.do("A", "deck.register", text=DECK_LIST)
    t.declare("B")
    t.do("A", "deck.confirm", seat="B")
    t.do("B", "deck.confirm", seat="A")
    t.do("A", "pregame.check", items=["handshake", "cut"])
    t.do("A", "rps.pick", hand="rock")
    out += views(t, "pregame-rps")
    t.do("B", "rps.pick", hand="scissors")
    t.checklist()
    out += views(t, "pregame-choose")
    t.choose("A")
    t.do("A", "duel.draw")
    out += views(t, "pregame-draw")
    t.do("B", "duel.draw")
    t.start_clock()
    t.hit("B", 1000)
    t.propose("A", ("B", "damage", 500))
    rejected = t.propose("B", ("A", "gain", 300))
    t.do("A", "lp.reject", entry=rejected, reason="no")
    t.do("A", "counter.change", name="Spell Counter", delta=2)
    t.do("B", "token.change", delta=1)
    t.do("A", "coin.toss", count=2)
    t.do("B", "die.roll", count=1)
    t.do("B", "judge.call", reason="ruling")
    t.do("judge", "penalty.record", seat="B", level="warning", infraction="slow_play", note="")
    out += views(t, "duel")
    t.do("judge", "dispute.settle", entry=rejected, action="void", note="")
    for p in list(t.state.pending):
        t.confirm("B" if p.by == "A" else "A", p.entry)
    t.hit("B", t.state.lp["B"])
    out += views(t, "duel-result")
    t.confirm_result()
    out += views(t, "between")
    t.between()
    t.win_duel("A")
    out += views(t, "match-result")
    t.do("A", "match.confirm")
    t.do("B", "match.confirm")
    t.do("A", "match.new")
    out += views(t, "match-over")
    return out


# The checkers, run in the page (JavaScript beside this file).
CHECK = (HERE / "panel_check.js").read_text()
HOST = (HERE / "panel_host.js").read_text()


@pytest.fixture(scope="module")
def samples() -> list[dict[str, Any]]:
    return sample_states()


@pytest.fixture
def page(new_phone, script_errors) -> Page:
    # The sample states' table code exists on no server: the invite's QR image is not found.
    script_errors.allow(r"/api/tables/\w+/(qr\.svg|invite)")
    page = new_phone()
    page.goto("/")
    return page


def test_samples_cover_every_phase(samples) -> None:
    phases = {s["state"]["phase"] for s in samples}
    assert phases >= {
        *("registration", "pregame", "duel", "duel_result"),
        *("between", "match_result", "match_over"),
    }
    duel = next(s["state"] for s in samples if s["label"] == "duel/A")
    assert duel["pending"] and duel["disputes"] and duel["rolls"]
    assert duel["calls"] and duel["penalties"]
    assert duel["counters"]["A"] and duel["tokens"]["B"] and duel["ledger"]


TABLE = {"module": "/js/panels/index.js", "exportName": "PANELS"}
JUDGE = {"module": "/js/judge/panels.js", "exportName": "JUDGE_PANELS"}


def test_every_panel_reads_only_what_it_declares(page: Page, samples) -> None:
    samples = [s for s in samples if not s.get("judge")]
    out = page.evaluate(CHECK, {"samples": samples, "extra": None, **TABLE})
    names = [name for name, _ in out["panels"]]
    assert names == [
        "bar", "banners", "board", "share", "phase", "keypad", "pending",
        "dice", "counters", "judge", "ledger", "disputes", "ask",
    ]  # fmt: skip
    assert out["renders"] == len(samples) * 2 * len(names)
    assert out["problems"] == []


def test_a_panel_reading_an_undeclared_field_is_caught(page: Page, samples) -> None:
    out = page.evaluate(CHECK, {"samples": samples, "extra": "undeclared", **TABLE})
    bad = [p for p in out["problems"] if p.startswith("bad ")]
    assert any("reads undeclared lp" in p for p in bad)
    assert any("differs with only its declared fields" in p for p in bad)
    assert [p for p in out["problems"] if not p.startswith("bad ")] == []


def test_the_host_redraws_a_panel_when_and_only_when_its_inputs_change(page: Page) -> None:
    out = page.evaluate(HOST)
    # A field it does not read (the turn) does not redraw it; its field, its UI state and the
    # viewer do.
    assert out["drawn"] == [8000, 7000, 7000, 7000]
    assert out["steps"] == ["8000 false", "8000 false", "7000 false", "7000 true", "7000 true"]


def test_every_panel_of_the_judges_page_reads_only_what_it_declares(page: Page, samples) -> None:
    judge = [s for s in samples if s.get("judge")]
    out = page.evaluate(CHECK, {"samples": judge, "extra": None, **JUDGE})
    assert [name for name, _ in out["panels"]] == ["calls", "disputes", "penalties", "decks"]
    assert out["renders"] == len(judge) * 2 * 4
    assert out["problems"] == []


UI_OWNERS = """async () => {
  const {ScreenUi, UI_FIELDS} = await import("/js/ui.js");
  const ui = new ScreenUi();
  let redraws = 0;
  ui.subscribe(() => redraws++);
  const dice = ui.handle("dice"), judge = ui.handle("judge");
  const out = {};
  const tryIt = (fn) => { try { fn(); return "ok"; } catch (err) { return err.constructor.name; } };
  out.assign = tryIt(() => { dice.rollCount = 2; });
  out.others = tryIt(() => judge.set({rollCount: 2}));
  out.undeclared = tryIt(() => dice.set({somethingElse: 1}));
  out.own = tryIt(() => dice.set({rollCount: 2}));
  out.seen = [dice.rollCount, judge.rollCount, redraws];
  out.kept = tryIt(() => dice.keep({rollCount: 3}));
  out.seenAfterKeep = [judge.rollCount, redraws];
  out.owners = Object.fromEntries(Object.entries(UI_FIELDS).map(([k, v]) => [k, v.owner]));
  return out;
}"""


def test_each_ui_field_has_one_owner_and_panels_change_only_their_own(page: Page) -> None:
    """web/js/ui.js: a panel reads every field of the screen's UI state, changes only its own
    (set: the screen redraws; keep: nothing redraws), and cannot assign a field directly."""
    out = page.evaluate(UI_OWNERS)
    assert out["assign"] == "TypeError"
    assert out["others"] == "Error"
    assert out["undeclared"] == "Error"
    assert out["own"] == "ok"
    assert out["seen"] == [2, 2, 1]
    assert out["kept"] == "ok"
    assert out["seenAfterKeep"] == [3, 1]
    assert out["owners"]["kp"] == "keypad" and out["owners"]["muted"] == "bar"
    assert set(out["owners"]) >= {"judgeOpen", "rejecting", "concedeArmed", "forms"}
