"""The Swiss tournament of an event, kept as events: registrations, pairings, re-pairings,
judges' results, drops, the top cut. Nothing is overwritten: the state is the replay of the
event's `swiss_log` (a re-pairing is a later `round.paired` of the same round).

Results flow in by themselves: a round's pairing names table numbers of the event's round of the
same number (`EventTable`), and a table whose match is over (both seats confirmed, or a judge
set it) gives the result; a judge's entry here wins over the table's.
"""

from __future__ import annotations

import csv
import io
import secrets
import time
from contextvars import ContextVar
from dataclasses import dataclass, field
from random import Random
from typing import Any

from server.core.errors import Conflict, DomainError, NotFound
from server.core.names import clean, player_id_key
from server.rules import Actor, get_ruleset, view
from server.rules import swiss as core
from server.rules.judge import DISQUALIFICATIONS
from server.rules.swiss import Match, Player, SwissError
from server.rules.table import MAX_NAME
from server.rules.tournament_log import actor_of
from server.runtime.loop import let_loop_run
from server.store import EventStore
from server.store.swiss import PlayerRecord, SwissRows
from server.store.tournament import EventRecord, TournamentRows

from .tournament import Tournament, is_paired

SWISS, CUT = "swiss", "cut"
DOUBLE_LOSS = "double_loss"  # the table's match reason for a judge's "both lose"
STAFF_REASONS = ("judge", DOUBLE_LOSS, "disqualification", "match_loss")


MAX_IMPORT = 2000  # players in one imported list
NAME_MAX, ID_MAX = MAX_NAME, 40  # a name as long as a join takes (R1.1: the seat's name)
_HEADER_WORDS = {
    "name", "player", "players", "player name", "姓名", "名前", "氏名", "名稱", "選手",
    "選手名", "プレイヤー", "プレイヤー名", "玩家",
}  # fmt: skip


def _import_error(code: str, line: int, message: str) -> DomainError:
    return DomainError(code, f"Line {line}: {message} Nothing was imported.", {"line": line})


def parse_players(text: str) -> list[tuple[int, str, str]]:
    """A player list pasted or exported from a spreadsheet: name, then player ID, one player a
    line. A byte order mark, a header line, `,` `;` or tab separators and quoted fields are
    read; the first problem is named by its line (`import_*` codes). Each player comes with the
    line that named them."""
    text = text.removeprefix("\ufeff")  # a spreadsheet's "CSV UTF-8"
    sample = "\n".join(text.splitlines()[:20])
    counts = {d: sample.count(d) for d in ("\t", ";", ",")}
    delimiter = max(counts, key=lambda d: counts[d]) if any(counts.values()) else ","
    found: list[tuple[int, str, str]] = []
    seen: dict[str, int] = {}
    reader = csv.reader(io.StringIO(text), delimiter=delimiter)
    try:
        rows = list(reader)
    except csv.Error:
        raise _import_error(
            "import_unreadable", reader.line_num, "a quote is not closed."
        ) from None
    for line, row in enumerate(rows, start=1):
        cells = [clean(c) for c in row]
        while cells and not cells[-1]:
            cells.pop()
        if not cells:
            continue
        if line == 1 and cells[0].casefold() in _HEADER_WORDS:
            continue  # a header line
        if len(cells) > 2:
            raise _import_error("import_columns", line, "give a name and a player ID only.")
        name, pid = cells[0], cells[1] if len(cells) > 1 else ""
        if not name:
            raise _import_error("import_no_name", line, "the name is missing.")
        if not pid:
            raise _import_error("import_no_id", line, "the player ID is missing.")
        if len(name) > NAME_MAX or len(pid) > ID_MAX:
            raise _import_error(
                "import_too_long",
                line,
                f"a name has at most {NAME_MAX} characters, an ID {ID_MAX}.",
            )
        key = player_id_key(pid)
        if key in seen:
            raise DomainError(
                "import_duplicate",
                f"Line {line}: player ID {pid} is also on line {seen[key]}. Nothing was imported.",
                {"line": line, "first": seen[key]},
            )
        seen[key] = line
        found.append((line, name, pid))
        if len(found) > MAX_IMPORT:
            raise _import_error("import_too_many", line, f"at most {MAX_IMPORT} players at once.")
    if not found:
        raise DomainError("import_empty", "The list names no player.")
    return found


@dataclass
class RoundPairing:
    number: int
    stage: str
    tables: list[tuple[int, int, int]]
    bye: int | None
    seed: int | None
    seq: int


