"""What a phone sees: a JSON-able view of the state for one seat, or for spectators and judges.

Secrets at a table: a rock-paper-scissors pick before both are in, and a seat's deck list (its
own phone, judges and the organiser see it; the opponent and spectators see counts only)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from .base import EVENTS, SEATS
from .clock import next_due_ms
from .judge import penalty_choices
from .ledger import by_amount
from .match import FORMS, result_ends_match, result_wins_match, wins_after_result
from .now import may_send
from .registration import list_view
from .state import Change, Deck, Dispute, LedgerEntry, TableState
from .time_over import stage_turns


def _changes(changes: tuple[Change, ...]) -> list[dict[str, Any]]:
    return [c.to_dict() for c in changes]


# Every top-level key of a view and its type (`server.rules.base.FIELD_TYPES`), besides the
# ledger and the "seq" the edge adds: the socket's schema is generated from it.
VIEW_FIELDS: dict[str, str] = {
    "code": "str",
    "ruleset": "object",
    "forms": "object",
    "match_no": "int",
    "phase": "str",
    "duel_no": "int",
    "extra_duel": "bool",
    "wins": "object",
    "duels": "list",
    "lp": "object",
    "pending": "list",
    "disputes": "list",
    "banlist": "object?",
    "turn": "object?",
    "result": "object?",
    "match": "object",
    "new_match_votes": "list",
    "clock": "object",
    "time": "object",
    "window": "object?",
    "rolls": "list",
    "counters": "object",
    "tokens": "object",
    "penalties": "list",
    "flags": "list",
    "next_due_ms": "int?",
    "stage_turns": "int",
    "seats": "object",
    "seat_requests": "list",
    "calls": "list",
    "decks": "object",
    "pregame": "object",
    "may_send": "list",
    "penalty_choices": "object?",
}


def view(s: TableState, seat: str | None = None, privileged: bool = False) -> dict[str, Any]:
    """The state as one viewer may see it: ``seat`` for a player's phone, ``privileged`` for
    judges and the organiser (every deck list)."""
    return {**shared_view(s), "ledger": ledger_view(s), **seat_view(s, seat, privileged)}


def ledger_view(s: TableState) -> list[dict[str, Any]]:
    """The confirmed LP ledger (the score sheet): the same for every viewer."""
    return [ledger_row(r) for r in s.ledger]


def ledger_row(r: LedgerEntry) -> dict[str, Any]:
    """One row of `ledger_view`."""
    return {
        "entry": r.entry,
        "duel": r.duel,
        "turn": r.turn,
        "by": r.by,
        "confirmed_by": r.confirmed_by,
        "changes": _changes(r.changes),
        "note": r.note,
        "lp": dict(r.lp),
        "at_ms": r.at_ms,
    }


def calls_view(s: TableState, seat: str | None, privileged: bool) -> list[dict[str, Any]]:
    """The judge calls; a call's reason only for judges and the seat that called (R7.1)."""
    return [
        {
            "call": c.call,
            "seat": c.seat,
            "reason": c.reason if privileged or (seat is not None and c.seat == seat) else "",
            "status": c.status,
            "judge": c.judge,
            "note": c.note,
            "at_ms": c.at_ms,
            "entry": c.entry,
            "duel": c.duel,
            **({"deck": c.deck} if c.deck else {}),  # a failed deck check's call (R7.5)
            # what a server-made call is about, for the screen to word (with the reason's rule)
            **(
                {"code": c.code, "params": dict(c.params)}
                if c.code and (privileged or (seat is not None and c.seat == seat))
                else {}
            ),
        }
        for c in s.calls
    ]


def _deck_fix(d: Deck) -> dict[str, Any]:
    """A failed deck check: who has said it is fixed (R7.5; both seats settle it at a casual
    table). Absent while the check has not failed."""
    return {"fixed_by": sorted(d.fix.yes) if d.fix else []} if d.check_failed else {}


