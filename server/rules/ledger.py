"""The LP ledger: proposals, the other seat's confirmation, rejection, withdrawal (R1.4, R7.4).

A rejected entry is a dispute (R7.1). At an event table a judge is called to settle it; at a
casual table (no judges: the players start their own clock) the two settle it themselves: the
proposer withdraws it or proposes a corrected entry in its place.

An LP change is a proposal until the seat that did not propose it confirms it. Confirmed
entries are applied strictly in the order they were proposed: an entry confirmed while an
older one is still pending waits for it, and so does one behind an entry under dispute (R1.4,
R7.1: the players follow the judge's ruling, 「遵從裁判員的指示」; no one wins by what they
dispute). A correction takes the place of the entry it corrects."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

from . import twokey
from .args import MAX_INT, Changes, Check, Choice, Int, Note, Seat, spec
from .base import (
    JUDGES,
    SEAT,
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
)
from .duel_end import after_lp_change, casual
from .state import DUEL, Change, Dispute, LedgerEntry, Proposal, TableState
from .twokey import DISPUTE, LP, alone, said_yes

# Entries one seat may have waiting for the other's answer: a phone never needs more, and each
# one grows every update of the table.
MAX_PENDING_PER_SEAT = twokey.MAX_PENDING_PER_SEAT


def changes_of(raw: Sequence[Mapping[str, Any]]) -> tuple[Change, ...]:
    """The changes of an entry, as the edge loaded them (`args.Changes`: one or two, each a
    seat, a kind and an amount in range; at most one per seat, `one_change_per_seat`). A
    halving has no amount."""
    return tuple(
        Change(
            str(c["seat"]), str(c["kind"]), 0 if c["kind"] == "halve" else int(c.get("amount", 0))
        )
        for c in raw
    )


def one_change_per_seat(a: Mapping[str, Any]) -> tuple[str, str] | None:
    """The check of every command that carries `changes`: an entry changes each seat's LP at
    most once (run at the edge with the other fields' checks)."""
    changes = a.get("changes")
    if changes and len({c["seat"] for c in changes}) != len(changes):
        return "changes", "One change per seat in an entry."
    return None


def changes_from_event(raw: Sequence[Mapping[str, Any]]) -> tuple[Change, ...]:
    return tuple(Change(str(c["seat"]), str(c["kind"]), int(c.get("amount", 0))) for c in raw)


def dispute_of(state: TableState, entry: Any) -> Dispute | None:
    """The dispute of entry ``entry``: its open one if any (a correction rejected again is
    disputed under its own number, so one number has one dispute at most)."""
    found = None
    for d in state.disputes:
        if d.entry == entry:
            if d.status == "open":
                return d
            found = d
    return found


def open_disputes(state: TableState, duel: int) -> list[Dispute]:
    """The disputes of duel ``duel`` that wait to be settled, in the duel's order of entries."""
    found = [d for d in state.disputes if d.status == "open" and d.duel == duel]
    return sorted(found, key=lambda d: d.proposal.queued)


def held(state: TableState, p: Proposal) -> bool:
    """An entry waits while one before it in its duel is under dispute (R1.4, R7.1)."""
    return any(
        d.status == "open" and d.duel == state.duel_no and d.proposal.queued < p.queued
        for d in state.disputes
    )


def _find(state: TableState, entry: Any) -> Proposal:
    for p in state.pending:
        if p.entry == entry:
            return p
    if any(e.entry == entry for e in state.ledger):
        raise RuleError("already_confirmed", "That entry is already on the score sheet.")
    if any(d.entry == entry for d in state.disputes):
        raise RuleError("not_pending", "That entry was rejected.")
    raise RuleError("not_pending", "No pending entry with that number (withdrawn?).", entry=entry)


def lp_after(lp: Mapping[str, int], changes: Sequence[Change]) -> dict[str, int]:
    """Both seats' LP after an entry."""
    new = dict(lp)
    for c in changes:
        new[c.seat] = c.result(new[c.seat])
    return new


# --- commands ----------------------------------------------------------------------------


def _both(*checks: Check) -> Check:
    """One check of several: the first problem any of them finds."""

    def check(a: Mapping[str, Any]) -> tuple[str, str] | None:
        return next((p for p in (c(a) for c in checks) if p is not None), None)

    return check


def _one_form(a: Mapping[str, Any]) -> tuple[str, str] | None:
    """The full form (`changes`) or the short one (`seat` + `delta`), never both."""
    short = "seat" in a or "delta" in a
    if "changes" in a and short:
        return "changes", "Give either changes or seat and delta."
    if "changes" not in a:
        if not ("seat" in a and "delta" in a):
            return "changes", "Give changes, or seat and delta."
        if a["delta"] == 0:
            return "delta", "A change of 0 changes nothing."
    return None


def _short_form(a: dict[str, Any]) -> dict[str, Any]:
    """`{seat, delta}` as the one change it stands for."""
    if "changes" in a:
        return a
    delta = a.pop("delta")
    kind = "damage" if delta < 0 else "gain"
    a["changes"] = [{"seat": a.pop("seat"), "kind": kind, "amount": abs(delta)}]
    return a


@command(
    "lp.propose",
    SEAT,
    spec(
        check=_both(_one_form, one_change_per_seat),
        shape=_short_form,
        changes=Changes(),
        seat=Seat(),
        delta=Int(),
        note=Note(),
    ),
    {"changes": [{"seat": "B", "kind": "damage", "amount": 500}], "note": "x"},
)
@row(
    "S",
    '`{"changes": [{"seat": "A", "kind": "damage"\\|"gain"\\|"cost"\\|"halve"\\|"set", '
    '"amount": 1000}], "note": ""}`',
    "propose an LP entry (1-2 changes, at most one per seat; `amount` 0..1,000,000, ignored "
    'for `halve`). Short form: `{"seat": "B", "delta": -1200}`',
)
def propose(tx: Tx, args: Mapping[str, Any]) -> None:
    """Propose an LP entry for either seat or both (simultaneous damage)."""
    seat = tx.seat
    require(tx.state.phase == DUEL, "wrong_phase", "LP can be entered only during a duel.")
    twokey.propose(LP, seat, tx.state.pending)
    changes = changes_of(args.get("changes") or [])
    note = str(args.get("note") or "")
    tx.emit(
        "lp.proposed",
        entry=tx.state.next_entry,
        by=seat,
        changes=[c.to_dict() for c in changes],
        note=note,
    )


@command("lp.confirm", SEAT, spec(entry=Int(1, MAX_INT, required=True)), {"entry": 1})
@row("S (the other seat)", '`{"entry": 3}`', "confirm a pending entry")
def confirm(tx: Tx, args: Mapping[str, Any]) -> None:
    """The other seat's yes (R7.4); applies the entry and any confirmed ones behind it."""
    _answer(tx, args, twokey.confirm, "lp.confirmed")


def _answer(tx: Tx, args: Mapping[str, Any], step: Any, event: str) -> None:
    """A seat's answer to a pending entry (`twokey`'s `step` checks it may give it): recorded,
    then whatever can apply applies."""
    seat = tx.seat
    p = _find(tx.state, args.get("entry"))
    step(LP, p, seat)
    tx.emit(event, entry=p.entry, by=seat)
    flush(tx)


@command(
    "lp.reject",
    SEAT,
    spec(entry=Int(1, MAX_INT, required=True), reason=Note()),
    {"entry": 1, "reason": ""},
)
@row(
    "S (the other seat)",
    '`{"entry": 3, "reason": ""}`',
    "reject: the entry becomes a dispute; a judge is called at an event table "
    "(`ruleset.staff_start`), not at a casual one: its `judge.called` names the `entry` "
    "(settling the dispute closes that call, never one only worded like it)",
)
def reject(tx: Tx, args: Mapping[str, Any]) -> None:
    """The other seat's no, with a reason: the entry becomes a dispute (R7.1). A judge is
    called at an event table; at a casual table the proposer settles it (see below)."""
    seat = tx.seat
    p = _find(tx.state, args.get("entry"))
    twokey.reject(LP, p, seat)
    reason = str(args.get("reason") or "")
    tx.emit("lp.rejected", entry=p.entry, by=seat, reason=reason)
    if not casual(tx.state):
        tx.call_judge(seat, "lp_disputed", reason, entry=p.entry)
    # Nothing behind a disputed entry applies until it is settled (R1.4, R7.1).


def _own_dispute(tx: Tx, args: Mapping[str, Any]) -> Dispute:
    """The open dispute ``args["entry"]`` of this seat's own entry, at a casual table."""
    entry = args.get("entry")
    d = dispute_of(tx.state, entry)
    require(d is not None, "not_found", "No rejected entry with that number.", entry=entry)
    assert d is not None
    require(d.status == "open", "already_settled", "That dispute is already settled.")
    twokey.withdraw(DISPUTE, d.proposal, tx.seat)
    require(
        casual(tx.state), "judge_settles", "A judge settles a dispute at an event table (R7.1)."
    )
    return d


@command("dispute.withdraw", SEAT, spec(entry=Int(1, MAX_INT, required=True)), {"entry": 1})
@row(
    "S (the proposer), casual table",
    '`{"entry": 3}`',
    "drop a rejected entry (dispute status `withdrawn`); `judge_settles` at an event table",
)
def withdraw_dispute(tx: Tx, args: Mapping[str, Any]) -> None:
    """At a casual table the proposer accepts the rejection: the entry is dropped (R7.1), and
    the confirmed entries queued behind it apply in order."""
    d = _own_dispute(tx, args)
    tx.emit("dispute.closed", entry=d.entry, status="withdrawn")
    flush(tx)


@command(
    "dispute.repropose",
    SEAT,
    spec(
        one_change_per_seat,
        entry=Int(1, MAX_INT, required=True),
        changes=Changes(required=True),
        note=Note(),
    ),
    {"entry": 1, "changes": [{"seat": "B", "kind": "damage", "amount": 1}]},
)
@row(
    "S (the proposer), casual table",
    '`{"entry": 3, "changes": [...], "note": ""}`',
    "replace a rejected entry by a corrected one, a new pending entry (dispute status `corrected`)",
)
def repropose(tx: Tx, args: Mapping[str, Any]) -> None:
    """At a casual table the proposer replaces a rejected entry by a corrected one, which the
    other seat confirms like any entry (R7.1, R7.4). It takes the rejected entry's place in
    the queue: the entries behind it still wait for it."""
    d = _own_dispute(tx, args)
    require(tx.state.phase == DUEL, "wrong_phase", "LP can be entered only during a duel.")
    twokey.propose(DISPUTE, tx.seat, tx.state.pending)
    changes = changes_of(args.get("changes") or [])
    note = str(args.get("note") or d.proposal.note)
    entry = tx.state.next_entry
    tx.emit("dispute.closed", entry=d.entry, status="corrected", new_entry=entry)
    tx.emit(
        "lp.proposed",
        entry=entry,
        by=tx.seat,
        changes=[c.to_dict() for c in changes],
        note=note,
        place=d.proposal.queued,
    )


@command("lp.withdraw", SEAT, spec(entry=Int(1, MAX_INT, required=True)), {"entry": 1})
@row("S (the proposer)", '`{"entry": 3}`', "withdraw a pending entry")
def withdraw(tx: Tx, args: Mapping[str, Any]) -> None:
    """The proposer takes a pending entry back."""
    _answer(tx, args, twokey.withdraw, "lp.withdrawn")


@command(
    "lp.correct",
    JUDGES,
    spec(one_change_per_seat, changes=Changes(required=True), note=Note()),
    {"changes": [{"seat": "A", "kind": "set", "amount": 8000}], "note": ""},
)
@row("J", '`{"changes": [...], "note": ""}`', "a judge's LP entry, applied at once")
def correct(tx: Tx, args: Mapping[str, Any]) -> None:
    """A judge's entry, applied at once (a correction is a new entry, never an edit: R1.4)."""
    require(tx.state.phase == DUEL, "wrong_phase", "LP can be corrected only during a duel.")
    changes = changes_of(args.get("changes") or [])
    apply_entry(
        tx,
        tx.state.next_entry,
        tx.actor.label,
        changes,
        str(args.get("note") or ""),
        tx.actor.label,
        new=True,
    )


SETTLE_ACTIONS = ("apply", "void", "correct")


def by_amount(changes: tuple[Change, ...]) -> bool:
    """Whether a judge may correct an entry of `changes` to one amount (`dispute.settle`'s
    "correct" with `amount`): not when it halves, as a halving has no amount."""
    return bool(changes) and all(c.kind != "halve" for c in changes)


def corrected(p: Proposal, args: Mapping[str, Any]) -> tuple[Change, ...]:
    """The changes a judge corrects a disputed entry to: its own changes at ``amount`` ("it
    was 2500, not 3000"), or, for anything else (one seat of two, a halving), ``changes``."""
    if args.get("changes") is not None:
        return changes_of(args["changes"])
    amount = int(args["amount"])  # given, in range: the edge's check (`_one_correction`)
    require(
        by_amount(p.changes),
        "invalid",
        "A halving has no amount: give the corrected changes.",
    )
    return tuple(Change(c.seat, c.kind, int(amount)) for c in p.changes)


def _one_correction(a: Mapping[str, Any]) -> tuple[str, str] | None:
    """A correction gives an amount or the changes, exactly one; nothing else gives either."""
    given = ("amount" in a) + ("changes" in a)
    if a.get("action") == "correct" and given != 1:
        return "amount", "A correction gives an amount or the changes."
    if a.get("action") != "correct" and given:
        return "amount", "Only a correction gives an amount."
    return None


@command(
    "dispute.settle",
    JUDGES,
    spec(
        check=_both(_one_correction, one_change_per_seat),
        entry=Int(1, MAX_INT, required=True),
        action=Choice("apply", "void", "correct", required=True),
        amount=Int(0, MAX_INT),
        changes=Changes(),
        note=Note(),
    ),
    {"entry": 1, "action": "apply", "note": ""},
)
@row(
    "J",
    '`{"entry": 3, "action": "apply"\\|"void", "note": ""}` or `{"entry": 3, "action": '
    '"correct", "amount": 2500, "note": ""}` (or `"changes": [...]` instead of `amount`)',
    "one step (R7.1): apply the rejected entry, void it, or correct it (each of its changes at "
    "`amount`, or the `changes` given; a halving has no amount); applied in its place as the "
    "judge's entry, then the confirmed entries queued behind it apply in order; closes the "
    "call the rejection made",
)
def settle(tx: Tx, args: Mapping[str, Any]) -> None:
    """A judge settles a rejected entry in one step (R7.1): applies it, voids it, or corrects
    it to an amount (applied in its place, as the judge's entry). Then the confirmed entries
    queued behind it apply in order."""
    entry, action = args.get("entry"), args.get("action")
    dispute = dispute_of(tx.state, entry)
    require(dispute is not None, "not_found", "No dispute with that entry number.")
    assert dispute is not None
    require(dispute.status == "open", "already_settled", "That dispute is already settled.")
    require(
        action in SETTLE_ACTIONS,
        "invalid",
        "Settle by 'apply', 'void' or 'correct'.",
        allowed=list(SETTLE_ACTIONS),
    )
    p = dispute.proposal
    changes = corrected(p, args) if action == "correct" else p.changes
    if action != "void":
        require(tx.state.phase == DUEL, "wrong_phase", "The duel is over; enter a result instead.")
        # Order is kept (R1.4): an entry applies only after the disputes before it are settled.
        first = first_unsettled(tx.state)
        require(
            not held(tx.state, p) or first is None,
            "entries_pending",
            f"Settle entry #{first} first: it comes before this one (R1.4).",
            entries=[],
            disputes=[d.entry for d in open_disputes(tx.state, tx.state.duel_no)],
            first=first,
        )
    note = str(args.get("note") or "")
    if action == "correct":
        data = [c.to_dict() for c in changes]
        tx.emit("dispute.settled", entry=entry, action=action, note=note, changes=data)
    else:
        tx.emit("dispute.settled", entry=entry, action=action, note=note)
    # The judge call the rejection made is answered by the settlement (found by its entry
    # number: a player's own call may be worded like it, and stays open).
    tx.close_calls(f"dispute_{action}", lambda c: c.entry == entry, note)
    if action != "void":
        apply_entry(tx, p.entry, p.by, changes, p.note, tx.actor.label)
    flush(tx)


# --- shared steps ------------------------------------------------------------------------


def flush(tx: Tx) -> None:
    """Apply confirmed entries from the head of the queue, in proposal order."""
    while tx.state.pending and twokey.agreed(tx.state.pending[0]) and tx.state.phase == DUEL:
        p = tx.state.pending[0]
        if held(tx.state, p):
            return
        apply_entry(tx, p.entry, p.by, p.changes, p.note, other(p.by))


def apply_entry(
    tx: Tx,
    entry: int,
    by: str,
    changes: Sequence[Change],
    note: str,
    confirmed_by: str,
    new: bool = False,
) -> None:
    """Write a confirmed entry to the score sheet, then let the duel react to it."""
    before = dict(tx.state.lp)
    lp = lp_after(before, changes)
    tx.emit(
        "lp.applied",
        entry=entry,
        by=by,
        confirmed_by=confirmed_by,
        changes=[c.to_dict() for c in changes],
        note=note,
        lp=lp,
        new=new,
    )
    after_lp_change(tx, before)


def unsettled(state: TableState) -> tuple[list[int], list[int]]:
    """The entries of this duel not yet settled (R5.5): those waiting for the other seat's yes
    (or for an earlier one), and rejected ones waiting for the judge."""
    waiting = [p.entry for p in state.pending]
    disputed = [d.entry for d in open_disputes(state, state.duel_no)]
    return waiting, disputed


def first_unsettled(state: TableState, duel: int | None = None) -> int | None:
    """The entry to settle first, in the duel's order: the one that holds the rest."""
    duel = state.duel_no if duel is None else duel
    order = [(d.proposal.queued, d.entry) for d in open_disputes(state, duel)]
    if duel == state.duel_no:
        order += [(p.queued, p.entry) for p in state.pending]
    return min(order)[1] if order else None


# --- handlers ----------------------------------------------------------------------------


@handler(
    "lp.proposed",
    {"entry": "int", "by": "seat", "changes": "list", "note": "str", "place": "int"},
    words=Words(params={"by": ("who", "by"), "changes": ("changes", "changes")}, note="note"),
)
def _proposed(s: TableState, e: Event) -> TableState:
    d = e.data
    by = d["by"]
    place = d.get("place", 0)
    p = Proposal(
        d["entry"], by, changes_from_event(d["changes"]), d["note"], e.at_ms, alone(by), place
    )
    if place:  # a correction, in the place of the entry it corrects
        at = next((i for i, x in enumerate(s.pending) if x.queued > place), len(s.pending))
        pending = s.pending[:at] + (p,) + s.pending[at:]
    else:
        pending = s.pending + (p,)
    return s.evolve(pending=pending, next_entry=max(s.next_entry, d["entry"] + 1))


@handler("lp.confirmed", {"entry": "int", "by": "seat"}, words=Words(params={"by": ("who", "by")}))
def _confirmed(s: TableState, e: Event) -> TableState:
    entry, by = e.data["entry"], e.data["by"]
    # Built directly, not with `dataclasses.replace`: one per LP entry, and three times faster.
    pending = tuple(
        Proposal(p.entry, p.by, p.changes, p.note, p.at_ms, said_yes(p, by), p.place)
        if p.entry == entry
        else p
        for p in s.pending
    )
    return s.evolve(pending=pending)


@handler(
    "lp.rejected",
    {"entry": "int", "by": "seat", "reason": "str"},
    words=Words(params={"by": ("who", "by")}, note="reason"),
    sheet=SheetLine(step="ledger"),
)
def _rejected(s: TableState, e: Event) -> TableState:
    p = next(p for p in s.pending if p.entry == e.data["entry"])
    dispute = Dispute(p.entry, p, e.data["by"], e.data["reason"], e.at_ms, duel=s.duel_no)
    return s.evolve(
        pending=tuple(x for x in s.pending if x.entry != p.entry),
        disputes=s.disputes + (dispute,),
    )


@handler(
    "lp.withdrawn",
    {"entry": "int", "by": "seat"},
    words=Words(params={"by": ("who", "by")}),
    sheet=SheetLine(step="ledger"),
)
@handler(
    "lp.cancelled",
    {"entry": "int", "reason": "str"},
    words=Words(variants=(("reason", "duel_over", "event.lp.cancelled.duel_over"),)),
    sheet=SheetLine(step="ledger"),
)
def _removed(s: TableState, e: Event) -> TableState:
    return s.evolve(pending=tuple(p for p in s.pending if p.entry != e.data["entry"]))


@handler(
    "lp.applied",
    {
        "entry": "int",
        "by": "str",  # a seat, or a judge's entry's `judge:<name>`
        "confirmed_by": "str",
        "changes": "list",
        "lp": "object",
        "note": "str",
        "new": "bool",
    },
    words=Words(params={"A": "lp.A", "B": "lp.B", "changes": ("changes", "changes")}),
    sheet=SheetLine(step="ledger"),
)
def _applied(s: TableState, e: Event) -> TableState:
    d = e.data
    row = LedgerEntry(
        entry=d["entry"],
        duel=s.duel_no,
        turn=s.turn.no if s.turn else 0,
        by=d["by"],
        confirmed_by=d["confirmed_by"],
        changes=changes_from_event(d["changes"]),
        note=d["note"],
        lp=dict(d["lp"]),
        at_ms=e.at_ms,
    )
    return s.evolve(
        lp=dict(d["lp"]),
        ledger=s.ledger + (row,),
        pending=tuple(p for p in s.pending if p.entry != d["entry"]),
        next_entry=max(s.next_entry, d["entry"] + 1),
    )


@handler(
    "dispute.closed",
    {"entry": "int", "new_entry": "int", "status": "str"},
    words=Words(
        code="sheet.row.rejected_withdrawn",
        params={"new": "new_entry"},
        variants=(
            ("status", "corrected", "sheet.row.rejected_corrected"),
            ("status", "dropped", "sheet.row.rejected_dropped"),
        ),
    ),
    sheet=SheetLine(step="ledger"),
)
def _closed(s: TableState, e: Event) -> TableState:
    disputes = tuple(
        replace(d, status=e.data["status"])
        if d.entry == e.data["entry"] and d.status == "open"
        else d
        for d in s.disputes
    )
    return s.evolve(disputes=disputes)


SETTLED = {"apply": "applied", "void": "void", "correct": "corrected"}


@handler(
    "dispute.settled",
    {"entry": "int", "action": "str", "changes": "list", "note": "str"},
    words=Words(
        code="event.dispute.settled.void",
        variants=(
            ("action", "apply", "event.dispute.settled.apply"),
            ("action", "correct", "event.dispute.settled.correct"),
        ),
        note="note",
    ),
    sheet=SheetLine(step="ledger"),
)
def _settled(s: TableState, e: Event) -> TableState:
    status = SETTLED[e.data["action"]]
    disputes = tuple(
        replace(d, status=status, judge=e.actor.name, note=e.data["note"])
        if d.entry == e.data["entry"] and d.status == "open"
        else d
        for d in s.disputes
    )
    return s.evolve(disputes=disputes)