@dataclass
class State:
    """The replay of an event's log."""

    players: dict[int, PlayerRecord] = field(default_factory=dict)
    dropped: dict[int, int] = field(default_factory=dict)  # number -> last round played
    rounds: dict[int, RoundPairing] = field(default_factory=dict)
    swiss_rounds: int | None = None  # the organiser's override
    cut_size: int | None = None
    public: bool = False
    repairs: int = 0
    disqualified: dict[int, int] = field(default_factory=dict)  # number -> round of the DQ
    check_in: bool = False  # the organiser's setting: only checked-in players are paired
    checked_in: dict[int, int] = field(default_factory=dict)  # number -> first round to play

    def in_pairings(self) -> set[int]:
        """The players named in any pairing (a table or a bye) so far."""
        found: set[int] = set()
        for rp in self.rounds.values():
            found.update(x for t in rp.tables for x in t[1:])
            if rp.bye is not None:
                found.add(rp.bye)
        return found

    @property
    def last_round(self) -> int:
        return max(self.rounds, default=0)

    def swiss_matches_rounds(self) -> list[RoundPairing]:
        return [r for n, r in sorted(self.rounds.items()) if r.stage == SWISS]

    def cut_rounds(self) -> list[RoundPairing]:
        return [r for n, r in sorted(self.rounds.items()) if r.stage == CUT]


@dataclass(frozen=True)
class TablePart:
    """What an event takes from one table's log: its match's result (None while undecided),
    whether a judge decided it, the seats a disqualification took out, and what the hall clock
    counts (the match over, time called, the turns after time)."""

    result: str | None
    judged: bool
    disqualified: tuple[str, ...]
    over: bool = False
    called: bool = False
    extra: bool = False


def part_of(state: Any) -> TablePart:
    """A table's part, from its state (what its view says of the match and the penalties)."""
    match = state.match
    result: str | None = None
    if state.phase == "match_over" and match.decided:
        if match.winner in ("A", "B"):
            result = str(match.winner)
        else:
            result = core.BOTH_LOSE if match.reason == DOUBLE_LOSS else core.DRAWN
    judged = bool(match.decided and match.reason in STAFF_REASONS)
    out = tuple(p.seat for p in state.penalties if p.level in DISQUALIFICATIONS)
    over = state.phase == "match_over"
    called = bool(state.time.called)
    extra = state.phase == "duel" and bool(state.time.stage)
    return TablePart(result, judged, out, over, called, extra)


# The tables' seqs read in one query for a whole summary (code -> seq), while it is built.
PARTS_BETWEEN_TURNS = 50  # tables read again for a summary between two turns of the loop
_KNOWN_SEQS: ContextVar[dict[str, int] | None] = ContextVar("known_seqs", default=None)
# And each round's tables (event, round -> number -> code), read once a summary.
_KNOWN_CODES: ContextVar[dict[tuple[int, int], dict[int, str]] | None] = ContextVar(
    "known_codes", default=None
)


