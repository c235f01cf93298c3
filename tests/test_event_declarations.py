"""Each event is declared once, beside its handler (`server.rules.base.handler`): its fields,
its secret and staff-only fields, its words in the judges' log, its line on the score sheet and
the fields an older log lacks. These tests hold the readers to the declarations: the
catalogues word every declared code with the declared values, the sheet writes a declared line
from the declaration alone and has a step exactly for the events that name one, and an older
log (without the fields added since) reads as a new one on the sheet and in the judges' log."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from server.core.i18n import load, say
from server.projections import sheet as sheet_module
from server.projections.sheet import build_sheet, filled_log
from server.rules import EVENTS
from server.rules.base import SHEET_SECTIONS, event_words
from server.rules.view import LIST_EVENTS
from tests.test_sheet_words import before_codes, disputed_match, envelopes

ROOT = Path(__file__).resolve().parent.parent
LANGS = ("en", "ja", "zh-Hant")
PLACEHOLDER = re.compile(r"\{(\w+)\}")
RECORDED = ROOT / "tests" / "data" / "replay_match.json"


def catalogue(lang: str) -> dict[str, str]:
    return json.loads((ROOT / "web" / "i18n" / f"{lang}.json").read_text(encoding="utf-8"))


@pytest.mark.parametrize("lang", LANGS)
def test_every_declared_log_code_is_worded_with_the_declared_values(lang: str) -> None:
    words = catalogue(lang)
    for event_type, declared in EVENTS.items():
        said = declared.words.to_dict(event_type)
        for code in (said["code"], *(v[2] for v in said["variants"])):
            assert code in words, (event_type, code)
            # Every placeholder is a data field (as written) or a declared value.
            given = set(declared.data) | set(said["params"])
            assert set(PLACEHOLDER.findall(words[code])) <= given, (event_type, code)


@pytest.mark.parametrize("lang", LANGS)
def test_every_declared_sheet_line_is_worded_from_its_declared_values(lang: str) -> None:
    words = catalogue(lang)
    lines = {t: d.sheet for t, d in EVENTS.items() if d.sheet is not None and not d.sheet.step}
    assert {"clock.started", "penalty.recorded", "judge.closed", "side.exchanged"} <= set(lines)
    for event_type, line in lines.items():
        assert line.section in SHEET_SECTIONS
        for code in (line.code, *(v[2] for v in line.variants)):
            assert code in words, (event_type, code)
            assert set(PLACEHOLDER.findall(words[code])) <= set(line.params), (event_type, code)


def test_the_sheet_has_a_step_exactly_for_the_events_that_name_one() -> None:
    stepped = {t for t, d in EVENTS.items() if d.sheet is not None and d.sheet.step}
    assert set(sheet_module.STEPS) == stepped
    methods = {m for m in vars(sheet_module._Builder) if m.startswith("on_")}
    assert methods == {"on_" + t.replace(".", "_") for t in stepped}


def test_the_phones_read_every_declaration() -> None:
    words = event_words()
    assert set(words) == set(EVENTS)
    assert words["flag.raised"]["params"]["turn"] == ["num", "turn"]
    assert json.loads(json.dumps(words)) == words  # served as JSON as it is


def test_the_deck_lists_hidden_are_the_declared_secrets() -> None:
    """The phones' events and the exported log hide a deck list's cards: the fields each event
    declares secret (a pick is hidden until thrown, apart)."""
    assert LIST_EVENTS == {"deck.registered": ("cards",), "side.exchanged": ("cards", "current")}
    assert EVENTS["rps.picked"].secret == ("hand",)


def _recorded() -> list[dict[str, Any]]:
    return list(json.loads(RECORDED.read_text(encoding="utf-8"))["events"])


def test_an_older_log_gets_the_fields_added_since_from_its_state() -> None:
    """The recorded log's overtime flag was written before flags named their turn: the judges'
    log gets the turn from the state it was raised on, the same the rules write now."""
    old = _recorded()
    [flag] = [e for e in old if e["type"] == "flag.raised"]
    assert "turn" not in flag["data"] and flag["data"]["detail"] == "turn 2"
    [filled] = [e for e in filled_log(old) if e["type"] == "flag.raised"]
    assert filled["data"] == {**flag["data"], "turn": 2}
    assert filled["seq"] == flag["seq"] and filled["at_ms"] == flag["at_ms"]


@pytest.mark.parametrize("lang", LANGS)
def test_an_older_log_and_the_same_log_with_its_fields_give_the_same_sheet(lang: str) -> None:
    old = _recorded()
    new = filled_log(old)
    assert new != old
    t = load().translator(lang)

    def lines(log: list[dict[str, Any]]) -> list[str]:
        out = []
        for m in build_sheet(log).matches:
            for line in (*m.rulings, *m.penalties, *m.clock, *m.decks_log):
                out.append(f"{say(t, line.text)} {say(t, line.note)}")
        return out

    assert lines(old) == lines(new)
    if lang == "en":
        assert "turn 2 passed 3 minutes (a flag for judges, charged to nobody) " in lines(old)


def test_a_log_from_before_codes_is_filled_with_the_codes() -> None:
    """A call and a closing from before codes get their codes in the judges' log; the server's
    sentence leaves the reason, the player's words stay."""
    log = envelopes(disputed_match())
    old = before_codes(log)
    filled = filled_log(old)
    calls = [e["data"] for e in filled if e["type"] == "judge.called"]
    now = [e["data"] for e in log if e["type"] == "judge.called"]
    assert [(c["code"], c["reason"]) for c in calls] == [(c["code"], c["reason"]) for c in now]
    closed = [e["data"] for e in filled if e["type"] == "judge.closed"]
    assert [(c["code"], c["note"]) for c in closed] == [
        (c["code"], c["note"]) for c in (e["data"] for e in log if e["type"] == "judge.closed")
    ]
