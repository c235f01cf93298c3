"""The official score sheet (R1.4): a table's event log turned into the rows of the paper sheet.

Pure: no Flask, no database. `build_sheet` replays the envelopes through the rules core
(`server.rules.apply`), so the duel and turn of each entry come from the same state the table
had, and reads everything else from the events' own data. `ledger_rows` gives the CSV export's
rows; `public_log` hides what a spectator may not see yet.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, tzinfo
from typing import Any

from server.core.i18n import Said
from server.rules import EMPTY, EVENTS, Event, TableState, apply
from server.rules.base import Param, SheetLine, upgraded
from server.rules.match import HANDS
from server.rules.time_over import STAGES, stage_turns
from server.rules.view import LIST_EVENTS

SEATS = ("A", "B")

REASONS = {
    "lp_zero": "LP 0",
    "concede": "concession",
    "time_lp": "time: more LP after the extra turns",
    "time_draw": "time: equal LP",
    "sudden_death": "sudden death",
    "judge": "judge's decision",
    "penalty": "penalty",
    "wins": "duel wins",
    "most_wins": "more duel wins after three duels",
    "level_wins": "level duel wins after three duels",
    "time_lead": "time: leading in duel wins",
    "extra_duel": "Extra Duel",
    "match_loss": "penalty: match loss",
    "disqualification": "penalty: disqualification",
    "disqualification_total": "penalty: disqualification",
}
FLAGS = {
    "turn_overtime": "turn over the thinking time",
    "window_overtime": "between-duel time over",
    "round_ended": "round ended",
}


# --- the sheet ---------------------------------------------------------------------------


@dataclass
class LedgerRow:
    """One confirmed LP entry: the changes, both running totals, who and when."""

    entry: int
    duel: int
    turn: int
    changes: dict[str, str]
    delta: dict[str, int | None]
    kinds: dict[str, str]
    lp: dict[str, int]
    by: str
    confirmed_by: str
    note: str
    at_ms: int
    by_judge: bool = False
    # Proposed and confirmed by seats that joined from one phone (table mode).
    shared_device: bool = False
    # An entry that never applied (withdrawn, cancelled at the duel's end, a rejection voided):
    # what became of it, a Said; its number stays on the sheet so no number is missing (R1.4).
    gone: str = ""


@dataclass
class Confirmation:
    """A seat's (or a judge's) yes to a result, and when."""

    who: str
    at_ms: int


@dataclass
class DuelSheet:
    """One duel's column of the sheet, its start and its result."""

    no: int
    extra: bool = False
    start_lp: int = 8000
    started_ms: int | None = None
    chooser: str | None = None
    rps: str = ""  # a Said
    first: str | None = None
    rows: list[LedgerRow] = field(default_factory=list)
    winner: str | None = None
    reason: str = ""
    decided: bool = False
    decided_by: str = ""
    final: bool = False
    final_lp: dict[str, int] | None = None
    final_ms: int | None = None
    confirmations: list[Confirmation] = field(default_factory=list)

    @property
    def reason_text(self) -> str:
        return REASONS.get(self.reason, self.reason)


@dataclass
class RollLine:
    roll: int
    duel: int
    kind: str
    results: str
    by: str
    at_ms: int
    void: bool = False
    void_note: str = ""  # a Said
    void_reason: str = ""  # the words of whoever voided it


@dataclass
class Line:
    """A dated line of the judges' or the clock's history."""

    at_ms: int
    duel: int
    who: str
    text: str  # a Said: words in the reader's language (as a str, English)
    note: str = ""  # the words of whoever wrote it, as written


@dataclass
class MatchSheet:
    """One match at the table: its duels, result, rolls, rulings and clock history."""

    no: int
    decks: dict[str, str] = field(default_factory=dict)
    duels: list[DuelSheet] = field(default_factory=list)
    winner: str | None = None
    reason: str = ""
    decided: bool = False
    decided_by: str = ""
    decided_ms: int | None = None
    confirmations: list[Confirmation] = field(default_factory=list)
    rolls: list[RollLine] = field(default_factory=list)
    rulings: list[Line] = field(default_factory=list)
    penalties: list[Line] = field(default_factory=list)
    clock: list[Line] = field(default_factory=list)
    decks_log: list[Line] = field(default_factory=list)

    @property
    def reason_text(self) -> str:
        return REASONS.get(self.reason, self.reason)

    @property
    def entries(self) -> int:
        return sum(1 for d in self.duels for r in d.rows if not r.gone)

    @property
    def wins(self) -> dict[str, int]:
        """Duel wins so far (an Extra Duel decides the match but is not a duel win)."""
        won = {s: 0 for s in SEATS}
        for d in self.duels:
            if d.final and d.winner in SEATS and not d.extra:
                won[str(d.winner)] += 1
        return won

    def duel(self, no: int, start_lp: int) -> DuelSheet:
        """The duel numbered `no`, made on first sight."""
        for d in self.duels:
            if d.no == no:
                return d
        made = DuelSheet(no=no, start_lp=start_lp)
        self.duels.append(made)
        return made


