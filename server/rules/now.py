"""What a seat may send now: the commands its phone, a bot or an overlay can offer at this state.

Read from the same conditions the deciders check (the phase, whose turn, whose entry waits,
who has already said yes), so a client need not learn the order from refusals. A command
listed here can still be refused for its arguments (an unknown entry number, a deck that breaks
the ban list) or a limit that moves with time (dice tossed too fast); a command not listed is
refused as the state stands (tests/test_now.py checks both against the deciders along a whole
recorded match). The view carries it as `may_send` (`server.rules.view.seat_view`), and the
phones offer their buttons by it (`web/js/panels/kit.js: may`).
"""

from __future__ import annotations

from .base import other
from .duel_end import casual
from .judge import MAX_OPEN_CALLS
from .ledger import unsettled
from .registration import decks_confirmed, round_started
from .state import (
    BETWEEN,
    CHECK_ITEMS,
    DUEL,
    DUEL_RESULT,
    MATCH_OVER,
    MATCH_RESULT,
    PREGAME,
    REGISTRATION,
    TableState,
)
from .twokey import MAX_PENDING_PER_SEAT

# Commands a seat may send in any phase (judge calls are capped: `judge.call`).
ALWAYS = ("coin.toss", "die.roll")


def may_send(s: TableState, seat: str) -> list[str]:
    """The commands `seat` may send at state `s`, sorted."""
    phase, mine, theirs = s.phase, seat, other(seat)
    if not s.seats[mine].joined:  # a seat's phone acts once it has the seat
        return []
    out = list(ALWAYS)
    if sum(c.seat == mine and c.status != "closed" for c in s.calls) < MAX_OPEN_CALLS:
        out.append("judge.call")
    # Registration (R2.8); a duel-loss penalty before the first duel leaves it open between.
    if phase == REGISTRATION or (phase == BETWEEN and not decks_confirmed(s)):
        out += ["deck.declare", "deck.register"]
        deck = s.decks[theirs]
        if deck.registered is not None and mine not in deck.yes:
            out.append("deck.confirm")
    clock = s.clock
    if (
        clock.status == "idle"
        and phase not in (MATCH_RESULT, MATCH_OVER)
        and not s.ruleset.staff_start
        and (clock.start is None or (clock.start.by == theirs and mine not in clock.start.yes))
    ):
        out.append("clock.start")
    if phase == PREGAME:
        out += _pregame(s, mine, theirs)
    if phase == DUEL:
        out += _duel(s, mine, theirs)
    if phase == DUEL_RESULT and s.result is not None and mine not in s.result.yes:
        out.append("result.dispute")
        if not any(d.status == "open" and d.duel == s.result.duel for d in s.disputes):
            out.append("result.confirm")
    if phase in (DUEL_RESULT, BETWEEN, MATCH_RESULT) and not s.decks[mine].checked:
        out.append("deck.check")
    if casual(s) and any(
        d.check_failed and (d.fix is None or (d.fix.by == theirs and mine not in d.fix.yes))
        for d in s.decks.values()
    ):
        out.append("deck.fix")
    if phase == BETWEEN:
        own = s.decks[mine]
        if own.cards is not None or (own.current or own.registered) is not None:
            out.append("side.exchange")
        if decks_confirmed(s) and own.checked and not own.check_failed and not own.ready:
            out.append("between.ready")
    if phase == MATCH_RESULT and mine not in s.match.yes:
        out.append("match.confirm")
    if (
        phase == MATCH_OVER
        and not s.ruleset.staff_start
        and not any(d.check_failed for d in s.decks.values())
        and (s.new_match is None or (s.new_match.by == theirs and mine not in s.new_match.yes))
    ):
        out.append("match.new")
    return sorted(out)


def _pregame(s: TableState, mine: str, theirs: str) -> list[str]:
    pg = s.pregame
    out = []
    if not set(CHECK_ITEMS) <= pg.checks[mine]:
        out.append("pregame.check")
    if not round_started(s):
        return out
    if pg.chooser is None:
        out.append("rps.report")
        if pg.picks[mine] is None:
            out.append("rps.pick")
        report = pg.report
        if report is not None and report.by == theirs and mine not in report.yes:
            out.append("rps.confirm")
    elif pg.chooser == mine and pg.first is None:
        out.append("duel.choose")
    if pg.first is not None and set(CHECK_ITEMS) <= pg.checks[mine] and not pg.drawn[mine]:
        out.append("duel.draw")
    return out


def _duel(s: TableState, mine: str, theirs: str) -> list[str]:
    out = ["duel.concede", "token.change", "counter.change"]
    if s.counters[mine]:
        out.append("counter.clear")
    if sum(p.by == mine for p in s.pending) < MAX_PENDING_PER_SEAT:
        out.append("lp.propose")
    if any(p.by == theirs and mine not in p.yes for p in s.pending):
        out += ["lp.confirm", "lp.reject"]
    if any(p.by == mine and not (p.yes - {mine}) for p in s.pending):
        out.append("lp.withdraw")
    if casual(s) and any(d.status == "open" and d.proposal.by == mine for d in s.disputes):
        out.append("dispute.withdraw")
        if sum(p.by == mine for p in s.pending) < MAX_PENDING_PER_SEAT:
            out.append("dispute.repropose")
    waiting, disputed = unsettled(s)
    if s.turn is not None and s.turn.player == mine and not waiting and not disputed:
        out.append("turn.end")
    return out
