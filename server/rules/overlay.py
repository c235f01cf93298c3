"""The stream overlay of a feature match: a judge or the organiser shows a table on it, and what
it shows is read from the state here (public facts only).

A broadcast tool (OBS's browser source) opens `/t/<code>/overlay` while its staff show the table
(`overlay.set`). It shows the two names, the LP as confirmed with the entry waiting for its
confirmation, the duel score, the clock and the time-over stage, and the last coin or die: no
hidden value (a pick, a deck list), no player ID, no judge call's reason.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .args import Bool, spec
from .base import JUDGES, SEATS, Event, Tx, Words, command, handler, row
from .state import TableState
from .time_over import stage_turns


@command("overlay.set", JUDGES, spec(on=Bool(required=True)), {"on": True})
@row(
    "J",
    '`{"on": true}`',
    "show (`false`: stop showing) this table on the stream overlay, `/t/<code>/overlay` "
    "(`POST /api/tables/<code>/overlay` writes it)",
)
def set_overlay(tx: Tx, args: Mapping[str, Any]) -> None:
    """A judge or the organiser shows the table on the stream overlay, or stops."""
    tx.emit("overlay.set", on=args.get("on") is True)


@handler(
    "overlay.set",
    {"on": "bool"},
    words=Words(code="event.overlay.off", variants=(("on", "*", "event.overlay.on"),)),
)
def _overlay_set(s: TableState, e: Event) -> TableState:
    return s.evolve(overlay=bool(e.data["on"]))


def overlay_view(s: TableState) -> dict[str, Any]:
    """What the overlay shows of `s`: public facts only (no player ID, no hidden value)."""
    clock, time = s.clock, s.time
    last = next((r for r in reversed(s.rolls) if not r.void), None)
    return {
        "code": s.code,
        "names": {k: s.seats[k].name for k in SEATS},
        "lp": dict(s.lp),
        # Entries proposed and waiting for the other seat's yes (their LP not applied yet).
        "waiting": [
            {"entry": p.entry, "by": p.by, "changes": [c.to_dict() for c in p.changes]}
            for p in s.pending
        ],
        "wins": dict(s.wins),
        "wins_needed": s.ruleset.wins_needed,
        "duel_no": s.duel_no,
        "extra_duel": s.extra_duel,
        "phase": s.phase,
        "turn": {"no": s.turn.no, "player": s.turn.player} if s.turn else None,
        "clock": {
            "status": clock.status,
            "deadline_ms": clock.deadline_ms,
            "remaining_ms": clock.remaining(clock.paused_ms or 0)
            if clock.status in ("paused", "expired", "stopped")
            else (clock.duration_ms if clock.status == "idle" else None),
        },
        "time": {
            "called": time.called,
            "stage": time.stage,
            "extra_turn": time.extra_turn,
            "of": stage_turns(s.ruleset, time.stage),  # the stage's turns, as the rules count them
        },
        "roll": (
            {"roll": last.roll, "kind": last.kind, "results": list(last.results), "by": last.by}
            if last
            else None
        ),
        "match": {"decided": s.match.decided, "winner": s.match.winner},
    }
