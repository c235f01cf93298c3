"""Fuzzing the table websocket with hypothesis: every message gets a coded answer.

Messages are random JSON, wrong types, huge numbers, unicode (lone surrogates included),
nested junk, raw bytes, and valid commands with mutated arguments sent in any phase, from
either seat or a spectator. For each one the next non-update frame must be a reply with a
seq or an error code other than `internal`, an `error` frame with a code, a pong or a
welcome. Afterwards the server log must hold no traceback, and every table's served state must
equal the replay of its log with an intact hash chain.
"""

from __future__ import annotations

import json
import time
import uuid
import warnings
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st
from hypothesis.errors import HypothesisDeprecationWarning
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import ClientConnection, connect

from server.rules import DECLARATIONS

from .http import retrying
from .proc import Backend, ServerProcess, tracebacks_of

# Valid arguments of every command, a client's or the server's own (a client sending one of
# those must be refused): each declaration's sample (server/rules/, beside its decider).
VALID_ARGS: dict[str, dict[str, Any]] = {
    name: dict(declared.sample) for name, declared in DECLARATIONS.items()
}

huge_ints = st.one_of(
    st.integers(),
    st.sampled_from([2**31, -(2**31) - 1, 2**53, 2**63, -(2**63), 2**64 + 1, 10**300, -(10**40)]),
)
texts = st.one_of(
    st.text(max_size=30),
    st.text(alphabet=st.characters(min_codepoint=0xD800, max_codepoint=0xDFFF), max_size=3),
    st.sampled_from(
        [
            "",
            " ",
            "\x00",
            "A",
            "B",
            "C",
            "<script>alert(1)</script>",
            "\u202e",
            "𝕏" * 50,
            "a" * 300,
            "NaN",
            "null",
            "../../etc/passwd",
            "'; DROP TABLE event; --",
        ]
    ),
)
scalars = st.one_of(
    st.none(), st.booleans(), huge_ints, st.floats(allow_nan=True, allow_infinity=True), texts
)
junk = st.recursive(
    scalars,
    lambda inner: st.one_of(st.lists(inner, max_size=4), st.dictionaries(texts, inner, max_size=4)),
    max_leaves=12,
)


@st.composite
def mutated_command(draw: Any) -> dict[str, Any]:
    """A valid-looking command whose args, id or name are bent one way or another."""
    cmd = draw(st.sampled_from(sorted(VALID_ARGS)))
    args: Any = dict(VALID_ARGS[cmd])
    how = draw(st.integers(0, 6))
    if how == 1 and args:
        key = draw(st.sampled_from(sorted(args)))
        args[key] = draw(junk)
    elif how == 2 and args:
        del args[draw(st.sampled_from(sorted(args)))]
    elif how == 3:
        args[draw(texts)] = draw(junk)
    elif how == 4:
        args = draw(junk)
    elif how == 5:
        cmd = draw(st.one_of(texts, st.sampled_from([c.upper() for c in VALID_ARGS])))
    message: dict[str, Any] = {
        "type": "command",
        "id": str(draw(st.uuids())),
        "cmd": cmd,
        "args": args,
    }
    if draw(st.integers(0, 9)) == 0:
        message["id"] = draw(junk)
    if draw(st.integers(0, 9)) == 0:
        message[draw(texts)] = draw(junk)
    return message


@st.composite
def message_like(draw: Any) -> dict[str, Any]:
    """Dicts with a type and fields of the wrong kinds."""
    message: dict[str, Any] = {
        "type": draw(
            st.one_of(st.sampled_from(["hello", "command", "ping", "pong", "reply"]), junk)
        )
    }
    for key in draw(
        st.lists(st.sampled_from(["id", "cmd", "args", "t", "since", "token"]), max_size=4)
    ):
        message[key] = draw(junk)
    return message


# Hand-made frames, by name (so a report shows the name, not 5,000 brackets).
HOSTILE = {
    "deep_list": "[" * 5000,
    "deep_object": '{"a":' * 3000 + "1" + "}" * 3000,
    "long_number": "1" * 5000,
    "long_number_in_ping": '{"type":"ping","t":' + "9" * 4000 + "}",
    "infinite_float": '{"type":"ping","t":1e999}',
    "nan": '{"type":"ping","t":NaN}',
    "surrogate_id": '{"type": "command", "id": "\\ud800", "cmd": "coin.toss", "args": {}}',
    "surrogate_note": '{"type": "command", "id": "s1", "cmd": "judge.call", '
    '"args": {"reason": "\\udfff"}}',
    "negative_since": '{"type":"hello","since":-1}',
    "long_token": '{"type":"hello","token":"' + "x" * 5000 + '"}',
    "bom": "\ufeff{}",
    "oversized": '{"type":"ping","t":1,"pad":"' + "x" * 9000 + '"}',
}