@dataclass
class Chain:
    """The hash chain's state as printed: head, length, and the first broken link if any."""

    ok: bool
    count: int
    head: str
    seq: int | None = None
    problem: str | None = None


@dataclass
class Sheet:
    """A table's whole score sheet."""

    code: str
    ruleset: dict[str, Any]
    created_ms: int
    seats: dict[str, dict[str, str]]
    matches: list[MatchSheet]
    chain: Chain
    last_ms: int

    def name(self, seat: str | None) -> str:
        """A seat's player name, or the label as given (a judge)."""
        if seat in SEATS:
            return self.seats[str(seat)]["name"] or str(seat)
        return seat or ""


# --- formatting helpers ------------------------------------------------------------------


def change_text(change: Mapping[str, Any]) -> Said:
    """How a change is written on the sheet: -1000, +500, -1000 cost, half, =4000."""
    kind, amount = change.get("kind"), int(change.get("amount", 0))
    if kind in ("damage", "cost", "gain", "halve"):
        return Said(f"sheet.chg.{kind}", n=amount)
    return Said("sheet.chg.set", n=amount)


def label(text: str) -> Said | str:
    """Who a label names (A, B, judge:<name>, judge, server), in words: a seat stays its
    letter, a staff role is said in the reader's language with the name as written."""
    role, _, name = text.partition(":")
    if role in ("judge", "organiser", "system", "server"):
        role = "server" if role == "system" else role
        return Said(f"sheet.who.{role}", name=name) if name else Said(f"sheet.who.{role}_role")
    return text


def deck_counts(counts: Mapping[str, Any], key: str = "sheet.row.deck_counts") -> Said:
    return Said(key, main=counts["main"], extra=counts["extra"], side=counts["side"])


STAFF_ROLES = frozenset({"judge", "organiser"})


def staff_label(label: str, names: bool) -> str:
    """A label the rules wrote (A, B, judge:<name>) as a record shows it: without `names`, a
    staff account's name is left out (judge:<name> is judge)."""
    role, _, name = label.partition(":")
    return role if name and not names and role in STAFF_ROLES else label


def who(actor: Mapping[str, Any], names: bool = True) -> str:
    """How the sheet names an event's actor: A, B, judge:<name>, or the server. Without
    `names` (a public record) a judge or organiser is named by the role alone: staff accounts'
    names are what a login guesser would need."""
    role, seat, name = actor.get("role"), actor.get("seat"), actor.get("name") or ""
    if role == "seat" and seat:
        return str(seat)
    if role == "system":
        return "server"
    return f"{role}:{name}" if name and names else str(role or "")


def clock_text(ms: int) -> str:
    """Minutes and seconds, e.g. 40:00 or 2:30."""
    seconds = max(0, ms) // 1000
    return f"{seconds // 60}:{seconds % 60:02d}"


def local(ms: int | None, tz: tzinfo | None) -> datetime | None:
    """An event time as an aware datetime in `tz` (UTC when None)."""
    if ms is None:
        return None
    return datetime.fromtimestamp(ms / 1000, tz=UTC).astimezone(tz or UTC)


def time_text(ms: int | None, tz: tzinfo | None) -> str:
    """HH:MM:SS in `tz`."""
    when = local(ms, tz)
    return when.strftime("%H:%M:%S") if when else ""


def iso_text(ms: int | None, tz: tzinfo | None) -> str:
    """ISO 8601 with the offset, to the millisecond."""
    when = local(ms, tz)
    return when.isoformat(timespec="milliseconds") if when else ""


# --- building ----------------------------------------------------------------------------


