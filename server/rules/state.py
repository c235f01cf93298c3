"""The table's state: frozen dataclasses, replaced, never changed in place.

Per-seat values are plain dicts keyed "A"/"B"; handlers always build new dicts, so a state
once made is never altered."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, TypeVar

from . import twokey
from .decklist import BanList, DeckList
from .ruleset import RuleSet
from .twokey import NOBODY, Offer

REGISTRATION = "registration"
PREGAME = "pregame"
DUEL = "duel"
DUEL_RESULT = "duel_result"
BETWEEN = "between"
MATCH_RESULT = "match_result"
MATCH_OVER = "match_over"

CHECK_ITEMS = ("handshake", "side_shown", "shuffled", "cut")  # R6.1-R6.4


def per_seat(value: Any) -> dict[str, Any]:
    """A fresh {"A": value, "B": value}."""
    return {"A": value, "B": value}


Frozen = TypeVar("Frozen")


def renew(obj: Frozen, **changes: Any) -> Frozen:
    """``dataclasses.replace`` for the state's small records, about twice as fast (it skips the
    field introspection); built through ``__init__``, so reading the new record stays fast."""
    return type(obj)(**{**obj.__dict__, **changes})


def put(d: dict[str, Any], key: str, value: Any) -> dict[str, Any]:
    """A copy of ``d`` with ``key`` set."""
    new = dict(d)
    new[key] = value
    return new


@dataclass(frozen=True)
class SeatInfo:
    name: str = ""
    player_id: str = ""
    joined: bool = False
    # The phone holding the seat said it is not its player's any more: at a casual table the
    # other seat may then give the seat to a new phone (`server.rules.table.seat_answer`).
    disowned: bool = False


@dataclass(frozen=True)
class SeatAsk:
    """A phone's request for a seat that waits for a judge or the other seat."""

    request: str
    seat: str
    name: str
    player_id: str
    why: str
    at_ms: int


@dataclass(frozen=True)
class Change:
    """One seat's part of an LP entry."""

    seat: str
    kind: str  # damage | gain | cost | halve | set
    amount: int = 0

    def result(self, lp: int) -> int:
        """The LP after this change; never below 0 (R1.4 ledger, R3.2)."""
        if self.kind in ("damage", "cost"):
            new = lp - self.amount
        elif self.kind == "gain":
            new = lp + self.amount
        elif self.kind == "halve":
            new = (lp + 1) // 2  # halving rounds up
        else:  # set
            new = self.amount
        return max(0, new)

    def to_dict(self) -> dict[str, Any]:
        return {"seat": self.seat, "kind": self.kind, "amount": self.amount}


@dataclass(frozen=True)
class Proposal:
    """An LP entry waiting for the other seat's yes (`twokey.LP`)."""

    entry: int
    by: str
    changes: tuple[Change, ...]
    note: str
    at_ms: int
    yes: frozenset[str] = NOBODY  # both: confirmed, waiting for an earlier entry
    # Its place in the queue: its own number, or the number of the rejected entry it corrects
    # (a casual table's correction takes the place of the entry it replaces, R1.4).
    place: int = 0

    @property
    def queued(self) -> int:
        """Where it stands in the duel's order of entries."""
        return self.place or self.entry

    @property
    def confirmed_by(self) -> str | None:
        """The seat that confirmed it, while it waits for an earlier entry."""
        return twokey.confirmed_by(self)


@dataclass(frozen=True)
class LedgerEntry:
    entry: int
    duel: int
    turn: int
    by: str
    confirmed_by: str
    changes: tuple[Change, ...]
    note: str
    lp: dict[str, int]
    at_ms: int


@dataclass(frozen=True)
class Dispute:
    entry: int
    proposal: Proposal
    rejected_by: str
    reason: str
    at_ms: int
    status: str = "open"  # open | applied | void | corrected | withdrawn | dropped
    judge: str = ""
    note: str = ""
    duel: int = 0  # the duel it was proposed in (R5.5: an open one holds the turn)


@dataclass(frozen=True)
class Counts:
    main: int
    extra: int
    side: int

    def to_dict(self) -> dict[str, int]:
        return {"main": self.main, "extra": self.extra, "side": self.side}


