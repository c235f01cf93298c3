"""Best-of-three match flow (R2, R3, R6, R7); the time-over procedure (R5) is `time_over.py`.

Phases: registration -> pregame -> duel -> duel_result -> between -> pregame -> ... ->
match_result -> match_over. Every step that decides something is confirmed by both seats
(R7.4); a judge may decide any of them at once."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from . import time_over, twokey
from .args import (
    MAX_INT,
    NONE,
    Args,
    Bool,
    Choice,
    Int,
    List,
    Map,
    Note,
    Object,
    Seat,
    Text,
    spec,
)
from .base import (
    JUDGES,
    SEAT,
    SEATS,
    Event,
    RuleError,
    SheetLine,
    Tx,
    Words,
    command,
    handler,
    other,
    require,
    row,
    whole,
)
from .decklist import SIZE
from .duel_end import casual, close_duel, decide_match
from .ledger import first_unsettled, open_disputes, unsettled
from .registration import (
    after_exchange,
    by_card,
    decks_confirmed,
    exchange_by_card,
    open_registration,
    revert,
    wait_for_round,
)
from .ruleset import DRAW, EXTRA_DUEL
from .state import (
    BETWEEN,
    CHECK_ITEMS,
    DUEL,
    DUEL_RESULT,
    MATCH_OVER,
    MATCH_RESULT,
    PREGAME,
    REGISTRATION,
    Counts,
    Deck,
    DuelRecord,
    MatchResult,
    PendingResult,
    Pregame,
    TableState,
    TimeOver,
    Turn,
    Window,
    per_seat,
    put,
    renew,
)
from .twokey import (
    BOTH,
    DECK,
    DECK_FIX,
    MATCH,
    NEW_MATCH,
    NOBODY,
    RESULT,
    RPS,
    Offer,
    alone,
    said_yes,
)

COUNT_RULES = {  # R2.1-R2.3, the sizes themselves in `decklist.SIZE`
    part: (*SIZE[part], f"{rule}: the {part} deck holds {SIZE[part][0]} to {SIZE[part][1]} cards.")
    for part, rule in (("main", "R2.1"), ("extra", "R2.2"), ("side", "R2.3"))
}
HANDS = ("rock", "paper", "scissors")
# What the phones' forms offer, said by the rules so no screen keeps a copy: the deck sizes
# (R2.1-R2.3; a side exchange moves at most a side deck's worth, R6.8), the pregame checklist
# (R6.1-R6.4) and the hands of rock-paper-scissors (R6.5).
FORMS: dict[str, Any] = {
    "deck_sizes": {part: list(size) for part, size in SIZE.items()},
    "checklist": list(CHECK_ITEMS),
    "hands": list(HANDS),
}
DOUBLE_LOSS = "double_loss"  # a judge's match result where both players lose (a double no-show)
BEATS = {"rock": "scissors", "paper": "rock", "scissors": "paper"}


def validate_counts(args: Mapping[str, Any]) -> Counts:
    """Deck counts within R2.1-R2.3, or a refusal that quotes the rule."""
    values: dict[str, int] = {}
    for deck, (low, high, rule) in COUNT_RULES.items():
        n = whole(
            args.get(deck),
            "invalid_count",
            f"The {deck} deck count must be a whole number.",
            deck=deck,
        )
        require(low <= n <= high, "deck_size", rule, deck=deck, count=n, min=low, max=high)
        values[deck] = n
    return Counts(**values)


def _phase(tx: Tx, *phases: str, message: str) -> None:
    require(tx.state.phase in phases, "wrong_phase", message, phase=tx.state.phase)


# --- registration (R2.1-R2.3, R2.7, R2.8, R6.2) -------------------------------------------


@command(
    "deck.declare",
    SEAT,
    spec(
        main=Int(0, MAX_INT, required=True),
        extra=Int(0, MAX_INT, required=True),
        side=Int(0, MAX_INT, required=True),
    ),
    {"main": 40, "extra": 15, "side": 15},
)
@row("S", '`{"main": 40, "extra": 15, "side": 15}`', "declare own counts (R2.1-R2.3)")
def declare(tx: Tx, args: Mapping[str, Any]) -> None:
    """Declare the seat's deck counts for the match."""
    seat = tx.seat
    open_registration(tx, "Deck counts are declared before the first duel (R2.8).")
    counts = validate_counts(args)
    tx.emit("deck.declared", seat=seat, counts=counts.to_dict())


@command("deck.confirm", SEAT, spec(seat=Seat(required=True)), {"seat": "A"})
@row("S (the other seat)", '`{"seat": "A"}`', "confirm the opponent's declaration (R6.2)")
def confirm_deck(tx: Tx, args: Mapping[str, Any]) -> None:
    """Confirm the opponent's declaration: their side deck was shown (R6.2)."""
    seat = tx.seat
    open_registration(tx, "Declarations are confirmed before the first duel.")
    target = args.get("seat", other(seat))
    # The command names the declaration it answers by its seat; anything but the opponent's
    # is refused as one's own.
    deck = tx.state.decks[target] if target in SEATS else None
    declared = deck if deck is not None and deck.registered is not None else None
    twokey.confirm(DECK, declared, seat, to=target if target in SEATS else seat)
    tx.emit("deck.confirmed", seat=target, by=seat)
    if tx.state.phase == REGISTRATION and decks_confirmed(tx.state):
        tx.emit("pregame.opened", duel=tx.state.duel_no, chooser=None)


# --- before each duel (R6.1-R6.7) ---------------------------------------------------------


