"""The time-over stage (R5) reaches the screens as a code, worded once by the catalogues:
every stage code the rules can produce has its `time.stage.<code>` entry in every language, the
rules emit a stage only through `time_over.py`, and no screen words a stage code itself."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from server.core.i18n import load, placeholders
from server.rules import RuleError
from server.rules.base import Actor, Tx
from server.rules.state import EMPTY
from server.rules.time_over import STAGES, _stage

ROOT = Path(__file__).resolve().parent.parent
RULES = ROOT / "server" / "rules"
LANGUAGES = sorted(load().texts)


def test_the_stages_are_the_five_of_r5() -> None:
    # R5.1.1 finish the turn, R5.1.2-3 Extra Turns, R5.1.5 sudden death, R5.2.1 the Extra
    # Duel, R5.2.2 its sudden death.
    assert STAGES == (
        "finish_turn",
        "extra_turns",
        "sudden_death",
        "extra_duel",
        "extra_duel_sudden_death",
    )


@pytest.mark.parametrize("language", LANGUAGES)
@pytest.mark.parametrize("stage", STAGES)
def test_every_stage_has_its_words_in_every_language(language: str, stage: str) -> None:
    texts = load().texts[language]
    key = f"time.stage.{stage}"
    assert key in texts and texts[key].strip()
    # Only the extra turn's number and the count of turns are given to the words.
    assert placeholders(texts[key]) <= {"n", "of"}


def test_a_stage_is_emitted_only_by_the_time_over_procedure() -> None:
    """Every `time.stage` event of the rules comes from `time_over._stage`, which refuses a
    code outside STAGES: so STAGES is every stage the rules can produce."""
    emitters = []
    for path in sorted(RULES.glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if (
                isinstance(node, ast.Call)
                and getattr(node.func, "attr", "") == "emit"
                and node.args
                and isinstance(node.args[0], ast.Constant)
                and node.args[0].value == "time.stage"
            ):
                emitters.append(path.name)
    assert emitters == ["time_over.py"]
    tx = Tx(EMPTY, Actor("system"), 0, lambda n: 0)
    with pytest.raises(RuleError):
        _stage(tx, "overtime")
    assert tx.events == []


def test_no_screen_words_a_stage_code_itself() -> None:
    """The stage's words are looked up as `time.stage.<code>` only (`stageText` in i18n.js,
    `Said("time.stage...")` on the sheet): no other key names a stage."""
    english = load().texts["en"]
    stage_keys = [
        k
        for k in english
        if any(k.endswith(f".{s}") for s in STAGES) and not k.startswith("time.stage.")
    ]
    # The reasons a duel or match ended name some of the same words, and the sheet marks an
    # Extra Duel's rows: those are not the stage.
    assert all("reason" in k.split(".") or k == "sheet.extra_duel" for k in stage_keys), stage_keys
    js = "\n".join(p.read_text(encoding="utf-8") for p in (ROOT / "web" / "js").rglob("*.js"))
    assert "time.stage." in js
    assert not re.search(r"sheet\.stage\.|staff\.phase\.(finish_turn|extra_turns|sudden_death)", js)
