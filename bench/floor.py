"""Judges' floor views during the load run (`--floor-views N`), and the extension point for the
floor-view benchmark (issue 6: staleness p99 and bytes a second with 500 active tables).

The floor view's websocket is looked up among FLOOR_PATHS; if none exists yet (404), the run goes
on without floor views and says so. What is measured for each view:
  - bytes and messages received a second;
  - staleness: the time from an event's commit (its `at_ms`, server time, on the same machine
    clock as the bench) to the floor view receiving it, for every envelope that carries `at_ms`.
To measure more, extend `FloorViews.on_message` (how a floor message names its tables and
events is the floor view's own protocol) and the `floor` block printed by bench/report.py.
"""

from __future__ import annotations

import asyncio
import json
import time
from typing import Any

from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import WebSocketException

from .servers import http_status

FLOOR_PATHS = ("/ws/floor", "/ws/judge/floor", "/ws/judge")


def find_floor_path(base: str) -> str | None:
    """The first floor-view path the server knows (a websocket route answers a plain GET with
    something other than 404)."""
    for path in FLOOR_PATHS:
        status = http_status(base + path)
        if status not in (0, 404):
            return path
    return None


def _envelopes(message: Any) -> list[dict[str, Any]]:
    """Every dict holding an `at_ms` and a `seq` anywhere in the message (events of any table)."""
    found: list[dict[str, Any]] = []
    todo = [message]
    while todo:
        item = todo.pop()
        if isinstance(item, dict):
            if "at_ms" in item and "seq" in item and "type" in item:
                found.append(item)
            todo.extend(item.values())
        elif isinstance(item, list):
            todo.extend(item)
    return found


class FloorViews:
    def __init__(self, base: str, count: int, stats: Any) -> None:
        self.base, self.count, self.stats = base, count, stats
        self.path: str | None = None
        self.sockets: list[ClientConnection] = []
        self.bytes = 0
        self.messages = 0
        self.staleness: list[float] = []
        self.measuring = False

    async def open(self) -> None:
        self.path = await asyncio.to_thread(find_floor_path, self.base)
        self.stats.extra["floor_path"] = self.path
        if self.path is None:
            return
        url = "ws" + self.base[len("http") :] + self.path
        for _ in range(self.count):
            try:
                ws = await connect(
                    url,
                    origin=self.base,
                    compression="deflate",  # type: ignore[arg-type]
                    ping_interval=None,
                    open_timeout=30,
                    max_size=2**24,
                )
                await ws.send(json.dumps({"type": "hello"}))
                self.sockets.append(ws)
            except (OSError, WebSocketException) as exc:
                self.stats.errors[f"floor_open:{type(exc).__name__}"] += 1

    def on_message(self, raw: str | bytes, received_ms: float) -> None:
        self.bytes += len(raw)
        self.messages += 1
        if not self.measuring:
            return
        try:
            message = json.loads(raw)
        except ValueError:
            return
        for envelope in _envelopes(message):
            self.staleness.append(received_ms - envelope["at_ms"])

    async def _read(self, ws: ClientConnection) -> None:
        try:
            async for raw in ws:
                self.on_message(raw, time.time() * 1000)
        except WebSocketException:
            if self.measuring:
                self.stats.errors["floor_closed"] += 1

    async def run(self, start: float, end: float) -> None:
        if not self.sockets:
            return
        readers = [asyncio.create_task(self._read(ws)) for ws in self.sockets]
        await asyncio.sleep(max(0.0, start - time.monotonic()))
        self.measuring = True
        bytes0, messages0 = self.bytes, self.messages
        await asyncio.sleep(max(0.0, end - time.monotonic()))
        self.measuring = False
        seconds = max(1e-9, end - start)
        self.stats.extra["floor"] = {
            "views": len(self.sockets),
            "bytes_per_s_per_view": (self.bytes - bytes0) / seconds / len(self.sockets),
            "messages_per_s_per_view": (self.messages - messages0) / seconds / len(self.sockets),
            "staleness": self.staleness,
        }
        for task in readers:
            task.cancel()

    async def close(self) -> None:
        for ws in self.sockets:
            try:
                await asyncio.wait_for(ws.close(), 3)
            except (OSError, TimeoutError, WebSocketException):
                pass
