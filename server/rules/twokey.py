"""One confirmation flow for every two-key action (R7.4): one side proposes, the other answers.

Every proposal waiting in the state has the same two fields: ``by``, the seat that proposed it
(``None`` when the server did: a duel's end, a match's result), and ``yes``, the seats that have
agreed (a seat's own proposal counts as its yes). It is agreed when both seats are in ``yes``.
Who may do what, the same for every flow:

- **propose**: a seat, within the flow's limit of open proposals per seat;
- **confirm**: only the other seat (both seats, one after the other, for the server's
  proposals); a seat cannot confirm its own, nor say yes twice;
- **reject**: only a seat that could confirm it, and not after its yes (R7.3);
- **withdraw**: only the proposer, and only before the other seat's yes.

A vote (the casual clock's start, a casual table's fixed deck, a new match) is the same flow
with one command for both: the first seat's vote proposes, the other's confirms.

`FLOWS` names every flow with its commands and its refusals; the deciders (`ledger`, `match`,
`clock`) call `propose`, `confirm`, `reject`, `withdraw` and `vote` before they emit their
events, which this module leaves as they were. The refusals keep their stable codes."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol

from .base import SEATS, RuleError, other

OPEN = "open"
AGREED = "agreed"
BOTH: frozenset[str] = frozenset(SEATS)
NOBODY: frozenset[str] = frozenset()
_ALONE = {seat: frozenset({seat}) for seat in SEATS}
_OTHER = {seat: other(seat) for seat in SEATS}


def alone(seat: str | None) -> frozenset[str]:
    """The yes of a new proposal: its proposer's own (none for the server's)."""
    if seat is None:
        return NOBODY
    return _ALONE.get(seat) or frozenset({seat})


class Asked(Protocol):
    """What the flow needs of a proposal in the state: who proposed it, who said yes."""

    @property
    def by(self) -> str | None: ...

    @property
    def yes(self) -> frozenset[str]: ...


@dataclass(frozen=True)
class Offer:
    """A proposal with no more to it than one value: a reported rock-paper-scissors winner, a
    vote to start the clock or to play a new match."""

    what: str
    by: str | None
    at_ms: int
    yes: frozenset[str] = NOBODY
    value: str | None = None

    @property
    def status(self) -> str:
        return status(self)


# `yes` only ever holds seats (the deciders check who says yes), so two of them are both: on
# the hot path (every LP entry) that is cheaper than a set comparison.


def status(ask: Asked) -> str:
    """``open`` until both seats said yes, then ``agreed``."""
    return AGREED if len(ask.yes) == 2 else OPEN


def agreed(ask: Asked | None) -> bool:
    """Both seats said yes."""
    return ask is not None and len(ask.yes) == 2


def confirmed_by(ask: Asked) -> str | None:
    """The seat whose yes completed a seat's proposal (the proposer's opponent)."""
    if ask.by is None or len(ask.yes) != 2:
        return None
    return other(ask.by)


def said_yes(ask: Asked, seat: str) -> frozenset[str]:
    """``ask.yes`` with ``seat``'s yes added (shared sets, no new one, for the usual cases)."""
    yes = ask.yes
    if seat in yes:
        return yes
    if not yes:
        return alone(seat)
    return BOTH if seat in BOTH else yes | {seat}


# --- the flows ---------------------------------------------------------------------------

Refusal = tuple[str, str]


@dataclass(frozen=True)
class Flow:
    """One two-key action: its commands (by action), the rules it implements, its refusals."""

    what: str
    rules: str
    commands: Mapping[str, str]
    refusals: Mapping[str, Refusal]
    limit: int | None = None  # open proposals per seat
    details: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)

    def refuse(self, key: str) -> RuleError:
        """The coded refusal ``key`` of this flow (``reject_own`` falls back on ``own``, ...)."""
        general = key.rpartition("_")[2] if key.startswith(ACTIONS) else key
        code, message = (
            self.refusals.get(key) or self.refusals.get(general) or DEFAULT_REFUSALS[general]
        )
        return RuleError(code, message, **self.details.get(general, {}))


ACTIONS = ("propose_", "confirm_", "reject_", "withdraw_")
DEFAULT_REFUSALS: dict[str, Refusal] = {
    "missing": ("not_pending", "Nothing waits for an answer."),
    "own": ("own_entry", "The other player answers your proposal, not you."),
    "again": ("already_confirmed", "Already confirmed."),
    "not_yours": ("not_yours", "Only the player who proposed it can withdraw it."),
    "limit": ("too_many_pending", "Wait for your other proposals to be answered."),
}


MAX_PENDING_PER_SEAT = 3