frames = st.one_of(
    mutated_command().map(lambda m: ("json", m)),
    message_like().map(lambda m: ("json", m)),
    junk.map(lambda m: ("json", m)),
    st.binary(max_size=64).map(lambda b: ("bytes", b)),
    st.text(max_size=64).map(lambda t: ("text", t)),
    st.sampled_from(sorted(HOSTILE)).map(lambda name: ("text", HOSTILE[name])),
)


@dataclass
class FuzzReport:
    sent: int = 0
    answered: int = 0
    coded_errors: int = 0
    results: int = 0
    unanswered: int = 0
    internal: int = 0
    closed: int = 0
    tracebacks: int = 0
    invariant_failures: int = 0
    examples: list[str] = field(default_factory=list)

    @property
    def unhandled(self) -> int:
        return self.internal + self.tracebacks + self.unanswered

    @property
    def ok(self) -> bool:
        return self.unhandled == 0 and self.invariant_failures == 0


def encode(kind: str, payload: Any) -> str | bytes:
    if kind == "json":
        # Lone surrogates survive as \\udxxx escapes, as a hostile client could send them.
        return json.dumps(payload, allow_nan=True)
    return payload


class Socket:
    """A seat's or a spectator's socket that reopens itself when the server closes it."""

    def __init__(self, ws_base: str, code: str, token: str | None) -> None:
        self.url, self.token = f"{ws_base}/ws/table/{code}", token
        self.ws: ClientConnection | None = None

    def open(self) -> ClientConnection:
        if self.ws is None:
            self.ws = connect(
                self.url, open_timeout=5, max_size=2**22, compression=None, legacy=True
            )
            # Protocol 1 (no "v"): whole states; updates are skipped here.
            self.ws.send(json.dumps({"type": "hello", "token": self.token}))
            self.next_answer(5)
        return self.ws

    def next_answer(self, timeout: float) -> dict[str, Any] | None:
        """The next frame that is not a broadcast update."""
        assert self.ws is not None
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                return None
            msg = json.loads(self.ws.recv(timeout=left))
            if msg.get("type") != "update":
                return msg

    def drop(self) -> None:
        if self.ws is not None:
            try:
                self.ws.close()
            except Exception:
                pass
        self.ws = None


def judge_answer(msg: dict[str, Any] | None, report: FuzzReport, frame: Any) -> None:
    if msg is None:
        report.unanswered += 1
        report.examples.append(f"no answer to {frame!r:.200}")
        return
    report.answered += 1
    kind = msg.get("type")
    error = msg.get("error") if kind in ("reply", "error") else None
    if kind == "reply" and msg.get("ok") is True and isinstance(msg.get("seq"), int):
        report.results += 1
    elif kind in ("pong", "welcome"):
        report.results += 1
    elif isinstance(error, dict) and isinstance(error.get("code"), str) and error["code"]:
        if error["code"] == "internal":
            report.internal += 1
            report.examples.append(f"internal error for {frame!r:.200}")
        else:
            report.coded_errors += 1
    else:
        report.unanswered += 1
        report.examples.append(f"uncoded answer {msg!r:.200} to {frame!r:.200}")


def to_duel(server: ServerProcess, code: str, tokens: dict[str, str]) -> None:
    """Play table `code` up to the first turn, so fuzzed commands meet a running duel too."""
    socks = {seat: Socket(server.ws_base, code, tokens[seat]) for seat in ("A", "B")}
    steps = [
        ("A", "deck.declare", {"main": 40, "extra": 15, "side": 15}),
        ("B", "deck.declare", {"main": 40, "extra": 15, "side": 15}),
        ("A", "deck.confirm", {"seat": "B"}),
        ("B", "deck.confirm", {"seat": "A"}),
        ("A", "pregame.check", {"items": VALID_ARGS["pregame.check"]["items"]}),
        ("B", "pregame.check", {"items": VALID_ARGS["pregame.check"]["items"]}),
        ("A", "rps.report", {"winner": "A"}),
        ("B", "rps.confirm", {}),
        ("A", "duel.choose", {"order": "first"}),
        ("A", "duel.draw", {}),
        ("B", "duel.draw", {}),
    ]
    for seat, cmd, args in steps:
        ws = socks[seat].open()
        ws.send(json.dumps({"type": "command", "id": str(uuid.uuid4()), "cmd": cmd, "args": args}))
        answer = socks[seat].next_answer(10)
        if not (answer and answer.get("ok")):
            raise RuntimeError(f"could not set up the fuzz table: {cmd} -> {answer}")
    for sock in socks.values():
        sock.drop()