def disputes_view(s: TableState, reveal: Callable[[Dispute], bool]) -> list[dict[str, Any]]:
    """The LP disputes, each rejection's reason where `reveal` says so (else "")."""
    return [
        {
            "entry": d.entry,
            "by": d.proposal.by,
            "changes": _changes(d.proposal.changes),
            "by_amount": by_amount(d.proposal.changes),  # a judge may correct it to an amount
            "note": d.proposal.note,
            "rejected_by": d.rejected_by,
            "reason": d.reason if reveal(d) else "",
            "status": d.status,
            "duel": d.duel,
            "judge": d.judge,
            "at_ms": d.at_ms,
        }
        for d in s.disputes
    ]


def own_disputes(s: TableState, seat: str | None, privileged: bool) -> dict[str, Any]:
    """At an event table, the disputes with the reasons this viewer may read (the judges every
    one, a seat those it rejected), when it may read any: else nothing (the shared part's)."""
    if not s.ruleset.staff_start or not s.disputes:
        return {}
    if not privileged and not any(d.rejected_by == seat for d in s.disputes if seat):
        return {}
    return {"disputes": disputes_view(s, lambda d: privileged or d.rejected_by == seat)}


def people_view(s: TableState, seat: str | None, privileged: bool) -> dict[str, Any]:
    """Who sits and who asks for a seat. A player ID goes to its own seat's phone and to the
    staff only: an event's card tells one round's player from the next by that ID, so no other
    reader may learn it (docs/security.md); a phone asking for a seat shows its typed ID to the
    staff alone."""
    return {
        "seats": {
            k: {
                "name": v.name,
                "player_id": v.player_id if privileged or k == seat else "",
                "joined": v.joined,
            }
            | ({"disowned": True} if v.disowned else {})
            for k, v in s.seats.items()
        },
        "seat_requests": [
            {
                "request": r.request,
                "seat": r.seat,
                "name": r.name,
                "player_id": r.player_id if privileged else "",
                "why": r.why,
                "at_ms": r.at_ms,
            }
            for r in s.seat_requests
        ],
    }


# -- the view in parts --------------------------------------------------------------------------
# The view is built in parts, each from the state's fields it names (`Part.reads`): while those
# fields are the very objects they were (the state is never changed in place, and an event
# replaces only what it changes), the part is what it was, and the edge reuses what it encoded
# of it (`server.api.encoding`). tests/test_view_parts.py runs every part of every state of
# recorded matches on a state that notes what is read, so that a part cannot read a field it
# does not name.

TABLE_READS = ("code", "ruleset", "match_no", "phase", "duel_no", "extra_duel", "wins")
# What the waiting duel result's consequences read (`server.rules.match`), and what a seat
# may send (`server.rules.now`).
RESULT_READS = ("result", "ruleset", "wins", "extra_duel", "duels", "time")
MAY_SEND_READS = (
    *("seats", "phase", "calls", "decks", "clock", "ruleset", "pregame", "result", "disputes"),
    *("match", "new_match", "counters", "pending", "turn", "duel_no"),
)

Build = Callable[[TableState, "str | None", bool], dict[str, Any]]


@dataclass(frozen=True)
class Part:
    """Some top-level keys of the view, built by `build` (state, seat, privileged) from the
    state's fields `reads` alone."""

    name: str
    reads: tuple[str, ...]
    build: Build


def _table(s: TableState, seat: str | None, privileged: bool) -> dict[str, Any]:
    return {
        "code": s.code,
        "ruleset": s.ruleset.to_dict(),
        "match_no": s.match_no,
        "phase": s.phase,
        "duel_no": s.duel_no,
        "extra_duel": s.extra_duel,
        "wins": dict(s.wins),
    }


def _duels(s: TableState, seat: str | None, privileged: bool) -> dict[str, Any]:
    duels = [
        {
            "no": d.no,
            "winner": d.winner,
            "reason": d.reason,
            "extra": d.extra,
            "lp": dict(d.lp),
            "at_ms": d.at_ms,
        }
        for d in s.duels
    ]
    return {"duels": duels, "lp": dict(s.lp)}


