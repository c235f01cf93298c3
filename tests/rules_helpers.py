"""Drive a table through the pure rules core the way players, a judge and the server's timer
would, with a fixed clock and a seeded random source, so tests read like a match.

``Table`` is to the rules what flaskr's ``AuthActions`` is to the login views: every test builds
one, then says what the players do (``t.register()``, ``t.start_duel(first="A")``,
``t.hit("B", 3000)``), and checks the state or the refusal."""

from __future__ import annotations

import random
from collections.abc import Iterable
from typing import Any

import pytest

from server.rules import (
    Actor,
    Event,
    RuleError,
    TableState,
    admit,
    apply,
    create_events,
    decide,
    get_ruleset,
    replay,
)
from server.rules.base import SYSTEM_ACTOR

T0 = 1_764_484_800_000  # a fixed server time: 2025-11-30 06:40 UTC
SEC = 1000
MIN = 60 * SEC
CHECKLIST = ["handshake", "side_shown", "shuffled", "cut"]
JUDGE = Actor("judge", name="Kaiba")
SYSTEM = SYSTEM_ACTOR


def actor(who: str | Actor) -> Actor:
    """ "A"/"B" are the seats' phones, "judge" a judge, "system" the server's timer."""
    if isinstance(who, Actor):
        return who
    if who in ("A", "B"):
        return Actor("seat", who, f"Player {who}")
    if who == "judge":
        return JUDGE
    if who == "organiser":
        return Actor("organiser", name="Org")
    return SYSTEM


def other(seat: str) -> str:
    return "B" if seat == "A" else "A"


