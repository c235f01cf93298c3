"""Every status a dispute row can show (server/rules/ledger.py: open, applied, void; a casual
table's withdrawn, corrected, dropped, also in server/rules/duel_end.py) has a
string in each of the three catalogues, so no raw key (`dispute.void`) reaches the screen."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

WEB = Path(__file__).resolve().parent.parent / "web"
RULES = Path(__file__).resolve().parent.parent / "server" / "rules"
LEDGER = RULES / "ledger.py"


def dispute_statuses() -> set[str]:
    from server.rules.ledger import SETTLED  # a judge's settlement: applied, void, corrected

    statuses = {"open", "open_casual"} | set(SETTLED.values())
    closed = r'"dispute\.closed", entry=[^)]*status="(\w+)"'
    for path in (LEDGER, RULES / "duel_end.py"):
        statuses |= set(re.findall(closed, path.read_text()))
    assert {"applied", "void", "withdrawn", "corrected", "dropped"} <= statuses
    return statuses


@pytest.mark.parametrize("lang", ["en", "ja", "zh-Hant"])
def test_every_dispute_status_is_translated(lang):
    catalogue = (WEB / "i18n" / f"{lang}.json").read_text()
    missing = [s for s in sorted(dispute_statuses()) if f'"dispute.{s}":' not in catalogue]
    assert missing == []
