"""`python -m server load-banlist FILE --name NAME [--list HEADER] [--event ID]`: store a ban list
(R2.5) from a CSV, JSON or lflist.conf file."""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path


def add_parser(commands: argparse._SubParsersAction) -> None:
    """Add the load-banlist subcommand to the server's command line."""
    p = commands.add_parser(
        "load-banlist", help="load a ban list from a CSV, JSON or lflist.conf file"
    )
    p.add_argument("file", help="the list (docs/banlists.md)")
    p.add_argument("--name", required=True, help="its unique name, e.g. 2026-10")
    p.add_argument("--list", default="", help="an lflist.conf's list, by its header")
    p.add_argument("--event", type=int, help="the event whose tables use it")
    p.set_defaults(handler=load_banlist)


def load_banlist(args: argparse.Namespace) -> int:
    """Store the list in the database the environment names (DATABASE_URL, DATA_DIR)."""
    from server import script_lists
    from server.core import config as settings
    from server.core.errors import DomainError
    from server.service.storage import connect

    conf = {**settings.DEFAULTS, **settings.from_env()}
    try:
        text = Path(args.file).read_text(encoding="utf-8-sig")
    except (OSError, UnicodeDecodeError) as exc:
        print(f"Cannot read {args.file}: {exc}", file=sys.stderr)
        return 1
    connect(conf)
    lists = script_lists()
    try:
        entries, names = lists.read_banlist(text, args.file, args.list)
        now = time.time_ns() // 1_000_000
        count = lists.load_banlist(args.name, entries, names, args.event, now)
    except DomainError as exc:
        print(exc.message, file=sys.stderr)
        return 1
    where = f" for event {args.event}" if args.event else ""
    print(f"Ban list {args.name.strip()}: {count} cards{where}.")
    return 0