@command(
    "pregame.check",
    SEAT,
    spec(items=List(Choice(*CHECK_ITEMS), max_len=4)),
    {"items": ["handshake", "side_shown", "shuffled", "cut"]},
)
@row(
    "S",
    '`{"items": ["handshake", "side_shown", "shuffled", "cut"]}`',
    "tick own checklist items (R6.1-R6.4)",
)
def check(tx: Tx, args: Mapping[str, Any]) -> None:
    """Tick checklist items: handshake, side deck shown, deck shuffled, opponent cut."""
    seat = tx.seat
    _phase(tx, PREGAME, message="The checklist comes before the duel.")
    items = args.get("items") or list(CHECK_ITEMS)
    require(
        isinstance(items, list) and all(i in CHECK_ITEMS for i in items),
        "invalid",
        "Unknown checklist item.",
        allowed=list(CHECK_ITEMS),
    )
    new = sorted(set(items) - tx.state.pregame.checks[seat])
    require(bool(new), "already_done", "Those items are already ticked.")
    tx.emit("pregame.checked", seat=seat, items=new)


def _need_rps(tx: Tx) -> None:
    _phase(tx, PREGAME, message="Rock-paper-scissors is played before the duel.")
    wait_for_round(tx)
    require(
        tx.state.pregame.chooser is None,
        "not_needed",
        "No rock-paper-scissors now: the chooser is known (R6.6).",
    )


@command(
    "rps.pick",
    SEAT,
    spec(hand=Choice("rock", "paper", "scissors", required=True)),
    {"hand": "rock"},
)
@row(
    "S",
    '`{"hand": "rock"\\|"paper"\\|"scissors"}`',
    "secret pick; both revealed together; a tie throws again",
)
def rps_pick(tx: Tx, args: Mapping[str, Any]) -> None:
    """A secret pick; both are revealed together; a tie is thrown again (R6.5)."""
    seat = tx.seat
    _need_rps(tx)
    hand = args.get("hand")
    require(hand in HANDS, "invalid", "Pick rock, paper or scissors.")
    require(tx.state.pregame.picks[seat] is None, "already_picked", "You already picked.")
    tx.emit("rps.picked", seat=seat, hand=hand)
    picks = tx.state.pregame.picks
    if picks["A"] and picks["B"]:
        a, b = picks["A"], picks["B"]
        winner = None if a == b else ("A" if BEATS[a] == b else "B")
        tx.emit("rps.thrown", A=a, B=b, winner=winner)
        if winner:
            tx.emit("rps.decided", winner=winner, how="app")


@command("rps.report", SEAT, spec(winner=Seat(required=True)), {"winner": "A"})
@row("S", '`{"winner": "A"}`', "enter a physical rock-paper-scissors result")
def rps_report(tx: Tx, args: Mapping[str, Any]) -> None:
    """Enter the result of a physical rock-paper-scissors; the opponent confirms it."""
    seat = tx.seat
    _need_rps(tx)
    winner = args.get("winner")
    require(winner in SEATS, "unknown_seat", "The winner must be seat A or B.")
    twokey.propose(RPS, seat)  # either seat; a new report replaces the one waiting
    tx.emit("rps.reported", by=seat, winner=winner)


@command("rps.confirm", SEAT, NONE, {})
@row("S (the other seat)", "`{}`", "confirm the reported result")
def rps_confirm(tx: Tx, args: Mapping[str, Any]) -> None:
    """The other seat confirms a reported rock-paper-scissors result."""
    seat = tx.seat
    _need_rps(tx)
    report = tx.state.pregame.report
    twokey.confirm(RPS, report, seat)
    assert report is not None
    tx.emit("rps.decided", winner=report.value, how="reported")


@command(
    "duel.choose", SEAT, spec(order=Choice("first", "second", required=True)), {"order": "first"}
)
@row(
    "S (the chooser)",
    '`{"order": "first"\\|"second"}`',
    "choose to go first or second (R6.5, R6.6)",
)
def choose(tx: Tx, args: Mapping[str, Any]) -> None:
    """The chooser goes first or second (R6.5; from duel 2 the previous loser, R6.6)."""
    seat = tx.seat
    _phase(tx, PREGAME, message="First or second is chosen before the duel.")
    wait_for_round(tx)
    pg = tx.state.pregame
    require(pg.chooser is not None, "not_decided", "Play rock-paper-scissors first.")
    require(pg.chooser == seat, "not_your_choice", "The other player chooses (R6.5, R6.6).")
    require(pg.first is None, "already_chosen", "The choice is made and locked (R6.6).")
    order = args.get("order")
    require(order in ("first", "second"), "invalid", "Choose 'first' or 'second'.")
    tx.emit("duel.chosen", seat=seat, order=order, first=seat if order == "first" else other(seat))


@command("duel.draw", SEAT, NONE, {})
@row("S", "`{}`", '"drawn 5 cards": when both have, the duel starts (R6.6, R6.7)')
def draw(tx: Tx, args: Mapping[str, Any]) -> None:
    """'I have drawn 5': when both seats have, the duel starts with the first player (R6.7)."""
    seat = tx.seat
    _phase(tx, PREGAME, message="Cards are drawn before the duel starts.")
    wait_for_round(tx)
    pg = tx.state.pregame
    require(pg.first is not None, "not_chosen", "First or second is chosen before drawing (R6.6).")
    require(
        pg.checks[seat] >= set(CHECK_ITEMS),
        "checklist",
        "Finish the checklist first (R6.1-R6.4).",
        missing=sorted(set(CHECK_ITEMS) - pg.checks[seat]),
    )
    require(not pg.drawn[seat], "already_done", "Already drawn.")
    tx.emit("duel.drawn", seat=seat)
    if all(tx.state.pregame.drawn.values()):
        tx.emit("duel.started", duel=tx.state.duel_no, first=pg.first, extra=tx.state.extra_duel)
        start_clock_with_duel(tx)
        tx.emit("turn.started", no=1, player=pg.first)