def _pending(s: TableState, seat: str | None, privileged: bool) -> dict[str, Any]:
    pending = [
        {
            "entry": p.entry,
            "by": p.by,
            "changes": _changes(p.changes),
            "note": p.note,
            "at_ms": p.at_ms,
            "confirmed": len(p.yes) == 2,  # both said yes, waiting for an earlier entry
        }
        for p in s.pending
    ]
    return {"pending": pending}


def _disputes(s: TableState, seat: str | None, privileged: bool) -> dict[str, Any]:
    # At an event table a rejection's reason is its judge call's, read by the judges and the
    # seat that rejected (`own_disputes` gives it back to them), as the call's is (R7.1).
    return {"disputes": disputes_view(s, lambda d: not s.ruleset.staff_start)}


def _banlist_turn(s: TableState, seat: str | None, privileged: bool) -> dict[str, Any]:
    return {
        "banlist": ({"name": s.banlist.name, "size": len(s.banlist.limits)} if s.banlist else None),
        "turn": (
            {"no": s.turn.no, "player": s.turn.player, "started_ms": s.turn.started_ms}
            if s.turn
            else None
        ),
    }


def _result(s: TableState, seat: str | None, privileged: bool) -> dict[str, Any]:
    result = (
        {
            "duel": s.result.duel,
            "winner": s.result.winner,
            "reason": s.result.reason,
            "confirmed": {k: k in s.result.yes for k in SEATS},
            # confirmed, it ends the match (R3.1, R5), and the wins it leaves
            "ends_match": result_ends_match(s),
            "wins_after": wins_after_result(s),
            # confirmed, its winner wins the match by wins alone (one tap may confirm both)
            "wins_match": result_wins_match(s),
        }
        if s.result
        else None
    )
    return {"result": result}


def _match(s: TableState, seat: str | None, privileged: bool) -> dict[str, Any]:
    return {
        "match": {
            "decided": s.match.decided,
            "winner": s.match.winner,
            "reason": s.match.reason,
            "confirmed": {k: k in s.match.yes for k in SEATS},
        },
        "new_match_votes": sorted(s.new_match.yes) if s.new_match else [],
    }


def _clock(s: TableState, seat: str | None, privileged: bool) -> dict[str, Any]:
    clock = s.clock
    return {
        "clock": {
            "status": clock.status,
            "started_ms": clock.started_ms,
            "duration_ms": clock.duration_ms,
            "deadline_ms": clock.deadline_ms,
            "remaining_ms": clock.remaining(clock.paused_ms or 0)
            if clock.status in ("paused", "expired", "stopped")
            else (clock.duration_ms if clock.status == "idle" else None),
            "start_votes": sorted(clock.start.yes) if clock.start else [],
        }
    }


def _time(s: TableState, seat: str | None, privileged: bool) -> dict[str, Any]:
    return {
        "time": {
            "called": s.time.called,
            "called_ms": s.time.called_ms,
            "during": s.time.during,
            "stage": s.time.stage,
            "extra_turn": s.time.extra_turn,
            "extra_turns": s.ruleset.extra_turns,
            "extra_duel_turns": s.ruleset.extra_duel_turns,
        }
    }


def _window(s: TableState, seat: str | None, privileged: bool) -> dict[str, Any]:
    window = (
        {
            "after_duel": s.window.after_duel,
            "started_ms": s.window.started_ms,
            "limit_ms": s.ruleset.window_seconds * 1000,
            "flagged": s.window.flagged,
        }
        if s.window
        else None
    )
    return {"window": window}


def _rolls(s: TableState, seat: str | None, privileged: bool) -> dict[str, Any]:
    rolls = [
        {
            "roll": r.roll,
            "kind": r.kind,
            "results": list(r.results),
            "by": r.by,
            "at_ms": r.at_ms,
            "duel": r.duel,
            "void": r.void,
        }
        for r in s.rolls[-10:]
    ]
    return {"rolls": rolls}


