"""The duel's end (R3.3, R5.1.5): what a confirmed LP change may decide, and closing the duel.

Below the match flow, the LP ledger and the deck lists, which all end duels: the ledger when an
entry brings LP to 0 or decides sudden death, the match on a concession, a time-over decision
or a judge's result (`match.end_duel`, which then finalises a judge's decision); and the
match's result (`decide_match`), which the time-over procedure (`time_over.py`) decides too."""

from __future__ import annotations

from collections.abc import Mapping

from .base import Tx
from .state import DUEL, EXTRA_DUEL_SUDDEN_DEATH, SUDDEN_DEATHS, TableState

__all__ = ["EXTRA_DUEL_SUDDEN_DEATH", "SUDDEN_DEATHS", "close_duel", "decide_match"]


def cancel_pending(tx: Tx, reason: str) -> None:
    """Drop every pending entry (the duel ended before they were confirmed)."""
    for p in tx.state.pending:
        tx.emit("lp.cancelled", entry=p.entry, reason=reason)


def casual(state: TableState) -> bool:
    """A table of no event: no judge to call; the players start their own clock."""
    return not state.ruleset.staff_start


def close_casual_disputes(tx: Tx) -> None:
    """A duel's end drops the open disputes of a casual table (R7.1): nothing waits into the
    next duel or match for a judge who is not there."""
    if casual(tx.state):
        for d in tx.state.disputes:
            if d.status == "open":
                tx.emit("dispute.closed", entry=d.entry, status="dropped")


def close_duel(tx: Tx, winner: str | None, reason: str) -> None:
    """The duel is decided; both seats confirm the result unless a judge decided it."""
    cancel_pending(tx, "duel_over")
    close_casual_disputes(tx)
    tx.emit("duel.ended", duel=tx.state.duel_no, winner=winner, reason=reason)


def decide_match(
    tx: Tx, winner: str | None, reason: str, final: bool = False, note: str = ""
) -> None:
    """The match has a result; both seats confirm it unless a judge decided it. A judge's
    result (a ruling, a no-show, a penalty) closes the table: nothing left on it waits for a
    judge, so its open disputes are dropped and its open calls closed by that ruling, with the
    judge's `note` (kept on the event too, when there is one)."""
    extra = {"note": note} if note else {}  # an old log's events keep their shape
    tx.emit("match.decided", winner=winner, reason=reason, final=final, **extra)
    if final:
        for d in tx.state.disputes:
            if d.status == "open":
                tx.emit("dispute.closed", entry=d.entry, status="dropped")
        tx.close_calls("result_set", lambda c: True, note)


def after_lp_change(tx: Tx, before: Mapping[str, int]) -> None:
    """A confirmed LP entry may end the duel: LP 0 (R3.3), or sudden death (R5.1.5)."""
    if tx.state.phase != DUEL:
        return
    lp = tx.state.lp
    if lp["A"] == 0 or lp["B"] == 0:
        winner = None if lp["A"] == lp["B"] else ("A" if lp["A"] > 0 else "B")
        close_duel(tx, winner, "lp_zero")
    elif tx.state.time.stage in SUDDEN_DEATHS and dict(lp) != dict(before) and lp["A"] != lp["B"]:
        # Reading: a change that leaves LP equal (simultaneous equal damage) decides nothing.
        close_duel(tx, "A" if lp["A"] > lp["B"] else "B", "sudden_death")
