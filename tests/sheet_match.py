"""Drive a real table through the event store, the way the phones and a judge would, so the
score sheet, the exports and `verify` are tested on a log the store itself wrote.

`play_match` plays a typical three-duel match with every kind of line a sheet shows: LP
entries (costs, gains, halving, both seats at once), a coin and a die, a rejected entry a judge
voids, a judge's correction, a penalty, a clock extension, time called with extra turns, and
both seats' confirmations of each result."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from server.rules import Actor, get_ruleset
from server.rules.base import SYSTEM_ACTOR
from server.store import EventStore
from tests.tables import tables_of

T0 = 1_764_484_800_000  # 2025-11-30 06:40 UTC
STEP = 15_000  # each command comes 15 seconds after the last
JUDGE = Actor("judge", name="Pegasus")
SYSTEM = SYSTEM_ACTOR
CHECKLIST = ["handshake", "side_shown", "shuffled", "cut"]


def bare_store(database: Any, randbelow: Any = None) -> EventStore:
    """An event store on `database`; its table service's dice from `randbelow` when given."""
    store = EventStore(database)
    tables_of(store, randbelow)
    return store


def actor(who: str | Actor) -> Actor:
    if isinstance(who, Actor):
        return who
    if who in ("A", "B"):
        return Actor("seat", who, {"A": "Yugi", "B": "Kaiba"}[who])
    return JUDGE if who == "judge" else SYSTEM


@dataclass
class StoreTable:
    """One table in `store`, a clock that moves on with each command."""

    store: EventStore
    now: int = T0
    code: str = ""
    entries: list[dict[str, Any]] = field(default_factory=list)
    staff_start: bool = True  # an event table (a judge is called to a dispute); False: casual

    def __post_init__(self) -> None:
        ruleset = get_ruleset("ocg-2008", staff_start=self.staff_start)
        self.code = tables_of(self.store).create_table(ruleset, self.now)

    def do(self, who: str | Actor, cmd: str, **args: Any) -> list[dict[str, Any]]:
        self.now += STEP
        return tables_of(self.store).append(self.code, cmd, args, actor(who), None, self.now).events

    def state(self) -> Any:
        return self.store.snapshot(self.code).state

    def join(self) -> StoreTable:
        tables_of(self.store).join(self.code, "A", "Yugi", "0001", self.now)
        tables_of(self.store).join(self.code, "B", "Kaiba", "0002", self.now)
        return self

    def register(self) -> StoreTable:
        for seat in "AB":
            self.do(seat, "deck.declare", main=40, extra=15, side=15)
        self.do("A", "deck.confirm", seat="B")
        self.do("B", "deck.confirm", seat="A")
        return self

    def start_duel(self, first: str) -> StoreTable:
        if self.staff_start and self.state().clock.started_ms is None:
            self.do("judge", "clock.start")  # an event table's duel waits for its round
        for seat in "AB":
            self.do(seat, "pregame.check", items=CHECKLIST)
        chooser = self.state().pregame.chooser
        if chooser is None:
            self.do("A", "rps.pick", hand="rock")
            self.do("B", "rps.pick", hand="scissors")
            chooser = "A"
        self.do(chooser, "duel.choose", order="first" if chooser == first else "second")
        self.do("A", "duel.draw")
        self.do("B", "duel.draw")
        return self

    def lp(self, by: str, *changes: tuple[str, str, int], note: str = "") -> int:
        """Propose an entry and have the other seat confirm it; return its number."""
        raw = [{"seat": s, "kind": k, "amount": a} for s, k, a in changes]
        entry = int(self.do(by, "lp.propose", changes=raw, note=note)[0]["data"]["entry"])
        self.do("B" if by == "A" else "A", "lp.confirm", entry=entry)
        self.entries.append({"entry": entry, "changes": raw, "note": note})
        return entry

    def end_turn(self) -> StoreTable:
        turn = self.state().turn
        self.do(turn.player, "turn.end", turn=turn.no)
        return self

    def results(self) -> StoreTable:
        self.do("A", "result.confirm")
        self.do("B", "result.confirm")
        return self

    def between(self, exchange: str | None = None) -> StoreTable:
        for seat in "AB":
            self.do(seat, "deck.check", ok=True)
        if exchange:
            self.do(exchange, "side.exchange", main={"in": 2, "out": 2})
        for seat in "AB":
            self.do(seat, "between.ready")
        return self