def _event(envelope: Mapping[str, Any]) -> Event:
    return Event.from_dict(
        {
            "type": envelope["type"],
            "data": envelope.get("data") or {},
            "at_ms": envelope.get("at_ms") or 0,
            "actor": envelope.get("actor") or {},
        }
    )


class _Builder:
    """Walks the log once, keeping the replayed state beside the sheet being written."""

    def __init__(self, names: bool = True) -> None:
        self.names = names
        self.state: TableState = EMPTY
        self.code = ""
        self.ruleset: dict[str, Any] = {}
        self.created_ms = 0
        self.last_ms = 0
        self.seats = {s: {"name": "", "player_id": ""} for s in SEATS}
        self.devices = {s: "" for s in SEATS}  # the phone each seat joined from, if one said
        self.matches: list[MatchSheet] = [MatchSheet(no=1)]

    @property
    def match(self) -> MatchSheet:
        return self.matches[-1]

    def current_duel(self) -> DuelSheet:
        return self.match.duel(self.state.duel_no, self.state.ruleset.starting_lp)

    def feed(self, envelope: Mapping[str, Any]) -> None:
        """Apply one envelope and write what its declaration says it writes (`SheetLine`): a
        dated line, or its step. An event from an older log is read with the fields its
        declaration fills (`upgraded`)."""
        before = self.state
        event = upgraded(before, _event(envelope))
        self.state = apply(before, event)
        self.last_ms = max(self.last_ms, event.at_ms)
        declared = EVENTS.get(event.type)
        line = declared.sheet if declared is not None else None
        if line is None:
            return
        by = who(envelope.get("actor") or {}, self.names)
        if line.step:
            STEPS[event.type](self, event, before, by)
        else:
            self.line(line, event, before, by)

    def line(self, line: SheetLine, e: Event, before: TableState, by: str) -> None:
        """A declared line: its code (or the variant the data picks), its values, its note."""
        if line.only is not None and not chosen("", (tuple(line.only) + ("yes",),), e.data):
            return
        code = chosen(line.code, line.variants, e.data)
        values = {name: sheet_value(param, e.data, by) for name, param in line.params.items()}
        note = sheet_value(line.note, e.data, by) if line.note else ""
        if not self.names and isinstance(line.note, str) and line.note in declared_staff(e.type):
            note = ""  # words only the event's staff read: the public sheet leaves them out
        duel = before.duel_no - 1 if line.last_duel else before.duel_no
        section: list[Line] = getattr(self.match, line.section)
        section.append(Line(e.at_ms, duel, by, Said(code, **values), note))

    # table and seats

    def on_table_created(self, e: Event, before: TableState, by: str) -> None:
        self.code = str(e.data.get("code", ""))
        self.ruleset = dict(e.data.get("ruleset") or {})
        self.created_ms = e.at_ms

    def on_seat_joined(self, e: Event, before: TableState, by: str) -> None:
        self.seats[e.data["seat"]] = {
            "name": str(e.data.get("name", "")),
            # An event player's ID is for the staff's sheet (docs/security.md).
            "player_id": str(e.data.get("player_id", "")) if self.names else "",
        }
        self.devices[e.data["seat"]] = str(e.data.get("device") or "")

    def on_seat_moved(self, e: Event, before: TableState, by: str) -> None:
        self.devices[e.data["seat"]] = ""  # another phone now holds the seat

    def on_seat_released(self, e: Event, before: TableState, by: str) -> None:
        self.devices[e.data["seat"]] = ""

    def on_match_started(self, e: Event, before: TableState, by: str) -> None:
        sheet = MatchSheet(no=int(e.data.get("match", len(self.matches) + 1)))
        sheet.decks = dict(self.match.decks)
        self.matches.append(sheet)

    # decks (R2, R6.8, R7.5)

    def on_deck_declared(self, e: Event, before: TableState, by: str) -> None:
        c = e.data["counts"]
        self.match.decks[e.data["seat"]] = deck_counts(c)

    def on_deck_registered(self, e: Event, before: TableState, by: str) -> None:
        c = e.data["counts"]
        self.match.decks[e.data["seat"]] = deck_counts(c, "sheet.row.deck_list_counts")

    # the start of a duel (R6.5-R6.7)

    def on_rps_decided(self, e: Event, before: TableState, by: str) -> None:
        duel = self.current_duel()
        throws = before.pregame.throws if e.data.get("how") == "app" else ()
        if e.data.get("how") != "app":
            how = Said("sheet.row.rps_reported", by=label(by))
        else:
            # R6.5: both hands, shown together once both were picked
            last = throws[-1] if throws else {}
            hands = {s: Said(f"rps.{last[s]}") if last.get(s) in HANDS else "?" for s in SEATS}
            if len(throws) > 1:
                how = Said(
                    "sheet.row.rps_app_ties_hands", n=len(throws) - 1, a=hands["A"], b=hands["B"]
                )
            else:
                how = Said("sheet.row.rps_app_hands", a=hands["A"], b=hands["B"])
        duel.rps = Said("sheet.row.rps_won", seat=e.data["winner"], how=how)

    def on_pregame_opened(self, e: Event, before: TableState, by: str) -> None:
        duel = self.current_duel()
        duel.chooser = e.data.get("chooser")

    def on_duel_chosen(self, e: Event, before: TableState, by: str) -> None:
        duel = self.current_duel()
        duel.chooser = e.data["seat"]
        duel.first = e.data["first"]

    def on_duel_started(self, e: Event, before: TableState, by: str) -> None:
        duel = self.current_duel()
        duel.started_ms = e.at_ms
        duel.extra = bool(e.data.get("extra"))
        duel.first = e.data.get("first", duel.first)
        duel.start_lp = self.state.lp["A"]

    # the ledger (R1.4, R7.4)

    def on_lp_applied(self, e: Event, before: TableState, by: str) -> None:
        d = e.data
        row = self.state.ledger[-1]  # the rules' own row: duel and turn as the table had them
        changes: dict[str, str] = {s: "" for s in SEATS}
        kinds: dict[str, str] = {s: "" for s in SEATS}
        delta: dict[str, int | None] = {s: None for s in SEATS}
        for change in d["changes"]:
            seat = change["seat"]
            changes[seat] = change_text(change)
            kinds[seat] = str(change["kind"])
            delta[seat] = int(d["lp"][seat]) - before.lp[seat]
        confirmed_by = staff_label(str(d["confirmed_by"]), self.names)
        proposer = staff_label(str(d["by"]), self.names)
        shared = (
            proposer in SEATS
            and confirmed_by in SEATS
            and proposer != confirmed_by
            and bool(self.devices[proposer])
            and self.devices[proposer] == self.devices[confirmed_by]
        )
        self.current_duel().rows.append(
            LedgerRow(
                entry=int(d["entry"]),
                duel=row.duel,
                turn=row.turn,
                changes=changes,
                delta=delta,
                kinds=kinds,
                lp={s: int(d["lp"][s]) for s in SEATS},
                by=proposer,
                confirmed_by=confirmed_by,
                note=str(d.get("note") or ""),
                at_ms=e.at_ms,
                by_judge=bool(d.get("new")) or confirmed_by not in SEATS,
                shared_device=shared,
            )
        )

    def gone_row(self, e: Event, before: TableState, proposal: Any, text: Said) -> None:
        """An entry's line that says why it never applied, its proposed changes shown as such."""
        changes: dict[str, str] = {s: "" for s in SEATS}
        kinds: dict[str, str] = {s: "" for s in SEATS}
        if proposal is not None:
            for c in proposal.changes:
                changes[c.seat] = change_text(c.to_dict())
                kinds[c.seat] = c.kind
        self.current_duel().rows.append(
            LedgerRow(
                entry=int(e.data["entry"]),
                duel=before.duel_no,
                turn=before.turn.no if before.turn else 0,
                changes=changes,
                delta={s: None for s in SEATS},
                kinds=kinds,
                lp=dict(before.lp),
                by=staff_label(str(proposal.by), self.names) if proposal is not None else "",
                confirmed_by="",
                note=str(getattr(proposal, "note", "") or ""),
                at_ms=e.at_ms,
                gone=text,
            )
        )

    def on_lp_withdrawn(self, e: Event, before: TableState, by: str) -> None:
        p = next((p for p in before.pending if p.entry == e.data["entry"]), None)
        self.gone_row(e, before, p, Said("sheet.gone.withdrawn"))

    def on_lp_cancelled(self, e: Event, before: TableState, by: str) -> None:
        p = next((p for p in before.pending if p.entry == e.data["entry"]), None)
        key = (
            "sheet.gone.duel_over"
            if e.data.get("reason") == "duel_over"
            else "sheet.gone.cancelled"
        )
        self.gone_row(e, before, p, Said(key))

    def _dispute_gone(self, e: Event, before: TableState, key: str, **values: Any) -> None:
        d = next((d for d in before.disputes if d.entry == e.data["entry"]), None)
        self.gone_row(e, before, d.proposal if d else None, Said(key, **values))

    def on_lp_rejected(self, e: Event, before: TableState, by: str) -> None:
        p = next((p for p in before.pending if p.entry == e.data["entry"]), None)
        text = Said("sheet.row.lp_rejected", entry=e.data["entry"], by=e.data["by"])
        if p is not None:
            changes = [
                Said("sheet.row.seat_change", seat=c.seat, change=change_text(c.to_dict()))
                for c in p.changes
            ]
            text = Said(
                "sheet.row.lp_rejected_changes",
                entry=e.data["entry"],
                by=e.data["by"],
                proposer=label(p.by),
                changes=changes,
            )
        # At an event table the reason is the judge call's, read by the staff only (as on the
        # phones, `rules.view.event_for`); at a casual table it is the players' own.
        reason = e.data.get("reason", "") if self.names or not before.ruleset.staff_start else ""
        self.match.rulings.append(Line(e.at_ms, before.duel_no, by, text, reason))

    def on_dispute_settled(self, e: Event, before: TableState, by: str) -> None:
        action = e.data["action"]
        done = "applied" if action == "apply" else "voided" if action == "void" else "corrected"
        text = Said(f"sheet.row.dispute_{done}", entry=e.data["entry"])
        if action == "correct":  # R7.1: the judge's one step, to the amount it should have been
            changes = [
                Said("sheet.row.seat_change", seat=c["seat"], change=change_text(c))
                for c in e.data["changes"]
            ]
            text = Said("sheet.row.dispute_corrected_to", entry=e.data["entry"], changes=changes)
        self.match.rulings.append(Line(e.at_ms, before.duel_no, by, text, e.data.get("note", "")))
        if action == "void":
            self._dispute_gone(e, before, "sheet.gone.voided")

    def on_dispute_closed(self, e: Event, before: TableState, by: str) -> None:
        """A casual table's players settled a rejected entry themselves (R7.1)."""
        status, entry = e.data["status"], e.data["entry"]
        if status == "corrected":
            text = Said("sheet.row.rejected_corrected", entry=entry, new=e.data.get("new_entry"))
        elif status == "dropped":
            text = Said("sheet.row.rejected_dropped", entry=entry)
        else:
            text = Said("sheet.row.rejected_withdrawn", entry=entry)
        self.match.rulings.append(Line(e.at_ms, before.duel_no, by, text, ""))
        if status == "corrected":
            self._dispute_gone(e, before, "sheet.gone.corrected", new=e.data.get("new_entry"))
        else:
            self._dispute_gone(e, before, "sheet.gone.rejected")

    # results (R3, R7.3, R7.4)

    def on_duel_ended(self, e: Event, before: TableState, by: str) -> None:
        duel = self.match.duel(int(e.data["duel"]), self.state.ruleset.starting_lp)
        duel.winner = e.data.get("winner")
        duel.reason = str(e.data.get("reason", ""))
        duel.decided = True
        duel.decided_by = by
        duel.confirmations = []

    def on_result_confirmed(self, e: Event, before: TableState, by: str) -> None:
        duel = self.match.duel(int(e.data["duel"]), self.state.ruleset.starting_lp)
        duel.confirmations.append(Confirmation(e.data["seat"], e.at_ms))

    def on_duel_final(self, e: Event, before: TableState, by: str) -> None:
        duel = self.match.duel(int(e.data["duel"]), self.state.ruleset.starting_lp)
        duel.winner = e.data.get("winner")
        duel.reason = str(e.data.get("reason", ""))
        duel.extra = bool(e.data.get("extra", duel.extra))
        duel.final = True
        duel.final_ms = e.at_ms
        duel.final_lp = dict(self.state.duels[-1].lp) if self.state.duels else dict(before.lp)
        if by not in SEATS:  # a judge's decision stands for both seats
            duel.confirmations.append(Confirmation(by, e.at_ms))

    def on_match_decided(self, e: Event, before: TableState, by: str) -> None:
        m = self.match
        m.winner = e.data.get("winner")
        m.reason = str(e.data.get("reason", ""))
        m.decided = True
        m.decided_by = by
        m.decided_ms = e.at_ms
        m.confirmations = [Confirmation(by, e.at_ms)] if e.data.get("final") else []

    def on_match_confirmed(self, e: Event, before: TableState, by: str) -> None:
        self.match.confirmations.append(Confirmation(e.data["seat"], e.at_ms))

    # coin and die (R1.5)

    def on_roll_made(self, e: Event, before: TableState, by: str) -> None:
        d = e.data
        kind = str(d["kind"])
        results = Said(
            "sheet.roll.results",
            results=[
                Said(f"sheet.coin.{r}") if kind == "coin" and r in ("heads", "tails") else str(r)
                for r in d.get("results", [])
            ],
        )
        self.match.rolls.append(
            RollLine(
                int(d["roll"]),
                before.duel_no,
                Said(f"sheet.roll.{kind}") if kind in ("coin", "die") else kind,
                results,
                by,
                e.at_ms,
            )
        )

    def on_roll_voided(self, e: Event, before: TableState, by: str) -> None:
        for m in self.matches:
            for r in m.rolls:
                if r.roll == e.data["roll"]:
                    r.void = True
                    r.void_note = Said("sheet.row.roll_voided_by", by=label(by))
                    r.void_reason = str(e.data.get("note") or "")
        text = Said("sheet.row.roll_voided", roll=e.data["roll"])
        self.match.rulings.append(Line(e.at_ms, before.duel_no, by, text, e.data.get("note", "")))

    # judges (R7.1, R8)

    # the clock (R4, R5)

    def _clock(self, e: Event, before: TableState, by: str, text: str, note: str = "") -> None:
        self.match.clock.append(Line(e.at_ms, before.duel_no, by, text, note))

    def on_time_called(self, e: Event, before: TableState, by: str) -> None:
        during = str(e.data.get("during", ""))
        where: Said | str = Said(f"sheet.during.{during}") if during else ""
        if before.phase == "duel" and before.turn is not None:
            where = Said("sheet.row.duel_turn", duel=before.duel_no, turn=before.turn.no)
        self._clock(e, before, by, Said("sheet.row.time_called", where=where))

    def on_time_stage(self, e: Event, before: TableState, by: str) -> None:
        # The stage's one wording is the catalogues' `time.stage.<code>` (R5, `time_over.py`).
        stage = str(e.data["stage"])
        rules = self.state.ruleset
        of = e.data.get("of") or stage_turns(rules, stage)
        text: Said | str = (
            Said(f"time.stage.{stage}", n=e.data.get("extra_turn", 0), of=of)
            if stage in STAGES
            else stage
        )
        turn = self.state.turn.no + 1 if self.state.turn else 0
        if stage == "extra_turns" and turn:
            text = Said("sheet.row.stage_of_turn", stage=text, turn=turn)
        self._clock(e, before, by, text)

    def on_flag_raised(self, e: Event, before: TableState, by: str) -> None:
        kind = str(e.data["kind"])
        if kind == "turn_overtime":  # R4.3: a neutral flag, charged to nobody
            secs = int(self.state.ruleset.think_seconds)
            if secs % 60 == 0:
                limit = Said(
                    "sheet.row.minute" if secs == 60 else "sheet.row.minutes", n=secs // 60
                )
            else:
                limit = Said("sheet.row.seconds", n=secs)
            turn_no = e.data.get("turn")
            turn = Said("sheet.row.turn_n", n=turn_no) if turn_no else Said("sheet.row.a_turn")
            self._clock(e, before, by, Said("sheet.row.turn_overtime", turn=turn, limit=limit))
            return
        seat = e.data.get("seat")
        detail: Said | str = str(e.data.get("detail", ""))
        if kind in FLAGS:
            text: Said | str = Said(f"sheet.flag.{kind}")
        else:
            text = Said("sheet.flag.other", kind=kind.replace("_", " "))
        if seat:
            text = Said("sheet.row.flag_seat", flag=text, seat=seat)
        if kind == "window_overtime" and e.data.get("after_duel") is not None:
            detail = Said("sheet.row.after_duel", duel=e.data["after_duel"])
        self._clock(e, before, by, text, detail)