def _counters(s: TableState, seat: str | None, privileged: bool) -> dict[str, Any]:
    return {"counters": {k: dict(v) for k, v in s.counters.items()}, "tokens": dict(s.tokens)}


def _penalties(s: TableState, seat: str | None, privileged: bool) -> dict[str, Any]:
    penalties = [
        {
            "seat": p.seat,
            "level": p.level,
            "infraction": p.infraction,
            "note": p.note,
            "judge": p.judge,
            "duel": p.duel,
            "at_ms": p.at_ms,
        }
        for p in s.penalties
    ]
    return {"penalties": penalties}


def _flags(s: TableState, seat: str | None, privileged: bool) -> dict[str, Any]:
    flags = [
        {"kind": f.kind, "seat": f.seat, "duel": f.duel, "detail": f.detail, "at_ms": f.at_ms}
        for f in s.flags
    ]
    return {"flags": flags}


def _due(s: TableState, seat: str | None, privileged: bool) -> dict[str, Any]:
    return {
        "next_due_ms": next_due_ms(s),
        "stage_turns": stage_turns(s.ruleset, s.time.stage),  # the time-over stage's turns (R5)
    }


def _forms(s: TableState, seat: str | None, privileged: bool) -> dict[str, Any]:
    # the deck sizes, the checklist and the hands the phones' forms offer
    return {"forms": FORMS}


def _may_send(s: TableState, seat: str | None, privileged: bool) -> dict[str, Any]:
    # What this seat may send now (`server.rules.now`); nothing for other viewers.
    return {"may_send": may_send(s, seat) if seat in SEATS else []}


def _penalty_choices(s: TableState, seat: str | None, privileged: bool) -> dict[str, Any]:
    # The penalties a judge may record here (`server.rules.judge`); nothing for others.
    return {"penalty_choices": penalty_choices(s) if privileged else None}


def _calls(s: TableState, seat: str | None, privileged: bool) -> dict[str, Any]:
    return {"calls": calls_view(s, seat, privileged)}


def _decks(s: TableState, seat: str | None, privileged: bool) -> dict[str, Any]:
    return {
        "decks": {
            k: {
                "declared": d.registered.to_dict() if d.registered else None,
                "confirmed": len(d.yes) == 2,  # `Deck.confirmed`, without a call per view
                "current": d.current.to_dict() if d.current else None,
                "checked": d.checked,
                "check_failed": d.check_failed,
                "ready": d.ready,
                "list": d.cards is not None,
                "cards": list_view(d) if d.cards and (privileged or k == seat) else None,
                **_deck_fix(d),
            }
            for k, d in s.decks.items()
        }
    }


def _pregame(s: TableState, seat: str | None, privileged: bool) -> dict[str, Any]:
    pg = s.pregame
    return {
        "pregame": {
            "checks": {k: sorted(v) for k, v in pg.checks.items()},
            "picked": {k: pg.picks[k] is not None for k in SEATS},
            "my_pick": pg.picks.get(seat) if seat else None,
            "throws": list(pg.throws),
            "report": {"by": pg.report.by, "winner": pg.report.value} if pg.report else None,
            "rps_winner": pg.rps_winner,
            "chooser": pg.chooser,
            "first": pg.first,
            "drawn": dict(pg.drawn),
        }
    }


# The view without the ledger and the viewer's parts, the same for every viewer, in its order.
SHARED_PARTS: tuple[Part, ...] = (
    Part("table", TABLE_READS, _table),
    Part("duels", ("duels", "lp"), _duels),
    Part("pending", ("pending",), _pending),
    Part("disputes", ("disputes", "ruleset"), _disputes),
    Part("banlist_turn", ("banlist", "turn"), _banlist_turn),
    Part("result", RESULT_READS, _result),
    Part("match", ("match", "new_match"), _match),
    Part("clock", ("clock",), _clock),
    Part("time", ("time", "ruleset"), _time),
    Part("window", ("window", "ruleset"), _window),
    Part("rolls", ("rolls",), _rolls),
    Part("counters", ("counters", "tokens"), _counters),
    Part("penalties", ("penalties",), _penalties),
    Part("flags", ("flags",), _flags),
    Part("due", ("clock", "time", "window", "turn", "phase", *RESULT_READS), _due),
    Part("forms", (), _forms),
)

