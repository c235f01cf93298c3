"""The table websocket, `/ws/table/<code>`: hello/welcome, command/reply, update, ping/pong.

Each socket has one reader (the request's own thread or greenlet, handling messages in order)
and one writer (a thread draining an outbound queue), so replies and broadcasts never
interleave their frames. The hub only says "table X is at seq N"; the writer reads what this
viewer has not seen yet from the database and sends it as one `update`.

This module is the socket's handler only: a command's arguments are loaded by its
declaration's validator (`arguments.py`), its declared pre-steps run in `presteps.py`, and the
views are encoded by the app's `ViewTexts` (`encoding.py`, `Services.views`).
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable
from typing import Any

from flask import Blueprint, Flask, current_app, request
from marshmallow import ValidationError

from server.api.context import Services, services
from server.core.errors import DomainError, error_body
from server.core.tokens import hash_token
from server.rules import Actor, RuleError, admit, event_for
from server.service.tables import (
    Appended,
    Snapshot,
    command_digest,
    phone_command_id,
    sender_of,
)

from .access import budget_key, look_up, request_grant, socket_actor
from .arguments import LOADERS
from .buckets import TokenBucket
from .encoding import encode, encode_with, json_array, json_object
from .http import jsonable
from .identity import origin_allowed
from .keepalive import CLOSE_POLICY
from .opens import open_pass
from .presteps import before
from .protocol_schema import PROTOCOL_VERSION
from .schemas import FAST_LOADERS, MESSAGE_SCHEMAS
from .session import GuardedServer, Session, sessions, websocket_route

log = logging.getLogger(__name__)

bp = Blueprint("table_ws", __name__)

MAX_REPLAY = 500
CLOSE_BAD_TOKEN = 4001
CLOSE_NO_TABLE = 4004
CLOSE_FORBIDDEN = 4003
SPECTATOR = Actor(role="spectator")
# While a phone asks for a seat, its phone's pings say it is around at most this often.
SEEN_EVERY_MS = 10_000


class Connection(Session):
    """One socket at one table: its viewer, and what it is sent."""

    needs_hello = True
    name = "table"

    def __init__(
        self, ws: GuardedServer, code: str, found: Services, config: dict[str, Any]
    ) -> None:
        super().__init__(ws, config, found.pinger)
        self.code = code
        self.hub = found.hub
        self.tables = found.tables
        self.clock = found.clock
        self.views = found.views  # the texts encoded of the snapshots, this app's
        self.http_limiter = found.http_limiter
        self.grants = found.grants
        self.actor = SPECTATOR
        self.open_pass: str | None = None  # a seat's: its phone's next open (`opens.py`)
        self.welcomed = False
        self.subscribed = False
        self.last_seq = 0  # owned by the writer
        # Protocol 2: updates carry what changed since what this socket was last sent (the
        # writer's: each top-level key's text, and the ledger's row texts); 1: whole states;
        # 3: as 2, and a stored command's reply carries the sender's own update.
        self.version = 1
        self.sent_parts: dict[str, str] = {}
        self.sent_rows: list[str] = []
        self.sessions = sessions()
        # A spectator's own budget; a seat's is shared by all of its sockets (after hello).
        # Refusals allowed: a phone a little over the limit is told so; a flood is closed.
        rate, burst = config["WS_RATE_PER_SECOND"], config["WS_RATE_BURST"]
        self.bucket, self.flood = TokenBucket(rate, burst), TokenBucket(rate, burst)
        self.seated: str | None = None
        self.watching = False
        self._forget_grant: Any = None  # `Grants.add`'s undo, once authorised
        self._grant: Any = None  # what let the socket in: it acts only while that holds
        self.seen_ms = 0  # when this seat's phone was last noted as around (`seen`)
        # The client address, while this socket counts against its anonymous ceilings (until
        # a hello proves a seat or a login), and whether it counts as the address's spectator.
        self.address: str | None = None
        self.spectating = False

    # -- the writer ----------------------------------------------------------------------------

    def _on_publish(self, code: str, seq: int) -> None:
        self.queue("sync", seq)

    def write(self, kind: str, payload: Any) -> None:
        if kind == "welcome" or kind == "resync":
            self._welcome(payload)
        elif kind == "sync" and self.welcomed and payload > self.last_seq:
            self._update(payload)
        elif kind == "reply":
            self._reply(payload)

    def _with_state(self, message: dict[str, Any], snap: Any) -> str:
        """`message` with the viewer's state of `snap` as its last field, "state", as sent.

        The state is the bulk of every update. It is built and encoded at most once per
        snapshot and audience (seat A, seat B, spectators, judges): every socket watching as
        the same viewer is sent the same text."""
        key = (self.actor.seat, self.privileged)
        views = self.views
        texts = views.encoded(snap)
        text = texts.get(key)
        if text is None:
            text = texts[key] = views.state_text(
                snap, self.actor.seat, self.privileged, self.sent_parts
            )
        # What was sent: the next delta's base (version 2), and every version's parts to reuse.
        self.sent_parts = views.parts(snap, self.actor.seat, self.privileged, self.sent_parts)
        if self.version >= 2:
            self.sent_rows = views.ledger_rows(snap)
        return encode_with(message, state=text)

    def _with_delta(self, message: dict[str, Any], snap: Any) -> str:
        """`message` with what changed in the viewer's state since this socket's last
        message: "delta", the top-level keys whose value changed (the ledger aside), and
        "ledger", `{"from": i, "rows": [...]}` the rows from index i on (the ledger is cut to
        i + len(rows)), when the ledger changed."""
        parts = self.views.parts(snap, self.actor.seat, self.privileged, self.sent_parts)
        sent = self.sent_parts
        changed = [t for k, t in parts.items() if sent.get(k) is not t and sent.get(k) != t]
        texts = {"delta": json_object(changed)}
        rows, old = self.views.ledger_rows(snap), self.sent_rows
        if rows is not old:
            start, end = 0, min(len(rows), len(old))
            while start < end and (rows[start] is old[start] or rows[start] == old[start]):
                start += 1
            if start < len(rows) or len(rows) != len(old):
                texts["ledger"] = encode_with({"from": start}, rows=json_array(rows[start:]))
        self.sent_parts, self.sent_rows = parts, rows
        return encode_with(message, **texts)

    @property
    def privileged(self) -> bool:
        """Judges and the organiser see every deck list of their event's tables."""
        return self.actor.role in ("judge", "organiser")

    def _events(self, rows: list[dict[str, Any]], snap: Snapshot) -> list[dict[str, Any]]:
        """The envelopes as this socket's reader may see them, by the table's rules at `snap`
        (the state the update carries: no read of the store for it)."""
        judged = snap.state.ruleset.staff_start
        return [event_for(env, self.actor.seat, self.privileged, judged) for env in rows]

    def _welcome(self, since: int | None) -> None:
        if since is None:
            snap, events = self.tables.snapshot(self.code), []
        else:
            snap, rows = self.tables.update_since(self.code, since, limit=MAX_REPLAY)
            events = self._events(rows, snap)
        self.last_seq = snap.seq
        self.welcomed = True
        welcome: dict[str, Any] = {
            "type": "welcome",
            "v": self.version,  # the version this socket is served (docs/protocol.md)
            "role": self.actor.role,
            "seat": self.actor.seat,
            "now_ms": self.clock(),
            "seq": snap.seq,
            "events": events,
        }
        if self.open_pass:
            welcome["pass"] = self.open_pass  # its next open spends the seat's budget
        self.ws.send(self._with_state(welcome, snap))

    def _update(self, published: int) -> None:
        text = self._update_text(published)
        if text is not None:
            self.ws.send(text)

    def _update_text(self, published: int) -> str | None:
        """The `update` taking this socket from what it was last sent to `published` or later,
        as sent (None: it has that already)."""
        snap, rows = self.tables.update_since(
            self.code, self.last_seq, at_least=published, limit=MAX_REPLAY
        )
        if snap.seq <= self.last_seq:
            return None
        if self._grant is not None and (
            len(rows) < snap.seq - self.last_seq  # too many to read here: any may be a seat's
            or any(str(row.get("type", "")).startswith("seat.") for row in rows)
        ):
            self.grants.changed(self.code)  # a seat may have moved: the sweep checks it
        events = self._events(rows, snap)
        self.last_seq = snap.seq
        message = {"type": "update", "seq": snap.seq, "events": events}
        if self.version >= 2:
            return self._with_delta(message, snap)
        return self._with_state(message, snap)

    def _reply(self, reply: dict[str, Any]) -> None:
        """Version 3: a stored command's reply, carrying the sender's own update as "update"
        when this socket has not been sent its seq yet (one frame instead of two; the publish's
        update then finds the socket has it)."""
        seq = reply.get("seq")
        if self.welcomed and isinstance(seq, int) and seq > self.last_seq:
            update = self._update_text(seq)
            if update is not None:
                self.ws.send(encode_with(reply, update=update))
                return
        self.ws.send(encode(reply))

    # -- the reader ----------------------------------------------------------------------------

    def finish(self) -> None:
        # Cleared, not just called: `forget` closes over `self.revoke` (a cycle otherwise).
        forget, self._forget_grant = self._forget_grant, None
        if forget is not None:
            forget()
        if self.subscribed:
            self.hub.unsubscribe(self.code, self._on_publish)
        if self.seated:
            self.sessions.stand(self.code, self.seated, self)
            self.seen()
        if self.watching:
            self.sessions.unwatch(self.code)
        if self.spectating and self.address is not None:
            self.sessions.unspectate(self.address)
            self.spectating = False

    def handle(self, raw: str | bytes) -> bool:
        """Handle one message; False closes the socket."""
        try:
            message = json.loads(raw)
            # A lone surrogate (the escape \ud800) decodes, but can be neither stored nor sent
            # back. Only an escape or a non-ASCII text can hold one: a plain ASCII message (a
            # phone's every command) is not encoded a second time to find out.
            if not (isinstance(raw, str) and raw.isascii() and "\\u" not in raw):
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
                self.close(CLOSE_POLICY, "too many messages")
                return False
            self._refuse(ref, "rate_limited", "Too many messages; slow down.")
            return True
        if not isinstance(kind, str) or kind not in MESSAGE_SCHEMAS:
            self._refuse(ref, "unknown_type", f"Unknown message type {kind!r}.")
            return True
        schema = MESSAGE_SCHEMAS[kind]
        try:
            fast = FAST_LOADERS.get(kind)
            body = fast(message) if fast is not None else None
            if body is None:
                body = schema.load(message)
        except ValidationError as exc:
            self._refuse(ref, "invalid", "Some fields are not valid.", jsonable(exc.messages))
            return True
        if kind == "ping":
            self.send({"type": "pong", "t": body["t"], "now_ms": self.clock()})
            if self.seated and self.clock() - self.seen_ms >= SEEN_EVERY_MS:
                self.seen()
            return True
        if kind == "hello":
            self.version = min(PROTOCOL_VERSION, max(1, body.get("v") or 1))
            return self.hello(body.get("token"), body.get("since"))
        if kind == "resync":
            if not self.subscribed:
                self._refuse(None, "hello_first", "Send hello before a resync.")
            else:
                self.queue("resync", None)  # a welcome with the whole state
            return True
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
        try:
            # A seat by its token; a judge or organiser of the table's event by the login cookie.
            actor = socket_actor(self.code, token)
        except DomainError as exc:
            bad = exc.code == "bad_token"
            self.send(
                {"type": "error", "error": error_body(exc.code, "Unknown token." if bad else "")}
            )
            if bad:
                self.close(CLOSE_BAD_TOKEN, "bad token")
            else:
                self.close(CLOSE_FORBIDDEN, "spectators not allowed")
            return False
        if not self.charge(actor):
            return False
        if actor is not None and actor.role == "seat" and actor.seat:
            self.open_pass = open_pass(self.code, actor.seat, hash_token(token or ""))
            if self.seated != actor.seat:
                if self.seated:
                    self.sessions.stand(self.code, self.seated, self)
                self.sessions.sit(self.code, actor.seat, self)
                self.seated = actor.seat
                self.seen()
                self.bucket, self.flood = self.sessions.seat_buckets(self.code, actor.seat)
            self.actor = actor
        else:
            self.actor = actor or SPECTATOR
            if self.actor is SPECTATOR and not self.watching:
                if not self.sessions.watch(self.code):
                    self.send({"type": "error", "error": error_body("too_many_spectators")})
                    self.close(CLOSE_POLICY, "too many spectators")
                    return False
                self.watching = True
        grant = request_grant(self.actor, token)  # a logout or a seat move closes this socket
        if grant != self._grant:
            # A later hello with another token: the socket now acts for that one alone, and
            # what ends it (its seat moved to another phone) ends this socket.
            if self._forget_grant is not None:
                self._forget_grant()
            self._forget_grant = (
                self.grants.add(grant, self.revoke, self.code) if grant is not None else None
            )
            self._grant = grant
        if not self.subscribed:
            # Subscribe before reading the state, so nothing committed in between is missed.
            self.hub.subscribe(self.code, self._on_publish)
            self.subscribed = True
            self.ready = True
        self.queue("welcome", since)
        return True

    def seen(self) -> None:
        """While a phone asks for this socket's seat, the seat's phone is around: say so (in
        the database, for every process), so the other seat does not answer for it
        (`server.api.seats`)."""
        seat = self.seated
        if seat is None:
            return
        now = self.clock()
        self.seen_ms = now
        try:
            asks = self.tables.fresh(self.code).state.seat_requests
            if any(r.seat == seat for r in asks):
                self.tables.seen(self.code, seat, now)
        except Exception:
            log.exception("table %s: noting seat %s's phone failed", self.code, seat)

    def charge(self, actor: Actor | None) -> bool:
        """Count the hello against its budget: a seat's or a staff login's own (so a hall's
        phones behind one address are not each other's limit), a spectator's address (its HTTP
        budget and its spectator ceiling). A socket that proved a seat or a login leaves the
        address's anonymous count. False (the socket closed) when the budget is spent."""
        key = budget_key(self.code, actor)
        if not self.http_limiter.take(key or self.address or "?"):
            self.send({"type": "error", "error": error_body("rate_limited")})
            self.close(CLOSE_POLICY, "rate limited")
            return False
        if self.address is None:
            return True
        if key is not None:  # identified: out of the address's anonymous count
            self.sessions.close(self.address)
            if self.spectating:
                self.sessions.unspectate(self.address)
                self.spectating = False
            self.address = None
        elif not self.spectating:
            if not self.sessions.spectate(self.address):
                self.send({"type": "error", "error": error_body("too_many_sockets")})
                self.close(CLOSE_POLICY, "too many spectators from this address")
                return False
            self.spectating = True
        return True

    def revoke(self) -> None:
        """What let this socket in has ended (a logout, an expired session, a moved seat)."""
        self.alive = False
        self.send({"type": "error", "error": error_body("revoked", "Your access has ended.")})
        self.close(CLOSE_FORBIDDEN, "access revoked")

    def command(self, ref: str, cmd: str, args: dict[str, Any]) -> None:
        """Check, decide and store one command; reply exactly once."""
        if not self.subscribed:
            self._refuse(ref, "hello_first", "Send hello before any command.")
            return
        try:
            declared = admit(cmd, self.actor)  # the one role check
        except RuleError as exc:
            self._refuse(ref, exc.code, exc.message)
            return
        load = LOADERS.get(cmd)
        if load is None:
            log.error("command %s has roles but no arguments declared", cmd)
            self._refuse(ref, "unknown_command", f"Unknown command {cmd!r}.")
            return
        try:
            loaded = load(args)  # the one validation
        except ValidationError as exc:
            self._refuse(ref, "invalid", "Some arguments are not valid.", jsonable(exc.messages))
            return
        try:
            loaded = before(declared, self.code, loaded, self.actor, self.clock())
            self.tables.command(
                self.code,
                cmd,
                loaded,
                self.actor,
                # never the id of one of the server's own commands, nor another sender's
                phone_command_id(ref, sender_of(self.actor)),
                self.clock(),
                answered=self._answer(ref),
                digest=command_digest(cmd, args),
            )
        except RuleError as exc:
            self._refuse(ref, exc.code, exc.message, jsonable(dict(exc.details)))
            return
        except DomainError as exc:
            self._refuse(ref, exc.code, exc.message, exc.details)
            return
        except Exception:
            # Still exactly one reply; "internal" tells the phone it may retry with the same id.
            log.exception("command %s failed at table %s", cmd, self.code)
            self._refuse(ref, "internal", "Something went wrong on the server.")
            return

    def _answer(self, ref: str) -> Callable[[Appended], None]:
        """The reply to a stored command, sent before the publish that brings its update."""

        def answer(result: Appended) -> None:
            reply: dict[str, Any] = {"type": "reply", "re": ref, "ok": True, "seq": result.seq}
            if result.duplicate:
                reply["duplicate"] = True
            self.queue("reply" if self.version >= 3 else "send", reply)

        return answer


