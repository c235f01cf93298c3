"""Invariants of the rules core under random play (STYLE.md 16): both seats, a judge and the
server's timer send legal and illegal commands in any order while time moves on.

- LP never change without the other seat's yes (or a judge's entry, or a new duel's 8000);
- replaying the log gives the state;
- no seat has more than two duel wins; no duel starts and no LP entry is written after the
  match was decided;
- declared deck counts are always within R2.1-R2.3;
- a refused command writes no event and leaves the state as it was;
- R5.5: at a time-over decision (the end of the last extra turn, of the Extra Duel's last turn,
  the move to sudden death) every LP entry proposed in that duel is applied, withdrawn or
  settled by the judge, and the winner is the player with more LP by the applied entries;
- R3.1, R3.3: a match has at most three duels before its Extra Duel;
- R1.4, R7.1: no entry applies while an earlier one of the same duel is disputed (rejected and
  not yet settled: by a judge at an event table, by the players at a casual one), no turn ends
  and no duel result is confirmed by the players while one of that duel is; a casual table's
  correction stands in the queue where the entry it corrects stood. A judge's own entry
  (`lp.correct`) is a ruling and is not held;
- ``decide`` raises nothing but ``RuleError`` on the arguments the edge loaded (a client's
  command) or given as they are (the server's own), and ``apply`` never raises."""

from __future__ import annotations

import random
from typing import Any

import hypothesis
import pytest
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import (
    RuleBasedStateMachine,
    initialize,
    invariant,
    precondition,
    rule,
)
from marshmallow import ValidationError

from server.api.arguments import load_args
from server.rules import (
    COMMANDS,
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
    view,
)
from tests.rules_helpers import CHECKLIST, MIN, SEC, T0, actor, other
from tests.test_view_parts import check_reads

# Hypothesis explores many whole matches (about half a minute).
pytestmark = pytest.mark.slow

SEATS = ("A", "B")
WHO = st.sampled_from(["A", "B", "A", "B", "judge", "system"])
JUNK = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(10**20), max_value=10**20),
    st.sampled_from(["", "A", "B", "C", "rock", "first", "x" * 50]),
    st.lists(st.integers(0, 3), max_size=3),
    st.dictionaries(st.sampled_from(["in", "out", "seat"]), st.integers(-2, 20), max_size=2),
    st.floats(allow_nan=False, allow_infinity=False),
)
ARG_NAMES = st.sampled_from(
    [
        "seat",
        "entry",
        "changes",
        "main",
        "extra",
        "side",
        "items",
        "hand",
        "winner",
        "order",
        "turn",
        "duel",
        "count",
        "name",
        "delta",
        "minutes",
        "seconds",
        "call",
        "roll",
        "level",
        "infraction",
        "action",
        "match_winner",
        "ok",
    ]
)
KINDS = ["damage", "damage", "damage", "cost", "gain", "halve", "set"]
AMOUNTS = [0, 100, 500, 1000, 2000, 4000, 8000, 9000]
HANDS = ["rock", "paper", "scissors"]
ORDERS = ["first", "second"]
JUDGE_ONLY = {"judge", "organiser"}
LP_EVENTS = {"lp.applied", "duel.started", "match.started", "table.created"}
# Cancelled entries are not settled: the duel ended around them (and must not end on time so).
SETTLED = {"lp.applied", "lp.withdrawn", "dispute.settled", "dispute.closed"}
TIME_DECISIONS = {"time_lp", "time_draw"}


