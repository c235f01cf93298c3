"""Keep-alive pings (issue 11): one pinger for every socket of the process, spread in slices;
a peer that stops answering is closed (1008), one that answers stays."""

from __future__ import annotations

import socket
import time
from pathlib import Path

import pytest
from ws_helpers import new_table
from wsproto import ConnectionType, WSConnection
from wsproto.events import (
    AcceptConnection,
    CloseConnection,
    Ping,
    Request,
    TextMessage,
)

from clients.testing import isolated_database, start_server, stop_server
from server.api.keepalive import SLICES, Pinger


class Counted:
    def __init__(self) -> None:
        self.pings = 0

    def ping(self) -> None:
        self.pings += 1

    def answered(self) -> bool:
        return True

    def expire(self) -> None:
        raise AssertionError("answered")


def test_the_pinger_pings_every_socket_once_a_round_in_slices():
    pinger = Pinger(interval=60)
    pinger.stop()  # no thread of its own: this test ticks it
    sockets = [Counted() for _ in range(45)]
    for s in sockets:
        pinger.add(s)
    pinger.discard(sockets[0])
    assert all(s.pings == 1 for s in sockets)  # pinged as they open
    assert pinger.expire() == 0  # all answered
    # 44 sockets in slices of ceil(44 / SLICES) = 3: a round is 15 ticks, within SLICES.
    per_tick = [pinger.tick() for _ in range(15)]
    assert per_tick == [3] * 14 + [2]
    assert [s.pings for s in sockets] == [1] + [2] * 44
    assert SLICES >= 15
    pinger.expire()
    pinger.tick()  # the next round starts
    assert sum(s.pings for s in sockets) == 45 + 44 + 3


class Silent(Counted):
    def __init__(self) -> None:
        super().__init__()
        self.expired = 0

    def answered(self) -> bool:
        return False

    def expire(self) -> None:
        self.expired += 1


def test_a_pong_that_does_not_come_in_time_closes_the_socket():
    # A peer that does not read never answers: it is closed pong_seconds after the ping it
    # got as it opened, long before the next round of pings.
    pinger = Pinger(interval=60, pong_seconds=0.2)
    pinger.stop()  # no thread of its own: this test ticks it
    silent, answering = Silent(), Counted()
    pinger.add(silent)
    pinger.add(answering)
    assert pinger.expire() == 0 and silent.expired == 0  # not due yet
    for _ in range(SLICES):
        pinger.tick()
    assert silent.pings == 1  # its ping is still out: no second one
    time.sleep(0.25)
    assert pinger.expire() == 1 and silent.expired == 1 and answering.pings == 2
    assert pinger.expire() == 0  # once


class RawPeer:
    """A websocket client on a bare TCP socket, so it can leave pings unanswered."""

    def __init__(self, port: int, path: str, answer: bool) -> None:
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=0.2)
        self.ws = WSConnection(ConnectionType.CLIENT)
        self.answer = answer
        self.pings = 0
        self.closed: int | None = None
        self.texts: list[str] = []
        self.sock.sendall(self.ws.send(Request(host=f"127.0.0.1:{port}", target=path)))
        deadline = time.monotonic() + 5
        while not self.pump() and time.monotonic() < deadline:
            pass

    def pump(self) -> bool:
        """Read what arrived; True once the handshake was accepted."""
        accepted = False
        try:
            data = self.sock.recv(65536)
        except TimeoutError:
            return False
        except OSError:
            data = b""
        self.ws.receive_data(data or None)
        for event in self.ws.events():
            if isinstance(event, AcceptConnection):
                accepted = True
            elif isinstance(event, Ping):
                self.pings += 1
                if self.answer:
                    self.sock.sendall(self.ws.send(event.response()))
            elif isinstance(event, CloseConnection) and self.closed is None:
                self.closed = event.code  # the first: end of stream after it reads as 1006
            elif isinstance(event, TextMessage):
                self.texts.append(event.data)
        return accepted


@pytest.mark.slow
def test_a_silent_peer_is_closed_and_an_answering_one_stays(tmp_path: Path, database_url):
    url = isolated_database(database_url, "keepalive")
    server, process = start_server(tmp_path, url, {"WS_PING_SECONDS": "1", "WS_PONG_SECONDS": "2"})
    try:
        code, _, _ = new_table(server)
        path = f"/ws/table/{code}"
        answering = RawPeer(server.port, path, answer=True)
        silent = RawPeer(server.port, path, answer=False)
        deadline = time.monotonic() + 6
        while time.monotonic() < deadline and (silent.closed is None or answering.pings < 4):
            answering.pump()
            silent.pump()
        assert silent.closed == 1008 and silent.pings >= 1
        assert answering.closed is None and answering.pings >= 4
        answering.sock.sendall(answering.ws.send(TextMessage('{"type":"ping","t":5}')))
        deadline = time.monotonic() + 3
        while time.monotonic() < deadline and not any('"pong"' in t for t in answering.texts):
            answering.pump()
        assert any('"pong"' in t for t in answering.texts)
        answering.sock.close()
        silent.sock.close()
    finally:
        stop_server(process)