@dataclass(frozen=True)
class Deck:
    registered: Counts | None = None  # declared at the start of the match (R2.7)
    # The declaration as a two-key proposal (`twokey.DECK`): its seat, and who said yes; the
    # opponent's yes means it saw the counts (R6.2).
    by: str | None = None
    yes: frozenset[str] = NOBODY
    current: Counts | None = None  # after side decking (R6.8)
    checked: bool = False  # after-duel count check done (R7.5)
    check_failed: bool = False  # a failed check holds the table (R7.5 reading)
    check_note: str = ""
    # A casual table's failed check, settled by both seats saying it is fixed (`twokey.DECK_FIX`).
    fix: Offer | None = None
    ready: bool = False
    cards: DeckList | None = None  # the registered deck list, card by card (R1.6, R2.6)
    current_cards: DeckList | None = None  # the list after side decking (R6.8)

    @property
    def confirmed(self) -> bool:
        """The opponent confirmed the declaration (R6.2)."""
        return len(self.yes) == 2  # the declarer's yes and the opponent's


@dataclass(frozen=True)
class Pregame:
    checks: dict[str, frozenset[str]] = field(default_factory=lambda: per_seat(frozenset()))
    picks: dict[str, str | None] = field(default_factory=lambda: per_seat(None))
    throws: tuple[dict[str, str], ...] = ()
    report: Offer | None = None  # a reported winner (`twokey.RPS`; the winner is its value)
    rps_winner: str | None = None
    chooser: str | None = None
    first: str | None = None
    drawn: dict[str, bool] = field(default_factory=lambda: per_seat(False))


@dataclass(frozen=True)
class Turn:
    no: int
    player: str
    started_ms: int
    flagged: bool = False


@dataclass(frozen=True)
class DuelRecord:
    no: int
    winner: str | None  # None: a draw (R3.3)
    reason: str
    extra: bool
    lp: dict[str, int]
    at_ms: int


@dataclass(frozen=True)
class PendingResult:
    """A duel's result, proposed by the server, waiting for both seats (`twokey.RESULT`)."""

    duel: int
    winner: str | None
    reason: str
    yes: frozenset[str] = NOBODY
    by: str | None = None


@dataclass(frozen=True)
class MatchResult:
    winner: str | None = None  # None with decided=True: a drawn match
    reason: str = ""
    decided: bool = False
    yes: frozenset[str] = NOBODY  # both seats confirm it (`twokey.MATCH`)
    by: str | None = None


@dataclass(frozen=True)
class Clock:
    status: str = "idle"  # idle | running | paused | expired
    duration_ms: int = 0  # the limit plus every extension
    started_ms: int | None = None
    paused_ms: int | None = None  # when the current pause began
    paused_total_ms: int = 0
    start: Offer | None = None  # a casual table's seats vote to start it (`twokey.CLOCK`)

    def remaining(self, now_ms: int) -> int:
        """Time left at ``now_ms``; never negative."""
        if self.started_ms is None:
            return self.duration_ms
        end = self.paused_ms if self.paused_ms is not None else now_ms
        return max(0, self.duration_ms - (end - self.started_ms - self.paused_total_ms))

    @property
    def deadline_ms(self) -> int | None:
        """The server time at which the clock reaches 0, while it runs."""
        if self.status != "running" or self.started_ms is None:
            return None
        return self.started_ms + self.paused_total_ms + self.duration_ms


# The stages of the time-over procedure (R5, `time_over.py`): the codes a view's `time.stage`
# holds, each put into words by the catalogues (`time.stage.<code>`).
FINISH_TURN = "finish_turn"  # R5.1.1
EXTRA_TURNS = "extra_turns"  # R5.1.2-3
SUDDEN_DEATH_STAGE = "sudden_death"  # R5.1.5
EXTRA_DUEL_STAGE = "extra_duel"  # R5.2.1
EXTRA_DUEL_SUDDEN_DEATH = "extra_duel_sudden_death"  # R5.2.2
STAGES = (FINISH_TURN, EXTRA_TURNS, SUDDEN_DEATH_STAGE, EXTRA_DUEL_STAGE, EXTRA_DUEL_SUDDEN_DEATH)
SUDDEN_DEATHS = (SUDDEN_DEATH_STAGE, EXTRA_DUEL_SUDDEN_DEATH)


