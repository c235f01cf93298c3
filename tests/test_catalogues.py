"""One catalogue per language for every screen (web/i18n/<code>.json, listed in
web/i18n/languages.json), read by the web and by the server alike: every language has the same
keys and the same placeholders as English, no text is empty, every key the code asks for
exists, no screen keeps strings of its own elsewhere, and the one picker rule chooses the same
language from the same tags on the server as in the browser (e2e/test_languages.py)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from server.core.i18n import DEFAULT_DIR, load, placeholders

ROOT = Path(__file__).resolve().parent.parent
WEB = ROOT / "web"
LISTED = json.loads((DEFAULT_DIR / "languages.json").read_text(encoding="utf-8"))
CODES = [entry["code"] for entry in LISTED["languages"]]


def test_the_list_names_each_catalogue_file_once():
    files = sorted(p.stem for p in DEFAULT_DIR.glob("*.json") if p.name != "languages.json")
    assert sorted(CODES) == files
    assert len(set(CODES)) == len(CODES)
    assert LISTED["default"] == "en" and "en" in CODES
    assert {"zh-Hant", "en", "ja"} <= set(CODES)
    for entry in LISTED["languages"]:
        assert entry["label"].strip(), entry


@pytest.mark.parametrize("code", CODES)
def test_every_language_has_the_same_keys_and_placeholders(code):
    texts = load().texts
    english, other = texts["en"], texts[code]
    assert len(english) > 600  # every screen's strings: phone, staff, hall, sheet
    assert sorted(set(english) - set(other)) == [], "missing"
    assert sorted(set(other) - set(english)) == [], "not in English"
    for key, text in other.items():
        assert isinstance(text, str) and text.strip(), key
        assert placeholders(text) == placeholders(english[key]), key


def test_every_screen_reads_the_one_catalogue():
    """Each screen's strings are in it (a key of each prefix), and no screen keeps its own."""
    keys = set(load().texts["en"])
    for prefix in ("home.", "table.", "staff.", "run.", "hall.", "sheet."):
        assert any(k.startswith(prefix) for k in keys), prefix
    # The layout before one catalogue per language: none of its files may come back.
    for old in (
        "web/js/i18n/en.js",
        "web/js/staff/strings.js",
        "web/js/staff/strings_running.js",
        "web/js/hall_strings.js",
        "server/sheet_strings.py",
    ):
        assert not (ROOT / old).exists(), old


# t("key") / t('key') / t(`key`) with a literal key, in the web's modules and the server's
# templates; keys built at run time (t(`phase.${x}`)) are checked by the screens' own tests.
LITERAL = re.compile(r"""\bt\(\s*(["'`])([a-z][a-z0-9_]*(?:\.[a-z0-9_]+)+)\1""")
SHEET_LITERAL = re.compile(r"""\bt\(\s*(["'])([a-z][a-z0-9_]*(?:\.[a-z0-9_]+)*)\1""")


def test_every_literal_key_the_code_asks_for_exists():
    english = load().texts["en"]
    missing: list[str] = []
    for path in sorted((WEB / "js").rglob("*.js")):
        if "vendor" in path.parts:
            continue
        for _, key in LITERAL.findall(path.read_text(encoding="utf-8")):
            if key not in english:
                missing.append(f"{path.relative_to(ROOT)}: {key}")
    for path in sorted((ROOT / "server" / "templates").glob("*.html")):
        for _, key in SHEET_LITERAL.findall(path.read_text(encoding="utf-8")):
            if f"sheet.{key}" not in english:
                missing.append(f"{path.relative_to(ROOT)}: sheet.{key}")
    assert missing == []


# Browser tag lists in the browser's order: e2e/test_languages.py checks that the browser's
# pickLang gives for each what the server gives for the same tags.
PICK_TAGS: list[list[str]] = [
    ["zh"],
    ["zh-HK"],
    ["zh-TW", "en"],
    ["zh-Hant"],
    ["zh-Hant-TW"],
    ["zh-CN", "ja"],
    ["zh-Hans-HK", "en"],
    ["zh-SG"],
    ["fr", "ja", "en"],
    ["ja-JP"],
    ["en-GB", "zh-TW"],
    ["fr-FR", "de"],
    [],
]


@pytest.mark.parametrize(
    ("query", "accept", "expected"),
    [
        (None, "zh", "zh-Hant"),
        (None, "zh-HK", "zh-Hant"),
        (None, "zh-TW,en;q=0.5", "zh-Hant"),
        (None, "zh-Hant", "zh-Hant"),
        (None, "zh-Hant-TW", "zh-Hant"),
        (None, "zh-CN, ja;q=0.8", "ja"),  # Simplified: the browser's next language
        (None, "zh-Hans-HK, en;q=0.5", "en"),
        (None, "fr, ja;q=0.5, en;q=0.3", "ja"),
        (None, "en;q=0.2, ja;q=0.9", "ja"),  # by q, not by place
        (None, "ja-JP", "ja"),
        (None, "fr-FR, de", "en"),  # none of ours: English
        (None, "", "en"),
        ("zh-TW", "ja", "zh-Hant"),  # ?lang= first
        ("xx", "ja", "ja"),  # an unknown ?lang= is ignored
    ],
)
def test_the_one_picker_rule(query, accept, expected):
    assert load().pick_lang(query, accept) == expected


# A refusal the server raises: RuleError("code", ...), AppError("code", ...), NotFound(...),
# require(cond, "code", "message"), whole(value, "code", "message").
RAISED = [
    re.compile(
        r'\b(?:[A-Z]\w*Error|NotFound|Conflict|Forbidden|Unauthenticated|Busy)\(\s*"([a-z][a-z0-9_]*)"'
    ),
    re.compile(r"""\b(?:require|whole)\([^";]*?,\s*"([a-z][a-z0-9_]*)",\s*(?:f?"|\()""", re.S),
]


def refusal_codes() -> dict[str, str]:
    found: dict[str, str] = {}
    for path in sorted((ROOT / "server").rglob("*.py")):
        text = path.read_text(encoding="utf-8")
        for pattern in RAISED:
            for code in pattern.findall(text):
                found.setdefault(code, str(path.relative_to(ROOT)))
    return found


def test_every_refusal_the_server_raises_is_worded_in_every_language():
    """The phones and staff pages word a refusal from its code (web/js/i18n.js: errorText):
    every code the server raises has its `err.<code>` in the catalogues (the same keys in every
    language, above), so no reader of zh-Hant or ja is shown the server's English."""
    codes = refusal_codes()
    assert len(codes) > 60 and {"round_started", "wrong_phase", "not_found"} <= set(codes)
    english = load().texts["en"]
    missing = sorted(f"{c} ({where})" for c, where in codes.items() if f"err.{c}" not in english)
    assert missing == []


def test_every_penalty_the_judges_page_is_offered_is_worded():
    """The judges' page offers the levels and infractions the rules declare (the judges'
    view's `penalty_choices`, server/rules/judge.py) and words each from the catalogue."""
    from server.rules.judge import INFRACTIONS, LEVELS

    english = load().texts["en"]
    keys = [f"staff.level.{lv}" for lv in LEVELS] + [f"staff.inf.{i}" for i in INFRACTIONS]
    assert [k for k in keys if k not in english] == []
