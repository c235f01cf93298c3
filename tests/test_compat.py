"""server/core/compat.py: each use of another library's internals, pinned. A failure here means a
library changed under us: read its new code, port the change, then update the pin."""

from __future__ import annotations

import hashlib
import inspect
import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from simple_websocket import Server
from simple_websocket.ws import Base
from wsproto import ConnectionType, WSConnection
from wsproto.events import AcceptConnection, Ping, Pong, Request, TextMessage

from server.core import compat

# `compat.ReplacedReader` replaces `Base._thread` with the session's guarded reader (a port of
# it without the timed pings), and `compat.feed` calls `Base._handle_events`, which must parse
# through `self.ws.events()` (the session wraps that connection to count frames).
PINNED = {
    "_thread": "da9a912028a48435f175f88669b7fbca702fdaea3726554c7b5a44d6c2e7b610",
    "_handle_events": "fa982a271583fe76851a1e20657a75c01c77a41a8a6d952dd32264e5ba613ac8",
}
ATTRIBUTES = ["sock", "ws", "event", "input_buffer", "receive_bytes", "pong_received", "connected"]

# The shapes of events and states: no floats (the rules use integers only).
json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(), inner, max_size=4),
    max_leaves=30,
)


def digest(name: str) -> str:
    return hashlib.sha256(inspect.getsource(getattr(Base, name)).encode()).hexdigest()


def test_the_reader_replaced_is_the_one_pinned():
    assert {name: digest(name) for name in PINNED} == PINNED
    assert "self.ws.events()" in inspect.getsource(Base._handle_events)
    assert "target=self._thread" in inspect.getsource(Base.__init__)


def test_the_attributes_used_are_set_by_the_library():
    source = inspect.getsource(Base.__init__)
    assert [a for a in ATTRIBUTES if f"self.{a} = " not in source] == []
    assert "self.mode = " in inspect.getsource(Server.__init__)


@settings(max_examples=300, deadline=None)
@given(json_values, st.booleans())
def test_the_c_encoder_is_json_dumps(value: Any, sort_keys: bool):
    expected = json.dumps(value, separators=(",", ":"), ensure_ascii=False, sort_keys=sort_keys)
    assert compat.c_json_encoder(sort_keys)(value) == expected


def test_the_c_encoder_is_the_c_one():
    """CPython keeps its C encoder (else `c_json_encoder` falls back to the slow path)."""
    assert callable(getattr(json.encoder, "c_make_encoder", None))
    assert callable(getattr(json.encoder, "c_encode_basestring", None))


@settings(max_examples=300, deadline=None)
@given(st.text())
def test_string_literal_is_json_dumps_of_a_str(text: str):
    assert compat.string_literal(text) == json.dumps(text, ensure_ascii=False)


@settings(max_examples=300, deadline=None)
@given(json_values)
def test_phone_text_is_the_c_encoders_text(value: Any):
    assert compat.phone_text(value) == compat.c_json_encoder()(value)


@pytest.mark.parametrize("value", ["\ud800", {"a": ["\udfff"]}, 2**64, -(2**70), {1: "one"}])
def test_what_orjson_refuses_is_still_encoded(value: Any):
    assert compat.phone_text(value) == json.dumps(value, separators=(",", ":"), ensure_ascii=False)


@settings(max_examples=200, deadline=None)
@given(st.dictionaries(st.text(), json_values, max_size=4), st.dictionaries(st.text(), json_values))
def test_phone_text_with_puts_texts_in_as_they_are(value: dict, more: dict):
    # Fields already encoded (a state sent to many sockets) go in through orjson.Fragment:
    # the text is what encoding the whole object would give.
    texts = {k: compat.phone_text(v) for k, v in more.items()}
    assert json.loads(compat.phone_text_with(value, texts)) == {**value, **more}
    assert compat.phone_text_with(value, texts) == compat.phone_text({**value, **more})


@pytest.mark.parametrize("value", [{"note": "\ud800"}, {"big": 2**64}, {1: "one"}])
def test_what_orjson_refuses_goes_in_with_the_texts_too(value: dict):
    text = compat.phone_text_with(value, {"state": '{"seq":3}'})
    assert text == json.dumps(
        {**value, "state": {"seq": 3}}, separators=(",", ":"), ensure_ascii=False
    )


def open_pair() -> tuple[WSConnection, WSConnection]:
    """A client and a server connection of wsproto, past the handshake, in memory."""
    client, server = WSConnection(ConnectionType.CLIENT), WSConnection(ConnectionType.SERVER)
    server.receive_data(client.send(Request(host="x", target="/")))
    assert isinstance(next(server.events()), Request)
    client.receive_data(server.send(AcceptConnection()))
    assert isinstance(next(client.events()), AcceptConnection)
    return client, server


class Wire:
    def __init__(self) -> None:
        self.sent = b""

    def send(self, data: bytes) -> int:
        self.sent += data
        return len(data)


def bare_server(connection: WSConnection) -> Server:
    """A simple-websocket server socket as `Base.__init__` leaves it after the handshake,
    without its thread."""
    import threading

    ws = Server.__new__(Server)
    for name, value in {
        "subprotocol": None,
        "sock": Wire(),
        "receive_bytes": 4096,
        "ping_interval": None,
        "max_message_size": None,
        "pong_received": True,
        "input_buffer": [],
        "incoming_message": None,
        "incoming_message_len": 0,
        "connected": True,
        "is_server": True,
        "close_reason": None,
        "close_message": None,
        "event": threading.Event(),
        "ws": connection,
    }.items():
        setattr(ws, name, value)
    return ws


def test_feed_parses_through_the_wrapped_connection():
    client, server = open_pair()
    ws = bare_server(server)
    seen: list[Any] = []

    class Counting:
        def __init__(self, raw: Any) -> None:
            self.raw = raw

        def events(self) -> Any:
            for event in self.raw.events():
                seen.append(type(event).__name__)
                yield event

        def __getattr__(self, name: str) -> Any:
            return getattr(self.raw, name)

    compat.wrap_connection(ws, Counting)
    data = client.send(TextMessage("hello")) + client.send(Ping(b"p"))
    assert compat.feed(ws)(data) is True
    assert seen == ["TextMessage", "Ping"]
    assert compat.queued(ws) == 1
    client.receive_data(compat.raw_socket(ws).sent)
    assert [type(e) for e in client.events()] == [Pong]  # the library answered the ping
    compat.drop_queued(ws)
    assert compat.queued(ws) == 0
    compat.wake_reader(ws)
    assert ws.event.is_set()


def test_a_ping_frame_is_sent_and_its_pong_is_seen():
    client, server = open_pair()
    ws = bare_server(server)
    compat.clear_pong(ws)
    assert compat.pong_received(ws) is False
    compat.send_ping_frame(ws)
    client.receive_data(ws.sock.sent)
    [ping] = list(client.events())
    assert isinstance(ping, Ping)
    assert compat.pong_received(ws) is False  # not answered yet
    compat.feed(ws)(client.send(ping.response()))
    assert compat.pong_received(ws) is True  # the library set the flag when the pong came


def test_replace_socket_wraps_what_the_library_writes_through():
    _client, server = open_pair()
    ws = bare_server(server)
    old = ws.sock
    compat.replace_socket(ws, lambda raw: ("wrapped", raw))
    assert compat.raw_socket(ws) == ("wrapped", old)


def test_real_app_is_the_app(app):
    with app.app_context():
        assert compat.real_app() is app


def test_thread_frames_holds_this_threads_frame():
    import sys
    import threading

    frame = compat.thread_frames()[threading.get_ident()]
    assert frame.f_code is sys._getframe().f_code
