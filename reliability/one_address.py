"""A whole hall behind one address, measured against a real server with the default limits.

`python -m reliability.one_address [--phones 2000]` starts a server behind one trusted proxy
(`PROXY_COUNT=1`, each client's address given by `X-Forwarded-For`), sets up `phones / 2`
seated tables (each from an address of its own), then, all from the hall's one address:

- `reconnect`: every phone opens its socket and says hello at once (a Wi-Fi blip), then reads
  its table over HTTP with its token: welcomed, refused, and how long until the last welcome;
- `spectators`: one device opens spectator sockets (as fast as the address's budget lets it)
  until the address's spectator ceiling refuses it, then 400 seated phones reconnect: how
  many spectators got in, and whether any phone was refused;
- `lockout`: wrong passwords for the organiser's account from one address, each sent once the
  last lock ran out (the attack that locked the organiser out for 128 s before, shortened to
  8 failures), then the right password from that address and from another one.

Prints one line per scenario; exits 1 when a phone or the organiser was refused.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import tempfile
import time
import urllib.error
import urllib.request
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

HALL = "203.0.113.7"
SCENARIOS = ("reconnect", "spectators", "lockout")


def _request(
    base: str, method: str, path: str, address: str, body: Any = None, token: str = ""
) -> tuple[int, Any]:
    headers = {"Content-Type": "application/json", "X-Forwarded-For": address}
    if token:
        headers["Authorization"] = f"Bearer {token}"
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(base + path, data=data, method=method, headers=headers)
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return response.status, json.load(response)
    except urllib.error.HTTPError as exc:
        with exc:
            return exc.code, None


def _table(base: str, k: int) -> tuple[str, str, str]:
    address = f"10.{k // 65536 % 256}.{k // 256 % 256}.{k % 256}"
    _, created = _request(base, "POST", "/api/tables", address, {})
    code = created["code"]
    _, a = _request(base, "POST", f"/api/tables/{code}/join", address, {"name": f"A{k}"})
    _, b = _request(base, "POST", f"/api/tables/{code}/join", address, {"name": f"B{k}"})
    return code, a["token"], b["token"]


async def _hello(ws_base: str, code: str, token: str | None, held: list) -> str:
    from websockets.asyncio.client import connect
    from websockets.exceptions import ConnectionClosed

    try:
        ws = await connect(
            f"{ws_base}/ws/table/{code}",
            additional_headers={"X-Forwarded-For": HALL},
            open_timeout=60,
        )
    except Exception as exc:
        return type(exc).__name__
    held.append(ws)
    try:
        await ws.send(json.dumps({"type": "hello", **({"token": token} if token else {})}))
        while True:
            message = json.loads(await asyncio.wait_for(ws.recv(), 60))
            if message["type"] == "welcome":
                return "welcome"
            if message["type"] == "error":
                return str(message["error"]["code"])
    except (ConnectionClosed, TimeoutError) as exc:
        return type(exc).__name__


async def _close(held: list) -> None:
    await asyncio.gather(*(ws.close() for ws in held), return_exceptions=True)
    held.clear()


def reconnect(base: str, ws_base: str, tables: list[tuple[str, str, str]]) -> dict[str, Any]:
    phones = [(code, token) for code, a, b in tables for token in (a, b)]

    async def go() -> tuple[Counter[str], float]:
        held: list = []
        start = time.monotonic()
        answers = await asyncio.gather(*(_hello(ws_base, c, t, held) for c, t in phones))
        seconds = time.monotonic() - start
        await _close(held)
        return Counter(answers), seconds

    answers, seconds = asyncio.run(go())
    with ThreadPoolExecutor(16) as pool:
        reads = Counter(
            pool.map(
                lambda p: _request(base, "GET", f"/api/tables/{p[0]}", HALL, token=p[1])[0],
                phones,
            )
        )
    return {"phones": len(phones), "answers": dict(answers), "seconds": seconds, "reads": reads}


def spectators(base: str, ws_base: str, tables: list[tuple[str, str, str]]) -> dict[str, Any]:
    async def go() -> tuple[Counter[str], float, Counter[str]]:
        held: list = []
        seen: Counter[str] = Counter()
        start = time.monotonic()
        n = 0
        while True:  # in batches of 50, within the address's rate, until the ceiling refuses
            batch = [tables[(n + k) % len(tables)][0] for k in range(50)]
            n += 50
            answers = await asyncio.gather(*(_hello(ws_base, c, None, held) for c in batch))
            seen.update(answers)
            if "too_many_sockets" in answers or n > 20_000:
                break
            if "rate_limited" in answers:
                await asyncio.sleep(5)  # the address's HTTP budget: 10 a second
        filled = time.monotonic() - start
        phones = [(code, token) for code, a, b in tables[:200] for token in (a, b)]
        after = Counter(await asyncio.gather(*(_hello(ws_base, c, t, held) for c, t in phones)))
        await _close(held)
        return seen, filled, after

    seen, filled, after = asyncio.run(go())
    return {"spectators": dict(seen), "seconds": filled, "phones_after": dict(after)}


def lockout(base: str, failures: int = 8) -> dict[str, Any]:
    """A patient guesser: wrong passwords for the organiser's account from one address, each
    after the last lock ran out (`Retry-After`), until `failures` were checked (the account is
    then locked for 4 s at the defaults, doubling with each one more); then at once the right
    password from another address."""
    statuses: Counter[int] = Counter()
    checked = 0
    while checked < failures:
        body = json.dumps({"username": "boss", "password": f"guess-{checked}"}).encode()
        request = urllib.request.Request(
            base + "/api/auth/login",
            data=body,
            method="POST",
            headers={"Content-Type": "application/json", "X-Forwarded-For": "192.0.2.66"},
        )
        try:
            urllib.request.urlopen(request, timeout=30).close()
            statuses[200] += 1
        except urllib.error.HTTPError as exc:
            with exc:
                statuses[exc.code] += 1
                if exc.code == 429:
                    time.sleep(float(exc.headers.get("Retry-After", "1")))
                else:
                    checked += 1
    guesser, _ = _request(
        base, "POST", "/api/auth/login", "192.0.2.66", {"username": "boss", "password": PASSWORD}
    )
    start = time.monotonic()
    status, _ = _request(
        base,
        "POST",
        "/api/auth/login",
        "198.51.100.200",
        {"username": "boss", "password": PASSWORD},
    )
    return {
        "guesses": dict(statuses),
        "guesser_right_password": guesser,
        "organiser": status,
        "ms": (time.monotonic() - start) * 1000,
    }


PASSWORD = "correct horse battery staple"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--phones", type=int, default=2000)
    parser.add_argument(
        "--scenario",
        action="append",
        choices=SCENARIOS,
        default=[],
        help="run only these (repeatable; default: all)",
    )
    args = parser.parse_args(argv)
    from bench.load import raise_nofile
    from clients.testing import start_server, stop_server

    raise_nofile()
    workdir = Path(tempfile.mkdtemp(prefix="one-address-"))
    server, process = start_server(
        workdir, "", {"PROXY_COUNT": "1", "HTTP_RATE_PER_MINUTE": "600", "HTTP_RATE_BURST": "300"}
    )
    try:
        subprocess_env_account(server, workdir)
        with ThreadPoolExecutor(8) as pool:
            tables = list(pool.map(lambda k: _table(server, k), range(args.phones // 2)))
        wanted = args.scenario or list(SCENARIOS)
        refused = False
        if "reconnect" in wanted:
            r = reconnect(server, server.ws_url, tables)
            print(
                f"[reconnect] {r['phones']} phones from one address at once: {r['answers']} in "
                f"{r['seconds']:.1f} s; then each read its table: {dict(r['reads'])}"
            )
            refused |= r["answers"].get("welcome", 0) != r["phones"] or set(r["reads"]) != {200}
        if "spectators" in wanted:
            s = spectators(server, server.ws_url, tables)
            print(
                f"[spectators] one device's spectator sockets: {s['spectators']} "
                f"(filled in {s['seconds']:.1f} s); then {sum(s['phones_after'].values())} "
                f"seated phones from the same address: {s['phones_after']}"
            )
            refused |= set(s["phones_after"]) != {"welcome"}
        if "lockout" in wanted:
            lock = lockout(server)
            print(
                f"[lockout] 8 wrong passwords checked from one address (each after its lock): "
                f"{lock['guesses']}; then the right one from there: "
                f"{lock['guesser_right_password']}, from another address (the organiser): "
                f"{lock['organiser']} in {lock['ms']:.0f} ms"
            )
            refused |= lock["organiser"] != 200
    finally:
        stop_server(process)
    return 1 if refused else 0


def subprocess_env_account(server: Any, workdir: Path) -> None:
    """The organiser's account, made with the server's own command line."""
    import os
    import subprocess

    env = {**os.environ, "DATA_DIR": str(server.data_dir), "DATABASE_URL": server.database_url}
    subprocess.run(
        [sys.executable, "-m", "server", "create-organiser", "boss", "--password", PASSWORD],
        env=env,
        text=True,
        check=True,
        capture_output=True,
        cwd=Path(__file__).resolve().parent.parent,
    )


if __name__ == "__main__":
    sys.exit(main())
