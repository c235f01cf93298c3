"""One command's path inside the server, in process: CPU microseconds per command.

`python -m bench.cmdpath` builds an app on a fresh SQLite file, seats two phones (and, with
`--spectators`, watchers) on one table through the real `Connection` of `server/api/ws.py` with
an in-memory socket, then runs the bench's command cycle (`bench/load.py`: a proposal, its
confirmation, the other seat's, a coin toss): each command's message is parsed, validated,
decided, appended (committed), replied to, published, and every socket's update built and
"sent". It prints the process's CPU time per command (all threads: the committer's too), the
most stable figure of the command path there is on a shared machine; `--profile` prints the top
of a cProfile of the same loop.
"""

from __future__ import annotations

import argparse
import cProfile
import io
import json
import os
import pstats
import tempfile
import time
from typing import Any

from bench.load import SETUP_STEPS
from clients.wire import PROTOCOL, apply_update, unfold
from server import create_app
from server.api.context import services
from server.api.ws import Connection

OTHER = {"A": "B", "B": "A"}


class MemorySocket:
    """What the writer sends, kept (the last few frames) instead of written to a socket."""

    def __init__(self) -> None:
        self.frames: list[str] = []
        self.state: dict[str, Any] | None = None

    def send(self, text: str) -> None:
        self.frames.append(text)

    def cut_off(self, code: int, reason: str) -> None:
        raise RuntimeError(f"socket closed: {code} {reason}")

    def close(self, *args: Any, **kwargs: Any) -> None:
        pass


def drain(conn: Connection) -> None:
    """Run the socket's writer on this thread until its queue is empty (`Session._write_loop`)."""
    from server.core.jsontext import compact_encoder

    encode = compact_encoder()
    while not conn.outbox.empty():
        item = conn.outbox.get_nowait()
        assert item is not None
        kind, payload = item
        if kind == "send":
            conn.ws.send(encode(payload))
        else:
            conn.write(kind, payload)


class SteppingClock:
    """The server's clock: a second on at every reading, so a table's coin tosses are as far
    apart as the bench's (one command every few seconds a table), not refused as too many."""

    def __init__(self) -> None:
        self.now_ms = int(time.time() * 1000)

    def __call__(self) -> int:
        self.now_ms += 1000
        return self.now_ms


class Table:
    """One table with two seated phones (and spectators), driven message by message."""

    def __init__(self, app: Any, spectators: int, protocol: int = PROTOCOL) -> None:
        client = app.test_client()
        code = client.post("/api/tables", json={}).get_json()["code"]
        tokens = {}
        for seat in ("A", "B"):
            body = client.post(f"/api/tables/{code}/join", json={"seat": seat, "name": seat})
            tokens[seat] = body.get_json()["token"]
        found = services()
        self.sockets: dict[str, MemorySocket] = {}
        self.conns: dict[str, Connection] = {}
        for name in ["A", "B"] + [f"s{i}" for i in range(spectators)]:
            ws = MemorySocket()
            conn = Connection(ws, code, found, app.config)  # type: ignore[arg-type]
            self.sockets[name], self.conns[name] = ws, conn
            hello = {"type": "hello", "v": protocol, "token": tokens.get(name)}
            assert conn.handle(json.dumps(hello))
            drain(conn)
        self.n = self.k = 0
        self.spent = 0.0  # CPU seconds in the server's code (not this client's parsing)
        self.frames = 0  # frames the server wrote to this table's sockets
        self.entry: int | None = None
        for seat, cmd, args in SETUP_STEPS:
            reply = self.command(seat, cmd, args)
            assert reply["ok"], (cmd, reply)

    def command(self, seat: str, cmd: str, args: dict[str, Any]) -> dict[str, Any]:
        """Send one command from `seat`; every socket's writer runs; the sender's reply."""
        self.n += 1
        message = {"type": "command", "id": f"c{self.n}", "cmd": cmd, "args": args}
        text = json.dumps(message)
        start = time.process_time()
        self.conns[seat].handle(text)
        for conn in self.conns.values():
            drain(conn)
        self.spent += time.process_time() - start
        reply: dict[str, Any] | None = None
        for name, ws in self.sockets.items():
            self.frames += len(ws.frames)
            for message in (m for frame in ws.frames for m in unfold(json.loads(frame))):
                if message.get("type") in ("welcome", "update"):
                    ws.state = apply_update(ws.state, message)
                    for event in message.get("events", ()):
                        if event.get("type") == "lp.proposed" and name != seat:
                            self.entry = event["data"]["entry"]
                elif message.get("type") == "reply" and name == seat:
                    reply = message
            ws.frames.clear()
        assert reply is not None
        return reply

    def step(self) -> None:
        """The bench's cycle: A proposes, B confirms, B proposes, A confirms, a coin toss."""
        step, self.k = self.k % 5, self.k + 1
        if step == 4:
            self.command("A", "coin.toss", {"count": 1})
            return
        proposer = "A" if step < 2 else "B"
        if step in (1, 3) and self.entry is not None:
            entry, self.entry = self.entry, None
            self.command(OTHER[proposer], "lp.confirm", {"entry": entry})
            return
        self.command(proposer, "lp.propose", {"seat": OTHER[proposer], "delta": -10})


