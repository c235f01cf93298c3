"""docs/protocol.md's command table is the commands' declarations (server/rules/, beside each
decider), row for row: a declaration and the doc cannot disagree.

`python -m tests.test_protocol_commands` writes the table from the declarations."""

from __future__ import annotations

import sys
from pathlib import Path

from server.rules import DECLARATIONS

DOC = Path(__file__).resolve().parent.parent / "docs" / "protocol.md"
HEAD = "| cmd | who | args | what |\n|---|---|---|---|\n"


def rendered() -> str:
    """The command table as the declarations give it, one row per command, by name."""
    rows = [
        f"| `{name}` | {d.who} | {d.form} | {d.what} |" for name, d in sorted(DECLARATIONS.items())
    ]
    return HEAD + "\n".join(rows) + "\n"


def documented(text: str) -> str:
    """The command table of docs/protocol.md, as written."""
    start = text.index(HEAD)
    end = text.index("\n\n", start)
    return text[start : end + 1]


def test_the_protocol_table_is_the_declarations():
    assert documented(DOC.read_text(encoding="utf-8")) == rendered()


def test_every_declaration_has_its_row():
    for name, declared in DECLARATIONS.items():
        assert declared.who and declared.form and declared.what, name


def test_a_changed_declaration_fails_the_check():
    text = DOC.read_text(encoding="utf-8")
    changed = text.replace("| `lp.confirm` | S", "| `lp.confirm` | J", 1)
    assert changed != text
    assert documented(changed) != rendered()


if __name__ == "__main__":
    text = DOC.read_text(encoding="utf-8")
    DOC.write_text(text.replace(documented(text), rendered()), encoding="utf-8")
    sys.exit(0)