def start_clock_with_duel(tx: Tx) -> None:
    """R4.1 (reading): a casual table's match clock starts with its first duel, as an event's
    starts with the round: both players' "drawn 5" is the two-key step that starts it (and a
    clock both seats started earlier, or a judge's, runs on)."""
    s = tx.state
    if casual(s) and s.clock.status == "idle":
        tx.emit("clock.started", duration_ms=s.clock.duration_ms or s.ruleset.match_ms)


# --- during the duel ----------------------------------------------------------------------


@command("turn.end", SEAT, spec(turn=Int(0, MAX_INT, required=True)), {"turn": 1})
@row("S (turn player)", '`{"turn": 3}`', "end the turn (`turn` must be the current one)")
def end_turn(tx: Tx, args: Mapping[str, Any]) -> None:
    """The turn player ends the turn; counts extra turns after time (R5.1)."""
    seat = tx.seat
    _phase(tx, DUEL, message="There is no turn to end outside a duel.")
    turn = tx.state.turn
    assert turn is not None
    require(turn.player == seat, "not_your_turn", "Only the turn player can end the turn.")
    expected = args.get("turn")
    require(
        expected is None or expected == turn.no,
        "stale_turn",
        "That turn has already ended.",
        turn=turn.no,
    )
    require_settled(tx)
    tx.emit("turn.ended", no=turn.no, player=seat)
    time_over.after_turn(tx, turn)
    if tx.state.phase == DUEL:
        tx.emit("turn.started", no=turn.no + 1, player=other(seat))


def require_settled(tx: Tx) -> None:
    """R5.5 (reading): a turn cannot end while an LP entry waits for confirmation or for the
    judge, so the LP that decide a duel at the end of a turn are the settled LP. Refused in
    every turn, not only at the time-over decision points: one rule the players can learn."""
    waiting, disputed = unsettled(tx.state)
    first = first_unsettled(tx.state)
    require(
        not waiting and not disputed,
        "entries_pending",
        f"Settle the LP entries of this turn first, from entry #{first}: confirm, withdraw, or "
        "let the judge decide (R5.5).",
        entries=waiting,
        disputes=disputed,
        first=first,
    )


@command("duel.concede", SEAT, NONE, {})
@row("S", "`{}`", "concede the current duel")
def concede(tx: Tx, args: Mapping[str, Any]) -> None:
    """The seat concedes the current duel."""
    seat = tx.seat
    _phase(tx, DUEL, message="You can concede only during a duel.")
    end_duel(tx, other(seat), "concede")


def end_duel(tx: Tx, winner: str | None, reason: str, final: bool = False) -> None:
    """The duel is decided (`duel_end.close_duel`); a judge's decision is final at once."""
    close_duel(tx, winner, reason)
    if final:
        finalize_duel(tx)


# --- results (R7.3, R7.4, R3.1, R3.3) -----------------------------------------------------


@command("result.confirm", SEAT, spec(duel=Int(1, MAX_INT, required=True)), {"duel": 1})
@row("S", '`{"duel": 1}`', "confirm the duel result (R7.3, R7.4)")
def confirm_result(tx: Tx, args: Mapping[str, Any]) -> None:
    """Each seat confirms the duel result; with both it is final (R7.3)."""
    seat = tx.seat
    _phase(tx, DUEL_RESULT, message="There is no duel result to confirm.")
    res = tx.state.result
    assert res is not None
    duel = args.get("duel", res.duel)
    require(duel == res.duel, "stale_result", "That is not the current duel.", duel=res.duel)
    twokey.confirm(RESULT, res, seat)
    # R7.1: an entry of this duel still under dispute waits for the judge's ruling before the
    # match moves on (a casual table's disputes end with their duel).
    disputed = [d.entry for d in open_disputes(tx.state, res.duel)]
    require(
        not disputed,
        "entries_pending",
        f"Waiting for the judge on entry #{disputed[0] if disputed else 0} (R7.1).",
        entries=[],
        disputes=disputed,
        first=disputed[0] if disputed else None,
    )
    tx.emit("result.confirmed", duel=res.duel, seat=seat)
    if twokey.agreed(tx.state.result):
        finalize_duel(tx)


@command(
    "result.dispute",
    SEAT,
    spec(duel=Int(1, MAX_INT, required=True), reason=Note()),
    {"duel": 1, "reason": "no"},
)
@row(
    "S",
    '`{"duel": 1, "reason": ""}`',
    "disagree: a judge call, whose `judge.called` names the `duel`",
)
def dispute_result(tx: Tx, args: Mapping[str, Any]) -> None:
    """Disagree with the result: a judge is called (R7.1)."""
    seat = tx.seat
    _phase(tx, DUEL_RESULT, message="There is no duel result to dispute.")
    res = tx.state.result
    twokey.reject(RESULT, res, seat)  # not once confirmed (R7.3)
    assert res is not None
    reason = str(args.get("reason") or "")
    tx.call_judge(seat, "result_disputed", reason, duel=res.duel)


def finalize_duel(tx: Tx) -> None:
    """Record the confirmed result, then move the match on."""
    res = tx.state.result
    assert res is not None
    extra = tx.state.extra_duel
    tx.emit("duel.final", duel=res.duel, winner=res.winner, reason=res.reason, extra=extra)
    s = tx.state
    if extra:  # an Extra Duel decides the match; a drawn one is played again
        if res.winner is None:
            time_over.replay_extra_duel(tx)
            tx.emit("window.opened", after_duel=res.duel)
        else:
            decide_match(tx, res.winner, "extra_duel")
        return
    leader = next((x for x in SEATS if s.wins[x] >= s.ruleset.wins_needed), None)
    if leader:
        decide_match(tx, leader, "wins")  # R3.1
    elif s.time.called:
        time_over.settle_at_time(tx)
        if tx.state.phase == DUEL_RESULT:  # an Extra Duel follows: side decking first
            tx.emit("window.opened", after_duel=res.duel)
    elif sum(1 for d in s.duels if not d.extra) >= s.ruleset.max_duels:
        time_over.settle_after_last_duel(tx)
        if tx.state.phase == DUEL_RESULT:
            tx.emit("window.opened", after_duel=res.duel)
    else:
        tx.emit("window.opened", after_duel=res.duel)  # R4.2, R6.8