# The builder's step of each event whose declaration names one (`SheetLine.step`): the parts of
# the sheet that are more than a dated line. A declared step without its method fails here.
STEPS: dict[str, Callable[[_Builder, Event, TableState, str], None]] = {
    t: getattr(_Builder, "on_" + t.replace(".", "_"))
    for t, d in EVENTS.items()
    if d.sheet is not None and d.sheet.step
}


def _path(data: Mapping[str, Any], name: str) -> Any:
    value: Any = data
    for part in name.split("."):
        value = value.get(part) if isinstance(value, Mapping) else None
    return value


def chosen(code: str, variants: Sequence[Sequence[Any]], data: Mapping[str, Any]) -> str:
    """The code a declaration's variants pick for `data` (`server.rules.base.Words`)."""
    for field_name, value, variant in variants:
        found = _path(data, field_name)
        if (value == "*" and found) or (value is None and not found) or found == value:
            return str(variant)
    return code


def _side(data: Mapping[str, Any]) -> list[Said]:
    return [
        Said(f"sheet.row.side_{part}", n_in=data[part]["in"], n_out=data[part]["out"])
        for part in ("main", "extra")
        if (data.get(part) or {}).get("in")
    ]


def declared_staff(event_type: str) -> tuple[str, ...]:
    """The fields of `event_type` its declaration gives the event's staff only."""
    return EVENTS[event_type].staff_only


