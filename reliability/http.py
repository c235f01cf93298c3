"""A few blocking HTTP calls to the server (run in a thread from asyncio)."""

from __future__ import annotations

import json
import time
import urllib.error
import urllib.request
from typing import Any


def request(
    base: str,
    method: str,
    path: str,
    body: Any = None,
    headers: dict[str, str] | None = None,
    timeout: float = 10.0,
) -> tuple[int, dict[str, str], Any]:
    """Send one request; return (status, headers, decoded JSON body or raw text)."""
    data = None if body is None else json.dumps(body).encode()
    req = urllib.request.Request(base + path, data=data, method=method)
    if data is not None:
        req.add_header("Content-Type", "application/json")
    for name, value in (headers or {}).items():
        req.add_header(name, value)
    try:
        with urllib.request.urlopen(req, timeout=timeout) as r:
            status, hdrs, raw = r.status, dict(r.headers), r.read()
    except urllib.error.HTTPError as exc:
        status, hdrs, raw = exc.code, dict(exc.headers), exc.read()
    try:
        return status, hdrs, json.loads(raw)
    except ValueError:
        return status, hdrs, raw.decode(errors="replace")


def retrying(
    base: str, method: str, path: str, body: Any = None, attempts: int = 200, timeout: float = 60.0
) -> tuple[int, Any]:
    """The same request until the server answers it (it may be restarting), bounded in time.

    Only for requests that are safe to repeat, or whose repetition the caller can tell apart.
    """
    deadline = time.monotonic() + timeout
    last: Exception | None = None
    for _ in range(attempts):
        if time.monotonic() > deadline:
            break
        try:
            status, _h, data = request(base, method, path, body)
            if status < 500 and status != 429:
                return status, data
        except (urllib.error.URLError, OSError) as exc:
            last = exc
        time.sleep(0.1)
    raise RuntimeError(f"{method} {path} got no answer ({last})")
