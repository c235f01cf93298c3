"""A minimal asyncio HTTP/1.1 client with one kept-alive connection (JSON in, JSON out).

Enough for the bench's set-up calls (create a table, join its seats) without opening a new TCP
connection per call: thousands of short connections on loopback would fill the port range with
TIME_WAIT sockets and measure the handshake rather than the server.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any


class HttpError(Exception):
    """The server answered with an unexpected status or an unreadable body."""


class HttpClient:
    def __init__(self, host: str, port: int, timeout: float = 30.0) -> None:
        self.host, self.port, self.timeout = host, port, timeout
        self._reader: asyncio.StreamReader | None = None
        self._writer: asyncio.StreamWriter | None = None

    async def close(self) -> None:
        if self._writer is not None:
            self._writer.close()
            try:
                await asyncio.wait_for(self._writer.wait_closed(), 2)
            except (OSError, TimeoutError):
                pass
        self._reader = self._writer = None

    async def request(self, method: str, path: str, body: Any = None) -> tuple[int, Any]:
        """Send one request; reconnect once if the kept-alive connection was closed meanwhile."""
        data = b"" if body is None else json.dumps(body).encode()
        head = (
            f"{method} {path} HTTP/1.1\r\nHost: {self.host}:{self.port}\r\n"
            f"Content-Type: application/json\r\nContent-Length: {len(data)}\r\n"
            "Connection: keep-alive\r\n\r\n"
        ).encode()
        for attempt in range(2):
            if self._writer is None:
                self._reader, self._writer = await asyncio.wait_for(
                    asyncio.open_connection(self.host, self.port), self.timeout
                )
            try:
                return await asyncio.wait_for(self._exchange(head + data), self.timeout)
            except (ConnectionError, asyncio.IncompleteReadError):
                await self.close()
                if attempt:
                    raise
        raise AssertionError("not reached")

    async def _exchange(self, payload: bytes) -> tuple[int, Any]:
        assert self._reader is not None and self._writer is not None
        reader = self._reader
        self._writer.write(payload)
        await self._writer.drain()
        status_line = await reader.readline()
        if not status_line:
            raise ConnectionResetError("connection closed before the answer")
        status = int(status_line.split()[1])
        headers: dict[str, str] = {}
        while True:
            line = await reader.readline()
            if line in (b"\r\n", b"\n", b""):
                break
            name, _, value = line.decode("latin-1").partition(":")
            headers[name.strip().lower()] = value.strip()
        if headers.get("transfer-encoding", "").lower() == "chunked":
            chunks = []
            while True:
                size = int((await reader.readline()).strip() or b"0", 16)
                if size == 0:
                    await reader.readline()
                    break
                chunks.append(await reader.readexactly(size))
                await reader.readline()
            raw = b"".join(chunks)
        else:
            raw = await reader.readexactly(int(headers.get("content-length", "0")))
        if headers.get("connection", "").lower() == "close":
            await self.close()
        try:
            return status, json.loads(raw) if raw else None
        except ValueError as exc:
            raise HttpError(f"{status}: not JSON: {raw[:200]!r}") from exc
