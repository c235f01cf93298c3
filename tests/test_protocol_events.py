"""docs/protocol.md's event catalogue is the events' declarations (server/rules/, beside each
handler), row for row: a declaration and the doc cannot disagree.

`python -m tests.test_protocol_events` writes the catalogue from the declarations."""

from __future__ import annotations

import sys
from pathlib import Path

from server.rules import EVENTS

DOC = Path(__file__).resolve().parent.parent / "docs" / "protocol.md"
HEAD = "| event | data (field: type; `?` may be null) | hidden fields |\n|---|---|---|\n"


def rendered() -> str:
    """The catalogue as the declarations give it, one row per event type, by name."""
    rows = []
    for name, declared in sorted(EVENTS.items()):
        data = ", ".join(f"`{k}`: {v}" for k, v in declared.data.items())
        hidden = [f"`{k}` secret" for k in declared.secret]
        hidden += [f"`{k}` staff only" for k in declared.staff_only]
        rows.append(f"| `{name}` | {data} | {', '.join(hidden) or 'everyone'} |")
    return HEAD + "\n".join(rows) + "\n"


def documented(text: str) -> str:
    """The catalogue of docs/protocol.md, as written."""
    start = text.index(HEAD)
    end = text.index("\n\n", start)
    return text[start : end + 1]


def test_the_event_catalogue_is_the_declarations():
    assert documented(DOC.read_text(encoding="utf-8")) == rendered()


def test_a_changed_declaration_fails_the_check():
    text = DOC.read_text(encoding="utf-8")
    changed = text.replace("| `lp.applied` | `entry`: int", "| `lp.applied` | `entry`: str", 1)
    assert changed != text
    assert documented(changed) != rendered()


if __name__ == "__main__":
    text = DOC.read_text(encoding="utf-8")
    DOC.write_text(text.replace(documented(text), rendered()), encoding="utf-8")
    sys.exit(0)