def prepare(server: ServerProcess, n: int) -> list[tuple[str, dict[str, str]]]:
    tables = []
    for i in range(n):
        _s, body = retrying(server.base, "POST", "/api/tables", {})
        tokens = {}
        for seat in ("A", "B"):
            _s, joined = retrying(
                server.base,
                "POST",
                f"/api/tables/{body['code']}/join",
                {"seat": seat, "name": f"Fuzz {seat}{i}"},
            )
            tokens[seat] = joined["token"]
        tables.append((body["code"], tokens))
    return tables


def run(workdir: Path, examples: int = 3000, seed: int = 0) -> FuzzReport:
    """Start a server on SQLite and fuzz it; return what came back."""
    from .verify import StoreReader, replayed_view

    report = FuzzReport()
    backend = Backend.make("sqlite", workdir)
    server = ServerProcess(
        backend,
        backend.data_dir / "server.log",
        extra_env={
            "HTTP_RATE_PER_MINUTE": "1000000",
            "HTTP_RATE_BURST": "100000",
            "CASUAL_TABLES_PER_ADDRESS_PER_HOUR": "0",
            "WS_RATE_PER_SECOND": "100000",
            "WS_RATE_BURST": "100000",
            # Frames and bytes too: the fuzzer and the resending phones are not attackers.
            "WS_FRAMES_PER_SECOND": "100000",
            "WS_FRAMES_BURST": "100000",
            "WS_BYTES_PER_SECOND": "100000000",
            "WS_BYTES_BURST": "100000000",
        },
    )
    server.start()
    try:
        tables = prepare(server, 3)
        to_duel(server, *tables[0])
        sockets = [
            Socket(server.ws_base, code, tokens[s]) for code, tokens in tables for s in ("A", "B")
        ]
        sockets += [Socket(server.ws_base, code, None) for code, _t in tables]

        @settings(
            max_examples=examples,
            deadline=None,
            database=None,
            derandomize=False,
            phases=[Phase.generate],
            suppress_health_check=list(HealthCheck),
        )
        @given(frame=frames, which=st.integers(0, len(sockets) - 1))
        def one(frame: tuple[str, Any], which: int) -> None:
            sock = sockets[which]
            try:
                ws = sock.open()
                ws.send(encode(*frame))
                report.sent += 1
                judge_answer(sock.next_answer(5), report, frame)
            except ConnectionClosed as exc:
                # The server may close on purpose: oversized (1009), bad token (4001), bad
                # UTF-8 in a text frame (1007). Anything else is worth a look.
                report.closed += 1
                code = exc.rcvd.code if exc.rcvd else None
                if code not in (1007, 1009, 4001, 1008):
                    report.unanswered += 1
                    report.examples.append(f"closed {code} after {frame!r:.200}")
                sock.drop()

        with warnings.catch_warnings():
            # The websocket client's background thread touches the global `random` while
            # hypothesis draws, which it takes for a strategy using `random`.
            warnings.simplefilter("ignore", HypothesisDeprecationWarning)
            one()
        for sock in sockets:
            sock.drop()
        reader = StoreReader(backend)
        try:
            for code, _tokens in tables:
                _s, served = retrying(server.base, "GET", f"/api/tables/{code}")
                log = reader.store.log(code)
                if replayed_view(log, served["seq"]) != served["state"]:
                    report.invariant_failures += 1
                    report.examples.append(f"{code}: served state is not the replay")
                if not reader.store.verify(code).ok:
                    report.invariant_failures += 1
                    report.examples.append(f"{code}: hash chain broken")
        finally:
            reader.close()
    finally:
        server.stop()
        report.tracebacks, first = tracebacks_of(server.log_text())
        if first is not None:
            report.examples.append(first)
    return report
