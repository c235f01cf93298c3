"""Configuration: defaults, then environment variables read through explicit parsers.

Every variable is documented in README.md. Nothing here runs at import time beyond defining
the defaults; `from_env` is called by `create_app`.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

ROOT = Path(__file__).resolve().parents[2]


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


def parse_optional_int(value: str) -> int | None:
    """Read a base-10 integer; empty is None (the default applies)."""
    text = value.strip()
    return None if not text else int(text, 10)


def parse_str(value: str) -> str:
    """Read a string as is, minus surrounding blanks."""
    return value.strip()


def parse_url(value: str) -> str:
    """Read an http(s) base URL ("https://duel.example.org", a path prefix allowed) without
    its trailing slash; empty stays empty."""
    text = value.strip().rstrip("/")
    if not text:
        return ""
    parts = urlsplit(text)
    if parts.scheme not in ("http", "https") or not parts.hostname or parts.query or parts.fragment:
        raise ValueError(f"not an http(s) base URL: {value!r}")
    return text


DEFAULTS: dict[str, Any] = {
    "SECRET_KEY": "",
    "DATA_DIR": str(ROOT / "data"),
    # Empty: an SQLite file in DATA_DIR. postgresql://user@host:port/db for PostgreSQL.
    "DATABASE_URL": "",
    # Empty: fan-out inside this process only. redis://host:port/0 for several processes.
    "REDIS_URL": "",
    "ALLOWED_ORIGINS": [],
    # The address phones open (an invite's link and QR code), e.g. https://duel.example.org
    # behind a TLS proxy; empty: the page's own, or this machine's LAN address when the page
    # was opened on 127.0.0.1 (server/core/addresses.py).
    "PUBLIC_URL": "",
    # The address gunicorn listens on (server/gunicorn_conf.py reads it too).
    "HOST": "0.0.0.0",
    "WEB_DIR": str(ROOT / "web"),
    "PROXY_COUNT": 0,
    "TIMER_ENABLED": True,
    "TIMER_INTERVAL_MS": 250,
    "NO_SHOW_MINUTES": 5,
    # None: round 1 of each Swiss event is shuffled from a fresh random seed. An integer fixes
    # that seed for every event (a rehearsal, a test with hand-computed standings).
    "SWISS_SEED": None,
    "SQLITE_CHECKPOINT_MS": 200,
    "STATE_CACHE_SIZE": 12000,
    "WS_MAX_MESSAGE_BYTES": 8192,
    "WS_PING_SECONDS": 20,
    # A socket is pinged as it opens and every WS_PING_SECONDS; a pong that has not come
    # WS_PONG_SECONDS after its ping closes the socket (a peer that does not read).
    "WS_PONG_SECONDS": 8,
    "WS_RATE_PER_SECOND": 20,
    "WS_RATE_BURST": 40,
    # Per client address. A hall's phones often share one public address behind the venue's
    # Wi-Fi, so this is generous; it still makes guessing 30-bit table codes hopeless.
    # Every frame a websocket sends (data, pings, fragments) and its bytes, counted before any
    # parsing: past these the socket is closed (1008).
    "WS_FRAMES_PER_SECOND": 50,
    "WS_FRAMES_BURST": 100,
    "WS_BYTES_PER_SECOND": 65536,
    "WS_BYTES_BURST": 262144,
    # A write the peer has not taken within this many seconds closes the socket; the kernel's
    # send buffer of a websocket is at most this many bytes.
    "WS_WRITE_TIMEOUT_SECONDS": 10,
    "WS_SEND_BUFFER_BYTES": 262144,
    # Updates queued for one socket's writer before the socket is closed as too slow.
    "WS_MAX_QUEUED": 256,
    "WS_HELLO_SECONDS": 10,
    # Websocket opens a second, checked before the upgrade: per client address (or per seat, a
    # seated phone's pass), past which an open is refused at once (503 with Retry-After; the
    # phone retries after its backoff), and in all, a pace: an open past it waits its turn
    # (docs/performance.md, "The storm let in at the loop's pace").
    "WS_OPENS_PER_SECOND": 400,
    "WS_OPENS_BURST": 200,
    "WS_OPENS_PER_ADDRESS_PER_SECOND": 300,
    "WS_OPENS_PER_ADDRESS_BURST": 150,
    # Nor while the worker's loop is this many ms behind (0: the pace alone): a hall
    # reconnecting is let in as fast as the loop runs it, and the tables already served keep
    # their round trips.
    "WS_OPENS_MAX_LAG_MS": 50,
    # An open waits its turn at most this long, then is refused as busy: under the 12 s a phone
    # waits for any message before it drops the socket (web/js/conn.js DEAD_MS).
    "WS_OPENS_MAX_WAIT_SECONDS": 8,
    # Per identity: a seat's sockets (the oldest closed), spectators of one table, and sockets
    # from one client address (a hall's phones often share one address: generous).
    "WS_MAX_PER_SEAT": 2,
    "WS_MAX_SPECTATORS_PER_TABLE": 50,
    "WS_MAX_PER_ADDRESS": 5000,
    # Of which spectators (a socket that proves a seat or a staff login is not counted per
    # address at all: docs/security.md, "One address is a whole hall").
    "WS_MAX_SPECTATORS_PER_ADDRESS": 1000,
    # Failed staff logins: free ones per account name from one address and per client address
    # (never per account alone: docs/security.md), then a lock of
    # LOGIN_BACKOFF_SECONDS doubled at each further failure, at most LOGIN_MAX_BACKOFF_SECONDS.
    "LOGIN_FREE_FAILURES_PER_ACCOUNT": 5,
    "LOGIN_FREE_FAILURES_PER_ADDRESS": 20,
    "LOGIN_BACKOFF_SECONDS": 1,
    "LOGIN_MAX_BACKOFF_SECONDS": 900,
    # How staff passwords are hashed, in werkzeug's notation (method:N:r:p); a stored hash
    # keeps its own, so old passwords still work, each hashed again at its next good login.
    "PASSWORD_HASH_METHOD": "scrypt:32768:8:1",  # werkzeug's default
    # Request bodies: every route, and the routes that take a file (ban lists, pairings).
    "HTTP_MAX_BODY_BYTES": 65536,
    "HTTP_MAX_UPLOAD_BYTES": 2 * 1024 * 1024,
    "HTTP_RATE_PER_MINUTE": 600,
    "HTTP_RATE_BURST": 300,
    # Look-ups of a table code that does not exist, per address (docs/security.md).
    "HTTP_MISS_PER_MINUTE": 30,
    "HTTP_MISS_BURST": 30,
    # A casual table's seat moves: a seat's phone unseen this long (or one that said it is not
    # its player's any more) lets the other seat give the seat to a new phone; until then the
    # seat's own phone answers. Waiting seat requests a table holds (one per asker).
    # Casual tables one address opens (a burst of this many, then this many an hour; 0: no
    # limit), and how long a table nobody joined is kept (0: for ever).
    "CASUAL_TABLES_PER_ADDRESS_PER_HOUR": 60,
    "UNJOINED_TABLE_HOURS": 24,
    "SEAT_AWAY_SECONDS": 60,
    "SEAT_REQUESTS_PER_TABLE": 3,
    # A waiting seat request expires once its phone stopped asking how it stands (it asks every
    # 2 s) for SEAT_REQUEST_GONE_SECONDS, or SEAT_REQUEST_SECONDS after it was made; an address
    # makes SEAT_REQUESTS_PER_ADDRESS_PER_MINUTE (as a burst, then that many a minute).
    "SEAT_REQUEST_GONE_SECONDS": 60,
    "SEAT_REQUEST_SECONDS": 300,
    "SEAT_REQUESTS_PER_ADDRESS_PER_MINUTE": 6,
    # Wrong player IDs typed at one event seat (one round's table) before its card seats nobody
    # by itself: every later join there waits for a judge (0: no such lock).
    "SEAT_ID_GUESSES": 5,
    # An event's public projection (its page, standings, hall clock) is rebuilt at most this
    # often when its tables' results change (staff changes rebuild it at once): the views in
    # between are served the one before (docs/security.md, "Public pages that cost the floor").
    "PROJECTION_REBUILD_SECONDS": 3,
    # Where the head-signing key and the heads ledger live, apart from the database (whoever
    # can edit the database must not also find the key beside it: docs/security.md); empty:
    # $XDG_STATE_HOME/duel-table (~/.local/state/duel-table).
    "KEY_DIR": "",
    # The Ed25519 key that signs chain heads; empty: <KEY_DIR>/signing-key.pem.
    "SIGNING_KEY_FILE": "",
    "LOG_LEVEL": "INFO",
    # The venue's time zone (IANA, e.g. Asia/Taipei): every page writes the event's times in it,
    # in its reader's language. Empty: each phone its own zone, the server's pages the server's.
    "TIME_ZONE": "",
    # The bench's stall monitor (runtime/stalls.py) writes to this file; empty (production): off.
    "STALL_REPORT": "",
}

PARSERS: dict[str, Callable[[str], Any]] = {
    "SECRET_KEY": parse_str,
    "DATA_DIR": parse_str,
    "DATABASE_URL": parse_str,
    "REDIS_URL": parse_str,
    "ALLOWED_ORIGINS": parse_list,
    "PUBLIC_URL": parse_url,
    "HOST": parse_str,
    "WEB_DIR": parse_str,
    "TIME_ZONE": parse_str,
    "PROXY_COUNT": parse_int,
    "TIMER_ENABLED": parse_bool,
    "TIMER_INTERVAL_MS": parse_int,
    "NO_SHOW_MINUTES": parse_int,
    "SWISS_SEED": parse_optional_int,
    "SQLITE_CHECKPOINT_MS": parse_int,
    "STATE_CACHE_SIZE": parse_int,
    "WS_MAX_MESSAGE_BYTES": parse_int,
    "WS_PING_SECONDS": parse_int,
    "WS_PONG_SECONDS": parse_int,
    "WS_RATE_PER_SECOND": parse_int,
    "WS_RATE_BURST": parse_int,
    "WS_FRAMES_PER_SECOND": parse_int,
    "WS_FRAMES_BURST": parse_int,
    "WS_BYTES_PER_SECOND": parse_int,
    "WS_BYTES_BURST": parse_int,
    "WS_WRITE_TIMEOUT_SECONDS": parse_int,
    "WS_SEND_BUFFER_BYTES": parse_int,
    "WS_MAX_QUEUED": parse_int,
    "WS_HELLO_SECONDS": parse_int,
    "WS_MAX_PER_SEAT": parse_int,
    "WS_MAX_SPECTATORS_PER_TABLE": parse_int,
    "WS_MAX_PER_ADDRESS": parse_int,
    "WS_OPENS_PER_SECOND": parse_int,
    "WS_OPENS_BURST": parse_int,
    "WS_OPENS_PER_ADDRESS_PER_SECOND": parse_int,
    "WS_OPENS_PER_ADDRESS_BURST": parse_int,
    "WS_OPENS_MAX_LAG_MS": parse_int,
    "WS_OPENS_MAX_WAIT_SECONDS": parse_int,
    "WS_MAX_SPECTATORS_PER_ADDRESS": parse_int,
    "LOGIN_FREE_FAILURES_PER_ACCOUNT": parse_int,
    "LOGIN_FREE_FAILURES_PER_ADDRESS": parse_int,
    "LOGIN_BACKOFF_SECONDS": parse_int,
    "LOGIN_MAX_BACKOFF_SECONDS": parse_int,
    "PASSWORD_HASH_METHOD": parse_str,
    "HTTP_MAX_BODY_BYTES": parse_int,
    "HTTP_MAX_UPLOAD_BYTES": parse_int,
    "HTTP_RATE_PER_MINUTE": parse_int,
    "HTTP_RATE_BURST": parse_int,
    "HTTP_MISS_PER_MINUTE": parse_int,
    "HTTP_MISS_BURST": parse_int,
    "CASUAL_TABLES_PER_ADDRESS_PER_HOUR": parse_int,
    "UNJOINED_TABLE_HOURS": parse_int,
    "SEAT_AWAY_SECONDS": parse_int,
    "SEAT_REQUESTS_PER_TABLE": parse_int,
    "SEAT_REQUEST_GONE_SECONDS": parse_int,
    "SEAT_REQUEST_SECONDS": parse_int,
    "SEAT_REQUESTS_PER_ADDRESS_PER_MINUTE": parse_int,
    "SEAT_ID_GUESSES": parse_int,
    "KEY_DIR": parse_str,
    "PROJECTION_REBUILD_SECONDS": parse_int,
    "SIGNING_KEY_FILE": parse_str,
    "LOG_LEVEL": parse_str,
    "STALL_REPORT": parse_str,
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