# The parts that depend on the viewer: deck lists, one's own RPS pick, the reasons of judge
# calls and disputes, player IDs, what a seat may send and what a judge may record.
SEAT_PARTS: tuple[Part, ...] = (
    Part("own_disputes", ("ruleset", "disputes"), own_disputes),
    Part("people", ("seats", "seat_requests"), people_view),
    Part("may_send", MAY_SEND_READS, _may_send),
    Part("penalty_choices", ("phase",), _penalty_choices),
    Part("calls", ("calls",), _calls),
    Part("decks", ("decks", "ruleset"), _decks),
    Part("pregame", ("pregame",), _pregame),
)


def parts_view(
    parts: tuple[Part, ...], s: TableState, seat: str | None, privileged: bool
) -> dict[str, Any]:
    """The keys of `parts` for this viewer, in their order."""
    out: dict[str, Any] = {}
    for part in parts:
        out.update(part.build(s, seat, privileged))
    return out


def seat_view(s: TableState, seat: str | None, privileged: bool) -> dict[str, Any]:
    """The parts of the view that depend on the viewer (`SEAT_PARTS`)."""
    return parts_view(SEAT_PARTS, s, seat, privileged)


def shared_view(s: TableState) -> dict[str, Any]:
    """The view without the ledger and the viewer's parts: the same for every viewer."""
    return parts_view(SHARED_PARTS, s, None, False)


def event_for(
    envelope: dict[str, Any], seat: str | None, privileged: bool = False, judged: bool = False
) -> dict[str, Any]:
    """An event envelope as ``seat`` may see it: another seat's secret pick is hidden, and so
    are the cards of another seat's deck list and side decking and the reason of another
    seat's judge call (judges see them)."""
    kind = envelope.get("type")
    owner = envelope.get("data", {}).get("seat")
    if kind == "rps.picked" and owner != seat:
        data = {k: v for k, v in envelope["data"].items() if k != "salt"}
        data["hand"] = None
        return {**envelope, "data": data}
    if kind == "judge.called" and owner != seat and not privileged:
        return {**envelope, "data": {**envelope["data"], "reason": ""}}
    if kind == "lp.rejected" and judged and envelope["data"].get("by") != seat and not privileged:
        # `judged`: an event table, where the rejection's reason is its judge call's (above).
        return {**envelope, "data": {**envelope["data"], "reason": ""}}
    if kind in SEAT_EVENTS and not privileged:
        # A phone's device id would let whoever reads it ask for the other seat under it and be
        # given the one-phone table's recovery code; a player ID is its own seat's (above).
        data = envelope.get("data", {})
        own = owner == seat and kind != "seat.requested"
        if "device" in data or (data.get("player_id") and not own):
            kept = {k: v for k, v in data.items() if k != "device"}
            if not own and "player_id" in kept:
                kept["player_id"] = ""
            return {**envelope, "data": kept}
    if kind in LIST_EVENTS and owner != seat and not privileged:
        hidden = (*LIST_EVENTS[kind], "salt")  # the salt goes only with the value it hides
        data = {k: v for k, v in envelope["data"].items() if k not in hidden}
        return {**envelope, "data": data}
    return envelope


# Events that name a seat's phone (its device id) or its player's ID.
SEAT_EVENTS = frozenset({"seat.joined", "seat.moved", "seat.requested"})

# Events that name cards of a seat's list, and the fields that do: their declared secret fields
# (a rock-paper-scissors pick, the other secret, is read once thrown: `event_for`).
LIST_EVENTS: dict[str, tuple[str, ...]] = {
    t: d.secret for t, d in EVENTS.items() if d.secret and t != "rps.picked"
}
