"""Every use of another library's internals, in one place; each is pinned by tests/test_compat.py,
which fails when the library changes under it.

Each entry: the internal, why we use it, and the test that pins it.

- CPython's private `json.encoder.c_make_encoder` and `c_encode_basestring`: `c_json_encoder`,
  the C encoder made once rather than per call as `json.dumps` does; the hash chain's canonical
  text (`server/store/chain.py`) uses it. Pinned by `test_the_c_encoder_is_json_dumps`
  (hypothesis values, sorted and not, against `json.dumps`).
- `json.encoder.encode_basestring` (undocumented): `string_literal`, one JSON string literal
  of the chain's canonical text. Pinned by `test_string_literal_is_json_dumps_of_a_str`.
- simple-websocket's private `Base._thread`: `ReplacedReader` runs `read_loop` instead (the
  session's guarded reader, `server/api/session.py`, a port of `_thread` without its timed
  pings). Pinned by `test_the_reader_replaced_is_the_one_pinned` (a digest of its source).
- simple-websocket's private `Base._handle_events`: `feed` parses what was read, as `_thread`
  does. Pinned by the same digest test and `test_feed_parses_through_the_wrapped_connection`.
- simple-websocket's undocumented attributes `sock`, `ws` (wsproto's connection), `event`,
  `input_buffer`, `receive_bytes`, `pong_received`, `mode`: the guarded reader, the writer's
  deadline socket (`replace_socket`), the keep-alive pinger (`send_ping_frame`, a wsproto
  `Ping` sent from the socket's writer; `clear_pong`/`pong_received`). Pinned by
  `test_the_attributes_used_are_set_by_the_library` (read from `Base.__init__`) and
  `test_a_ping_frame_is_sent_and_its_pong_is_seen`.
- CPython's `sys._current_frames` (documented, underscored, "for internal and specialized
  purposes only"): `thread_frames`, the stall monitor's look at what the loop's thread runs
  (`server/runtime/stalls.py`). Pinned by `test_thread_frames_holds_this_threads_frame`.
- werkzeug's `LocalProxy._get_current_object` (documented, underscored): `real_app`, the app
  itself rather than its proxy. Pinned by `test_real_app_is_the_app`.

Not here, as they are documented extension points rather than internals: peewee's `Model._meta`
(`server/store/migrations.py`) and marshmallow's `Field._deserialize` (`server/api/schemas.py`).
What goes to phones is encoded by orjson (`phone_text`, public API), which gives the same text
as the C encoder (`tests/test_compat.py` checks it over hypothesis values); the chain keeps the
C encoder, whose text old logs were hashed with.
"""

from __future__ import annotations

import json
import socket
import sys
from collections.abc import Callable
from functools import partial
from types import FrameType
from typing import Any

import orjson
from flask import current_app
from simple_websocket import Server
from wsproto.events import Ping


def c_json_encoder(sort_keys: bool = False) -> Callable[[Any], str]:
    """What `json.dumps(value, separators=(",", ":"), ensure_ascii=False, sort_keys=...)`
    gives, from CPython's C encoder made once (no check for circular references: the values
    encoded have none). Falls back to `json.dumps` where there is no C encoder."""
    make = getattr(json.encoder, "c_make_encoder", None)
    if make is None:
        return partial(json.dumps, separators=(",", ":"), ensure_ascii=False, sort_keys=sort_keys)
    basestring = json.encoder.c_encode_basestring  # type: ignore[attr-defined]
    chunks = make(None, None, basestring, None, ":", ",", sort_keys, False, True)
    return lambda value: "".join(chunks(value, 0))


# A JSON string literal of a str, non-ASCII kept as is.
string_literal: Callable[[str], str] = json.encoder.encode_basestring  # type: ignore[attr-defined]

_stdlib_text = c_json_encoder()


def phone_text(value: Any) -> str:
    """Compact JSON text of `value` (non-ASCII kept), by orjson; what orjson refuses (a lone
    surrogate, an int beyond 64 bits) goes through the C encoder, which gives the same text
    for everything else."""
    try:
        return orjson.dumps(value, option=orjson.OPT_NON_STR_KEYS).decode()
    except (orjson.JSONEncodeError, UnicodeDecodeError):
        return _stdlib_text(value)