class TableMachine(RuleBasedStateMachine):
    """One table, driven by random players, a judge and the timer."""

    def __init__(self) -> None:
        super().__init__()
        self.now = T0
        self.rng = random.Random(0)
        self.decided = False  # a match result exists and no new match has started
        self.log: list[Event] = []
        self.state: TableState = replay(self.log)
        self.unsettled: set[int] = set()  # entries of this duel proposed and not yet settled
        self.model_lp: dict[str, int] = {}  # LP by the applied entries only
        self.time_decisions = 0
        # The model of the queue (R1.4, R7.1), from the events alone: each entry's place in its
        # duel's order, and the disputes not yet settled, with their duel.
        self.place: dict[int, int] = {}
        self.disputed: dict[int, int] = {}
        self.held_seen = 0

    @initialize(
        name=st.sampled_from(["ocg-2008", "ocg-2011-swiss", "tcg-2018-swiss"]),
        event_table=st.booleans(),
    )
    def create(self, name: str, event_table: bool) -> None:
        rules = get_ruleset(name, staff_start=event_table)
        self.log = list(create_events("PROP01", rules, self.now))
        self.state = replay(self.log)
        for seat in SEATS:
            self.run("system", "seat.join", {"seat": seat, "name": f"P{seat}"})

    # --- the one path every command takes ---------------------------------------------------

    def run(self, who: str, cmd: str, args: dict[str, Any]) -> None:
        snapshot = repr(self.state)
        try:
            declared = admit(cmd, actor(who))  # the edge's role check
            if declared.args is not None:
                # the edge's one validation; the server's own commands reach the rules as given
                args = load_args(cmd, args)
        except (RuleError, ValidationError):
            assert repr(self.state) == snapshot
            return
        try:
            events = decide(self.state, cmd, args, actor(who), self.now, self.rng.randrange)
        except RuleError as err:
            assert isinstance(err.code, str) and err.code
            assert repr(self.state) == snapshot, "a refused command changed the state"
            return
        assert repr(self.state) == snapshot, "decide changed the state it was given"
        for event in events:
            before = self.state
            self.state = apply(before, event)  # never raises
            self.check_event(before, event)
            self.log.append(event)

    def check_event(self, before: TableState, event: Event) -> None:
        after = self.state
        if after.lp != before.lp:
            assert event.type in LP_EVENTS, f"LP changed by {event.type}"
        if event.type == "lp.applied":
            by, confirmed_by = event.data["by"], event.data["confirmed_by"]
            judge_entry = event.actor.role in JUDGE_ONLY
            assert judge_entry or (confirmed_by in SEATS and confirmed_by != by), event
            assert not self.decided, "an LP entry after the match was decided"
        if event.type == "duel.started":
            assert not self.decided, "a duel started after the match was decided"
            assert after.lp == {s: after.ruleset.starting_lp for s in SEATS}
        self.check_time_decision(before, event)
        self.check_queue(before, event)
        if event.type == "match.decided":
            self.decided = True
        if event.type == "match.started":
            self.decided = False

    def check_time_decision(self, before: TableState, event: Event) -> None:
        """R5.5: the model of the duel's entries, and the time-over decisions against it."""
        d = event.data
        if event.type in ("duel.started", "table.created", "match.started"):
            self.unsettled = set()
            self.model_lp = dict(self.state.lp)
        elif event.type == "lp.proposed":
            self.unsettled.add(d["entry"])
        elif event.type in SETTLED:
            self.unsettled.discard(d["entry"])
            if event.type == "lp.applied":
                self.model_lp = dict(d["lp"])
        time_over = event.type == "duel.ended" and d["reason"] in TIME_DECISIONS
        sudden = event.type == "time.stage" and "sudden_death" in d["stage"]
        if time_over or sudden:
            self.time_decisions += 1
            assert not self.unsettled, f"decided on time with entries {self.unsettled} open"
            lp = self.model_lp
            assert lp == dict(before.lp)
            if time_over:
                winner = None if lp["A"] == lp["B"] else ("A" if lp["A"] > lp["B"] else "B")
                assert d["winner"] == winner, (d, lp)
            else:
                assert lp["A"] == lp["B"]

    def check_queue(self, before: TableState, event: Event) -> None:
        """R1.4, R7.1: nothing applies past a dispute of its duel, nothing ends a turn or has
        its result confirmed by the players over one."""
        d = event.data
        if event.type == "lp.proposed":
            self.place[d["entry"]] = d.get("place") or d["entry"]
        elif event.type == "lp.rejected":
            self.disputed[d["entry"]] = before.duel_no
        elif event.type in ("dispute.settled", "dispute.closed"):
            self.disputed.pop(d["entry"], None)
        elif event.type == "lp.applied" and not d.get("new"):
            mine = self.place.get(d["entry"], d["entry"])
            earlier = [
                e
                for e, duel in self.disputed.items()
                if duel == before.duel_no and self.place.get(e, e) < mine
            ]
            assert not earlier, f"entry {d['entry']} applied past disputed {earlier}"
        elif event.type == "turn.ended":
            open_now = [e for e, duel in self.disputed.items() if duel == before.duel_no]
            assert not open_now, f"turn ended over disputed {open_now}"
        elif event.type == "duel.final" and event.actor.role == "seat":
            open_now = [e for e, duel in self.disputed.items() if duel == d["duel"]]
            assert not open_now, f"duel result confirmed over disputed {open_now}"
        if event.type == "lp.confirmed":
            theirs = self.place.get(d["entry"], d["entry"])
            if any(
                duel == before.duel_no and self.place.get(e, e) < theirs
                for e, duel in self.disputed.items()
            ):
                self.held_seen += 1  # a confirmed entry that must wait behind a dispute

    # --- rules --------------------------------------------------------------------------------

    def next_steps(self) -> list[tuple[str, str, dict[str, Any]]]:
        """What the players would do next, to move the match along."""
        s, steps = self.state, []
        if s.phase in ("registration", "between"):
            for seat in SEATS:
                deck, theirs = s.decks[seat], s.decks[other(seat)]
                if deck.registered is None:
                    steps.append((seat, "deck.declare", {"main": 40, "extra": 15, "side": 15}))
                if theirs.registered is not None and not theirs.confirmed:
                    steps.append((seat, "deck.confirm", {}))
        if s.phase == "pregame":
            pg = s.pregame
            for seat in SEATS:
                if pg.checks[seat] != set(CHECKLIST):
                    steps.append((seat, "pregame.check", {"items": CHECKLIST}))
                if pg.chooser is None and pg.picks[seat] is None:
                    steps.append((seat, "rps.pick", {"hand": self.rng.choice(HANDS)}))
                if pg.chooser == seat and pg.first is None:
                    steps.append((seat, "duel.choose", {"order": self.rng.choice(ORDERS)}))
                if pg.first is not None and not pg.drawn[seat]:
                    steps.append((seat, "duel.draw", {}))
        if s.phase == "duel" and s.turn is not None:
            seat = self.rng.choice(SEATS)
            target = self.rng.choice([["A"], ["B"], ["B"], ["A", "B"]])
            changes = [
                {"seat": x, "kind": self.rng.choice(KINDS), "amount": self.rng.choice(AMOUNTS)}
                for x in target
            ]
            steps.append((seat, "lp.propose", {"changes": changes}))
            for p in s.pending:
                if p.confirmed_by is None:
                    action = self.rng.choice(["lp.confirm", "lp.confirm", "lp.reject"])
                    steps.append((other(p.by), action, {"entry": p.entry}))
                    steps.append((p.by, "lp.withdraw", {"entry": p.entry}))
            for d in s.disputes:
                if d.status == "open" and d.duel == s.duel_no:
                    # At an event table the judge settles it in one step; at a casual table the
                    # proposer withdraws or corrects it (refused at the other kind of table).
                    action = self.rng.choice(["apply", "void", "correct"])
                    settle: dict[str, Any] = {"entry": d.entry, "action": action}
                    if action == "correct":
                        settle["amount"] = self.rng.choice(AMOUNTS)
                    steps.append(("judge", "dispute.settle", settle))
                    fixed = [
                        {"seat": c.seat, "kind": c.kind, "amount": self.rng.choice(AMOUNTS)}
                        for c in d.proposal.changes
                    ]
                    steps.append(
                        (d.proposal.by, "dispute.repropose", {"entry": d.entry, "changes": fixed})
                    )
                    steps.append((d.proposal.by, "dispute.withdraw", {"entry": d.entry}))
            steps.append((s.turn.player, "turn.end", {"turn": s.turn.no}))
            steps.append((s.turn.player, "turn.end", {"turn": s.turn.no}))
            steps.append((seat, "coin.toss", {"count": 2}))
            steps.append((seat, "counter.change", {"name": "C", "delta": 1}))
        if s.phase == "duel_result":
            steps += [(seat, "result.confirm", {}) for seat in SEATS]
        if s.phase == "between":
            for seat in SEATS:
                deck = s.decks[seat]
                if not deck.checked:
                    steps.append((seat, "deck.check", {"ok": self.rng.random() < 0.8}))
                else:
                    steps.append((seat, "side.exchange", {"main": {"in": 1, "out": 1}}))
                    steps.append((seat, "between.ready", {}))
        for seat in SEATS:
            if s.decks[seat].check_failed:
                steps.append(("judge", "deck.clear", {"seat": seat, "note": "found"}))
                steps += [(x, "deck.fix", {"seat": seat}) for x in SEATS]
        if s.phase == "match_result":
            steps += [(seat, "match.confirm", {}) for seat in SEATS]
        if s.phase == "match_over":
            steps += [(seat, "match.new", {}) for seat in SEATS]
        return steps

    def step(self, data: st.DataObject) -> None:
        steps = self.next_steps()
        if not steps:
            return
        who, cmd, args = data.draw(st.sampled_from(steps))
        if data.draw(st.integers(0, 9)) == 0:  # the wrong phone sends it
            who = other(who) if who in SEATS else "A"
        self.run(who, cmd, args)

    @rule(data=st.data())
    def play(self, data: st.DataObject) -> None:
        self.step(data)

    @rule(data=st.data())
    def play_on(self, data: st.DataObject) -> None:
        self.step(data)

    @rule(data=st.data())
    def play_more(self, data: st.DataObject) -> None:
        self.step(data)

    @precondition(lambda self: self.state.phase == "duel" and not self.state.time.called)
    @rule()
    def time_runs_out_in_the_duel(self) -> None:
        """The round clock runs out during a duel (R5.1)."""
        if self.state.clock.status == "idle":
            self.run("judge", "clock.start", {})
        deadline = self.state.clock.deadline_ms
        if deadline is not None:
            self.now = max(self.now, deadline)
            self.run("system", "tick", {})

    @precondition(lambda self: self.state.phase == "duel" and self.state.time.called)
    @rule()
    def settle_and_end_turn(self) -> None:
        """After time: the disputes of the duel are settled (voided by the judge, withdrawn at a
        casual table), the players confirm what is pending, then the turn player ends the turn
        (so the time-over decisions are reached often)."""
        for d in self.state.disputes:
            if d.status == "open" and d.duel == self.state.duel_no:
                if self.state.ruleset.staff_start:
                    self.run("judge", "dispute.settle", {"entry": d.entry, "action": "void"})
                else:
                    self.run(d.proposal.by, "dispute.withdraw", {"entry": d.entry})
        for p in self.state.pending:
            if p.confirmed_by is None:
                self.run(other(p.by), "lp.confirm", {"entry": p.entry})
        turn = self.state.turn
        if self.state.phase == "duel" and turn is not None:
            self.run(turn.player, "turn.end", {"turn": turn.no})

    @precondition(lambda self: self.state.phase == "duel")
    @rule(first=st.sampled_from(SEATS), amount=st.sampled_from(AMOUNTS))
    def dispute_behind(self, first: str, amount: int) -> None:
        """The issue's shape: one seat proposes, the other proposes and has it confirmed, then
        rejects the earlier entry; the random play then settles it (or not) in any way."""
        second = other(first)
        entries = []
        for by in (first, second):
            change = [{"seat": other(by), "kind": "damage", "amount": amount}]
            before = self.state.next_entry
            self.run(by, "lp.propose", {"changes": change})
            entries.append(before if self.state.next_entry > before else None)
        e1, e2 = entries
        if e2 is not None:
            self.run(first, "lp.confirm", {"entry": e2})
        if e1 is not None:
            self.run(second, "lp.reject", {"entry": e1, "reason": "no"})

    @rule(
        who=WHO,
        cmd=st.sampled_from(sorted(COMMANDS) + ["no.such"]),
        args=st.dictionaries(ARG_NAMES, JUNK, max_size=4),
    )
    def any_command(self, who: str, cmd: str, args: dict[str, Any]) -> None:
        """Anything at all, with junk arguments."""
        self.run(who, cmd, args)

    @rule(
        cmd=st.sampled_from(
            [
                ("clock.start", {}),
                ("clock.pause", {}),
                ("clock.resume", {}),
                ("clock.extend", {"minutes": 1}),
                ("lp.correct", {"changes": [{"seat": "A", "kind": "damage", "amount": 3000}]}),
                ("penalty.record", {"seat": "A", "level": "warning", "infraction": "other"}),
                ("penalty.record", {"seat": "B", "level": "duel_loss", "infraction": "other"}),
                ("penalty.record", {"seat": "A", "level": "match_loss", "infraction": "other"}),
                ("result.set", {"winner": "A"}),
                ("result.set", {"winner": None}),
                ("result.set", {"match_winner": "B"}),
                ("dispute.settle", {"entry": 1, "action": "apply"}),
                ("roll.void", {"roll": 1}),
            ]
        )
    )
    def judge(self, cmd: tuple[str, dict[str, Any]]) -> None:
        self.run("judge", *cmd)

    @precondition(lambda self: self.state.clock.status == "idle")
    @rule()
    def start_clock(self) -> None:
        self.run("judge", "clock.start", {})

    @rule(ms=st.sampled_from([0, SEC, 30 * SEC, 3 * MIN, 10 * MIN, 41 * MIN]))
    def tick(self, ms: int) -> None:
        self.now += ms
        self.run("system", "tick", {})

    # --- invariants --------------------------------------------------------------------------

    def teardown(self) -> None:
        """Replaying the whole log gives the state (checked once per run: it is the slow one)."""
        assert replay(self.log) == self.state
        if self.time_decisions:
            hypothesis.event("a time-over decision")
        if self.held_seen:
            hypothesis.event("an entry confirmed behind a dispute")

    @invariant()
    def wins_never_exceed_two(self) -> None:
        s = self.state
        assert all(0 <= w <= s.ruleset.wins_needed for w in s.wins.values())
        assert sum(1 for d in s.duels if d.winner and not d.extra) == sum(s.wins.values())

    @invariant()
    def at_most_three_duels_before_the_extra_duel(self) -> None:
        """R3.1, R3.3: duels of a match that are not the Extra Duel number three at most."""
        s = self.state
        assert sum(1 for d in s.duels if not d.extra) <= s.ruleset.max_duels
        if s.phase in ("pregame", "duel", "duel_result") and not s.extra_duel:
            assert s.duel_no <= s.ruleset.max_duels

    @invariant()
    def lp_never_negative(self) -> None:
        assert all(lp >= 0 for lp in self.state.lp.values())

    @invariant()
    def declared_counts_in_range(self) -> None:
        for deck in self.state.decks.values():
            for counts in (deck.registered, deck.current):
                if counts is not None:
                    assert 40 <= counts.main <= 60
                    assert 0 <= counts.extra <= 15
                    assert 0 <= counts.side <= 15

    @invariant()
    def views_show_no_other_seats_pick(self) -> None:
        picks = self.state.pregame.picks
        for seat in ("A", "B", None):
            seen = view(self.state, seat)
            assert seen["pregame"]["my_pick"] == (picks[seat] if seat else None)

    @invariant()
    def view_parts_read_only_what_they_name(self) -> None:
        check_reads(self.state)  # tests/test_view_parts.py

    @invariant()
    def unknown_events_change_nothing(self) -> None:
        junk = Event("no.such.event", {"x": 1}, self.now, Actor("system"))
        assert apply(self.state, junk) is self.state

    @invariant()
    def tick_twice_writes_nothing_the_second_time(self) -> None:
        s = self.state
        try:
            first = decide(s, "tick", {}, Actor("system"), self.now, self.rng.randrange)
        except RuleError:
            return
        after = replay(first, s)
        assert decide(after, "tick", {}, Actor("system"), self.now, self.rng.randrange) == []


TableMachine.TestCase.settings = settings(
    max_examples=200,
    stateful_step_count=50,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
)
TestTableMachine = TableMachine.TestCase