class StoreTimer:
    """Wraps the calls on the command path that decide and store (the table service's
    `append`: the rules' decision and the store's commit with its `fsync`) and the store's
    `update_since`, to count the CPU spent inside them: the rest is the edge's."""

    def __init__(self, found: Any) -> None:
        self.spent = 0.0
        found.tables.append = self._timed(found.tables.append)
        found.tables.store.update_since = self._timed(found.tables.store.update_since)

    def _timed(self, call: Any) -> Any:
        def timed(*args: Any, **kwargs: Any) -> Any:
            start = time.process_time()
            try:
                return call(*args, **kwargs)
            finally:
                self.spent += time.process_time() - start

        return timed


def measure(
    commands: int, tables: int, spectators: int, profile: bool, protocol: int = PROTOCOL
) -> tuple[float, float, float]:
    """CPU microseconds per command over `commands` commands spread over `tables` tables: in
    all, and outside the store's calls; and the frames written per command."""
    clock = SteppingClock()
    shm = "/dev/shm" if os.path.isdir("/dev/shm") else None  # a steadier fsync than a disk's
    with tempfile.TemporaryDirectory(dir=shm) as tmp:
        app = create_app(
            {
                "DATA_DIR": tmp,
                "DATABASE_URL": "",
                "REDIS_URL": "",
                "SECRET_KEY": "bench",
                "TIMER_ENABLED": False,
                "CLOCK": clock,
                "HTTP_RATE_PER_MINUTE": 1_000_000,
                "HTTP_RATE_BURST": 100_000,
                "CASUAL_TABLES_PER_ADDRESS_PER_HOUR": 0,
                "WS_RATE_PER_SECOND": 1_000_000,
                "WS_RATE_BURST": 100_000,
            }
        )
        try:
            with app.test_request_context("/ws/table/x"):
                made = [Table(app, spectators, protocol) for _ in range(tables)]
                for k in range(50):  # warm up: caches, the committer's thread
                    made[k % tables].step()
                profiler = cProfile.Profile() if profile else None
                for table in made:
                    table.spent, table.frames = 0.0, 0
                timer = StoreTimer(services())
                if profiler is not None:
                    profiler.enable()
                for k in range(commands):
                    made[k % tables].step()
                if profiler is not None:
                    profiler.disable()
                spent = sum(table.spent for table in made)
                frames = sum(table.frames for table in made)
                edge = spent - timer.spent
                if profiler is not None:
                    out = io.StringIO()
                    stats = pstats.Stats(profiler, stream=out).sort_stats("cumulative")
                    stats.print_stats(45)
                    print(out.getvalue())
                    out = io.StringIO()
                    pstats.Stats(profiler, stream=out).sort_stats("tottime").print_stats(30)
                    print(out.getvalue())
        finally:
            app.extensions["duel_table"].close()
    return spent / commands * 1e6, edge / commands * 1e6, frames / commands


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.cmdpath", description=__doc__)
    parser.add_argument("--commands", type=int, default=3000)
    parser.add_argument("--tables", type=int, default=20)
    parser.add_argument("--spectators", type=int, default=0, help="spectators per table")
    parser.add_argument("--repeat", type=int, default=3, help="runs; the best is printed")
    parser.add_argument("--profile", action="store_true", help="print a cProfile of one run")
    parser.add_argument(
        "--protocol",
        type=int,
        default=PROTOCOL,
        help=f"the version the phones speak ({PROTOCOL}: the app's; 2: replies without updates)",
    )
    args = parser.parse_args(argv)
    if args.profile:
        measure(args.commands, args.tables, args.spectators, True, args.protocol)
        return 0
    runs = [
        measure(args.commands, args.tables, args.spectators, False, args.protocol)
        for _ in range(args.repeat)
    ]
    edges = sorted(edge for _, edge, _ in runs)
    print(
        f"command path: {min(r for r, _, _ in runs):.0f} us CPU per command, "
        f"{edges[0]:.0f} outside the store (best of {args.repeat}; all: "
        + ", ".join(f"{r:.0f}/{e:.0f}" for r, e, _ in runs)
        + f"; {args.commands} commands over {args.tables} tables,"
        + f" {args.spectators} spectators each, protocol {args.protocol});"
        + f" {runs[0][2]:.2f} frames written per command"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
