"""The websocket session's budgets (the library internals its reader uses are pinned in
tests/test_compat.py)."""

from __future__ import annotations

from server.api.buckets import TokenBucket


def test_a_bucket_spends_a_cost():
    now = [0.0]
    bucket = TokenBucket(10, 100, clock=lambda: now[0])
    assert bucket.take(60) and not bucket.take(60) and bucket.take(40) and not bucket.take()
    now[0] = 1.0
    assert bucket.take(10) and not bucket.take()


class ClosedSocket:
    """A socket the phone has just closed: wsproto refuses to send on it."""

    def __init__(self) -> None:
        self.cut: list[tuple[int, str]] = []

    def send(self, data: object) -> None:
        from wsproto.utilities import LocalProtocolError

        raise LocalProtocolError("Event TextMessage cannot be sent in state CLOSED.")

    def cut_off(self, code: int, reason: str) -> None:
        self.cut.append((code, reason))


def test_a_write_to_a_socket_the_phone_closed_is_a_normal_close(caplog):
    import logging

    from server.api.session import Session

    class Quiet(Session):
        def handle(self, raw: str | bytes) -> bool:
            return True

    config = {"WS_HELLO_SECONDS": 10, "WS_MAX_QUEUED": 8}
    ws = ClosedSocket()
    session = Quiet(ws, config, None)  # type: ignore[arg-type]
    session.send({"type": "update"})
    with caplog.at_level(logging.DEBUG, logger="server.api.session"):
        session.writer.start()
        session.writer.join(timeout=5)
    assert not session.writer.is_alive()
    assert not session.alive and ws.cut  # the socket is closed, as for any closed peer
    assert not [r for r in caplog.records if r.levelno >= logging.WARNING], caplog.text