@websocket_route(bp, "/ws/table/<code>")
def table_socket(ws: GuardedServer, code: str) -> None:
    """A phone, a judge or a spectator watching one table."""
    found = services()
    config = current_app.config
    code = code.upper()
    if not origin_allowed(request.headers.get("Origin"), request.host, config["ALLOWED_ORIGINS"]):
        ws.send(json.dumps({"type": "error", "error": error_body("bad_origin", "Origin refused.")}))
        ws.close(reason=CLOSE_POLICY, message="origin not allowed")
        return
    # The socket is charged at its hello, to the seat or login it proves, else to its address
    # (`Connection.charge`); before, an unknown code spends a "miss" token, as over HTTP, so
    # codes cannot be probed here either, and the address's anonymous ceiling counts it.
    try:
        exists = look_up(code)
    except DomainError:
        ws.send(json.dumps({"type": "error", "error": error_body("rate_limited")}))
        ws.close(reason=CLOSE_POLICY, message="rate limited")
        return
    if not exists:
        ws.send(json.dumps({"type": "error", "error": error_body("no_such_table")}))
        ws.close(reason=CLOSE_NO_TABLE, message="no such table")
        return
    address = request.remote_addr or "?"
    if not sessions().open(address):
        ws.send(json.dumps({"type": "error", "error": error_body("too_many_sockets")}))
        ws.close(reason=CLOSE_POLICY, message="too many sockets from this address")
        return
    connection: Connection | None = None
    try:
        connection = Connection(ws, code, found, config)
        connection.address = address
        connection.run()
    finally:
        if connection is None or connection.address is not None:  # still counted as anonymous
            sessions().close(address)


def init_app(app: Flask) -> None:
    """Bind the websocket routes to `app`."""
    app.register_blueprint(bp)
