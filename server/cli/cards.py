"""`python -m server load-cards FILE --lang ja|zh-Hant|en`: load card names (docs/banlists.md)."""

from __future__ import annotations

import argparse
import sys


def add_parser(commands: argparse._SubParsersAction) -> None:
    """Add the load-cards subcommand to the server's command line."""
    from server.service.lists import CARD_LANGS

    p = commands.add_parser(
        "load-cards", help="load card names in one language from a cards.cdb or a CSV"
    )
    p.add_argument("file", help="a client's cards.cdb, or a CSV of passcode,name")
    p.add_argument("--lang", required=True, choices=CARD_LANGS, help="the names' language")
    p.set_defaults(handler=load_cards)


def load_cards(args: argparse.Namespace) -> int:
    """Replace the names of one language in the database the environment names."""
    from server import script_lists
    from server.core import config as settings
    from server.core.errors import DomainError
    from server.service.storage import connect

    conf = {**settings.DEFAULTS, **settings.from_env()}
    try:
        lists = script_lists()
        rows = lists.read_cards(args.file)  # the whole file is read before anything is stored
    except DomainError as exc:
        print(exc.message, file=sys.stderr)
        return 1
    connect(conf)
    try:
        count = lists.load_cards(args.lang, rows)
    except DomainError as exc:
        print(exc.message, file=sys.stderr)
        return 1
    print(f"Card names ({args.lang}): {count} cards.")
    return 0
