"""The score sheet says every row in its reader's language from codes: the same log gives the
same rows in each language, with only the words people typed left as written; and a log written
before codes (a call's reason and a closing note in English) reads the same way (docs/protocol.md,
"Words and codes")."""

from __future__ import annotations

import re
from typing import Any

import pytest

from server.core.i18n import Said, load, say
from server.projections.sheet import build_sheet, label
from tests.rules_helpers import Table

TYPED = {"it was 2000", "slow", "41"}
EN_WORD = re.compile(r"[A-Za-z]{2,}")


def disputed_match() -> Table:
    """An event table: a rejected entry a judge voids, a player's call, a penalty, a failed deck
    check a judge clears."""
    t = Table(staff_start=True).register().start_duel(first="A")
    entry = t.propose("A", ("B", "damage", 3000))
    t.do("B", "lp.reject", entry=entry, reason="it was 2000")
    t.do("judge", "dispute.settle", entry=entry, action="void", note="")
    t.do("A", "judge.call", reason="slow")
    t.do("judge", "penalty.record", seat="B", level="warning", infraction="slow_play", note="")
    t.hit("B", 8000)
    t.confirm_result()
    t.do("B", "deck.check", ok=False, note="41")
    t.do("judge", "deck.clear", seat="B", note="")
    return t


def envelopes(t: Table) -> list[dict[str, Any]]:
    return [{"seq": i + 1, **e.to_dict()} for i, e in enumerate(t.log)]


def before_codes(log: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The same log as an earlier release wrote it: English in the calls and closing notes."""
    words = {
        "lp_disputed": lambda d: f"LP entry #{d['entry']} disputed",
        "result_disputed": lambda d: f"Result of duel {d['duel']} disputed",
        "deck_problem": lambda d: "Deck count problem after the duel (R7.5)",
    }
    notes = {"dispute_void": "dispute void", "deck_cleared": "deck cleared"}
    old = []
    for e in log:
        data = dict(e["data"])
        if e["type"] == "judge.called":
            code = data.pop("code")
            if code:
                said = words[code](data)
                data["reason"] = f"{said}: {data['reason']}" if data["reason"] else said
        if e["type"] == "judge.closed":
            code = data.pop("code", None)
            data["note"] = data["note"] or notes.get(code, "")
        old.append({**e, "data": data})
    return old


def rows(log: list[dict[str, Any]], lang: str) -> list[str]:
    t = load().translator(lang)
    sheet = build_sheet(log)
    out = []
    for m in sheet.matches:
        for line in (*m.rulings, *m.penalties, *m.clock, *m.decks_log):
            out.append(f"{say(t, label(line.who))} {say(t, line.text)} {say(t, line.note)}".strip())
    return out


@pytest.mark.parametrize("lang", ["zh-Hant", "ja"])
def test_every_row_is_in_the_readers_language(lang):
    log = envelopes(disputed_match())
    said = rows(log, lang)
    assert len(said) >= 8
    english = {w.lower() for text in load().texts["en"].values() for w in EN_WORD.findall(text)}
    kept = {w for text in load().texts[lang].values() for w in EN_WORD.findall(text)}
    for text in said:
        for typed in TYPED:
            text = text.replace(typed, "")
        words = [w for w in EN_WORD.findall(text) if w.lower() in english and w not in kept]
        assert words == [], text
    # The typed words are there, as written.
    assert any("it was 2000" in s for s in said) and any("41" in s for s in said)


@pytest.mark.parametrize("lang", ["en", "zh-Hant", "ja"])
def test_a_log_from_before_codes_reads_the_same(lang):
    log = envelopes(disputed_match())
    old = before_codes(log)
    assert old != log and all("code" not in e["data"] for e in old if e["type"] == "judge.called")
    assert rows(old, lang) == rows(log, lang)


def test_a_row_is_english_as_a_string_and_its_key_in_words():
    row = Said("sheet.row.call_taken", call=3)
    assert row == "call #3 taken" and isinstance(row, str)
    assert say(load().translator("ja"), row) == load().texts["ja"]["sheet.row.call_taken"].replace(
        "{call}", "3"
    )