class SwissService:
    """The tournament of each event, over the table store and the event's rounds."""

    def __init__(self, store: EventStore, tournament: Tournament, seed: int | None = None) -> None:
        self.store = store
        self.tournament = tournament
        self.rows = SwissRows()  # the registered players
        self.event_rows = TournamentRows()  # the event's rounds and tables
        self.seed = seed  # SWISS_SEED: round 1's seed for every event; None: a fresh one each
        # Each table's part at its seq: a summary reads a table's log again only when it moved
        # on, so what a write costs the standings is that table's part (docs/security.md).
        self._parts: dict[str, tuple[int, TablePart]] = {}
        self._read = 0  # parts read again from a table's state (`_table_part`)
        self._standing_rows: dict[int, tuple[Any, list[dict[str, Any]]]] = {}

    def _round_one_seed(self) -> int:
        return secrets.randbits(63) if self.seed is None else self.seed

    # -- the log ----------------------------------------------------------------------------

    def _append(self, event_id: int, type_: str, data: dict[str, Any], actor: str, now: int) -> int:
        who = actor_of(type_, data, actor)
        return self.store.tournament_logs.append(event_id, type_, data, who, now)

    def log(self, event_id: int) -> list[dict[str, Any]]:
        return self.store.tournament_logs.entries(event_id)

    def state(self, event_id: int) -> State:
        t = self.store.tournament_logs.snapshot(event_id).state  # cached, moved on by new rows
        s = State(
            dropped=dict(t.dropped),
            rounds={
                n: RoundPairing(p.number, p.stage, list(p.tables), p.bye, p.seed, p.seq)
                for n, p in t.rounds.items()
            },
            swiss_rounds=t.swiss_rounds,
            cut_size=t.cut_size,
            public=t.public,
            repairs=t.repairs,
            check_in=t.check_in,
            checked_in=dict(t.checked_in),
        )
        for p in self.rows.players_of(event_id):
            s.players[p.number] = p
        s.disqualified = self.disqualified(event_id, s)
        return s

    # -- players ------------------------------------------------------------------------------

    def register(
        self, event_id: int, name: str, player_id: str, decklist: str, actor: str, now: int
    ) -> dict[str, Any]:
        """Register a player; after round 1 is paired, a late entry plays from the next round."""
        self.tournament.event(event_id)
        s = self.state(event_id)
        if s.cut_rounds():
            raise Conflict("cut_started", "The top cut has started.")
        # Conflict already_done: the player ID is registered.
        p = self.rows.add_player(event_id, name, player_id, decklist, s.last_round + 1, now)
        self._append(
            event_id,
            "player.registered",
            {"player": p.number, "name": name, "player_id": player_id, "round": p.entered_round},
            actor,
            now,
        )
        if s.check_in and s.last_round:
            # A late entry registers at the desk, so is there: checked in for the next round.
            self._append(
                event_id,
                "player.checked_in",
                {"player": p.number, "round": p.entered_round},
                actor,
                now,
            )
        return {"number": p.number, "name": name, "player_id": player_id}

    def import_players(self, event_id: int, text: str, actor: str, now: int) -> dict[str, Any]:
        """Register every player of a pasted or uploaded list at once, or none of them (the
        first problem named by its line); like one-by-one entries, later ones are late."""
        self.tournament.event(event_id)
        listed = parse_players(text)
        s = self.state(event_id)
        if s.cut_rounds():
            raise Conflict("cut_started", "The top cut has started.")
        known = {player_id_key(p.player_id) for p in s.players.values()}
        for line, _, pid in listed:
            if player_id_key(pid) in known:
                raise DomainError(
                    "import_registered",
                    f"Line {line}: player ID {pid} is already registered. Nothing was imported.",
                    {"line": line},
                )
        entered = s.last_round + 1
        # All or none (Conflict import_registered: one was registered meanwhile).
        last = self.rows.add_players(event_id, [(n, pid) for _, n, pid in listed], entered, now)
        first = last + 1
        self._append(
            event_id,
            "players.imported",
            {"first": first, "last": last + len(listed), "round": entered},
            actor,
            now,
        )
        if s.check_in and s.last_round:
            # Late entries listed at the desk are there: checked in, as one by one.
            for number in range(first, last + len(listed) + 1):
                data = {"player": number, "round": entered}
                self._append(event_id, "player.checked_in", data, actor, now)
        return {"imported": len(listed), "first": first, "round": entered}

    # -- one deck list per player per event (R2.6, R1.6) ------------------------------------

    def player_by_id(self, event_id: int, player_id: str) -> PlayerRecord | None:
        """The registered player with this ID (compared as the join compares it), or None."""
        key = player_id_key(player_id)
        if not key:
            return None
        exact = self.rows.player_with_id(event_id, player_id)
        if exact is not None:
            return exact  # as typed at registration: the usual case, one indexed look-up
        for p in self.rows.players_of(event_id):
            if player_id_key(p.player_id) == key:
                return p
        return None

    def player(self, event_id: int, number: int) -> PlayerRecord:
        found = self.rows.player(event_id, number)
        if found is None:
            raise NotFound("no_such_player", "No such player.")
        return found

    def first_round_started(self, event_id: int, number: int) -> bool:
        """Whether the player's first round (round 1, or a late entry's) has started: their
        list is then the one of the whole event. Read from the player and the log's
        check-ins alone (not the tables, as `state` does)."""
        first = self.player(event_id, number).entered_round
        t = self.store.tournament_logs.snapshot(event_id).state
        check_in, checked = t.check_in, t.checked_in.get(number)
        if check_in and checked is not None:
            first = max(first, checked)
        rnd = self.tournament.current_round(event_id)
        return rnd.number > first or (rnd.number == first and rnd.started_ms is not None)

    def decklist_source(self, event_id: int, number: int) -> tuple[str, str] | None:
        """Who registered the player's list for the event: ("player" | "organiser" | "table",
        the account or the table's code), or None."""
        return self.store.tournament_logs.snapshot(event_id).state.decklists.get(number)

    def set_decklist(
        self,
        event_id: int,
        number: int,
        text: str,
        by: str,
        actor: str,
        now: int,
        replace: bool = False,
    ) -> None:
        """Register a player's one deck list for the event (`text`, already read and found
        legal by the caller). The player registers once, before their first round; the
        organiser may replace it until then; a table registers it when none was (`by`), and
        the same table again while its decks are still being registered (`replace`)."""
        p = self.player(event_id, number)
        # A table registers while the player plays, so the first round has started there.
        started = by == "table" or self.first_round_started(event_id, number)
        if p.decklist and not replace and (by != "organiser" or started):
            raise Conflict(
                "deck_registered",
                "A deck list is registered for this player: one deck per event (R2.6).",
                {"player": number},
            )
        if by == "player" and started:
            raise Conflict(
                "deck_registration_closed",
                "Your first round has started: register your deck list at your table.",
                {"player": number},
            )
        self.rows.set_decklist(p.id, text)
        self._append(event_id, "player.decklist", {"player": number, "by": by}, actor, now)

    def drop(self, event_id: int, number: int, actor: str, now: int) -> int:
        """Drop a player: not paired again; still an opponent in others' tie-breakers."""
        s = self.state(event_id)
        if number not in s.players:
            raise NotFound("no_such_player", "No such player.")
        if number in s.dropped:
            raise Conflict("already_done", "The player has already dropped.")
        after = s.last_round
        self._append(
            event_id, "player.dropped", {"player": number, "after_round": after}, actor, now
        )
        return after

    # -- results --------------------------------------------------------------------------------

    def _codes(self, event_id: int, round_no: int) -> dict[int, str]:
        known = _KNOWN_CODES.get()
        if known is not None and (event_id, round_no) in known:
            return known[(event_id, round_no)]
        found = self.event_rows.round_table_codes(event_id, round_no)
        if known is not None:
            known[(event_id, round_no)] = found
        return found

    def _table_view(self, code: str | None) -> dict[str, Any] | None:
        if code is None or not self.store.exists(code):
            return None
        return view(self.store.snapshot(code).state)

    def _standings(
        self, event_id: int, players: list[Player], swiss: list[Match]
    ) -> list[dict[str, Any]]:
        """The standings' rows, computed again only when a player or a Swiss result changed
        (a table's LP, its clock or its calls leave them as they were)."""
        key = (tuple(players), tuple(swiss))
        found = self._standing_rows.get(event_id)
        if found is not None and found[0] == key:
            return found[1]
        rows = [st.to_dict() for st in core.standings(players, swiss)]
        self._standing_rows[event_id] = (key, rows)
        return rows

    def _event_seqs(self, event_id: int) -> dict[str, int]:
        """Every table of the event's rounds: code -> its seq, in one query."""
        return self.event_rows.event_table_seqs(event_id)

    def _table_part(self, code: str | None) -> TablePart | None:
        """The table's part (None: no such table), read from its log only when its seq moved
        on since it was last read."""
        if code is None:
            return None
        known = _KNOWN_SEQS.get()
        if known is not None and code in known:
            seq = known[code]
        else:
            read = self.event_rows.table_seq(code)
            if read is None:
                return None
            seq = read
        found = self._parts.get(code)
        if found is not None and found[0] == seq:
            return found[1]
        try:
            snap = self.store.fresh(code, seq)  # from memory when this process holds it
        except NotFound:
            return None
        part = part_of(snap.state)
        self._parts[code] = (snap.seq, part)
        self._read += 1
        if self._read % PARTS_BETWEEN_TURNS == 0:
            let_loop_run()  # every table moved (time called at all): the hall's pages wait
        return part

    def parts(self, codes: list[str]) -> dict[str, TablePart]:
        """The parts the last reading of each table gave (a summary reads every one)."""
        return {code: found[1] for code in codes if (found := self._parts.get(code))}

    def part_now(self, code: str, seq: int) -> TablePart | None:
        """Table `code`'s part at `seq` or later: from the state this process holds when it
        is that recent (no database read), else read."""
        try:
            return part_of(self.store.fresh(code, seq).state)
        except NotFound:
            return None

    def _table_result(self, code: str | None) -> str | None:
        """The match's result, from the table's log only (the seats' confirmed result, or a
        judge's: `Tournament.judge_result`)."""
        part = self._table_part(code)
        return part.result if part is not None else None

    def _judged(self, code: str | None) -> bool:
        part = self._table_part(code)
        return bool(part and part.judged)

    def disqualified(self, event_id: int, s: State) -> dict[int, int]:
        """Player -> the round of their disqualification (a judge's penalty at a table): out
        of every later pairing, like a drop."""
        found: dict[int, int] = {}
        for rp in sorted(s.rounds.values(), key=lambda r: r.number):
            codes = self._codes(event_id, rp.number)
            for t, a, b in rp.tables:
                part = self._table_part(codes.get(t))
                for seat in part.disqualified if part else ():
                    found.setdefault(a if seat == "A" else b, rp.number)
        return found

    def matches(self, event_id: int, s: State, stage: str) -> list[Match]:
        found: list[Match] = []
        for rp in sorted(s.rounds.values(), key=lambda r: r.number):
            if rp.stage != stage:
                continue
            codes = self._codes(event_id, rp.number)
            for t, a, b in rp.tables:
                result = self._table_result(codes.get(t))
                if stage == CUT and result not in ("A", "B"):
                    result = None  # a cut match needs a winner
                found.append(Match(rp.number, a, b, result, t))
            if rp.bye is not None:
                found.append(Match(rp.number, rp.bye, None, core.A_WINS, 0))
        return found

    def enter_result(
        self, event_id: int, round_no: int, table: int, result: str, actor: Actor, now: int
    ) -> tuple[str, int]:
        """A judge's result (a no-show is a loss), written on the table's log as its result
        (`Tournament.judge_result`); returns the table's code and new seq."""
        s = self.state(event_id)
        rp = s.rounds.get(round_no)
        if rp is None or not any(t == table for t, _, _ in rp.tables):
            raise NotFound("no_such_table", "No such table in that round.")
        if result not in core.RESULTS:
            raise DomainError("invalid", "The result is A, B, draw or loss.")
        if rp.stage == CUT and result not in ("A", "B"):
            raise DomainError("invalid", "A top cut match needs a winner.")
        if any(n > round_no for n in s.rounds):
            raise Conflict("round_closed", "A later round is already paired.")
        return self.tournament.judge_result(event_id, round_no, table, result, actor, now)

    # -- settings ---------------------------------------------------------------------------------

    def settings(self, event_id: int, changes: dict[str, Any], actor: str, now: int) -> None:
        if "cut" in changes and changes["cut"] not in (None, *core.CUT_SIZES):
            raise DomainError("invalid", "A top cut has 4, 8, 16 or 32 players.")
        if "check_in" in changes:
            s = self.state(event_id)
            if bool(changes["check_in"]) != s.check_in and s.last_round > 0:
                # Turned on mid-event it would leave out of the next round everyone who never
                # checked in (the whole field); turned off, those left out would be paired.
                raise Conflict(
                    "check_in_fixed", "Check-in is chosen before round 1 is paired, not after."
                )
        self._append(event_id, "settings", changes, actor, now)

    # -- pairing ----------------------------------------------------------------------------------

    def players(self, s: State) -> list[Player]:
        """Every registered player as the pairing sees them. With check-in on, a player not
        checked in is not paired, and one checked in after round 1 was paired plays from the
        next round, like a late entry."""
        found = []
        for n, p in sorted(s.players.items()):
            entered, present = p.entered_round, True
            if s.check_in:
                present = n in s.checked_in
                entered = max(entered, s.checked_in.get(n, entered))
            found.append(
                Player(
                    n,
                    p.name,
                    entered,
                    _earliest(s.dropped.get(n), s.disqualified.get(n)),
                    n in s.disqualified,
                    present,
                )
            )
        return found

    def standing_players(self, s: State) -> list[Player]:
        """The players the standings rank: with check-in on, not those who never came (not
        checked in and in no pairing)."""
        paired = s.in_pairings()
        return [p for p in self.players(s) if p.checked_in or p.id in paired]

    def check_in(self, event_id: int, number: int, present: bool, actor: str, now: int) -> int:
        """Check a player in (they play from the next round to be paired) or out again (only
        while no pairing names them); returns the first round they play, 0 when out."""
        s = self.state(event_id)
        if number not in s.players:
            raise NotFound("no_such_player", "No such player.")
        if present:
            if number in s.checked_in:
                raise Conflict("already_done", "The player is already checked in.")
            first = max(s.players[number].entered_round, s.last_round + 1)
            self._append(
                event_id, "player.checked_in", {"player": number, "round": first}, actor, now
            )
            return first
        if number not in s.checked_in:
            raise Conflict("already_done", "The player is not checked in.")
        if number in s.in_pairings():
            raise Conflict(
                "already_paired_player",
                "The player is in a pairing already: drop them instead.",
                {"player": number},
            )
        self._append(event_id, "player.checked_out", {"player": number}, actor, now)
        return 0

    def pair_next(self, event_id: int, actor: str, now: int) -> dict[str, Any]:
        """Pair the next Swiss round (every result of the last one must be in)."""
        s = self.state(event_id)
        if s.cut_rounds():
            raise Conflict("cut_started", "The top cut has started.")
        rnd = self.tournament.current_round(event_id)
        self._require_results(event_id, s, f"pair round {rnd.number + 1}")
        # The event's current round if nothing is paired on it yet, else the next one.
        fresh = rnd.started_ms is None and not self.tournament.round_paired(event_id)
        round_no = max(s.last_round + 1, rnd.number if fresh else rnd.number + 1)
        active = sum(1 for p in self.players(s) if p.active_in(round_no))
        planned = s.swiss_rounds or core.swiss_rounds(max(active, 2))
        if len(s.swiss_matches_rounds()) + 1 > planned:
            raise Conflict(
                "swiss_over",
                f"The {planned} Swiss rounds are played: start the top cut, or raise the "
                "number of rounds.",
            )
        seed = self._round_one_seed() if round_no == 1 else None
        rng = Random(seed)
        try:
            pairing = core.pair_round(
                self.players(s), self.matches(event_id, s, SWISS), round_no, rng.randrange
            )
        except SwissError as exc:
            raise Conflict(exc.code, exc.message) from None
        self._place(event_id, s, round_no, list(pairing.tables), now)
        self._append(
            event_id,
            "round.paired",
            {
                "round": round_no,
                "stage": SWISS,
                "seed": seed,
                "tables": [list(t) for t in pairing.tables],
                "bye": pairing.bye,
            },
            actor,
            now,
        )
        return {"round": round_no, "tables": len(pairing.tables), "bye": pairing.bye}

    def _require_results(self, event_id: int, s: State, then: str) -> None:
        """Every match of the last round has its result (named when not), and no table of
        the event's current round is still playing."""
        rp = s.rounds.get(s.last_round)
        if rp is not None:
            open_ = [
                m.table
                for m in self.matches(event_id, s, rp.stage)
                if m.round == rp.number and m.result is None and m.b is not None
            ]
            if open_:
                listed = ", ".join(str(n) for n in open_)
                raise Conflict(
                    "results_missing",
                    f"Round {rp.number}: table {listed} has no result yet. Let it finish, or "
                    f"enter a judge's result, then {then}.",
                    {"round": rp.number, "tables": open_},
                )
        rnd = self.tournament.current_round(event_id)
        if rnd.started_ms is not None:
            self.tournament.require_results(event_id, then)

    def repair(self, event_id: int, actor: Actor, confirmed: bool, now: int) -> dict[str, Any]:
        """Pair the current round again: recorded as a new pairing of the same round; the
        first one stays in the log. Before the round starts, the organiser's correction; after
        it, only a judge's explicit one (`confirmed`): the round's tables are set aside and the
        new pairing gets fresh ones, to start again."""
        s = self.state(event_id)
        rp = s.rounds.get(s.last_round)
        if rp is None or rp.stage != SWISS:
            raise Conflict("no_such_round", "No Swiss round to pair again: pair round 1 first.")
        rnd = self.tournament.current_round(event_id)
        if rnd.number != rp.number:
            raise Conflict(
                "round_closed",
                f"Round {rp.number} is over: pair round {rnd.number} instead.",
                {"round": rp.number},
            )
        seqs: dict[str, int] = {}
        if rnd.started_ms is not None:
            if not confirmed or actor.role != "judge":
                raise Conflict(
                    "repair_needs_judge",
                    f"Round {rp.number} has started: re-pairing it restarts its tables on new "
                    f"codes. A judge confirms that on the floor page (Re-pair round "
                    f"{rp.number}).",
                    {"round": rp.number},
                )
            seqs = self.tournament.set_aside_round(event_id, actor, now)
        del s.rounds[rp.number]
        seed = self._round_one_seed() if rp.number == 1 else None
        try:
            pairing = core.pair_round(
                self.players(s),
                self.matches(event_id, s, SWISS),
                rp.number,
                Random(seed).randrange,
            )
        except SwissError as exc:
            raise Conflict(exc.code, exc.message) from None
        self._place(event_id, s, rp.number, list(pairing.tables), now)
        self._append(
            event_id,
            "round.paired",
            {
                "round": rp.number,
                "stage": SWISS,
                "seed": seed,
                "tables": [list(t) for t in pairing.tables],
                "bye": pairing.bye,
                "replaces": rp.seq,
                "restarted": bool(seqs) or rnd.started_ms is not None,
            },
            actor.name,
            now,
        )
        return {
            "round": rp.number,
            "tables": len(pairing.tables),
            "bye": pairing.bye,
            "seqs": seqs,
        }

    def start_cut(self, event_id: int, size: int, actor: str, now: int) -> dict[str, Any]:
        """The top cut's first round, seeded by the Swiss standings (dropped players out)."""
        s = self.state(event_id)
        if s.cut_rounds():
            raise Conflict("cut_started", "The top cut has started.")
        swiss = self.matches(event_id, s, SWISS)
        if not swiss:
            raise Conflict("no_swiss", "Play the Swiss rounds first: pair round 1.")
        self._require_results(event_id, s, "start the top cut")
        ranked = [
            st.player.id
            for st in core.standings(self.standing_players(s), swiss)
            if st.player.dropped_after is None
        ]
        try:
            pairs = core.top_cut(ranked, size)
        except SwissError as exc:
            raise Conflict(exc.code, exc.message) from None
        return self._cut_round(event_id, s, pairs, actor, now, size)

    def next_cut(self, event_id: int, actor: str, now: int) -> dict[str, Any]:
        s = self.state(event_id)
        cut = s.cut_rounds()
        if not cut:
            raise Conflict("no_cut", "The top cut has not started.")
        last = [m for m in self.matches(event_id, s, CUT) if m.round == cut[-1].number]
        self._require_results(event_id, s, "pair the next round of the top cut")
        winners = [m.a if m.result == "A" else m.b for m in sorted(last, key=lambda m: m.table)]
        if len(winners) == 1:
            raise Conflict("already_done", "The final is over.")
        pairs = core.next_cut_round([w for w in winners if w is not None])
        return self._cut_round(event_id, s, pairs, actor, now, None)

    def _cut_round(
        self,
        event_id: int,
        s: State,
        pairs: list[tuple[int, int]],
        actor: str,
        now: int,
        size: int | None,
    ) -> dict[str, Any]:
        round_no = s.last_round + 1
        tables = [(i, a, b) for i, (a, b) in enumerate(pairs, 1)]
        self._place(event_id, s, round_no, tables, now)
        self._append(
            event_id,
            "round.paired",
            {"round": round_no, "stage": CUT, "tables": [list(t) for t in tables], "size": size},
            actor,
            now,
        )
        return {"round": round_no, "tables": len(tables)}

    def _place(
        self, event_id: int, s: State, round_no: int, tables: list[tuple[int, int, int]], now: int
    ) -> None:
        """Put the pairing on the event's round of the same number (opening it if needed, with
        as many tables as the pairing needs)."""
        ev = self.tournament.event(event_id)
        need = max(len(tables), 1)
        if need > ev.table_count:
            self.event_rows.set_event_fields(event_id, table_count=need)
            ev = self.tournament.event(event_id)
        rnd = self.tournament.current_round(event_id)
        if rnd.number < round_no:
            if rnd.number != round_no - 1:
                raise Conflict("invalid", "The event's rounds are out of step.")
            self.event_rows.set_round_ended(rnd.id, now)
            self.tournament.make_round(ev, round_no, now)
            rnd = self.tournament.current_round(event_id)
        elif rnd.number > round_no or rnd.started_ms is not None:
            raise Conflict(
                "round_started",
                f"Round {rnd.number} has started: to pair it again, a judge confirms a re-pair.",
                {"round": rnd.number},
            )
        codes = self._codes(event_id, round_no)
        rules = ev.ruleset
        for n in range(len(codes) + 1, need + 1):
            code = self.tournament.logs.create_table(
                get_ruleset(rules["name"], match_minutes=rules["match_minutes"], staff_start=True),
                now,
            )
            self.event_rows.add_round_table(event_id, rnd.id, n, code)
            time.sleep(0)
        by_no = {t: (a, b) for t, a, b in tables}
        lines = []
        for n in self._codes(event_id, round_no):
            a, b = by_no.get(n, (None, None))
            pa = s.players.get(a) if a is not None else None
            pb = s.players.get(b) if b is not None else None
            lines.append(
                (
                    n,
                    pa.name if pa else "",
                    pa.player_id if pa else "",
                    pb.name if pb else "",
                    pb.player_id if pb else "",
                )
            )
        self.event_rows.set_pairings(rnd.id, lines)  # every table's line in one transaction

    # -- what the pages show ----------------------------------------------------------------

    def summary(self, event_id: int) -> dict[str, Any]:
        """The event's rounds, standings and players, for its pages."""
        known = _KNOWN_SEQS.set(self._event_seqs(event_id))
        codes = _KNOWN_CODES.set({})
        try:
            return self._summary(event_id)
        finally:
            _KNOWN_CODES.reset(codes)
            _KNOWN_SEQS.reset(known)

    def _summary(self, event_id: int) -> dict[str, Any]:
        s = self.state(event_id)
        players = self.players(s)
        swiss = self.matches(event_id, s, SWISS)
        cut = self.matches(event_id, s, CUT)
        table = [dict(row) for row in self._standings(event_id, self.standing_players(s), swiss)]
        names = {n: p.name for n, p in s.players.items()}
        pids = {n: p.player_id for n, p in s.players.items()}
        for row in table:
            row["player_id"] = pids[row["player"]]
        rounds: list[dict[str, Any]] = []
        for rp in sorted(s.rounds.values(), key=lambda r: r.number):
            codes = self._codes(event_id, rp.number)
            source = cut if rp.stage == CUT else swiss
            ms = {m.table: m for m in source if m.round == rp.number and m.b is not None}
            rounds.append(
                {
                    "number": rp.number,
                    "stage": rp.stage,
                    "seed": rp.seed,
                    "bye": {"player": rp.bye, "name": names.get(rp.bye, "")} if rp.bye else None,
                    "tables": [
                        {
                            "table": t,
                            "code": codes.get(t, ""),
                            "a": {"player": a, "name": names.get(a, "")},
                            "b": {"player": b, "name": names.get(b, "")},
                            "result": ms[t].result if t in ms else None,
                            "judged": self._judged(codes.get(t)),
                        }
                        for t, a, b in rp.tables
                    ],
                }
            )
        current = rounds[-1] if rounds else None
        open_tables = (
            [t["table"] for t in current["tables"] if t["result"] is None] if current else []
        )
        active = sum(1 for p in players if p.dropped_after is None and p.checked_in)
        # A Swiss round is played once every one of its results is in.
        swiss_done = sum(
            1
            for r in rounds
            if r["stage"] == SWISS and all(t["result"] is not None for t in r["tables"])
        )
        champion = None
        cut_rounds = s.cut_rounds()
        if cut_rounds and len(cut_rounds[-1].tables) == 1:
            final = [m for m in cut if m.round == cut_rounds[-1].number]
            if final and final[0].result in ("A", "B"):
                w = final[0].a if final[0].result == "A" else final[0].b
                champion = {"player": w, "name": names.get(w or 0, "")}
        played_all = swiss_done >= (s.swiss_rounds or core.swiss_rounds(max(active, 2)))
        return {
            "cycle": self.cycle(event_id, len(players), bool(cut_rounds), played_all, champion),
            "players": [
                {
                    "number": p.id,
                    "name": p.name,
                    "player_id": pids[p.id],
                    "entered_round": p.entered_round,
                    "dropped_after": p.dropped_after,
                    "disqualified": p.disqualified,
                    "has_decklist": bool(s.players[p.id].decklist),
                    "checked_in": p.id in s.checked_in,
                }
                for p in players
            ],
            "standings": table,
            "rounds": rounds,
            "open_tables": open_tables,
            "swiss_rounds": s.swiss_rounds or core.swiss_rounds(max(active, 2)),
            "swiss_rounds_override": s.swiss_rounds,
            "swiss_played": swiss_done,
            "cut_size": s.cut_size,
            "public": s.public,
            "check_in": s.check_in,
            "checked_in": sum(1 for n in s.players if n in s.checked_in),
            "repairs": s.repairs,
            "champion": champion,
            "stage": CUT if cut_rounds else SWISS,
        }

    def event_results(self, event_id: int) -> dict[str, Any]:
        """Every player's result in every round of the event (Swiss and top cut), beside the
        standings with their exact percentages: what the whole-event export writes."""
        s = self.state(event_id)
        players = self.standing_players(s)
        swiss = self.matches(event_id, s, SWISS)
        ranked = core.standings(players, swiss)
        numbers = sorted(s.rounds)
        cells: dict[int, dict[int, dict[str, Any]]] = {n: {} for n in numbers}
        for n in numbers:
            rp = s.rounds[n]
            codes = self._codes(event_id, n)
            if rp.bye is not None:
                cells[n][rp.bye] = {"result": "bye", "opponent": "", "table": 0, "reason": ""}
            for t, a, b in rp.tables:
                v = self._table_view(codes.get(t))
                decided = bool(v and v["match"]["decided"])
                winner = v["match"]["winner"] if v and decided else None
                reason = str(v["match"]["reason"] or "") if v and decided else ""
                wins = v["wins"] if v else {"A": 0, "B": 0}
                for me, other, seat in ((a, b, "A"), (b, a, "B")):
                    if not decided:
                        result = ""
                    elif winner == seat:
                        result = "W"
                    elif winner is None and reason != DOUBLE_LOSS:
                        result = "D"
                    else:
                        result = "L"
                    mine, theirs = wins[seat], wins["B" if seat == "A" else "A"]
                    cells[n][me] = {
                        "result": result,
                        "duels": f"{mine}-{theirs}" if decided else "",
                        "opponent": s.players[other].name if other in s.players else "",
                        "table": t,
                        "reason": reason,
                    }
        rows = [
            {
                "rank": st.rank,
                "name": st.player.name,
                "player_id": s.players[st.player.id].player_id,
                "points": st.points,
                "record": f"{st.wins}-{st.losses}-{st.draws}",
                "omw": st.omw,
                "oomw": st.oomw,
                "tiebreak": st.tiebreak,
                "dropped": st.player.dropped_after is not None,
                "disqualified": st.player.disqualified,
                "rounds": {n: cells[n].get(st.player.id) for n in numbers},
            }
            for st in ranked
        ]
        stages = {n: s.rounds[n].stage for n in numbers}
        return {"rounds": numbers, "stages": stages, "rows": rows}

    def cycle(
        self,
        event_id: int,
        players: int,
        in_cut: bool,
        swiss_played: bool,
        champion: dict[str, Any] | None,
    ) -> dict[str, Any]:
        """Where the event is in its round cycle (pair, start, play, results in, next) and the
        one action that moves it on: what the organiser's page shows first, with that action as
        its one primary button. `action` None: nothing to press, `waiting` says what for (the
        tables still without a result, which a judge's result can end)."""
        t = self.tournament
        rnd = t.current_round(event_id)
        n = rnd.number
        tables = t.tables(event_id)  # the round's, read once
        paired = any(is_paired(table) for table in tables)
        missing = []
        if rnd.started_ms:  # the tables whose match is not over (`Tournament.unfinished`)
            for table in t.playing(tables):
                part = self._table_part(table["code"])
                if part is None or not part.over:
                    missing.append(table["number"])
        following = "cut_next" if in_cut else ("cut" if swiss_played else "pair")
        if players == 0:
            following = "next"  # an event paired by hand: its next round opens empty
        if champion is not None:
            step, action = "done", None
        elif rnd.started_ms is None and paired:
            step, action = "start", "start"
        elif rnd.started_ms is None:
            if players < 2 and not in_cut:
                step, action = "register", None
            else:
                step, action = ("cut", "cut") if swiss_played and not in_cut else ("pair", "pair")
        elif missing:
            step, action = ("playing", "end") if rnd.ended_ms is None else ("results", None)
        else:
            step, action = "results_in", following
        return {"step": step, "action": action, "round": n, "waiting": missing}

    def event_by_slug(self, slug: str) -> EventRecord:
        """The event of a short address (NotFound: no_such_event), as the tournament says."""
        return self.tournament.event_by_slug(slug)


def _earliest(*rounds: int | None) -> int | None:
    found = [r for r in rounds if r is not None]
    return min(found) if found else None