@dataclass(frozen=True)
class TimeOver:
    called: bool = False
    called_ms: int | None = None
    during: str = ""  # the phase when time was called
    # one of STAGES; None once the duel it belongs to has ended
    stage: str | None = None
    extra_turn: int = 0


@dataclass(frozen=True)
class Window:
    after_duel: int
    started_ms: int
    flagged: bool = False


@dataclass(frozen=True)
class Roll:
    roll: int
    kind: str  # coin | die
    results: tuple[Any, ...]
    by: str
    at_ms: int
    duel: int
    void: bool = False


@dataclass(frozen=True)
class Call:
    call: int
    seat: str | None
    reason: str
    at_ms: int
    status: str = "open"  # open | acknowledged | closed
    judge: str = ""
    note: str = ""
    entry: int | None = None  # the LP entry whose rejection made the call (its dispute's call)
    duel: int | None = None  # the duel whose result a dispute of it made the call about
    deck: str | None = None  # the seat whose failed deck check made the call (R7.5)
    # What a call the server made is about (`lp_disputed`, ...; None: a player's own call, or
    # a log from before codes) and its values, for each screen to word.
    code: str | None = None
    params: tuple[tuple[str, Any], ...] = ()


@dataclass(frozen=True)
class Penalty:
    seat: str
    level: str
    infraction: str
    note: str
    judge: str
    duel: int
    at_ms: int


@dataclass(frozen=True)
class Flag:
    kind: str  # turn_overtime | window_overtime | deck_check | exchange_refused
    at_ms: int
    duel: int
    seat: str | None = None
    detail: str = ""


@dataclass(frozen=True)
class TableState:
    code: str = ""
    ruleset: RuleSet = field(default_factory=RuleSet)
    created_ms: int = 0
    seats: dict[str, SeatInfo] = field(default_factory=lambda: per_seat(SeatInfo()))
    match_no: int = 1
    phase: str = REGISTRATION
    duel_no: int = 1
    extra_duel: bool = False  # the current/next duel is the Extra Duel (R5.2)
    wins: dict[str, int] = field(default_factory=lambda: per_seat(0))
    duels: tuple[DuelRecord, ...] = ()
    lp: dict[str, int] = field(default_factory=lambda: per_seat(8000))
    next_entry: int = 1
    pending: tuple[Proposal, ...] = ()
    ledger: tuple[LedgerEntry, ...] = ()
    disputes: tuple[Dispute, ...] = ()
    decks: dict[str, Deck] = field(default_factory=lambda: per_seat(Deck()))
    pregame: Pregame = field(default_factory=Pregame)
    turn: Turn | None = None
    result: PendingResult | None = None
    match: MatchResult = field(default_factory=MatchResult)
    new_match: Offer | None = None  # both seats vote for a new match (`twokey.NEW_MATCH`)
    clock: Clock = field(default_factory=Clock)
    time: TimeOver = field(default_factory=TimeOver)
    window: Window | None = None
    rolls: tuple[Roll, ...] = ()
    counters: dict[str, dict[str, int]] = field(default_factory=lambda: per_seat({}))
    tokens: dict[str, int] = field(default_factory=lambda: per_seat(0))
    calls: tuple[Call, ...] = ()
    penalties: tuple[Penalty, ...] = ()
    flags: tuple[Flag, ...] = ()
    banlist: BanList | None = None  # the forbidden/limited list in force (R2.5)
    seat_requests: tuple[SeatAsk, ...] = ()  # requests for a seat that wait for approval
    overlay: bool = False  # its staff show it on the stream overlay (`server.rules.overlay`)

    def evolve(self, **changes: Any) -> TableState:
        """A copy with ``changes``."""
        # What `dataclasses.replace` does, without calling `__init__` with all 30-odd fields
        # again: every event applied makes one of these, and replace was 5% of the server's CPU.
        if not changes.keys() <= _STATE_FIELDS:
            unknown = sorted(changes.keys() - _STATE_FIELDS)
            raise TypeError(f"TableState has no field {unknown[0]!r}")
        new = object.__new__(TableState)
        new.__dict__.update(self.__dict__)
        new.__dict__.update(changes)
        return new

    @property
    def created(self) -> bool:
        return bool(self.code)


EMPTY = TableState()
_STATE_FIELDS = frozenset(EMPTY.__dict__)
