"""Driving a live server as staff: the first organiser by the command line, logins, events."""

from __future__ import annotations

import http.cookiejar
import json
import os
import subprocess
import sys
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
PASSWORD = "correct horse battery"


def create_organiser(server: Any, username: str, password: str = PASSWORD) -> None:
    """`python -m server create-organiser` against the live server's database."""
    env = {
        **os.environ,
        "DATA_DIR": str(server.data_dir),
        # The server's own database (on PostgreSQL, a schema of its own).
        "DATABASE_URL": getattr(server, "database_url", os.environ.get("TEST_DATABASE_URL", "")),
    }
    subprocess.run(
        [sys.executable, "-m", "server", "create-organiser", username, "--password", password],
        cwd=ROOT,
        env=env,
        check=True,
        capture_output=True,
    )


class Staff:
    """A browser-like HTTP client with a cookie jar, logged in as one account."""

    def __init__(self, server: str) -> None:
        self.server = server
        self.jar = http.cookiejar.CookieJar()
        self.opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(self.jar))
        self.csrf = ""

    def request(
        self, method: str, path: str, body: Any = None, headers: dict[str, str] | None = None
    ) -> tuple[int, Any]:
        data = None if body is None else json.dumps(body).encode()
        sent = {"Content-Type": "application/json", "Origin": self.server}
        if self.csrf:
            sent["X-CSRF-Token"] = self.csrf
        sent.update(headers or {})
        req = urllib.request.Request(self.server + path, data=data, method=method, headers=sent)
        try:
            with self.opener.open(req, timeout=10) as response:
                raw = response.read()
                status = response.status
                kind = response.headers.get("Content-Type", "")
        except urllib.error.HTTPError as err:
            with err:
                raw, status, kind = err.read(), err.code, err.headers.get("Content-Type", "")
        if "json" in kind:
            return status, json.loads(raw)
        return status, raw.decode()

    def login(self, username: str, password: str = PASSWORD) -> Staff:
        status, body = self.request(
            "POST", "/api/auth/login", {"username": username, "password": password}
        )
        assert status == 200, body
        self.csrf = body["csrf"]
        return self

    @property
    def cookie(self) -> str:
        return "; ".join(f"{c.name}={c.value}" for c in self.jar)

    def create_event(
        self, name: str, tables: int, minutes: int = 40, require_player_id: bool = False
    ) -> dict[str, Any]:
        """An event; unsanctioned (no player ID asked, R1.1) unless ``require_player_id``."""
        status, body = self.request(
            "POST",
            "/api/events",
            {
                "name": name,
                "date": "2026-12-01",
                "tables": tables,
                "match_minutes": minutes,
                "require_player_id": require_player_id,
            },
        )
        assert status == 201, body
        return body

    def pair_by_hand(
        self, event: dict[str, Any], seated: dict[int, tuple[str, str]] | None = None
    ) -> None:
        """Pair every table of the event's current round by hand (a round starts only once
        paired): table n's players are `seated[n]`, the others get names of their own."""
        seated = seated or {}
        lines = []
        for table in event["tables"]:
            n = table["number"]
            a, b = seated.get(n, (f"Player {n}A", f"Player {n}B"))
            lines.append(f"{n},{a},,{b},")
        status, body = self.request(
            "POST", f"/api/events/{event['id']}/pairings", {"csv": "\n".join(lines)}
        )
        assert status == 200, body

    def add_judge(self, event_id: int, username: str, password: str = PASSWORD) -> None:
        status, body = self.request(
            "POST", f"/api/events/{event_id}/judges", {"username": username, "password": password}
        )
        assert status == 201, body


def seat_claim(server: Any, slug: str, number: int, seat: str, issue: int = 1) -> str:
    """The claim a table card's QR carries for one seat, for the whole event (from the live
    server's key file)."""
    from cryptography.hazmat.primitives import serialization

    from server.api.claims import claim_with
    from server.store.signing import Signer

    key = Signer.load(Path(server.data_dir) / "keys" / "signing-key.pem").key
    assert key is not None
    raw = key.private_bytes(
        serialization.Encoding.Raw, serialization.PrivateFormat.Raw, serialization.NoEncryption()
    )
    return claim_with(raw, slug, number, seat, issue=issue)
