"""R5: time is called once, by whichever of two server processes on one database sees the
deadline first (DESIGN principle 6)."""

from __future__ import annotations

import asyncio
import time

import pytest
from websockets.asyncio.client import connect
from ws_helpers import Phone, http, start_clock

from clients.testing import start_server, stop_server

# Two real server processes on one database.
pytestmark = pytest.mark.slow


async def _start_clock(ws_url: str, code: str, token_a: str, token_b: str) -> None:
    async with (
        connect(f"{ws_url}/ws/table/{code}") as wa,
        connect(f"{ws_url}/ws/table/{code}") as wb,
    ):
        a, b = Phone(wa), Phone(wb)
        await a.hello(token_a)
        await b.hello(token_b)
        await start_clock(a, b)


def test_r5_time_is_called_once_by_two_processes(tmp_path, database_url):
    """Two servers share one database; both timers race for the deadline; one event is written."""
    first, p1 = start_server(tmp_path / "one", database_url, {"TIMER_INTERVAL_MS": "20"})
    extra = {"TIMER_INTERVAL_MS": "20"}
    if not database_url:  # the second process opens the first one's SQLite file
        extra["DATA_DIR"] = str(first.data_dir)
    second, p2 = start_server(tmp_path / "two", database_url, extra)
    try:
        tables = []
        for _ in range(5):
            status, created = http(first, "POST", "/api/tables", {"match_minutes": 0.05})
            assert status == 201, created
            code = created["code"]
            _, a = http(first, "POST", f"/api/tables/{code}/join", {"name": "Yugi"})
            _, b = http(second, "POST", f"/api/tables/{code}/join", {"name": "Kaiba"})
            asyncio.run(_start_clock(first.ws_url, code, a["token"], b["token"]))
            tables.append(code)
        deadline = time.monotonic() + 15
        pending = set(tables)
        while pending and time.monotonic() < deadline:
            for code in list(pending):
                if http(second, "GET", f"/api/tables/{code}")[1]["state"]["time"]["called"]:
                    pending.discard(code)
            time.sleep(0.1)
        assert not pending, f"time never called at {pending}"
        time.sleep(0.5)  # both timers have had many more rounds to write it again
        for code in tables:
            _, log = http(first, "GET", f"/api/tables/{code}/log")
            events = log["events"] if isinstance(log, dict) else log
            called = [e for e in events if e["type"] == "time.called"]
            assert len(called) == 1, called
            # The second server serves the same state: it read the event the first wrote,
            # or wrote it itself; either way exactly one exists.
            assert http(second, "GET", f"/api/tables/{code}")[1]["state"]["time"]["called"]
    finally:
        stop_server(p2)
        stop_server(p1)