LP = Flow(
    "lp",
    "R1.4, R7.4",
    {
        "propose": "lp.propose",
        "confirm": "lp.confirm",
        "reject": "lp.reject",
        "withdraw": "lp.withdraw",
    },
    {
        "own": ("own_entry", "The other player confirms your entry, not you."),
        "reject_own": ("own_entry", "You can withdraw your own entry, not reject it."),
        "again": ("already_confirmed", "That entry is already confirmed."),
        "not_yours": ("not_yours", "Only the player who proposed it can withdraw it."),
        "limit": ("too_many_pending", "Wait for your other entries to be answered."),
    },
    limit=MAX_PENDING_PER_SEAT,
    details={"limit": {"max": MAX_PENDING_PER_SEAT}},
)
DISPUTE = Flow(  # a rejected entry at a casual table: its proposer withdraws or corrects it
    "lp.dispute",
    "R7.1",
    {"withdraw": "dispute.withdraw", "propose": "dispute.repropose"},
    {
        "not_yours": ("not_yours", "Only the player who proposed it settles it."),
        "again": ("already_settled", "That dispute is already settled."),
        "limit": LP.refusals["limit"],
    },
    limit=MAX_PENDING_PER_SEAT,
    details=LP.details,
)
DECK = Flow(
    "deck",
    "R6.2",
    {"propose": "deck.declare", "confirm": "deck.confirm"},
    {
        "missing": ("not_declared", "The opponent has not declared yet."),
        "own": ("own_entry", "The opponent confirms your declaration."),
        "again": ("already_confirmed", "Already confirmed."),
    },
)
RPS = Flow(
    "rps",
    "R6.5",
    {"propose": "rps.report", "confirm": "rps.confirm"},
    {
        "missing": ("not_pending", "No result to confirm."),
        "own": ("own_entry", "The opponent confirms your report."),
        "again": ("already_confirmed", "Already confirmed."),
    },
)
RESULT = Flow(  # proposed by the server when the duel ends
    "result",
    "R7.3, R7.4",
    {"confirm": "result.confirm", "reject": "result.dispute"},
    {
        "missing": ("wrong_phase", "There is no duel result to confirm."),
        "again": ("already_confirmed", "You already confirmed this result."),
        "reject_again": (
            "already_confirmed",
            "You confirmed this result; it can no longer be disputed (R7.3).",
        ),
    },
)
MATCH = Flow(  # proposed by the server when the match is decided
    "match",
    "R3.1, R7.4",
    {"confirm": "match.confirm"},
    {
        "missing": ("wrong_phase", "There is no match result to confirm."),
        "again": ("already_confirmed", "Already confirmed."),
    },
)
CLOCK = Flow(  # a casual table's clock: both seats vote
    "clock.start",
    "R4.1",
    {"propose": "clock.start", "confirm": "clock.start"},
    {
        "own": ("already_done", "Waiting for the opponent."),
        "again": ("already_done", "Waiting for the opponent."),
    },
)
DECK_FIX = Flow(  # a casual table's failed deck check (R7.5): both seats say it is fixed
    "deck.fix",
    "R7.5, R7.4",
    {"propose": "deck.fix", "confirm": "deck.fix"},
    {
        "own": ("already_done", "Waiting for the opponent to confirm the deck is fixed."),
        "again": ("already_done", "Waiting for the opponent to confirm the deck is fixed."),
    },
)
NEW_MATCH = Flow(
    "match.new",
    "R2.7",
    {"propose": "match.new", "confirm": "match.new"},
    {
        "own": ("already_done", "Waiting for the opponent."),
        "again": ("already_done", "Waiting for the opponent."),
    },
)

FLOWS: dict[str, Flow] = {
    f.what: f for f in (LP, DISPUTE, DECK, RPS, RESULT, MATCH, CLOCK, DECK_FIX, NEW_MATCH)
}


# --- who may do what ---------------------------------------------------------------------


def propose(flow: Flow, seat: str, open_asks: Iterable[Asked] = ()) -> frozenset[str]:
    """``seat`` may propose (within the flow's limit of open proposals); its yes."""
    if flow.limit is not None and sum(a.by == seat for a in open_asks) >= flow.limit:
        raise flow.refuse("limit")
    return alone(seat)


def _answerer(flow: Flow, by: str | None, seat: str, action: str) -> None:
    # Only the other seat answers a seat's proposal; anything else is answering one's own.
    if by is not None and by != _OTHER.get(seat):
        raise flow.refuse(f"{action}_own")


def confirm(flow: Flow, ask: Asked | None, seat: str, to: str | None = None) -> frozenset[str]:
    """``seat`` may say yes to ``ask`` (``to``: the proposer, when the command names it and
    nothing may be proposed yet); the new ``yes``."""
    by = ask.by if ask is not None else to
    if by is not None and by != _OTHER.get(seat):  # `_answerer`, inlined: every LP entry
        raise flow.refuse("confirm_own")
    if ask is None:
        raise flow.refuse("missing")
    if seat in ask.yes:
        raise flow.refuse("confirm_again")
    return said_yes(ask, seat)


def reject(flow: Flow, ask: Asked | None, seat: str) -> None:
    """``seat`` may say no to ``ask``: a seat that could confirm it, before its yes."""
    if ask is None:
        raise flow.refuse("missing")
    _answerer(flow, ask.by, seat, "reject")
    if seat in ask.yes:
        raise flow.refuse("reject_again")


def withdraw(flow: Flow, ask: Asked | None, seat: str) -> None:
    """``seat`` may take ``ask`` back: its proposer, before the other seat's yes."""
    if ask is None:
        raise flow.refuse("missing")
    if ask.by != seat:
        raise flow.refuse("not_yours")
    if ask.yes - alone(seat):
        raise flow.refuse("withdraw_again")


def vote(flow: Flow, ask: Asked | None, seat: str) -> frozenset[str]:
    """One command for both seats: the first vote proposes, the other seat's confirms."""
    if ask is None:
        return propose(flow, seat)
    return confirm(flow, ask, seat)
