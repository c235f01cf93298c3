"""Attacks from one client must not slow the other tables: each against a real server.

Every flooder here sends as fast as the socket takes it and never reads, as an attacker's few
lines of asyncio would; the victim is another table's spectator measuring its round trips.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import threading
import time

import pytest
from staff_actions import Staff, create_organiser
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed
from ws_helpers import new_table

from clients.testing import isolated_database, start_server, stop_server

PING = json.dumps({"type": "ping", "t": 1})


def flood(
    url: str, frames: list[str | bytes], seconds: float, result: dict, headers: dict | None = None
) -> None:
    """In a thread of its own: open `url`, then send `frames` round and round without reading
    until the server closes the socket or `seconds` pass. Records how long it lasted."""

    async def go() -> None:
        async with connect(
            url, max_queue=None, ping_interval=None, additional_headers=headers
        ) as ws:
            hello = frames[0] if frames else None
            if isinstance(hello, str) and '"hello"' in hello:
                await ws.send(hello)
                await asyncio.sleep(0.2)
            start = time.monotonic()
            sent = 0
            try:
                while time.monotonic() - start < seconds:
                    for frame in frames:
                        if frame == "<ping>":
                            await ws.ping()
                        else:
                            await ws.send(frame)
                        sent += 1
                    if sent % 500 < len(frames):
                        await asyncio.sleep(0)
                # Still open: does the server close it now?
                await asyncio.wait_for(ws.wait_closed(), 1)
            except (ConnectionClosed, OSError, TimeoutError):
                pass
            result["lasted"] = time.monotonic() - start
            result["sent"] = sent
            result["closed"] = ws.close_code is not None or ws.state.name in ("CLOSING", "CLOSED")

    with contextlib.suppress(Exception):
        asyncio.run(go())


async def round_trips(url: str, seconds: float, started: threading.Thread) -> list[float]:
    """A spectator's ping round trips, one every 50 ms, for `seconds` once `started` is (a
    missing pong counts as the whole wait)."""
    times = []
    async with connect(url) as ws:
        await ws.send(json.dumps({"type": "hello"}))
        while json.loads(await asyncio.wait_for(ws.recv(), 5))["type"] != "welcome":
            pass
        started.start()
        await asyncio.sleep(0.2)
        end = time.monotonic() + seconds
        n = 0
        while time.monotonic() < end:
            n += 1
            start = time.monotonic()
            await ws.send(json.dumps({"type": "ping", "t": n}))
            try:
                while True:
                    left = 5 - (time.monotonic() - start)
                    message = json.loads(await asyncio.wait_for(ws.recv(), max(left, 0.01)))
                    if message["type"] == "pong" and message["t"] == n:
                        break
            except TimeoutError:
                pass
            times.append(time.monotonic() - start)
            await asyncio.sleep(0.05)
    return times


def attack(
    live_server, frames: list[str | bytes], path: str | None = None, headers: dict | None = None
) -> tuple[dict, list]:
    victim, _, _ = new_table(live_server)
    target, _, _ = new_table(live_server)
    url = path or f"{live_server.ws_url}/ws/table/{target}"
    result: dict = {}
    flooder = threading.Thread(target=flood, args=(url, frames, 4.0, result, headers))
    times = asyncio.run(round_trips(f"{live_server.ws_url}/ws/table/{victim}", 3.0, flooder))
    flooder.join(10)
    return result, times


def check(result: dict, times: list[float]) -> None:
    # The flooder really was fast: past the smaller of the two bursts (messages 40, frames
    # 100; garbage is refused message by message, so it may be cut off by the first), at over
    # 1,000 frames a second.
    assert result.get("sent", 0) > 40, result
    assert result["sent"] / max(result["lasted"], 0.001) > 1000, result
    assert result["lasted"] < 2.0, result  # closed by the server within 2 s
    assert len(times) > 10 and max(times) < 0.5, (len(times), max(times, default=None))


def test_a_ping_flood_on_an_unauthenticated_socket_is_cut_off(live_server):
    check(*attack(live_server, [PING]))


def test_a_flood_of_garbage_and_binary_is_cut_off(live_server):
    check(*attack(live_server, ["not json {", b"\x00\x01binary", "[1,2,3]"]))


def test_a_flood_of_websocket_pings_is_cut_off(live_server):
    check(*attack(live_server, ["<ping>"]))


def test_a_flood_on_the_judges_floor_socket_is_cut_off(live_server):
    create_organiser(live_server, "flooder")
    org = Staff(live_server).login("flooder")
    event = org.create_event("Flood", 2)
    url = f"{live_server.ws_url}/ws/floor/{event['id']}"
    check(*attack(live_server, [PING], url, {"Cookie": org.cookie}))


@pytest.mark.slow  # its own server process, and a pong deadline to wait out
def test_spectators_that_never_read_are_closed_when_their_pong_is_overdue(tmp_path, database_url):
    # A spectator that never reads (not even the server's ping) is closed within
    # WS_PONG_SECONDS of the ping it got as it opened, while a table plays on; a spectator
    # that reads stays. (Before: closed only when the next round of pings found the last one
    # unanswered, a round being up to WS_PING_SECONDS = 20 s, or when a write ran past its
    # deadline: none of the 5 closed within the test's 5 s.)
    from reliability.adversary import TCP_ESTABLISHED, raw_websocket, tcp_state

    url = isolated_database(database_url, "never_read")
    server, process = start_server(tmp_path, url, {"WS_PONG_SECONDS": "2"})
    try:
        code, token_a, _ = new_table(server)
        start = time.monotonic()
        silent = [
            raw_websocket("127.0.0.1", server.port, f"/ws/table/{code}", '{"type":"hello"}')
            for _ in range(5)
        ]
        closed_at: list[float | None] = [None] * len(silent)

        async def play_and_watch() -> int:
            ws_url = f"{server.ws_url}/ws/table/{code}"
            async with connect(ws_url) as watcher, connect(ws_url) as seat:
                await watcher.send(json.dumps({"type": "hello"}))
                await seat.send(json.dumps({"type": "hello", "token": token_a}))
                seen = 0
                for n in range(50):  # 5 s of commands: updates for every spectator
                    command = {"type": "command", "id": f"c{n}", "cmd": "coin.toss"}
                    with contextlib.suppress(ConnectionClosed):  # only there for the updates
                        await seat.send(json.dumps({**command, "args": {"count": 1}}))
                    await asyncio.sleep(0.1)
                    for k, sock in enumerate(silent):
                        if closed_at[k] is None and tcp_state(sock) != TCP_ESTABLISHED:
                            closed_at[k] = time.monotonic() - start
                    with contextlib.suppress(TimeoutError):
                        while True:
                            await asyncio.wait_for(watcher.recv(), 0.01)
                            seen += 1
                assert watcher.close_code is None  # the reading spectator is still open
                return seen

        seen = asyncio.run(play_and_watch())
        assert seen > 10
        assert all(t is not None and t < 2 + 1.5 for t in closed_at), closed_at
        for sock in silent:
            sock.close()
    finally:
        stop_server(process)


def test_the_suite_cuts_each_attacks_window_by_timestamps():
    # The ordinary tables' latencies and errors come from several client processes, each
    # stamped with when it happened; an attack's figures are the ones inside its window.
    from reliability.adversary import Hall, StampedCounter, p99, worst_second

    errors = StampedCounter()
    errors["timeout"] += 1
    errors["timeout"] += 2
    errors["socket_closed"] += 1
    assert errors == {"timeout": 3, "socket_closed": 1}
    assert [k for _, k in errors.events] == ["timeout"] * 3 + ["socket_closed"]

    hall = Hall.__new__(Hall)  # no client processes: only its windows
    hall.latencies = [(10.2, 5.0), (10.8, 7.0), (11.5, 900.0), (12.5, 6.0), (20.0, 1000.0)]
    hall.errors = [(11.6, "timeout"), (30.0, "socket_closed")]
    values, seen = hall.between(10.0, 13.0)
    assert values == [5.0, 7.0, 900.0, 6.0] and seen == {"timeout": 1}
    assert p99(values) == 900.0
    assert worst_second(hall, 10.0, 13.0) == (1.0, 900.0)