class Table:
    """One table's log and state, a fixed clock and a seeded source of randomness."""

    def __init__(self, ruleset: str = "ocg-2008", seed: int = 1, **overrides: Any) -> None:
        self.now = T0
        self.rng = random.Random(seed)
        self.rules = get_ruleset(ruleset, **overrides)
        self.log: list[Event] = list(create_events("K7QF2M", self.rules, self.now))
        self.state: TableState = replay(self.log)

    # --- time ----------------------------------------------------------------------------

    def at(self, ms: int) -> Table:
        """Set the clock to ``T0 + ms``."""
        self.now = T0 + ms
        return self

    def advance(self, ms: int) -> Table:
        """Move the clock on by ``ms``."""
        self.now += ms
        return self

    def randbelow(self, n: int) -> int:
        return self.rng.randrange(n)

    # --- commands ------------------------------------------------------------------------

    def decide(self, who: str | Actor, cmd: str, **args: Any) -> list[Event]:
        """What the command would produce, without applying it: the sender's role checked as the
        edge checks it (`admit`), then the rules decide."""
        sender = actor(who)
        admit(cmd, sender)
        return decide(self.state, cmd, args, sender, self.now, self.randbelow)

    def do(self, who: str | Actor, cmd: str, **args: Any) -> list[Event]:
        """Run a command that must be accepted; apply and log its events."""
        events = self.decide(who, cmd, **args)
        for e in events:
            self.state = apply(self.state, e)
        self.log.extend(events)
        return events

    def refuse(self, who: str | Actor, cmd: str, code: str, **args: Any) -> RuleError:
        """Run a command that must be refused with ``code``; nothing changes."""
        before = self.state
        with pytest.raises(RuleError) as info:
            self.decide(who, cmd, **args)
        assert info.value.code == code, (info.value.code, info.value.message)
        assert self.state is before
        return info.value

    def types(self, events: Iterable[Event]) -> list[str]:
        return [e.type for e in events]

    def tick(self, at: int | None = None) -> list[Event]:
        """The server's timer fires (at ``T0 + at`` if given)."""
        if at is not None:
            self.at(at)
        return self.do("system", "tick")

    # --- registration --------------------------------------------------------------------

    def join(self) -> Table:
        self.do("system", "seat.join", seat="A", name="Yugi", player_id="0001")
        self.do("system", "seat.join", seat="B", name="Kaiba", player_id="0002")
        return self

    def declare(self, seat: str, main: int = 40, extra: int = 15, side: int = 15) -> Table:
        self.do(seat, "deck.declare", main=main, extra=extra, side=side)
        return self

    def register(self, **counts: int) -> Table:
        """Both seats join, declare and confirm each other's counts: the checklist is next."""
        self.join()
        self.declare("A", **counts).declare("B", **counts)
        self.do("A", "deck.confirm", seat="B")
        self.do("B", "deck.confirm", seat="A")
        return self

    # --- before a duel -------------------------------------------------------------------

    def checklist(self) -> Table:
        for seat in "AB":
            if set(CHECKLIST) - self.state.pregame.checks[seat]:
                self.do(seat, "pregame.check", items=CHECKLIST)
        return self

    def rps(self, winner: str = "A") -> Table:
        """Rock-paper-scissors in the app, won by ``winner``."""
        self.do(winner, "rps.pick", hand="rock")
        self.do(other(winner), "rps.pick", hand="scissors")
        return self

    def choose(self, first: str) -> Table:
        chooser = self.state.pregame.chooser
        assert chooser is not None
        self.do(chooser, "duel.choose", order="first" if chooser == first else "second")
        return self

    def draw(self) -> Table:
        self.do("A", "duel.draw")
        self.do("B", "duel.draw")
        return self

    def start_duel(self, first: str = "A", rps_winner: str | None = None) -> Table:
        """From the checklist to the first turn; rock-paper-scissors only if needed. At an
        event table the round starts first (the organiser starts its clock)."""
        if self.rules.staff_start and self.state.clock.started_ms is None:
            self.do("organiser", "clock.start")
        self.checklist()
        if self.state.pregame.chooser is None:
            self.rps(rps_winner or first)
        self.choose(first)
        self.draw()
        assert self.state.phase == "duel"
        return self

    # --- during a duel -------------------------------------------------------------------

    def propose(self, by: str, *changes: tuple[str, str, int], note: str = "") -> int:
        """Propose an entry of ``(seat, kind, amount)`` changes; return its number."""
        events = self.do(
            by,
            "lp.propose",
            changes=[{"seat": s, "kind": k, "amount": a} for s, k, a in changes],
            note=note,
        )
        return int(events[0].data["entry"])

    def confirm(self, by: str, entry: int) -> list[Event]:
        return self.do(by, "lp.confirm", entry=entry)

    def lp(self, seat: str, kind: str, amount: int = 0, by: str | None = None) -> list[Event]:
        """An LP change for ``seat`` proposed by ``by`` (default: the opponent) and confirmed."""
        proposer = by or other(seat)
        entry = self.propose(proposer, (seat, kind, amount))
        return self.confirm(other(proposer), entry)

    def hit(self, seat: str, amount: int) -> list[Event]:
        return self.lp(seat, "damage", amount)

    def end_turn(self) -> list[Event]:
        assert self.state.turn is not None
        return self.do(self.state.turn.player, "turn.end", turn=self.state.turn.no)

    def end_turns(self, n: int) -> Table:
        for _ in range(n):
            self.end_turn()
        return self

    # --- after a duel --------------------------------------------------------------------

    def confirm_result(self) -> Table:
        self.do("A", "result.confirm")
        self.do("B", "result.confirm")
        return self

    def between(self, *exchange_by: str) -> Table:
        """Both seats check their decks and get ready: the next duel's checklist opens."""
        for seat in "AB":
            self.do(seat, "deck.check", ok=True)
        for seat in exchange_by:
            self.do(seat, "side.exchange", main={"in": 2, "out": 2})
        for seat in "AB":
            self.do(seat, "between.ready")
        return self

    def win_duel(self, winner: str, first: str = "A") -> Table:
        """Play a duel to LP 0 for the loser and confirm the result."""
        if self.state.phase != "duel":
            self.start_duel(first)
        self.hit(other(winner), self.state.lp[other(winner)])
        self.confirm_result()
        return self

    def start_clock(self) -> Table:
        """The match clock runs: a judge starts it, unless duel 1 already did (R4.1)."""
        if self.state.clock.status == "idle":
            self.do("judge", "clock.start")
        return self

    def replayed(self) -> TableState:
        return replay(self.log)