def wins_after_result(s: TableState) -> dict[str, int]:
    """Each seat's wins once the duel result waiting for confirmation counts (R3.1; an Extra
    Duel's win is not a duel win, R5.2)."""
    wins = dict(s.wins)
    if s.result is not None and s.result.winner and not s.extra_duel:
        wins[s.result.winner] += 1
    return wins


def result_ends_match(s: TableState) -> bool:
    """Whether the duel result waiting for confirmation will end the match (then no
    between-duel window follows it, R4.2)."""
    res = s.result
    if res is None:
        return False
    if s.extra_duel:
        return res.winner is not None
    rules, wins = s.ruleset, wins_after_result(s)
    if max(wins.values()) >= rules.wins_needed:
        return True
    level = wins["A"] == wins["B"]
    if s.time.called:
        return (not level and rules.lead_wins_between_duels) or (
            level and rules.level_wins_at_time == DRAW
        )
    if sum(1 for d in s.duels if not d.extra) + 1 >= rules.max_duels:
        return not level or rules.level_wins_at_time != EXTRA_DUEL
    return False


def result_wins_match(s: TableState) -> bool:
    """Whether confirming the waiting duel result gives its winner the match by wins alone
    (R3.1: the wins needed reached in an ordinary duel): then the duel's winner is the match's
    and one confirmation may name both. A match ended by time (R5) or by an Extra Duel is
    settled by its own result, confirmed on its own."""
    res = s.result
    if res is None or res.winner is None or s.extra_duel or s.time.called:
        return False
    return wins_after_result(s)[res.winner] >= s.ruleset.wins_needed


@command("match.confirm", SEAT, NONE, {})
@row("S", "`{}`", "confirm the match result")
def confirm_match(tx: Tx, args: Mapping[str, Any]) -> None:
    """Each seat confirms the match result."""
    seat = tx.seat
    _phase(tx, MATCH_RESULT, message="There is no match result to confirm.")
    twokey.confirm(MATCH, tx.state.match, seat)
    tx.emit("match.confirmed", seat=seat)


@command("match.new", SEAT, NONE, {})
@row(
    "S",
    "`{}`",
    "both seats: start a new match at this table (R2.7); refused at an event table (`event_table`)",
)
def new_match(tx: Tx, args: Mapping[str, Any]) -> None:
    """Both seats agree to play a new match at this table; decks revert to registration (R2.7).
    Not at an event table: its one match is the round's, recorded for the standings; a judge's
    correction, with a note, is the only way to change it."""
    seat = tx.seat
    require(
        not tx.state.ruleset.staff_start,
        "event_table",
        "An event table plays its round's match only; a judge corrects a recorded result.",
    )
    _phase(tx, MATCH_OVER, message="The current match is not over.")
    twokey.vote(NEW_MATCH, tx.state.new_match, seat)
    _require_no_failed_check(tx)
    tx.emit("match.new_voted", seat=seat)
    if twokey.agreed(tx.state.new_match):
        tx.emit("match.started", match=tx.state.match_no + 1)


# --- after each duel and between duels (R7.5, R6.8, R4.2) ---------------------------------


@command("deck.check", SEAT, spec(ok=Bool(required=True), note=Note()), {"ok": True, "note": ""})
@row(
    "S",
    '`{"ok": true, "note": ""}`',
    "after a duel: my deck holds its registered counts (R7.5); `ok: false` calls a judge (the "
    "call's `deck` names the seat)",
)
def deck_check(tx: Tx, args: Mapping[str, Any]) -> None:
    """After a duel each player confirms the deck holds its registered counts (R7.5)."""
    seat = tx.seat
    _phase(tx, DUEL_RESULT, BETWEEN, MATCH_RESULT, message="Decks are checked after a duel.")
    require(not tx.state.decks[seat].checked, "already_done", "Already checked.")
    ok = args.get("ok", True) is True
    note = str(args.get("note") or "")
    tx.emit("deck.checked", seat=seat, ok=ok, note=note)
    if not ok:
        tx.call_judge(seat, "deck_problem", note, deck=seat)


def _failed_deck(tx: Tx, args: Mapping[str, Any]) -> str:
    seat = args.get("seat")
    require(seat in SEATS, "unknown_seat", "The seat must be A or B.")
    require(
        tx.state.decks[str(seat)].check_failed,
        "not_failed",
        "That seat's deck check has not failed.",
    )
    return str(seat)


@command(
    "deck.clear", JUDGES, spec(seat=Seat(required=True), note=Note()), {"seat": "A", "note": ""}
)
@row(
    "J",
    '`{"seat": "B", "note": ""}`',
    "clear a seat's failed deck check (R7.5); `not_failed` if none; closes the call the failed "
    "check made (its `deck`)",
)
def deck_clear(tx: Tx, args: Mapping[str, Any]) -> None:
    """A judge clears a seat's failed deck check (R7.5 reading): the table may go on, and the
    call the failed check made is answered."""
    seat = _failed_deck(tx, args)
    note = str(args.get("note") or "")
    tx.emit("deck.cleared", seat=seat, note=note, judge=tx.actor.name)
    tx.close_calls("deck_cleared", lambda c: c.deck == seat, note)


