"""The server's words, read from the same catalogues as the web: `web/i18n/<code>.json`, one per
language, listed once in `web/i18n/languages.json` (see docs/architecture.md, "Strings").

The pages the server renders itself (the score sheet, the standings) word everything through
`translator(lang)`; `pick_lang` chooses the language by the rule the browser uses
(`web/js/i18n.js: pickLang`): `?lang=` first, then the Accept-Language tags by their q-values,
each tag going to the language that lists it (or a prefix of it) in `tags` and not in `not`,
else the default (English). A key missing in a language falls back to the default's text.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

from server.core.config import ROOT

DEFAULT_DIR = ROOT / "web" / "i18n"
_PLACEHOLDER = re.compile(r"\{(\w+)\}")


@dataclass(frozen=True)
class Language:
    code: str
    label: str
    tags: tuple[str, ...]
    not_tags: tuple[str, ...]


@dataclass(frozen=True)
class Catalogues:
    """Every language's catalogue of one directory."""

    languages: tuple[Language, ...]
    default: str
    texts: dict[str, dict[str, str]]

    @property
    def codes(self) -> tuple[str, ...]:
        return tuple(lang.code for lang in self.languages)

    def lang_of_tag(self, raw: str) -> str | None:
        """Which of our languages one tag asks for (zh, zh-HK, zh-TW, zh-Hant -> zh-Hant)."""
        tag = raw.strip().lower()
        if not tag:
            return None
        for lang in self.languages:
            if any(_within(tag, n) for n in lang.not_tags):
                continue
            if tag == lang.code.lower() or any(_within(tag, p) for p in lang.tags):
                return lang.code
        return None

    def pick_lang(self, query: str | None, accept: str | None) -> str:
        """`?lang=` first, then the Accept-Language header by its q-values, else the default."""
        if query:
            chosen = self.lang_of_tag(query)
            if chosen:
                return chosen
        weighted: list[tuple[float, int, str]] = []
        for i, part in enumerate((accept or "").split(",")):
            tag, _, params = part.partition(";")
            q = 1.0
            if params.strip().startswith("q="):
                try:
                    q = float(params.strip()[2:])
                except ValueError:
                    q = 0.0
            chosen = self.lang_of_tag(tag)
            if chosen and q > 0:
                weighted.append((-q, i, chosen))
        return sorted(weighted)[0][2] if weighted else self.default

    def translator(self, lang: str, prefix: str = "") -> Callable[..., str]:
        """`t(key, **vars)` in `lang` (keys under `prefix`), the default's text when missing."""
        table = self.texts.get(lang, self.texts[self.default])
        fallback = self.texts[self.default]

        def t(key: str, **values: object) -> str:
            full = prefix + key
            text = table.get(full) or fallback.get(full)
            if text is None:
                return full
            return fill(text, values)

        return t


def fill(text: str, values: dict[str, object]) -> str:
    """`{name}` placeholders filled from values (one unknown stays as written), as the web does."""
    if not values:
        return text
    return _PLACEHOLDER.sub(lambda m: str(values[m[1]]) if m[1] in values else m[0], text)


def _within(tag: str, prefix: str) -> bool:
    prefix = prefix.lower()
    return tag == prefix or tag.startswith(prefix + "-")


@lru_cache(maxsize=8)
def load(directory: str | Path = DEFAULT_DIR) -> Catalogues:
    """The catalogues of a directory (web/i18n by default), read once."""
    base = Path(directory)
    listed = json.loads((base / "languages.json").read_text(encoding="utf-8"))
    languages = tuple(
        Language(
            code=entry["code"],
            label=entry["label"],
            tags=tuple(entry.get("tags") or [entry["code"]]),
            not_tags=tuple(entry.get("not") or []),
        )
        for entry in listed["languages"]
    )
    texts = {
        lang.code: json.loads((base / f"{lang.code}.json").read_text(encoding="utf-8"))
        for lang in languages
    }
    return Catalogues(languages=languages, default=listed["default"], texts=texts)


def for_web_dir(web_dir: str | Path) -> Catalogues:
    """The catalogues that the web directory `web_dir` serves (config WEB_DIR)."""
    return load(str(Path(web_dir) / "i18n"))


class Said(str):
    """Words to be said in the reader's language: a catalogue key and its values (a value may
    itself be a `Said`, or a list of them). As a `str` it is the default language's text
    (English), which is what logs, exports and older callers read; a page says it in its
    reader's language with `say`."""

    key: str
    values: dict[str, Any]

    def __new__(cls, key: str, **values: Any) -> Said:
        found = load()
        self = super().__new__(cls, render(found.translator(found.default), key, values))
        self.key = key
        self.values = values
        return self


def render(t: Callable[..., str], key: str, values: Mapping[str, Any]) -> str:
    """The text of `key` with each value said too (lists joined by the language's separator)."""
    return t(key, **{name: say(t, value) for name, value in values.items()})


def say(t: Callable[..., str], value: Any) -> str:
    """A value as the reader reads it: a `Said` in t's language, a list of values joined by the
    language's `list.sep`, anything else as written (names, notes, numbers)."""
    if isinstance(value, Said):
        return render(t, value.key, value.values)
    if isinstance(value, list | tuple):
        return t("list.sep").join(say(t, v) for v in value)
    return "" if value is None else str(value)


def placeholders(text: str) -> set[str]:
    """The placeholder names of a text."""
    return set(_PLACEHOLDER.findall(text))
