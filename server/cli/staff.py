"""`python -m server create-organiser USERNAME`: the first organiser account."""

from __future__ import annotations

import argparse
import getpass
import sys
import time


def add_parser(commands: argparse._SubParsersAction) -> None:
    """Add the create-organiser subcommand to the server's command line."""
    p = commands.add_parser("create-organiser", help="create an organiser account")
    p.add_argument("username")
    p.add_argument("--password", help="the password (asked for when not given)")
    p.set_defaults(handler=create_organiser)


def create_organiser(args: argparse.Namespace) -> int:
    """Create the account in the database the environment names (DATABASE_URL, DATA_DIR)."""
    from server import script_tournament
    from server.core import config as settings
    from server.core.errors import DomainError
    from server.service.storage import connect

    conf = {**settings.DEFAULTS, **settings.from_env()}
    try:
        tournament = script_tournament(conf)
    except ValueError as exc:
        print(f"PASSWORD_HASH_METHOD: {exc}", file=sys.stderr)
        return 1
    password = args.password
    if password is None:
        password = getpass.getpass("Password: ")
        if getpass.getpass("Again: ") != password:
            print("The passwords differ.", file=sys.stderr)
            return 1
    connect(conf)
    try:
        tournament.create_account(args.username, password, "organiser", time.time_ns() // 1_000_000)
    except DomainError as exc:
        print(exc.message, file=sys.stderr)
        return 1
    print(f"Organiser {args.username} created.")
    return 0