@command("deck.fix", SEAT, spec(seat=Seat(required=True)), {"seat": "A"})
@row(
    "S (both)",
    '`{"seat": "B"}`',
    "a casual table's failed deck check: each seat says it is fixed; the second yes clears it "
    "(R7.5, `twokey.DECK_FIX`); `judge_settles` at an event table, `not_failed` if the check "
    "has not failed",
)
def deck_fix(tx: Tx, args: Mapping[str, Any]) -> None:
    """At a casual table (no judge) both seats say a failed deck check is fixed (R7.5, R7.4):
    the first says so, the other confirms, and the table goes on. At an event a judge clears
    it (`deck.clear`)."""
    seat = _failed_deck(tx, args)
    require(
        casual(tx.state), "judge_settles", "A judge clears a failed deck check at an event (R7.5)."
    )
    twokey.vote(DECK_FIX, tx.state.decks[seat].fix, tx.seat)
    tx.emit("deck.fix_voted", seat=seat, by=tx.seat)
    if twokey.agreed(tx.state.decks[seat].fix):
        tx.emit("deck.cleared", seat=seat, note="", judge="")
        tx.close_calls("deck_fixed", lambda c: c.deck == seat)


def _require_no_failed_check(tx: Tx) -> None:
    failed = [k for k, d in tx.state.decks.items() if d.check_failed]
    require(
        not failed,
        "deck_check_failed",
        "A failed deck check waits for a judge (R7.5).",
        seats=failed,
    )


# A side-deck exchange by count ({in, out}), or by card ({card name: copies}).
IN_OUT = Args({"in": Int(0, MAX_INT, default=0), "out": Int(0, MAX_INT, default=0)})
CARD_MOVES = Map(Text(80, 1), Int(1, 60), max_len=40)


@command(
    "side.exchange",
    SEAT,
    spec(
        main=Object(IN_OUT),
        extra=Object(IN_OUT),
        main_in=CARD_MOVES,
        main_out=CARD_MOVES,
        extra_in=CARD_MOVES,
        extra_out=CARD_MOVES,
    ),
    {"main": {"in": 1, "out": 1}, "extra": {"in": 0, "out": 0}},
)
@row(
    "S",
    '`{"main": {"in": 2, "out": 2}, "extra": {"in": 0, "out": 0}}`; with a registered list by '
    'card: `{"main_in": {"Mirror Force": 2}, "main_out": {"Kuriboh": 2}, "extra_in": {}, '
    '"extra_out": {}}`',
    "record side decking (R6.8); counts must stay equal. By card, names match the registered "
    "spelling (NFKC, case-folded) and only registered cards move (R2.6: `not_in_side`, "
    "`not_in_deck`, `count_changed`); a list-registered seat must name cards (`by_card`); by "
    "card without a list: `no_list`",
)
def side_exchange(tx: Tx, args: Mapping[str, Any]) -> None:
    """Record a side-deck exchange; each deck's count must stay the same (R6.8). With a
    registered list the cards are named (R2.6); otherwise only their numbers are given."""
    seat = tx.seat
    _phase(tx, BETWEEN, message="Side decking happens between duels (R6.8, R2.8).")
    deck = tx.state.decks[seat]
    if by_card(args):
        exchange_by_card(tx, seat, args)
        return
    require(
        deck.cards is None,
        "by_card",
        "Your deck list is registered: name the cards you exchange (R2.6).",
    )
    current = deck.current or deck.registered
    require(current is not None, "not_declared", "Declare your deck counts first.")
    assert current is not None
    moves = {}
    for part in ("main", "extra"):
        raw = args.get(part) or {}
        require(isinstance(raw, Mapping), "invalid", "Give {'in': n, 'out': n}.", deck=part)
        n_in, n_out = raw.get("in", 0), raw.get("out", 0)
        for n in (n_in, n_out):
            require(
                isinstance(n, int) and not isinstance(n, bool) and 0 <= n <= 60,
                "invalid_count",
                "Card numbers are whole numbers from 0 to 60.",
                deck=part,
            )
        require(
            n_in == n_out,
            "count_changed",
            f"R6.8: the {part} deck must keep {getattr(current, part)} cards; this exchange "
            f"changes it by {n_in - n_out:+d}.",
            deck=part,
            by=n_in - n_out,
        )
        require(
            n_out <= getattr(current, part),
            "invalid_count",
            f"Your {part} deck has only {getattr(current, part)} cards.",
            deck=part,
        )
        moves[part] = {"in": n_in, "out": n_out}
    total_in = moves["main"]["in"] + moves["extra"]["in"]
    require(
        total_in <= current.side,
        "invalid_count",
        f"Your side deck has only {current.side} cards.",
        deck="side",
    )
    require(total_in > 0, "invalid", "The exchange moves no card.")
    tx.emit("side.exchanged", seat=seat, **moves)


@command("between.ready", SEAT, NONE, {})
@row("S", "`{}`", "ready for the next duel")
def ready(tx: Tx, args: Mapping[str, Any]) -> None:
    """Ready for the next duel; when both are, its checklist begins."""
    seat = tx.seat
    _phase(tx, BETWEEN, message="Nothing to get ready for now.")
    deck = tx.state.decks[seat]
    require(
        decks_confirmed(tx.state), "not_declared", "Both decks are declared and confirmed first."
    )
    require(deck.checked, "deck_not_checked", "Check your deck's counts first (R7.5).")
    require(
        not deck.check_failed,
        "deck_check_failed",
        "Your deck check failed: a judge clears it before the next duel (R7.5).",
    )
    require(not deck.ready, "already_done", "Already ready.")
    tx.emit("between.ready", seat=seat)
    if all(d.ready for d in tx.state.decks.values()):
        last = tx.state.duels[-1] if tx.state.duels else None
        chooser = None
        if last and last.winner and not tx.state.extra_duel:
            chooser = other(last.winner)  # R6.6: the loser of the previous duel chooses
        tx.emit("pregame.opened", duel=tx.state.duel_no, chooser=chooser)


