"""What the bench's phones take from the app: the heartbeat, the clock sync, the resend and the
reconnect backoff that web/js/conn.js exports, and the hall screen's poll of web/js/hall.js.

They are read from those files (their `const NAME = number;` lines), never copied, so the bench's
phones cannot drift from the app's: a renamed or removed constant stops the bench at import."""

from __future__ import annotations

import asyncio
import random
import re
from collections import Counter
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar

from websockets.exceptions import InvalidStatus

WEB_JS = Path(__file__).resolve().parent.parent / "web" / "js"
CONN_JS = WEB_JS / "conn.js"
HALL_JS = WEB_JS / "hall.js"
CONSTANT = re.compile(r"^(?:export\s+)?const\s+([A-Z][A-Z0-9_]*)\s*=\s*(\d+)\s*;", re.MULTILINE)
# What the phones use of conn.js, and of hall.js.
CONN_NAMES = (
    "PING_MS",
    "DEAD_MS",
    "RESEND_MS",
    "OFFSET_SAMPLES",
    "BACKOFF_MIN_MS",
    "BACKOFF_MAX_MS",
)
HALL_NAMES = ("POLL_MS",)


def js_constants(text: str, names: tuple[str, ...]) -> dict[str, int]:
    """The integer constants `names` declared at the top level of a script's text; raise
    KeyError naming those it lacks."""
    found = {name: int(value) for name, value in CONSTANT.findall(text)}
    missing = [name for name in names if name not in found]
    if missing:
        raise KeyError(f"not declared as `const NAME = number;`: {', '.join(missing)}")
    return {name: found[name] for name in names}


@dataclass(frozen=True)
class Timing:
    """The app's phone and hall-screen timing, in seconds (samples: a count)."""

    ping_s: float  # the heartbeat, whose pongs are also the clock sync's samples
    dead_s: float  # no message for this long: the phone drops the socket
    resend_s: float  # a command unanswered this long is sent again (same id)
    offset_samples: int  # the clock sync keeps the best of this many last samples
    backoff_min_s: float
    backoff_max_s: float
    hall_poll_s: float  # the hall screen asks for the hall's clocks this often

    @classmethod
    def read(cls, conn_js: str, hall_js: str) -> Timing:
        """The timing declared in the texts of conn.js and hall.js."""
        c = js_constants(conn_js, CONN_NAMES)
        h = js_constants(hall_js, HALL_NAMES)
        return cls(
            ping_s=c["PING_MS"] / 1000,
            dead_s=c["DEAD_MS"] / 1000,
            resend_s=c["RESEND_MS"] / 1000,
            offset_samples=c["OFFSET_SAMPLES"],
            backoff_min_s=c["BACKOFF_MIN_MS"] / 1000,
            backoff_max_s=c["BACKOFF_MAX_MS"] / 1000,
            hall_poll_s=h["POLL_MS"] / 1000,
        )


def app_timing(conn_js: Path = CONN_JS, hall_js: Path = HALL_JS) -> Timing:
    """The timing of the app's own files."""
    return Timing.read(conn_js.read_text(encoding="utf-8"), hall_js.read_text(encoding="utf-8"))


APP = app_timing()

T = TypeVar("T")
BACKOFF_MIN, BACKOFF_MAX = APP.backoff_min_s, APP.backoff_max_s
BUSY_TRIES = 10  # opens refused as busy in a row before a set-up open fails (about a minute)


def backoff_delay(attempt: int, rng: random.Random) -> float:
    """The phones' reconnect delay (web/js/conn.js `backoffDelay`): half fixed, half random."""
    cap = min(BACKOFF_MAX, BACKOFF_MIN * 2 ** min(attempt, 10))
    return cap / 2 + rng.random() * cap / 2


async def open_as_phone(
    opener: Callable[[], Awaitable[T]], rng: random.Random, refused: Counter
) -> T:
    """`opener()`, a socket's open; one the server refuses as busy (503: its budget of opens
    spent, or its loop behind) is tried again after the phones' backoff, as the app's phones
    do, each refusal counted in `refused["busy_open"]`; the `BUSY_TRIES`th refusal is raised."""
    attempt = 0
    while True:
        try:
            return await opener()
        except InvalidStatus as exc:
            if exc.response.status_code != 503 or attempt + 1 >= BUSY_TRIES:
                raise
        refused["busy_open"] += 1
        await asyncio.sleep(backoff_delay(attempt, rng))
        attempt += 1
