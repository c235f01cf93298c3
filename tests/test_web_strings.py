"""Every status a dispute row can show (server/rules/ledger.py: open, applied, void) has a
string in each of the three catalogues, so no raw key (`dispute.void`) reaches the screen."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

WEB = Path(__file__).resolve().parent.parent / "web" / "js"
LEDGER = Path(__file__).resolve().parent.parent / "server" / "rules" / "ledger.py"


def dispute_statuses() -> set[str]:
    text = LEDGER.read_text()
    found = set(re.findall(r'status = "(\w+)" if .* else "(\w+)"', text))
    statuses = {"open"} | {s for pair in found for s in pair}
    assert {"applied", "void"} <= statuses
    return statuses


@pytest.mark.parametrize("lang", ["en", "ja", "zh-Hant"])
def test_every_dispute_status_is_translated(lang):
    catalogue = (WEB / "i18n" / f"{lang}.js").read_text()
    missing = [s for s in sorted(dispute_statuses()) if f'"dispute.{s}":' not in catalogue]
    assert missing == []