# --- judges' decisions --------------------------------------------------------------------


def _one_kind(a: Mapping[str, Any]) -> tuple[str, str] | None:
    """A duel's result (`duel`, `winner`) or the match's (`match_winner`), not both."""
    duel_form = "duel" in a or "winner" in a
    if duel_form == ("match_winner" in a):
        return "winner", "Give duel and winner, or match_winner."
    if duel_form and "winner" not in a:
        return "winner", "Missing data for required field."
    return None


@command(
    "result.set",
    JUDGES,
    spec(
        check=_one_kind,
        duel=Int(1, MAX_INT),
        winner=Seat(allow_none=True),
        match_winner=Seat(allow_none=True),
        double_loss=Bool(),
        correct=Bool(),
        note=Note(),
    ),
    {"duel": 1, "winner": "A", "note": ""},
)
@row(
    "J",
    '`{"duel": 2, "winner": "A"\\|null, "note": ""}` or `{"match_winner": "A"\\|null, '
    '"double_loss"?: bool, "correct"?: bool}`',
    "correct or settle a result, the current duel's also before it begins or between duels "
    "(`double_loss`: both lose, reason `double_loss`; `correct`: change a match already over; "
    "`note`: the ruling's words, on the calls it closes and on `match.decided`)",
)
def set_result(tx: Tx, args: Mapping[str, Any]) -> None:
    """A judge decides the current duel's or the match's result."""
    s = tx.state
    if "match_winner" in args:
        winner = args["match_winner"]
        require(winner in (*SEATS, None), "unknown_seat", "The winner must be A, B or none.")
        both = bool(args.get("double_loss"))
        require(not (both and winner), "invalid", "A double loss has no winner.")
        require(
            s.phase != MATCH_OVER or bool(args.get("correct")),
            "wrong_phase",
            "The match is already over: a judge corrects its result instead.",
        )
        note = str(args.get("note") or "")
        decide_match(tx, winner, DOUBLE_LOSS if both else "judge", final=True, note=note)
        return
    winner = args.get("winner")
    require(winner in (*SEATS, None), "unknown_seat", "The winner must be A, B or none.")
    duel = args.get("duel", s.duel_no)
    require(s.phase != MATCH_OVER, "wrong_phase", "The match is already over.")
    require(s.phase != MATCH_RESULT, "wrong_phase", "The match is decided: set its result.")
    require(
        duel == s.duel_no, "stale_result", "Only the current duel can be decided.", duel=s.duel_no
    )
    if s.phase == DUEL:
        end_duel(tx, winner, "judge", final=True)
    else:
        # A result waiting for confirmation, or a duel not begun (between duels, before its
        # rock-paper-scissors): the judge's ruling decides it, as a duel-loss penalty would.
        tx.emit("duel.ended", duel=s.duel_no, winner=winner, reason="judge")
        finalize_duel(tx)
    # The ruling answers the calls that disputed this duel's result (by their `duel`).
    tx.close_calls(
        "result_set", lambda c: c.duel == duel and c.entry is None, str(args.get("note") or "")
    )


def forfeit_duel(tx: Tx, seat: str) -> None:
    """A duel-loss penalty: the current duel is lost; between duels, the next one (PENALTIES)."""
    s = tx.state
    if s.phase == DUEL:
        end_duel(tx, other(seat), "penalty", final=True)
    elif s.phase == DUEL_RESULT:
        tx.emit("duel.ended", duel=s.duel_no, winner=other(seat), reason="penalty")
        finalize_duel(tx)
    elif s.phase in (REGISTRATION, PREGAME, BETWEEN):
        tx.emit("duel.ended", duel=s.duel_no, winner=other(seat), reason="penalty")
        finalize_duel(tx)
    else:
        raise RuleError("wrong_phase", "The match is over; record a match loss instead.")


# --- handlers ----------------------------------------------------------------------------


@handler(
    "deck.declared",
    {"seat": "seat", "counts": "object"},
    words=Words(params={"main": "counts.main", "extra": "counts.extra", "side": "counts.side"}),
    sheet=SheetLine(step="deck_counts"),
)
def _declared(s: TableState, e: Event) -> TableState:
    counts = Counts(**e.data["counts"])
    seat = e.data["seat"]
    deck = Deck(registered=counts, current=counts, by=seat, yes=alone(seat))
    return s.evolve(decks=put(s.decks, e.data["seat"], deck))


@handler(
    "deck.confirmed", {"seat": "seat", "by": "seat"}, words=Words(params={"by": ("who", "by")})
)
def _deck_confirmed(s: TableState, e: Event) -> TableState:
    seat = e.data["seat"]
    deck = s.decks[seat]
    return s.evolve(decks=put(s.decks, seat, renew(deck, yes=said_yes(deck, other(seat)))))


@handler("pregame.opened", {"duel": "int", "chooser": "seat?"}, sheet=SheetLine(step="duel"))
def _pregame(s: TableState, e: Event) -> TableState:
    decks = {k: renew(d, checked=False, ready=False, check_note="") for k, d in s.decks.items()}
    return s.evolve(phase=PREGAME, pregame=Pregame(chooser=e.data["chooser"]), decks=decks)


@handler(
    "pregame.checked",
    {"seat": "seat", "items": "list"},
    words=Words(params={"n": ("count", "items")}),
)
def _checked(s: TableState, e: Event) -> TableState:
    seat = e.data["seat"]
    checks = put(s.pregame.checks, seat, s.pregame.checks[seat] | set(e.data["items"]))
    return s.evolve(pregame=replace(s.pregame, checks=checks))


