"""The hub: in-process fan-out, and Redis pub/sub between two hubs as two processes."""

from __future__ import annotations

import os
import queue
import threading

import pytest

from server.service.hub import LocalHub, RedisHub, make_hub

REDIS_URL = os.environ.get("TEST_REDIS_URL", "redis://127.0.0.1:6379/15")


def redis_answers() -> bool:
    import redis

    try:
        return bool(redis.Redis.from_url(REDIS_URL, socket_timeout=1).ping())
    except Exception:
        return False


def test_local_hub_delivers_to_the_tables_subscribers_only():
    hub = LocalHub()
    got: list[tuple[str, int]] = []
    other: list[tuple[str, int]] = []

    def record(code: str, seq: int) -> None:
        got.append((code, seq))

    hub.subscribe("AAAAAA", record)
    hub.subscribe("BBBBBB", lambda code, seq: other.append((code, seq)))
    hub.publish("AAAAAA", 5)
    assert got == [("AAAAAA", 5)] and other == []
    hub.unsubscribe("AAAAAA", record)
    hub.publish("AAAAAA", 6)
    assert got == [("AAAAAA", 5)] and hub.subscribers("AAAAAA") == 0


def test_a_failing_callback_does_not_stop_the_others():
    hub = LocalHub()
    got: list[int] = []

    def broken(code: str, seq: int) -> None:
        raise RuntimeError("socket gone")

    hub.subscribe("AAAAAA", broken)
    hub.subscribe("AAAAAA", lambda code, seq: got.append(seq))
    hub.publish("AAAAAA", 1)
    assert got == [1]


def test_subscribing_while_publishing():
    hub = LocalHub()
    steady: list[int] = []
    hub.subscribe("AAAAAA", lambda code, seq: steady.append(seq))
    stop = threading.Event()

    def churn() -> None:
        while not stop.is_set():

            def callback(code: str, seq: int) -> None:
                pass

            hub.subscribe("AAAAAA", callback)
            hub.unsubscribe("AAAAAA", callback)

    churners = [threading.Thread(target=churn) for _ in range(3)]
    for t in churners:
        t.start()
    for seq in range(1, 501):
        hub.publish("AAAAAA", seq)
    stop.set()
    for t in churners:
        t.join()
    assert steady == list(range(1, 501))
    assert hub.subscribers("AAAAAA") == 1


def test_make_hub_without_redis_is_local():
    assert isinstance(make_hub(""), LocalHub)


@pytest.mark.redis
@pytest.mark.skipif(not redis_answers(), reason="Redis does not answer")
@pytest.mark.slow
def test_redis_hub_reaches_another_process():
    first, second = RedisHub(REDIS_URL), RedisHub(REDIS_URL)
    try:
        assert first.wait_ready() and second.wait_ready()
        at_first: queue.Queue[tuple[str, int]] = queue.Queue()
        at_second: queue.Queue[tuple[str, int]] = queue.Queue()
        first.subscribe("K7QF2M", lambda code, seq: at_first.put((code, seq)))
        second.subscribe("K7QF2M", lambda code, seq: at_second.put((code, seq)))
        first.publish("K7QF2M", 42)
        assert at_second.get(timeout=5) == ("K7QF2M", 42)
        # The publisher's own subscribers hear it once, at once, not again through Redis.
        assert at_first.get(timeout=1) == ("K7QF2M", 42)
        second.publish("K7QF2M", 43)
        assert at_first.get(timeout=5) == ("K7QF2M", 43)
        assert at_first.empty()
    finally:
        first.close()
        second.close()


@pytest.mark.redis
@pytest.mark.skipif(not redis_answers(), reason="Redis does not answer")
@pytest.mark.slow
def test_two_server_processes_share_tables_through_redis(tmp_path, database_url):
    """A command sent to one process reaches a socket held by another (DESIGN: scale out)."""
    import asyncio
    import json

    from websockets.asyncio.client import connect
    from ws_helpers import DECK, Phone, new_table

    from clients.testing import isolated_database, start_server, stop_server

    env = {"REDIS_URL": REDIS_URL}
    database_url = isolated_database(database_url, "two_servers")
    first, first_process = start_server(tmp_path, database_url, env)
    try:
        second, second_process = start_server(tmp_path, database_url, env)
        try:
            code, token_a, token_b = new_table(first)

            async def scenario() -> None:
                url = f"/ws/table/{code}"
                async with connect(first.ws_url + url) as wa, connect(second.ws_url + url) as wb:
                    a, b = Phone(wa), Phone(wb)
                    await a.hello(token_a)
                    await b.hello(token_b)
                    seq = await a.ok("deck.declare", DECK)
                    update = await b.until_seq(seq)
                    assert update["events"][0]["type"] == "deck.declared"
                    seq = await b.ok("deck.declare", DECK)
                    assert (await a.until_seq(seq))["state"]["decks"]["B"]["declared"]
                    assert json.loads(json.dumps(update))["seq"] == seq - 1

            asyncio.run(scenario())
        finally:
            stop_server(second_process)
    finally:
        stop_server(first_process)
