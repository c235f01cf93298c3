"""Configuration: defaults, then environment variables read through explicit parsers.

Every variable is documented in README.md. Nothing here runs at import time beyond defining
the defaults; `from_env` is called by `create_app`.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent


def parse_bool(value: str) -> bool:
    """Read "1/true/yes/on" and "0/false/no/off" (any case)."""
    text = value.strip().lower()
    if text in {"1", "true", "yes", "on"}:
        return True
    if text in {"0", "false", "no", "off", ""}:
        return False
    raise ValueError(f"not a boolean: {value!r}")


def parse_int(value: str) -> int:
    """Read a base-10 integer."""
    return int(value.strip(), 10)


def parse_list(value: str) -> list[str]:
    """Read a comma-separated list, dropping empty items."""
    return [item.strip() for item in value.split(",") if item.strip()]


def parse_str(value: str) -> str:
    """Read a string as is, minus surrounding blanks."""
    return value.strip()


DEFAULTS: dict[str, Any] = {
    "SECRET_KEY": "",
    "DATA_DIR": str(ROOT / "data"),
    # Empty: an SQLite file in DATA_DIR. postgresql://user@host:port/db for PostgreSQL.
    "DATABASE_URL": "",
    # Empty: fan-out inside this process only. redis://host:port/0 for several processes.
    "REDIS_URL": "",
    "ALLOWED_ORIGINS": [],
    "WEB_DIR": str(ROOT / "web"),
    "PROXY_COUNT": 0,
    "TIMER_ENABLED": True,
    "TIMER_INTERVAL_MS": 250,
    "NO_SHOW_MINUTES": 5,
    "SQLITE_CHECKPOINT_MS": 200,
    "STATE_CACHE_SIZE": 12000,
    "WS_MAX_MESSAGE_BYTES": 8192,
    "WS_PING_SECONDS": 20,
    "WS_RATE_PER_SECOND": 20,
    "WS_RATE_BURST": 40,
    # Per client address. A hall's phones often share one public address behind the venue's
    # Wi-Fi, so this is generous; it still makes guessing 30-bit table codes hopeless.
    "HTTP_RATE_PER_MINUTE": 600,
    "HTTP_RATE_BURST": 300,
    "LOG_LEVEL": "INFO",
}

PARSERS: dict[str, Callable[[str], Any]] = {
    "SECRET_KEY": parse_str,
    "DATA_DIR": parse_str,
    "DATABASE_URL": parse_str,
    "REDIS_URL": parse_str,
    "ALLOWED_ORIGINS": parse_list,
    "WEB_DIR": parse_str,
    "PROXY_COUNT": parse_int,
    "TIMER_ENABLED": parse_bool,
    "TIMER_INTERVAL_MS": parse_int,
    "NO_SHOW_MINUTES": parse_int,
    "SQLITE_CHECKPOINT_MS": parse_int,
    "STATE_CACHE_SIZE": parse_int,
    "WS_MAX_MESSAGE_BYTES": parse_int,
    "WS_PING_SECONDS": parse_int,
    "WS_RATE_PER_SECOND": parse_int,
    "WS_RATE_BURST": parse_int,
    "HTTP_RATE_PER_MINUTE": parse_int,
    "HTTP_RATE_BURST": parse_int,
    "LOG_LEVEL": parse_str,
}


def from_env(environ: Mapping[str, str] | None = None) -> dict[str, Any]:
    """Return the settings found in the environment, parsed; a bad value names its variable."""
    environ = os.environ if environ is None else environ
    found: dict[str, Any] = {}
    for name, parse in PARSERS.items():
        if name in environ:
            try:
                found[name] = parse(environ[name])
            except ValueError as exc:
                raise ValueError(f"environment variable {name}: {exc}") from None
    return found