@handler(
    "rps.picked",
    {"seat": "seat", "hand": "str"},
    secret=("hand",),
    words=Words(
        params={"hand": ("key", "hand", "rps.")}, variants=(("hand", "*", "event.rps.picked_hand"),)
    ),
)
def _picked(s: TableState, e: Event) -> TableState:
    picks = put(s.pregame.picks, e.data["seat"], e.data["hand"])
    return s.evolve(pregame=replace(s.pregame, picks=picks))


@handler(
    "rps.thrown",
    {"A": "str", "B": "str", "winner": "seat?"},
    words=Words(params={"A": ("key", "A", "rps."), "B": ("key", "B", "rps.")}),
)
def _thrown(s: TableState, e: Event) -> TableState:
    throw = {"A": e.data["A"], "B": e.data["B"]}
    pg = replace(s.pregame, picks=per_seat(None), throws=s.pregame.throws + (throw,))
    return s.evolve(pregame=pg)


@handler(
    "rps.reported", {"winner": "seat", "by": "seat"}, words=Words(params={"by": ("who", "by")})
)
def _reported(s: TableState, e: Event) -> TableState:
    by = e.data["by"]
    report = Offer(RPS.what, by, e.at_ms, alone(by), e.data["winner"])
    return s.evolve(pregame=replace(s.pregame, report=report))


@handler(
    "rps.decided",
    {"winner": "seat", "how": "str"},
    words=Words(code="event.rps.decided_reported", variants=(("how", "app", "event.rps.decided"),)),
    sheet=SheetLine(step="duel"),
)
def _rps_decided(s: TableState, e: Event) -> TableState:
    w = e.data["winner"]
    return s.evolve(pregame=replace(s.pregame, rps_winner=w, chooser=w, report=None))


@handler(
    "duel.chosen",
    {"seat": "seat", "order": "str", "first": "seat"},
    words=Words(
        code="event.duel.chosen.first", variants=(("order", "second", "event.duel.chosen.second"),)
    ),
    sheet=SheetLine(step="duel"),
)
def _chosen(s: TableState, e: Event) -> TableState:
    return s.evolve(pregame=replace(s.pregame, first=e.data["first"]))


@handler("duel.drawn", {"seat": "seat"})
def _drawn(s: TableState, e: Event) -> TableState:
    drawn = put(s.pregame.drawn, e.data["seat"], True)
    return s.evolve(pregame=replace(s.pregame, drawn=drawn))


@handler(
    "duel.started",
    {"duel": "int", "first": "seat", "extra": "bool"},
    words=Words(variants=(("extra", "*", "event.duel.started.extra"),)),
    sheet=SheetLine(step="duel"),
)
def _started(s: TableState, e: Event) -> TableState:
    start = s.ruleset.starting_lp  # R3.2; the Extra Duel too (R5.2.1)
    return s.evolve(
        phase=DUEL,
        lp=per_seat(start),
        pending=(),
        result=None,
        window=None,
        counters=per_seat({}),
        tokens=per_seat(0),
    )


@handler("turn.started", {"player": "seat", "no": "int"})
def _turn_started(s: TableState, e: Event) -> TableState:
    return s.evolve(turn=Turn(e.data["no"], e.data["player"], e.at_ms))


@handler("turn.ended", {"player": "seat", "no": "int"})
def _turn_ended(s: TableState, e: Event) -> TableState:
    return s


@handler(
    "duel.ended",
    {"duel": "int", "winner": "str?", "reason": "str"},
    words=Words(
        params={"reason": ("key?", "reason", "sheet.reason.")},
        variants=(("winner", None, "event.duel.ended.draw"),),
    ),
    sheet=SheetLine(step="result"),
)
def _ended(s: TableState, e: Event) -> TableState:
    res = PendingResult(e.data["duel"], e.data["winner"], e.data["reason"])
    window = s.window
    if window is None or window.after_duel != res.duel:
        window = Window(res.duel, e.at_ms)  # R4.2 (reading): from the duel's end
    # The time-over stage belongs to the duel that ended; an Extra Duel still to come gets
    # its stage again when it is set up (finalize_duel, settle_at_time).
    time = replace(s.time, stage=None, extra_turn=0) if s.time.stage else s.time
    return s.evolve(
        phase=DUEL_RESULT,
        result=res,
        window=window,
        time=time,
        counters=per_seat({}),
        tokens=per_seat(0),
        decks={k: renew(d, checked=False, ready=False) for k, d in s.decks.items()},
    )


@handler("result.confirmed", {"duel": "int", "seat": "seat"}, sheet=SheetLine(step="result"))
def _result_confirmed(s: TableState, e: Event) -> TableState:
    if s.result is None:
        return s
    res = renew(s.result, yes=said_yes(s.result, e.data["seat"]))
    return s.evolve(result=res)


@handler(
    "duel.final",
    {"duel": "int", "winner": "str?", "reason": "str", "extra": "bool"},
    words=Words(
        params={"reason": ("key?", "reason", "sheet.reason.")},
        variants=(("winner", None, "event.duel.final.draw"),),
    ),
    sheet=SheetLine(step="result"),
)
def _final(s: TableState, e: Event) -> TableState:
    d = e.data
    record = DuelRecord(d["duel"], d["winner"], d["reason"], d["extra"], dict(s.lp), e.at_ms)
    wins = s.wins
    if d["winner"] and not d["extra"]:  # an Extra Duel win is not a duel win (RULESETS)
        wins = put(wins, d["winner"], wins[d["winner"]] + 1)
    return s.evolve(
        duels=s.duels + (record,), wins=wins, result=None, turn=None, duel_no=d["duel"] + 1
    )


