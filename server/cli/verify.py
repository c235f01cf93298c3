"""`python -m server verify [--code CODE]`: check the hash chain of every table (or one).

Prints one line per broken table, naming the first link that does not hold, and exits 1 if
any is broken, 0 if every chain holds (2 when the named table does not exist). A chain holds
when every link does and the signed heads cover it: each confirmed result's head and a
finished table's final head signed with the server's key (a head missing, or events after the
last signed head of a finished table, is a broken table, named with the seq where it starts).
A log must also be as long as the heads ledger kept beside the key says it grew, with the same
hash there (`server/store/ledger.py`): a log cut back is named at the first missing seq.
Without the key, a table with signed heads is reported as unchecked and the others are checked
by their chain only (the key's theft, or its deletion with the signatures, is what the phones'
receipts are for: `server/store/signing.py`).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Iterable, Iterator
from typing import TextIO

from server.service.storage import EventStore, Verification, open_to_verify, table_codes


def add_parser(commands: argparse._SubParsersAction) -> None:
    """Add the verify subcommand to the server's command line."""
    p = commands.add_parser("verify", help="check every table's hash chain (score sheets)")
    p.add_argument("--code", help="check only this table")
    p.add_argument("-v", "--verbose", action="store_true", help="also list the tables that hold")
    p.set_defaults(handler=run)


def all_codes(store: EventStore) -> list[str]:
    """Every table's code, oldest first."""
    return table_codes(store)


def check(store: EventStore, codes: Iterable[str]) -> Iterator[tuple[str, Verification]]:
    """Each table's code and the result of checking its chain."""
    for code in codes:
        yield code, store.verify(code)


def report(
    store: EventStore, codes: Iterable[str], out: TextIO, verbose: bool = False
) -> tuple[int, int]:
    """Write a line per broken table (and per sound one if `verbose`); (checked, broken)."""
    checked = broken = 0
    for code, result in check(store, codes):
        checked += 1
        if not result.ok:
            broken += 1
            print(f"{code}: BROKEN at seq {result.seq}: {result.problem}", file=out)
        elif verbose:
            print(f"{code}: ok ({result.count} events)", file=out)
    return checked, broken


def run(args: argparse.Namespace) -> int:
    """Check the database the environment names (DATABASE_URL, DATA_DIR)."""
    from server.core import config as settings

    conf = {**settings.DEFAULTS, **settings.from_env()}
    store = open_to_verify(conf, lambda warning: print(warning, file=sys.stderr))
    if args.code:
        code = args.code.strip().upper()
        if not store.exists(code):
            print(f"{code}: no such table", file=sys.stderr)
            return 2
        codes = [code]
    else:
        codes = all_codes(store)
    checked, broken = report(store, codes, sys.stdout, args.verbose)
    print(f"{checked} table(s) checked, {broken} broken.", file=sys.stderr)
    return 1 if broken else 0
