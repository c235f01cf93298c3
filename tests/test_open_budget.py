"""Websocket opens are budgeted before the upgrade (`api/buckets.py: OpenBudget`): per client
address, so one address cannot spend the whole budget, and in all, a pace: a whole hall
reconnecting at once waits its turn and is let in as fast as the worker's loop runs it while it
keeps serving the tables it has. A refused open is a plain 503 with a Retry-After: no upgrade,
no socket, nothing changed."""

from __future__ import annotations

import asyncio
import json
import re
import subprocess
import sys
import threading
import time
from collections.abc import Iterator

import pytest
from websockets.asyncio.client import connect
from websockets.exceptions import InvalidStatus
from ws_helpers import Phone, new_table

from clients.testing import ROOT, LiveServer, isolated_database, start_server, stop_server
from server.api.buckets import OpenBudget
from server.core.config import DEFAULTS
from server.runtime.lag import LoopLag


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_the_total_and_each_address_have_their_own_budget() -> None:
    clock = Clock()
    budget = OpenBudget(10, 4, 5, 2, clock=clock)
    assert [budget.admit("hall") for _ in range(3)] == [True, True, False]  # the address's 2
    assert [budget.admit("home") for _ in range(3)] == [True, True, False]  # the total's 4
    assert not budget.admit("third")  # the total is spent
    clock.now += 0.2  # 2 tokens back in all, 1 for each address
    assert budget.admit("third") and budget.admit("hall") and not budget.admit("hall")


def test_an_address_refused_spends_nothing_of_the_total() -> None:
    clock = Clock()
    budget = OpenBudget(1, 3, 1, 1, clock=clock)
    assert budget.admit("hall")
    assert not budget.admit("hall") and not budget.admit("hall")
    assert budget.admit("a") and budget.admit("b")  # the refusals left the total's 2


def test_no_open_while_the_loop_is_behind_and_nothing_spent_by_that_refusal() -> None:
    clock, lag = Clock(), [0.0]
    budget = OpenBudget(1, 2, 1, 2, clock=clock, lag=lambda: lag[0], max_lag=0.05)
    lag[0] = 0.08  # a reconnecting hall's hellos and states queued in front of every ping
    assert [budget.admit("hall") for _ in range(3)] == [False, False, False]
    assert budget.behind == 3
    lag[0] = 0.05  # at the bound: let in
    assert [budget.admit("hall") for _ in range(3)] == [True, True, False]  # the whole burst
    assert budget.behind == 3  # the last one was the budget's refusal, not the loop's


def test_an_open_waits_its_turn_until_the_loop_has_caught_up() -> None:
    lag = [0.5]
    budget = OpenBudget(
        100, 1, 100, 100, lag=lambda: lag[0], max_lag=0.05, max_wait=5.0, pace_every=0.01
    )
    admitted: list[tuple[int, bool, float]] = []

    def phone(n: int) -> None:
        ok = budget.admit(f"phone{n}")
        admitted.append((n, ok, time.monotonic()))

    phones = []
    for n in range(5):  # in this order
        phones.append(threading.Thread(target=phone, args=(n,)))
        phones[-1].start()
        time.sleep(0.02)
    time.sleep(0.2)
    assert admitted == [] and budget.waited == 5  # the loop is behind: all wait, none refused
    caught_up = time.monotonic()
    lag[0] = 0.0
    for t in phones:
        t.join(5)
    assert [(n, ok) for n, ok, _ in admitted] == [(n, True) for n in range(5)]  # first come
    assert max(at for _, _, at in admitted) - caught_up < 2.0
    assert budget.behind == 0


def test_an_open_that_waited_too_long_is_refused_with_nothing_spent() -> None:
    clock, lag = Clock(), [0.5]
    budget = OpenBudget(
        1, 1, 1, 1, clock=clock, lag=lambda: lag[0], max_lag=0.05, max_wait=0.1, pace_every=0.01
    )
    assert not budget.admit("hall")  # waited 0.1 s behind a loop that did not catch up
    assert budget.waited == 1 and budget.behind == 1
    lag[0] = 0.0
    assert budget.admit("hall")  # the address's one open was given back


def test_an_open_waits_less_than_a_phone_waits_for_a_message() -> None:
    # A phone that hears nothing for DEAD_MS drops its socket and opens another: a turn waited
    # for longer than that would be a socket the phone has given up on.
    conn = (ROOT / "web" / "js" / "conn.js").read_text()
    dead_ms = int(re.search(r"const DEAD_MS = (\d+);", conn).group(1))  # type: ignore[union-attr]
    assert 0 < DEFAULTS["WS_OPENS_MAX_WAIT_SECONDS"] * 1000 <= dead_ms - 3000


def test_a_bound_of_zero_never_asks_the_loop() -> None:
    asked = []
    budget = OpenBudget(10, 10, 10, 10, lag=lambda: asked.append(1) or 9.0, max_lag=0)
    assert budget.admit("hall") and asked == [] and budget.behind == 0


def test_the_probe_counts_a_sleep_that_ends_late() -> None:
    now = [0.0]

    def sleep(seconds: float) -> None:
        if seconds:
            assert probe.behind() == 0.0  # due, not yet overdue
            now[0] += seconds + 0.01  # the timer ran 10 ms late
        else:
            now[0] += 0.02  # and the turn asked for then came after 20 ms of others' work

    probe = LoopLag(every=0.01, clock=lambda: now[0], sleep=sleep)
    probe._thread = object()  # type: ignore[assignment]  # driven by hand, no thread
    assert probe.probe() == pytest.approx(0.03) and probe.behind() == pytest.approx(0.03)
    probe.due, now[0] = now[0] + 0.01, now[0] + 0.21  # a sleep 200 ms overdue as we look
    assert probe.behind() == pytest.approx(0.2)