def sheet_value(param: Param, data: Mapping[str, Any], by: str = "") -> Any:
    """A declared value (`server.rules.base.FORMATS`) as the sheet says it; `by` is the
    event's actor as the sheet names it."""
    if isinstance(param, str):
        return _path(data, param)
    kind, name, *arg = param
    value = _path(data, name) if name else None
    if kind == "key":
        return Said(f"{arg[0]}{value}") if value else ""
    if kind == "minutes":
        return clock_text(int(value or 0))
    if kind == "side":
        return _side(data)
    if kind == "who":
        return label(str(value or by))
    if kind == "about":
        if not value:
            return ""
        params = dict(data.get("params") or {})
        entry, duel, deck = data.get("entry"), data.get("duel"), data.get("deck")
        return Said(f"call.{value}", entry=entry, duel=duel, seat=deck, **params)
    if kind == "count":
        return len(value or ())
    if kind == "num":
        return "?" if value is None else value
    raise ValueError(f"the sheet does not say {kind!r}")  # a format only the log words use


def filled_log(log: Iterable[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """The envelopes with the fields each event's declaration fills for a log written before
    them (`server.rules.base.upgraded`, from the replayed state): what the judges' log words,
    so an older table's events read as a new one's."""
    state: TableState = EMPTY
    out = []
    for envelope in log:
        event = _event(envelope)
        filled = upgraded(state, event)
        state = apply(state, filled)
        out.append(dict(envelope) if filled is event else {**envelope, "data": dict(filled.data)})
    return out


def build_sheet(
    log: Iterable[Mapping[str, Any]], chain: Chain | None = None, names: bool = True
) -> Sheet:
    """The score sheet of a table from its envelopes (in seq order) and its chain check;
    without `names`, staff are named by their role (`who`)."""
    envelopes = list(log)
    builder = _Builder(names)
    for envelope in envelopes:
        builder.feed(envelope)
    if chain is None:
        head = str(envelopes[-1].get("hash", "")) if envelopes else ""
        chain = Chain(ok=True, count=len(envelopes), head=head)
    matches = [m for m in builder.matches if m.duels or m.decided or m.no == 1 or m.rolls]
    return Sheet(
        code=builder.code,
        ruleset=builder.ruleset,
        created_ms=builder.created_ms,
        seats=builder.seats,
        matches=matches,
        chain=chain,
        last_ms=builder.last_ms,
    )


# --- exports -----------------------------------------------------------------------------

LEDGER_HEADER = [
    "duel",
    "entry",
    "turn",
    "seat A change",
    "seat B change",
    "LP A",
    "LP B",
    "proposed by",
    "confirmed by",
    "note",
    "time",
    "match",
    "seat A kind",
    "seat B kind",
]
# A formula opener (and the tab/CR spreadsheets also honour); a plain number is left alone.
_FORMULA = ("=", "+", "-", "@", "\t", "\r")
_NUMBER = re.compile(r"-?\d+(\.\d+)?")


def csv_safe(value: Any) -> str:
    """A cell a spreadsheet will not run: a leading = + - @ (tab, CR) gets a quote in front,
    except a plain negative number, which stays a number (-1800 adds up in a column)."""
    text = "" if value is None else str(value)
    if text.startswith(_FORMULA) and not _NUMBER.fullmatch(text):
        return "'" + text
    return text


def ledger_rows(sheet: Sheet, tz: tzinfo | None = None) -> list[list[str]]:
    """The CSV export: a header, then one row per confirmed LP entry, every cell made safe.

    A change is the signed difference the entry made to the seat's LP (a halving or a judge's
    "set" too), so a spreadsheet can add the column up; its kind is in the last columns.
    """
    rows = [list(LEDGER_HEADER)]
    for match in sheet.matches:
        for duel in match.duels:
            for r in duel.rows:
                if r.gone:  # the export adds up what applied; the sheet shows the rest
                    continue
                rows.append(
                    [
                        csv_safe(v)
                        for v in (
                            duel.no,
                            r.entry,
                            r.turn,
                            r.delta["A"],
                            r.delta["B"],
                            r.lp["A"],
                            r.lp["B"],
                            r.by,
                            r.confirmed_by,
                            r.note,
                            iso_text(r.at_ms, tz),
                            match.no,
                            r.kinds["A"],
                            r.kinds["B"],
                        )
                    ]
                )
    return rows


def public_log(log: Sequence[Mapping[str, Any]], names: bool = True) -> list[dict[str, Any]]:
    """The log as anyone may see it: a rock-paper-scissors pick not yet revealed is hidden;
    without `names` (a reader who is not the event's staff), so are the staff accounts' names
    (the actor's and a `judge` field's), a judge call's reason and a phone's device id.

    A pick is revealed by the `rps.thrown` that follows the second pick, so only picks after
    the last throw are secret. A hidden pick is marked, since its hash covers the real hand;
    so is an event whose staff name is hidden.
    """
    out = _public_log(log, staff=names)
    if names:
        return out
    for item in out:
        actor = dict(item.get("actor") or {})
        data = dict(item.get("data") or {})
        if actor.get("role") in STAFF_ROLES and actor.get("name"):
            item["actor"] = {**actor, "name": ""}
            item["hidden"] = True
        named = {k: staff_label(v, False) for k, v in data.items() if isinstance(v, str)}
        if data.get("judge"):
            named["judge"] = ""
        changed = {k: v for k, v in named.items() if v != data[k]}
        if changed:
            item["data"] = {**data, **changed}
            item["hidden"] = True
    return out


# Fields of an event that only the event's staff read in the exported log (the phones' events
# hide them the same way, `server.rules.view.event_for`).
# Each event's declaration beside its handler says which they are (`EventDeclaration.staff_only`).
STAFF_ONLY: dict[str, tuple[str, ...]] = {
    t: d.staff_only for t, d in EVENTS.items() if d.staff_only
}


def _public_log(log: Sequence[Mapping[str, Any]], staff: bool) -> list[dict[str, Any]]:
    last_throw = max((i for i, e in enumerate(log) if e.get("type") == "rps.thrown"), default=-1)
    judged = any(
        e.get("type") == "table.created"
        and dict(dict(e.get("data") or {}).get("ruleset") or {}).get("staff_start")
        for e in log[:1]
    )
    out = []
    for i, entry in enumerate(log):
        item = dict(entry)
        if not staff:  # what only the table's judges read: a call's reason, a phone's device id
            data = dict(item.get("data") or {})
            private = STAFF_ONLY.get(str(item.get("type")), ())
            if judged and item.get("type") == "lp.rejected":
                private = (*private, "reason")  # an event table's: its judge call's reason
            if any(data.get(k) for k in private):
                item["data"] = {k: ("" if k in private else v) for k, v in data.items()}
                item["hidden"] = True
        if item.get("type") == "rps.picked" and i > last_throw:
            data = {k: v for k, v in dict(item.get("data") or {}).items() if k != "salt"}
            item["data"] = {**data, "hand": None}
            item["hidden"] = True
        elif item.get("type") in LIST_EVENTS:  # a deck list's cards: its seat and judges only
            hidden = (*LIST_EVENTS[str(item["type"])], "salt")
            data = dict(item.get("data") or {})
            item["data"] = {k: v for k, v in data.items() if k not in hidden}
            item["hidden"] = True
        out.append(item)
    return out


def score_text(names: dict[str, str], winner: str | None, wins: dict[str, int]) -> str:
    """The match result written winner first: "Yugi 2-1 Kaiba" (a draw: seat A first)."""
    first = winner if winner in ("A", "B") else "A"
    second = "B" if first == "A" else "A"
    return f"{names[first]} {wins[first]}-{wins[second]} {names[second]}"
