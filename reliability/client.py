"""A seat's phone, as far as reliability goes: resend until acknowledged, resume with `since`.

It keeps every command it made until the server answers it. After a reconnect it says hello
with the last seq it holds and sends every unanswered command again with the same id, exactly
as the phone client does.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import random
import time
import uuid
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Any

import websockets

from clients.wire import PROTOCOL, apply_update, unfold

RETRYABLE = {"rate_limited"}
# Like the phone (web/js/conn.js RESEND_MS): no answer this long on an open socket, send again.
STALE_SECONDS = 5.0
# Like the phone's watchdog (DEAD_MS): an open socket that brings nothing this long is dropped.
PING_SECONDS = 2.0
DEAD_SECONDS = 8.0


@dataclass
class Outcome:
    """The final answer to one command."""

    id: str
    cmd: str
    args: dict[str, Any]
    seat: str
    ok: bool
    seq: int | None = None
    code: str | None = None
    duplicate: bool = False


@dataclass
class SeatClient:
    """One seat at one table over a real websocket, reconnecting until `close()`."""

    ws_base: str
    code: str
    token: str | None
    seat: str | None
    origin: str | None = None
    seq: int = 0
    state: dict[str, Any] | None = None
    connects: int = 0
    gaps: int = 0
    internal_errors: int = 0
    outcomes: dict[str, Outcome] = field(default_factory=dict)
    sent: int = 0
    resent: int = 0
    stale_resends: int = 0  # answers that never came on a socket that stayed open
    silent_drops: int = 0  # sockets dropped by the watchdog (open, but nothing came)
    acks: list[int] | None = None  # shared counter [n]: acknowledgements seen by all clients

    def __post_init__(self) -> None:
        self._pending: OrderedDict[str, tuple[str, dict[str, Any]]] = OrderedDict()
        self._waiters: dict[str, asyncio.Future[Outcome]] = {}
        self._ws: Any = None
        self._welcomed = asyncio.Event()
        self._state_changed = asyncio.Condition()
        self._closing = False
        self._task: asyncio.Task | None = None
        self._retry_at: dict[str, float] = {}
        self._sent_at: dict[str, float] = {}

    # -- life ---------------------------------------------------------------------------------

    def start(self) -> None:
        self._task = asyncio.create_task(self._run())

    async def close(self) -> None:
        self._closing = True
        if self._ws is not None:
            with contextlib.suppress(Exception):
                await self._ws.close()
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._task

    async def _run(self) -> None:
        attempt = 0
        while not self._closing:
            try:
                headers = {"Origin": self.origin} if self.origin else None
                async with websockets.connect(
                    f"{self.ws_base}/ws/table/{self.code}",
                    additional_headers=headers,
                    open_timeout=5,
                    ping_interval=None,
                    max_size=2**22,
                    compression=None,
                ) as ws:
                    self._ws = ws
                    self.connects += 1
                    hello: dict[str, Any] = {"type": "hello", "v": PROTOCOL}
                    if self.token:
                        hello["token"] = self.token
                    if self.seq:
                        hello["since"] = self.seq
                    await ws.send(json.dumps(hello))
                    resender = asyncio.create_task(self._resend_loop(ws))
                    pinger = asyncio.create_task(self._ping_loop(ws))
                    try:
                        while True:
                            try:
                                raw = await asyncio.wait_for(ws.recv(), DEAD_SECONDS)
                            except TimeoutError:
                                self.silent_drops += 1
                                break
                            attempt = 0
                            for message in unfold(json.loads(raw)):
                                await self._handle(ws, message)
                    finally:
                        for task in (resender, pinger):
                            task.cancel()
                            with contextlib.suppress(asyncio.CancelledError, Exception):
                                await task
            except (TimeoutError, OSError, websockets.exceptions.WebSocketException):
                pass
            self._ws = None
            self._welcomed.clear()
            if self._closing:
                return
            attempt += 1
            # Backoff with jitter, short: the harness wants to meet the restarted server soon.
            await asyncio.sleep(min(0.4, 0.05 * 2 ** min(attempt, 5)) * random.uniform(0.5, 1))

    async def _resend_loop(self, ws: Any) -> None:
        """Every unanswered command again once welcomed; rate-limited ones after a pause."""
        await self._welcomed.wait()
        for cid, (cmd, args) in list(self._pending.items()):
            await self._transmit(ws, cid, cmd, args, resend=True)
        while True:
            await asyncio.sleep(0.1)
            now = time.monotonic()
            for cid, at in list(self._retry_at.items()):
                if at <= now and cid in self._pending:
                    del self._retry_at[cid]
                    cmd, args = self._pending[cid]
                    await self._transmit(ws, cid, cmd, args, resend=True)
            for cid, (cmd, args) in list(self._pending.items()):
                at = self._sent_at.get(cid)
                if at is not None and now - at > STALE_SECONDS and cid not in self._retry_at:
                    self.stale_resends += 1
                    await self._transmit(ws, cid, cmd, args, resend=True)

    async def _ping_loop(self, ws: Any) -> None:
        while True:
            await asyncio.sleep(PING_SECONDS)
            with contextlib.suppress(Exception):
                await ws.send(json.dumps({"type": "ping", "t": int(time.time() * 1000)}))

    async def _transmit(self, ws: Any, cid: str, cmd: str, args: dict, resend: bool) -> None:
        with contextlib.suppress(Exception):
            self._sent_at[cid] = time.monotonic()
            await ws.send(json.dumps({"type": "command", "id": cid, "cmd": cmd, "args": args}))
            if resend:
                self.resent += 1
            else:
                self.sent += 1

    async def _handle(self, ws: Any, msg: dict[str, Any]) -> None:
        kind = msg.get("type")
        if kind == "welcome":
            self.seq = msg["seq"]
            await self._set_state(msg["state"])
            self._welcomed.set()
        elif kind == "update":
            events = msg.get("events") or []
            if events and events[0]["seq"] > self.seq + 1:
                self.gaps += 1
                resync = {"type": "hello", "token": self.token, "since": self.seq, "v": PROTOCOL}
                await ws.send(json.dumps(resync))
                return
            if msg["seq"] > self.seq:
                self.seq = msg["seq"]
                await self._set_state(apply_update(self.state, msg))
        elif kind == "reply":
            self._on_reply(msg)
        elif kind == "error":
            if (msg.get("error") or {}).get("code") == "internal":
                self.internal_errors += 1

    async def _set_state(self, state: dict[str, Any]) -> None:
        async with self._state_changed:
            self.state = state
            self._state_changed.notify_all()

    def _on_reply(self, msg: dict[str, Any]) -> None:
        cid = msg.get("re")
        if cid not in self._pending:
            return
        cmd, args = self._pending[cid]
        if msg.get("ok"):
            if self.acks is not None:
                self.acks[0] += 1
            out = Outcome(
                cid,
                cmd,
                args,
                self.seat or "",
                True,
                msg.get("seq"),
                duplicate=bool(msg.get("duplicate")),
            )
        else:
            code = (msg.get("error") or {}).get("code")
            if code == "internal":
                self.internal_errors += 1
            if code in RETRYABLE:
                self._retry_at[cid] = time.monotonic() + 0.3
                return
            out = Outcome(cid, cmd, args, self.seat or "", False, code=code)
        del self._pending[cid]
        self._sent_at.pop(cid, None)
        self.outcomes[cid] = out
        waiter = self._waiters.pop(cid, None)
        if waiter is not None and not waiter.done():
            waiter.set_result(out)

    # -- use ----------------------------------------------------------------------------------

    async def call(
        self, cmd: str, args: dict[str, Any], timeout: float = 60.0, cid: str | None = None
    ) -> Outcome:
        """Send a command (or resend `cid`) and wait for its final answer."""
        cid = cid or str(uuid.uuid4())
        self._pending[cid] = (cmd, args)
        future: asyncio.Future[Outcome] = asyncio.get_running_loop().create_future()
        self._waiters[cid] = future
        if self._welcomed.is_set() and self._ws is not None:
            await self._transmit(self._ws, cid, cmd, args, resend=False)
        return await asyncio.wait_for(future, timeout)

    async def wait_state(self, pred: Any, timeout: float = 60.0) -> dict[str, Any]:
        """Wait until the latest state this seat holds satisfies `pred`."""

        async def waiting() -> dict[str, Any]:
            async with self._state_changed:
                while self.state is None or not pred(self.state):
                    await self._state_changed.wait()
                return self.state

        return await asyncio.wait_for(waiting(), timeout)

    @property
    def connected(self) -> bool:
        return self._welcomed.is_set()

    @property
    def unanswered(self) -> int:
        return len(self._pending)
