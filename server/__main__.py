"""Command line: `python -m server [serve]`."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

GUNICORN_CONF = Path(__file__).with_name("gunicorn_conf.py")


def serve(args: argparse.Namespace) -> int:
    """Serve with gunicorn and its gevent worker (replaces this process)."""
    if args.host:
        os.environ["HOST"] = args.host
    if args.port:
        os.environ["PORT"] = str(args.port)
    if args.workers:
        os.environ["WEB_CONCURRENCY"] = str(args.workers)
    command = [sys.executable, "-m", "gunicorn", "-c", str(GUNICORN_CONF)]
    os.execv(sys.executable, command)
    return 0  # not reached


def migrate(args: argparse.Namespace) -> int:
    """Bring the database the environment names (DATABASE_URL, DATA_DIR) to the latest schema."""
    from server.core import config as settings
    from server.service import storage

    conf = {**settings.DEFAULTS, **settings.from_env()}
    before, after = storage.migrate(conf)
    if before == after:
        print(f"Schema version {after}: up to date.")
    else:
        print(f"Schema version {before or 'none (empty database)'} -> {after}.")
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m server", description="Duel Table server")
    commands = parser.add_subparsers(dest="command")
    serve_parser = commands.add_parser("serve", help="serve HTTP and websockets (the default)")
    serve_parser.add_argument("--host", help="address to listen on (HOST, default 0.0.0.0)")
    serve_parser.add_argument("--port", type=int, help="port (PORT, default 8000)")
    serve_parser.add_argument("--workers", type=int, help="worker processes (WEB_CONCURRENCY)")
    serve_parser.set_defaults(handler=serve)
    migrate_parser = commands.add_parser(
        "migrate", help="bring the database's schema up to date (serving does it at start too)"
    )
    migrate_parser.set_defaults(handler=migrate)
    from server.cli import verify as verify_cli
    from server.cli.staff import add_parser

    add_parser(commands)
    verify_cli.add_parser(commands)
    from server.cli import banlist as banlist_cli

    banlist_cli.add_parser(commands)
    from server.cli import cards as cards_cli

    cards_cli.add_parser(commands)
    return parser


def main(argv: list[str] | None = None) -> int:
    """Run the chosen subcommand; with none, serve."""
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command is None:
        args = parser.parse_args(["serve", *(argv or [])])
    return args.handler(args)


if __name__ == "__main__":
    sys.exit(main())