@handler("window.opened", {"after_duel": "int"})
def _window(s: TableState, e: Event) -> TableState:
    window = s.window
    if window is None or window.after_duel != e.data["after_duel"]:
        window = Window(e.data["after_duel"], e.at_ms)
    return s.evolve(phase=BETWEEN, window=window)


@handler(
    "match.decided",
    {"winner": "str?", "reason": "str", "final": "bool", "note": "str"},
    words=Words(
        params={"reason": ("key?", "reason", "sheet.reason.")},
        variants=(("winner", None, "event.match.decided.draw"),),
        note="note",
    ),
    sheet=SheetLine(step="result"),
)
def _match_decided(s: TableState, e: Event) -> TableState:
    final = bool(e.data.get("final"))
    result = MatchResult(
        winner=e.data["winner"],
        reason=e.data["reason"],
        decided=True,
        yes=BOTH if final else NOBODY,  # a judge's result needs no confirmation
    )
    clock = s.clock
    if clock.status in ("running", "paused"):
        clock = replace(clock, status="stopped", paused_ms=clock.paused_ms or e.at_ms, start=None)
    return s.evolve(
        phase=MATCH_OVER if final else MATCH_RESULT,
        match=result,
        clock=clock,
        pending=(),
        window=None,
        turn=None if final else s.turn,
    )


@handler("match.confirmed", {"seat": "seat"}, sheet=SheetLine(step="result"))
def _match_confirmed(s: TableState, e: Event) -> TableState:
    m = renew(s.match, yes=said_yes(s.match, e.data["seat"]))
    return s.evolve(match=m, phase=MATCH_OVER if twokey.agreed(m) else s.phase)


@handler("match.new_voted", {"seat": "seat"})
def _new_voted(s: TableState, e: Event) -> TableState:
    seat = e.data["seat"]
    vote = s.new_match
    if vote is None:
        return s.evolve(new_match=Offer(NEW_MATCH.what, seat, e.at_ms, alone(seat)))
    return s.evolve(new_match=renew(vote, yes=said_yes(vote, seat)))


@handler("match.started", {"match": "int"}, sheet=SheetLine(step="match"))
def _match_started(s: TableState, e: Event) -> TableState:
    decks = {k: revert(d) for k, d in s.decks.items()}  # R2.7: lists too
    registered = all(d.registered and d.confirmed for d in decks.values())
    fresh = type(s)()
    return fresh.evolve(
        code=s.code,
        ruleset=s.ruleset,
        created_ms=s.created_ms,
        seats=s.seats,
        match_no=e.data["match"],
        phase=PREGAME if registered else REGISTRATION,
        decks=decks,
        lp=per_seat(s.ruleset.starting_lp),
        next_entry=s.next_entry,
        rolls=s.rolls,
        calls=s.calls,
        penalties=s.penalties,
        flags=s.flags,
        banlist=s.banlist,
        clock=replace(fresh.clock, duration_ms=s.ruleset.match_ms),
        time=TimeOver(),
    )


@handler(
    "deck.checked",
    {"seat": "seat", "ok": "bool", "note": "str"},
    words=Words(
        code="event.deck.checked.ok",
        variants=(("ok", False, "event.deck.checked.bad"),),
        note="note",
    ),
    sheet=SheetLine(
        "decks_log", "sheet.row.deck_problem", note="note", only=("ok", False), last_duel=True
    ),
)
def _deck_checked(s: TableState, e: Event) -> TableState:
    seat = e.data["seat"]
    old = s.decks[seat]
    failed = old.check_failed or e.data.get("ok") is False
    deck = renew(old, checked=True, check_note=e.data["note"], check_failed=failed)
    return s.evolve(decks=put(s.decks, seat, deck))


@handler(
    "deck.fix_voted", {"seat": "seat", "by": "seat"}, words=Words(params={"by": ("who", "by")})
)
def _fix_voted(s: TableState, e: Event) -> TableState:
    seat, by = e.data["seat"], e.data["by"]
    fix = s.decks[seat].fix
    if fix is None:
        fix = Offer("deck.fix", by, e.at_ms, alone(by))
    else:
        fix = replace(fix, yes=said_yes(fix, by))
    return s.evolve(decks=put(s.decks, seat, renew(s.decks[seat], fix=fix)))


@handler(
    "deck.cleared",
    {"seat": "seat", "judge": "str", "note": "str"},
    words=Words(note="note"),
    sheet=SheetLine(
        "decks_log",
        "sheet.row.deck_cleared",
        {"seat": "seat"},
        (("judge", None, "sheet.row.deck_settled_both"),),
        note="note",
        last_duel=True,
    ),
)
def _deck_cleared(s: TableState, e: Event) -> TableState:
    seat = e.data["seat"]
    deck = renew(s.decks[seat], check_failed=False, fix=None)
    return s.evolve(decks=put(s.decks, seat, deck))


@handler(
    "side.exchanged",
    {"seat": "seat", "main": "object", "extra": "object", "cards": "object", "current": "object"},
    secret=("cards", "current"),
    words=Words(params={"parts": ("side", "")}),
    sheet=SheetLine("decks_log", "sheet.row.side_exchanged", {"parts": ("side", "")}),
)
def _exchanged(s: TableState, e: Event) -> TableState:
    # Counts are unchanged by construction (R6.8); a by-card exchange changes the current list.
    return after_exchange(s, e)


@handler("between.ready", {"seat": "seat"})
def _ready(s: TableState, e: Event) -> TableState:
    seat = e.data["seat"]
    return s.evolve(decks=put(s.decks, seat, renew(s.decks[seat], ready=True)))