def phone_text_with(value: dict[str, Any], texts: dict[str, str]) -> str:
    """`phone_text` of the object `value` with more fields, `texts`, whose values are JSON text
    already (a state encoded once and sent to many sockets): orjson's `Fragment` puts each in
    as it is. What orjson refuses goes through the C encoder."""
    try:
        fields = value.copy()
        for k, t in texts.items():
            fields[k] = orjson.Fragment(t)
        return orjson.dumps(fields, option=orjson.OPT_NON_STR_KEYS).decode()
    except (orjson.JSONEncodeError, UnicodeDecodeError):
        # Rare (a lone surrogate, an int beyond 64 bits): the whole object through the C
        # encoder, the texts read back first; slow, and exactly what encoding it whole gives.
        merged = json.loads(_stdlib_text(value))
        merged.update((k, json.loads(t)) for k, t in texts.items())
        return _stdlib_text(merged)


# The frame each OS thread runs now, by thread id (the function itself: a wrapper would be the
# innermost frame of the calling thread's own sample).
thread_frames: Callable[[], dict[int, FrameType]] = sys._current_frames


def real_app() -> Any:
    """The current Flask app itself, not the proxy (to hand to code that keeps it)."""
    return current_app._get_current_object()  # type: ignore[attr-defined]


# simple-websocket: the reader thread and the attributes around it.


class ReplacedReader(Server):
    """simple-websocket's server socket whose reader thread runs `read_loop` instead of the
    library's `_thread` (which also pings on a timer; ours pings from the writer)."""

    def _thread(self) -> None:  # replaces simple_websocket.ws.Base._thread
        self.read_loop()

    def read_loop(self) -> None:
        """The reader thread's body (the library's own by default)."""
        Server._thread(self)


def recv_chunk(ws: Server) -> bytes:
    """Read what the peer sent, at most the library's read size."""
    return ws.sock.recv(ws.receive_bytes)  # type: ignore[no-any-return]


def feed(ws: Server) -> Callable[[bytes], bool]:
    """A function that parses bytes read from the peer as the library's reader does; False
    once the connection is over."""

    def fed(data: bytes) -> bool:
        ws.ws.receive_data(data)
        return ws._handle_events()  # type: ignore[no-any-return]

    return fed


def wrap_connection(ws: Server, wrap: Callable[[Any], Any]) -> None:
    """Put `wrap(wsproto connection)` where the library reads events from."""
    ws.ws = wrap(ws.ws)


def queued(ws: Server) -> int:
    """Messages read and not yet taken by `receive`."""
    return len(ws.input_buffer)


def drop_queued(ws: Server) -> None:
    """Forget the messages read and not yet taken."""
    ws.input_buffer.clear()


def wake_reader(ws: Server) -> None:
    """Wake whoever waits in `receive` (it then sees the socket closed)."""
    ws.event.set()


def raw_socket(ws: Server) -> Any:
    """The socket the library reads from and writes to."""
    return ws.sock


def replace_socket(ws: Server, wrap: Callable[[Any], Any]) -> None:
    """Make the library write through `wrap(its socket)`."""
    ws.sock = wrap(ws.sock)


def shutdown(ws: Server) -> None:
    """Shut the socket down both ways (a blocked read or write returns)."""
    try:
        ws.sock.shutdown(socket.SHUT_RDWR)
    except OSError:
        pass


def serving_mode(ws: Server) -> str:
    """Which server runs the socket ("gunicorn", "werkzeug", ...): how the response ends."""
    return ws.mode  # type: ignore[no-any-return]


def send_ping_frame(ws: Server) -> None:
    """Send a ping now, from the socket's writer (simple-websocket's `sock` and wsproto `ws`)."""
    ws.sock.send(ws.ws.send(Ping()))


def clear_pong(ws: Server) -> None:
    """Forget the last pong, before a new ping (simple-websocket's `pong_received` flag)."""
    ws.pong_received = False


def pong_received(ws: Server) -> bool:
    """Whether a pong came since `clear_pong`."""
    return bool(ws.pong_received)
