"""Bytes per update over a scripted match: 3 duels of 30 confirmed LP entries each (90 in all).

Each command's update is written, as the table socket's writer writes it, to one socket of
each kind: seat A's phone and a spectator, over protocol 1 (the whole state every time) and
protocol 2 (what changed). Prints first / median / p95 / last / max bytes for each.

    python -m bench.updates            # or: make bench-updates
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
from typing import Any

from server.api.encoding import ViewTexts
from server.api.ws import Connection
from server.rules import Actor, get_ruleset
from server.service.hub import LocalHub
from server.service.tables import TableService
from server.store import EventStore, bind, db, open_database

ITEMS = ["handshake", "side_shown", "shuffled", "cut"]
DECK = {"main": 40, "extra": 15, "side": 15}


class Sent:
    """A socket that keeps the sizes of what it is sent."""

    def __init__(self) -> None:
        self.sizes: list[int] = []

    def send(self, text: str) -> None:
        self.sizes.append(len(text.encode()))


def play(store: EventStore, per_duel: int, sockets: list[Connection]) -> str:
    tables = TableService(store, LocalHub())
    code = tables.create_table(get_ruleset("ocg-2008"), 0)
    now = [0]
    seats = {s: Actor("seat", s, n) for s, n in (("A", "Yugi"), ("B", "Kaiba"))}
    for s, name in (("A", "Yugi"), ("B", "Kaiba")):
        tables.join(code, s, name, "", 0)
    for conn in sockets:
        conn.code, conn.tables = code, tables

    def do(who: str, cmd: str, **args: Any) -> list[dict[str, Any]]:
        now[0] += 1_000
        if sockets and not sockets[0].welcomed:
            for conn in sockets:
                conn.write("welcome", None)
                conn.ws.sizes.clear()
        events = tables.append(code, cmd, args, seats[who], None, now[0]).events
        seq = store.snapshot(code).seq
        for conn in sockets:
            conn.write("sync", seq)
        return events

    for s in "AB":
        do(s, "deck.declare", **DECK)
    do("A", "deck.confirm", seat="B")
    do("B", "deck.confirm", seat="A")
    for duel, (winner, chooser) in enumerate((("A", "A"), ("B", "B"), ("A", "A"))):
        loser = "B" if winner == "A" else "A"
        for s in "AB":
            do(s, "pregame.check", items=ITEMS)
        if duel == 0:
            do("A", "rps.pick", hand="rock")
            do("B", "rps.pick", hand="scissors")
        else:
            chooser = {1: "B", 2: "A"}[duel]  # the last duel's loser chooses
        do(chooser, "duel.choose", order="first")
        do("A", "duel.draw")
        do("B", "duel.draw")
        for n in range(per_duel):
            by = "AB"[n % 2]
            last = n == per_duel - 1
            change: dict[str, Any] = {"seat": loser if last else by}
            change["kind"] = "damage" if last else "gain"
            change["amount"] = 8000 if last else 0
            note = "" if last else f"Upstart Goblin {n}"
            entry = do(by, "lp.propose", changes=[change], note=note)[0]["data"]["entry"]
            do("B" if by == "A" else "A", "lp.confirm", entry=entry)
        do("A", "result.confirm", duel=duel + 1)
        do("B", "result.confirm", duel=duel + 1)
        if duel < 2:
            for s in "AB":
                do(s, "deck.check", ok=True)
            for s in "AB":
                do(s, "between.ready")
    return code


def figures(sizes: list[int]) -> str:
    p95 = statistics.quantiles(sizes, n=20)[-1]
    return (
        f"first {sizes[0]:>6,}  median {statistics.median(sizes):>8,.0f}  p95 {p95:>8,.0f}"
        f"  last {sizes[-1]:>6,}  max {max(sizes):>6,}  ({len(sizes)} updates)"
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--per-duel", type=int, default=30, help="LP entries a duel (30)")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        bind(open_database("", tmp))
        store = EventStore(db)
        who = {"seat A": Actor("seat", "A", "Yugi"), "spectator": Actor(role="spectator")}
        sockets = {(name, v): socket_stub(actor, v) for name, actor in who.items() for v in (1, 2)}
        play(store, args.per_duel, list(sockets.values()))
        ledger = len(store.snapshot(sockets[("seat A", 1)].code).state.ledger)
        print(f"bytes per update, 3 duels, {ledger} ledger entries:")
        for (name, v), conn in sockets.items():
            print(f"  v{v} {name:<10} {figures(conn.ws.sizes)}")
        db.close()
    return 0


VIEWS = ViewTexts()  # what the stubs' writers encoded, as an app's services keep it


def socket_stub(actor: Actor, version: int) -> Connection:
    """A writer not yet at a table: `play` names the table and welcomes it."""
    conn = Connection.__new__(Connection)
    conn.clock, conn.actor, conn.ws = lambda: 0, actor, Sent()  # type: ignore[assignment]
    conn.version, conn.last_seq, conn.welcomed = version, 0, False
    conn.sent_parts, conn.sent_rows = {}, []
    conn.views = VIEWS  # one app's encoded texts, shared by its sockets
    return conn


if __name__ == "__main__":
    sys.exit(main())
