"""The table websocket, `/ws/table/<code>`: hello/welcome, command/reply, update, ping/pong.

Each socket has one reader (the request's own thread or greenlet, handling messages in order)
and one writer (a thread draining an outbound queue), so replies and broadcasts never
interleave their frames. The hub only says "table X is at seq N"; the writer reads what this
viewer has not seen yet from the database and sends it as one `update`.
"""

from __future__ import annotations

import json
import logging
import queue
import threading
from typing import Any
from urllib.parse import urlsplit

from flask import Flask, current_app, request
from flask_sock import Sock
from marshmallow import ValidationError
from simple_websocket import ConnectionClosed

from server import Services, services
from server.errors import AppError, error_body
from server.jsontext import compact_encoder
from server.rules import COMMANDS, Actor, RuleError, event_for
from server.rules.view import ledger_view, seat_view, shared_view

from .http import jsonable
from .keepalive import CLOSE_POLICY, close_unanswered, send_ping
from .ratelimit import TokenBucket
from .schemas import COMMAND_SCHEMAS, MESSAGE_SCHEMAS

log = logging.getLogger(__name__)

sock = Sock()

MAX_REPLAY = 500
CLOSE_BAD_TOKEN = 4001
CLOSE_NO_TABLE = 4004
CLOSE_FORBIDDEN = 4003
SPECTATOR = Actor(role="spectator")


encode = compact_encoder()
encode.__doc__ = "A message as compact JSON text (non-ASCII kept as is)."


def encode_with(message: dict[str, Any], name: str, text: str) -> str:
    """`message` encoded with one more field, `name`, whose value `text` is JSON already."""
    return f'{encode(message)[:-1]},"{name}":{text}}}'


def origin_allowed(origin: str | None, host: str, allowed: list[str]) -> bool:
    """Same host as the server, or listed; no Origin at all is a non-browser client."""
    if not origin:
        return True
    if origin in allowed or "*" in allowed:
        return True
    return urlsplit(origin).netloc.lower() == host.lower()


def _state_text(snap: Any, seat: str | None, privileged: bool) -> str:
    """`view(...)` of `snap` plus its "seq", encoded: the viewer-independent part once per
    snapshot, the ledger once per change of it (most commands leave it as it was)."""
    shared = snap.encoded.get("shared")
    if shared is None:
        ledger = snap.memo.get("ledger")
        if ledger is None or ledger[0] is not snap.state.ledger:
            ledger = snap.memo["ledger"] = (snap.state.ledger, encode(ledger_view(snap.state)))
        shared = encode_with({**shared_view(snap.state), "seq": snap.seq}, "ledger", ledger[1])
        snap.encoded["shared"] = shared
    return f"{shared[:-1]},{encode(seat_view(snap.state, seat, privileged))[1:]}"


class _SendAll:
    """Make the socket's `send` write everything: a partial send would corrupt the stream."""

    def __init__(self, raw: Any) -> None:
        self._raw = raw

    def send(self, data: bytes) -> int:
        # One send first: a frame usually fits the socket's buffer, and gevent's sendall asks
        # the kernel for the buffer's size (a system call) before every write.
        sent = self._raw.send(data)
        if sent < len(data):
            self._raw.sendall(memoryview(data)[sent:])
        return len(data)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._raw, name)