def pad(t: StoreTable, entries: int) -> None:
    for n in range(entries):
        t.lp("AB"[n % 2], ("AB"[n % 2], "gain", 0), note="Upstart Goblin")


def play_match(
    store: EventStore,
    note: str = "Mirror Force",
    now: int = T0,
    padding: int = 0,
    table: StoreTable | None = None,
) -> StoreTable:
    """A finished best-of-three match: A wins duel 1, B duel 2, A duel 3 on time.

    Against a running server, start `now` at the real time: the server's timer would otherwise
    find the match clock long expired and call time itself. `padding` adds that many more
    entries (of no effect) to each duel, for a longer sheet. `table`: play at that table (one of
    an event's, say) instead of a new one; its clock may already run (a round started it)."""
    t = (table or StoreTable(store, now=now)).join().register()
    if t.state().clock.status == "idle":
        t.do("judge", "clock.start")

    # Duel 1: A wins by LP 0.
    t.start_duel(first="A")
    t.do("A", "coin.toss", count=1)
    pad(t, padding)
    t.lp("A", ("B", "damage", 1800), note="Blue-Eyes attack? no: Dark Magician")
    t.end_turn()
    t.lp("B", ("B", "cost", 1000), note="Premature Burial")
    t.lp("B", ("A", "damage", 2500))
    t.end_turn()
    t.lp("A", ("A", "gain", 500), note="Dian Keto")
    t.lp("A", ("B", "damage", 2400))
    t.end_turn()
    t.end_turn()
    t.lp("A", ("B", "damage", 2800), note=note)
    t.results().between(exchange="B")

    # Duel 2: B (the loser) chooses to go first; a rejected entry and a judge's ruling.
    t.start_duel(first="B")
    t.do("B", "die.roll", count=1)
    pad(t, padding)
    t.lp("B", ("A", "damage", 3000))
    t.end_turn()
    entry = int(
        t.do("B", "lp.propose", changes=[{"seat": "A", "kind": "damage", "amount": 3000}])[0][
            "data"
        ]["entry"]
    )
    t.do("A", "lp.reject", entry=entry, reason="it was 2000")
    call = t.state().calls[-1].call
    t.do("judge", "judge.ack", call=call)
    # Settling the dispute closes the judge call it raised (its note is the ruling's).
    t.do(
        "judge",
        "dispute.settle",
        entry=entry,
        action="void",
        note="ATK 2000 after Axe of Despair left",
    )
    t.lp("B", ("A", "damage", 2000))
    t.lp("A", ("A", "damage", 500), ("B", "damage", 500), note="Ring of Destruction")
    t.do("judge", "penalty.record", seat="A", level="warning", infraction="slow_play", note="")
    t.end_turn()
    t.lp("B", ("A", "halve", 0), note="=cmd|' /C calc'!A0")
    t.lp("B", ("A", "damage", 1250))
    t.results().between()

    # Duel 3: A (the loser) goes first; time is called; A leads on LP after the extra turns.
    t.start_duel(first="A")
    t.do("judge", "clock.extend", minutes=2, reason="deck check")
    pad(t, padding)
    t.lp("A", ("B", "damage", 1500))
    t.end_turn()
    t.lp("B", ("A", "damage", 1000))
    t.do(
        "judge",
        "lp.correct",
        changes=[{"seat": "A", "kind": "set", "amount": 7200}],
        note="miscount corrected",
    )
    t.entries.append({"entry": None, "note": "miscount corrected"})
    clock = t.state().clock
    t.now = clock.deadline_ms
    t.do("system", "tick")  # time is called during B's turn
    t.end_turn()  # the current turn finishes: extra turn 1 (A)
    t.lp("A", ("B", "damage", 700))
    t.end_turn()  # extra turn 2 (B)
    t.lp("B", ("A", "cost", 800), note="Solemn Judgment")
    t.end_turn()  # extra turn 3 (A)
    t.end_turn()  # after the 3rd extra turn: higher LP wins the duel
    t.results()
    t.do("A", "match.confirm")
    t.do("B", "match.confirm")
    return t