GEVENT_LOOP = """
from gevent import monkey
monkey.patch_all()
import json, time
import gevent
from server.runtime.lag import LoopLag

lag = LoopLag(every=0.01)
lag.behind()  # starts the probe
time.sleep(0.2)
quiet = lag.behind()

def writer():  # 200 green threads taking turns, 1 ms each (a hall's welcomes being built)
    for _ in range(5):
        end = time.monotonic() + 0.001
        while time.monotonic() < end:
            pass
        gevent.sleep(0)

seen = []

def watch():
    end = time.monotonic() + 0.8
    while time.monotonic() < end:
        seen.append(lag.behind())
        time.sleep(0.02)

gevent.joinall([gevent.spawn(writer) for _ in range(200)] + [gevent.spawn(watch)])
time.sleep(0.2)
print(json.dumps({"quiet": quiet, "during": max(seen), "after": lag.behind()}))
"""


def test_the_probe_sees_the_green_threads_queued_before_it() -> None:
    # Under gevent, as the server runs. Each writer holds the loop 1 ms at a time, so timers
    # still wake every few ms (a probe of a sleep alone saw 49 ms here); a pong handed to its
    # writer waits for the whole round of 200 turns, and so does the probe's turn after its sleep.
    out = subprocess.run(
        [sys.executable, "-c", GEVENT_LOOP], cwd=ROOT, capture_output=True, text=True, timeout=30
    )
    assert out.returncode == 0, out.stderr
    seen = json.loads(out.stdout)
    assert seen["quiet"] < 0.1 and seen["after"] < 0.1, seen
    assert seen["during"] >= 0.15, seen


LIMITS = {
    "WS_OPENS_PER_SECOND": "2",
    "WS_OPENS_BURST": "3",
    "WS_MAX_PER_ADDRESS": "50",
    "WS_OPENS_MAX_WAIT_SECONDS": "0",  # refused at once past the total
}


def live_with(
    factory: pytest.TempPathFactory, database_url: str, name: str, limits: dict[str, str]
) -> Iterator[LiveServer]:
    """A live server of its own with these opens' limits, for one module."""
    url = isolated_database(database_url, name)
    live, process = start_server(factory.mktemp(name), url, limits)
    try:
        yield live
    finally:
        stop_server(process)


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory, database_url: str) -> Iterator[LiveServer]:
    yield from live_with(tmp_path_factory, database_url, "opens", LIMITS)


def test_an_open_past_the_budget_is_a_503_before_the_upgrade(server: LiveServer) -> None:
    code, token, _ = new_table(server)
    url = f"{server.ws_url}/ws/table/{code}"
    time.sleep(1.6)  # the set-up's own socket, if any, is paid back

    async def scenario() -> tuple[int, list[int], str, str, str]:
        admitted, refused = [], []
        for _ in range(6):
            try:
                ws = await connect(url)
            except InvalidStatus as exc:
                refused.append(exc.response)
            else:
                admitted.append(ws)
        answer = refused[0]
        statuses = [r.status_code for r in refused]
        body = json.loads(answer.body.decode())["error"]["code"]
        retry = answer.headers["Retry-After"]
        # An admitted socket still works as a seat's phone: the refusals changed nothing.
        welcome = await Phone(admitted[0]).hello(token)
        for ws in admitted:
            await ws.close()
        return len(admitted), statuses, body, retry, welcome["type"]

    count, statuses, body, retry, welcomed = asyncio.run(scenario())
    assert count == 3 and statuses == [503, 503, 503] and welcomed == "welcome"
    assert body == "busy" and retry in {"1", "2", "3"}

    async def later() -> bool:
        await asyncio.sleep(1.2)  # 2 opens a second come back
        async with connect(url):
            return True

    assert asyncio.run(later())


PACED = {"WS_OPENS_PER_SECOND": "4", "WS_OPENS_BURST": "1", "WS_MAX_PER_ADDRESS": "50"}


@pytest.fixture(scope="module")
def paced(tmp_path_factory: pytest.TempPathFactory, database_url: str) -> Iterator[LiveServer]:
    yield from live_with(tmp_path_factory, database_url, "opens_paced", PACED)


def test_opens_past_the_pace_wait_their_turn_and_are_all_welcomed(paced: LiveServer) -> None:
    """Six viewers open at once where 4 a second are let in: every one is welcomed (none sees a
    503 to come back from after its backoff), the last about a second later."""
    code, _, _ = new_table(paced)
    url = f"{paced.ws_url}/ws/table/{code}"
    time.sleep(0.6)  # the set-up's own socket, if any, is paid back

    async def one(started: float) -> float:
        async with connect(url, open_timeout=15) as ws:
            welcome = await Phone(ws).hello()  # spectators: no seat's older socket is closed
            assert welcome["type"] == "welcome"
            return time.monotonic() - started

    async def scenario() -> list[float]:
        started = time.monotonic()
        return await asyncio.gather(*(one(started) for _ in range(6)))

    took = sorted(asyncio.run(scenario()))
    assert len(took) == 6
    assert took[-1] >= 0.9, took  # 1 at once, then 4 a second: the 6th at 1.25 s