class Connection:
    """One socket at one table: its viewer, its outbound queue and its writer."""

    def __init__(self, ws: Any, code: str, found: Services, config: dict[str, Any]) -> None:
        self.ws = ws
        self.code = code
        self.store = found.store
        self.hub = found.hub
        self.clock = found.clock
        self.pinger = found.pinger
        self.actor = SPECTATOR
        self.welcomed = False
        self.subscribed = False
        self.last_seq = 0  # owned by the writer
        self.bucket = TokenBucket(config["WS_RATE_PER_SECOND"], config["WS_RATE_BURST"])
        # Refusals allowed: a phone a little over the limit is told so; a flood is closed.
        self.flood = TokenBucket(config["WS_RATE_PER_SECOND"], config["WS_RATE_BURST"])
        self.outbox: queue.Queue[tuple[str, Any] | None] = queue.Queue()
        self.writer = threading.Thread(target=self._write_loop, name=f"ws-writer-{code}")
        self.alive = True
        self._forget_grant: Any = None  # `access.GRANTS.add`'s undo, once authorised

    # -- the writer ----------------------------------------------------------------------------

    def send(self, message: dict[str, Any]) -> None:
        """Queue a message for the writer."""
        self.outbox.put(("send", message))

    def ping(self) -> None:
        """Queue a keep-alive ping (`keepalive.Pinger`): the writer sends it between frames."""
        self.outbox.put(("ping", None))

    def _on_publish(self, code: str, seq: int) -> None:
        self.outbox.put(("sync", seq))

    def _write_loop(self) -> None:
        while True:
            item = self.outbox.get()
            if item is None:
                return
            kind, payload = item
            try:
                if kind == "send":
                    self._send_now(payload)
                elif kind == "ping":
                    if not send_ping(self.ws):
                        close_unanswered(self.ws)
                        self.alive = False
                        return
                elif kind == "welcome":
                    self._welcome(payload)
                elif kind == "sync" and self.welcomed and payload > self.last_seq:
                    self._update(payload)
            except (ConnectionClosed, OSError):
                self.alive = False
                return
            except Exception:
                log.exception("websocket writer failed at table %s", self.code)
                try:
                    self._send_now({"type": "error", "error": error_body("internal")})
                except Exception:
                    self.alive = False
                    return

    def _send_now(self, message: dict[str, Any]) -> None:
        self.ws.send(encode(message))

    def _send_with_state(self, message: dict[str, Any], snap: Any) -> None:
        """Send `message` with the viewer's state of `snap` as its last field, "state".

        The state is the bulk of every update. It is built and encoded at most once per
        snapshot and audience (seat A, seat B, spectators, judges): every socket watching as
        the same viewer is sent the same text."""
        key = (self.actor.seat, self.privileged)
        text = snap.encoded.get(key)
        if text is None:
            text = snap.encoded[key] = _state_text(snap, self.actor.seat, self.privileged)
        self.ws.send(encode_with(message, "state", text))

    @property
    def privileged(self) -> bool:
        """Judges and the organiser see every deck list of their event's tables."""
        return self.actor.role in ("judge", "organiser")

    def _events(self, rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
        return [event_for(env, self.actor.seat, self.privileged) for env in rows]

    def _welcome(self, since: int | None) -> None:
        if since is None:
            snap, events = self.store.snapshot(self.code), []
        else:
            snap, rows = self.store.update_since(self.code, since, limit=MAX_REPLAY)
            events = self._events(rows)
        self.last_seq = snap.seq
        self.welcomed = True
        self._send_with_state(
            {
                "type": "welcome",
                "role": self.actor.role,
                "seat": self.actor.seat,
                "now_ms": self.clock(),
                "seq": snap.seq,
                "events": events,
            },
            snap,
        )

    def _update(self, published: int) -> None:
        snap, rows = self.store.update_since(
            self.code, self.last_seq, at_least=published, limit=MAX_REPLAY
        )
        if snap.seq <= self.last_seq:
            return
        events = self._events(rows)
        self.last_seq = snap.seq
        self._send_with_state({"type": "update", "seq": snap.seq, "events": events}, snap)

    # -- the reader ----------------------------------------------------------------------------

    def run(self) -> None:
        """Serve the socket until it closes."""
        self.writer.start()
        if self.pinger is not None:
            self.pinger.add(self)
        try:
            while self.alive:
                raw = self.ws.receive()
                if raw is None:
                    continue
                try:
                    if not self.handle(raw):
                        break
                except Exception:
                    log.exception("websocket message failed at table %s", self.code)
                    self.send({"type": "error", "error": error_body("internal")})
        finally:
            if self.pinger is not None:
                self.pinger.discard(self)
            if self._forget_grant is not None:
                self._forget_grant()
            if self.subscribed:
                self.hub.unsubscribe(self.code, self._on_publish)
            self.outbox.put(None)
            self.writer.join(timeout=10)

    def handle(self, raw: str | bytes) -> bool:
        """Handle one message; False closes the socket."""
        try:
            message = json.loads(raw)
            # A lone surrogate (the escape \ud800) decodes, but can be neither stored nor sent back.
            encode(message).encode("utf-8")
        except (ValueError, UnicodeDecodeError, RecursionError):
            # RecursionError: a few thousand nested brackets, well within the size limit.
            self.send({"type": "error", "error": error_body("bad_json", "Not valid JSON.")})
            return True
        if not isinstance(message, dict):
            self.send(
                {"type": "error", "error": error_body("bad_json", "A message is a JSON object.")}
            )
            return True
        kind = message.get("type")
        ref = message.get("id") if kind == "command" else None
        ref = ref if isinstance(ref, str) else None
        if not self.bucket.take():
            if not self.flood.take():
                # Far over the limit for a while: answering every message would spend the
                # worker's time that the other tables need (measured: their p99 went from 9 ms
                # to 180 ms under one flooding socket). Close this one instead.
                self._close(CLOSE_POLICY, "too many messages")
                return False
            self._refuse(ref, "rate_limited", "Too many messages; slow down.")
            return True
        schema = MESSAGE_SCHEMAS.get(kind) if isinstance(kind, str) else None
        if schema is None:
            self._refuse(ref, "unknown_type", f"Unknown message type {kind!r}.")
            return True
        try:
            body = schema.load(message)
        except ValidationError as exc:
            self._refuse(ref, "invalid", "Some fields are not valid.", jsonable(exc.messages))
            return True
        if kind == "ping":
            self.send({"type": "pong", "t": body["t"], "now_ms": self.clock()})
            return True
        if kind == "hello":
            return self.hello(body.get("token"), body.get("since"))
        self.command(body["id"], body["cmd"], body["args"])
        return True

    def _refuse(
        self, ref: str | None, code: str, message: str, details: dict[str, Any] | None = None
    ) -> None:
        error = error_body(code, message, details)
        if ref is not None:
            self.send({"type": "reply", "re": ref, "ok": False, "error": error})
        else:
            self.send({"type": "error", "error": error})

    def hello(self, token: str | None, since: int | None) -> bool:
        """Authenticate (a seat token, or none for a spectator), subscribe, queue a welcome."""
        from .access import socket_actor

        try:
            # A judge or organiser of the table's event is known by the login cookie.
            self.actor = socket_actor(self.code, token) or SPECTATOR
        except AppError as exc:
            bad = exc.code == "bad_token"
            message = "Unknown token." if bad else ""
            self.send({"type": "error", "error": error_body(exc.code, message)})
            if bad:
                self._close(CLOSE_BAD_TOKEN, "bad token")
            else:
                self._close(CLOSE_FORBIDDEN, "spectators not allowed")
            return False
        if self._forget_grant is None:
            from .access import GRANTS, request_grant

            grant = request_grant(self.actor, token)  # a logout or a seat move closes this socket
            if grant is not None:
                self._forget_grant = GRANTS.add(grant, self.revoke)
        if not self.subscribed:
            # Subscribe before reading the state, so nothing committed in between is missed.
            self.hub.subscribe(self.code, self._on_publish)
            self.subscribed = True
        self.outbox.put(("welcome", since))
        return True

    def revoke(self) -> None:
        """What let this socket in has ended (a logout, an expired session, a moved seat)."""
        self.alive = False
        self.send({"type": "error", "error": error_body("revoked", "Your access has ended.")})
        self._close(CLOSE_FORBIDDEN, "access revoked")

    def _close(self, code: int, reason: str) -> None:
        # Let the writer flush what is queued (the error frame) before the close frame.
        self.outbox.put(None)
        self.writer.join(timeout=10)
        try:
            self.ws.close(reason=code, message=reason)
        except ConnectionClosed:
            pass

    def command(self, ref: str, cmd: str, args: dict[str, Any]) -> None:
        """Check, decide and store one command; reply exactly once."""
        if not self.subscribed:
            self._refuse(ref, "hello_first", "Send hello before any command.")
            return
        roles, schema = COMMANDS.get(cmd), COMMAND_SCHEMAS.get(cmd)
        if roles is None:
            self._refuse(ref, "unknown_command", f"Unknown command {cmd!r}.")
            return
        if self.actor.role not in roles:
            self._refuse(ref, "forbidden", "You may not do that here.")
            return
        if schema is None:
            log.error("command %s has no argument schema", cmd)
            self._refuse(ref, "unknown_command", f"Unknown command {cmd!r}.")
            return
        try:
            loaded = schema.load(args)
        except ValidationError as exc:
            self._refuse(ref, "invalid", "Some arguments are not valid.", jsonable(exc.messages))
            return
        try:
            from .decklists import before_command

            loaded = before_command(self.code, cmd, loaded, self.actor, self.clock())
            result = self.store.append(self.code, cmd, loaded, self.actor, ref, self.clock())
        except RuleError as exc:
            self._refuse(ref, exc.code, exc.message, jsonable(dict(exc.details)))
            return
        except AppError as exc:
            self._refuse(ref, exc.code, exc.message, exc.details)
            return
        except Exception:
            # Still exactly one reply; "internal" tells the phone it may retry with the same id.
            log.exception("command %s failed at table %s", cmd, self.code)
            self._refuse(ref, "internal", "Something went wrong on the server.")
            return
        reply: dict[str, Any] = {"type": "reply", "re": ref, "ok": True, "seq": result.seq}
        if result.duplicate:
            reply["duplicate"] = True
        self.send(reply)
        if result.events:
            self.hub.publish(self.code, result.seq)


@sock.route("/ws/table/<code>")
def table_socket(ws: Any, code: str) -> None:
    """A phone, a judge or a spectator watching one table."""
    found = services()
    config = current_app.config
    code = code.upper()
    if hasattr(ws, "sock"):
        ws.sock = _SendAll(ws.sock)
    if not origin_allowed(request.headers.get("Origin"), request.host, config["ALLOWED_ORIGINS"]):
        ws.send(json.dumps({"type": "error", "error": error_body("bad_origin", "Origin refused.")}))
        ws.close(reason=CLOSE_POLICY, message="origin not allowed")
        return
    if not found.http_limiter.take(request.remote_addr or "?"):
        # Opening sockets counts with the HTTP look-ups, so codes cannot be probed here either.
        ws.send(json.dumps({"type": "error", "error": error_body("rate_limited")}))
        ws.close(reason=CLOSE_POLICY, message="rate limited")
        return
    from .access import look_up

    try:
        exists = look_up(code)  # an unknown code spends a "miss" token, as over HTTP
    except AppError:
        ws.send(json.dumps({"type": "error", "error": error_body("rate_limited")}))
        ws.close(reason=CLOSE_POLICY, message="rate limited")
        return
    if not exists:
        ws.send(json.dumps({"type": "error", "error": error_body("no_such_table")}))
        ws.close(reason=CLOSE_NO_TABLE, message="no such table")
        return
    Connection(ws, code, found, config).run()


def init_app(app: Flask) -> None:
    """Bind the websocket routes to `app`."""
    sock.init_app(app)
