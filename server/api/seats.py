"""Seat claims and moves: who may take a seat, and how a seat passes to another phone.

- A table card's QR carries a per-seat **claim** (`/s/<slug>/<number>/<seat>?c=<claim>`):
  HMAC-SHA256 of the event's slug, its card issue (`cards_issue`), the table number and the
  seat under the server's signing key (`server.store.signing`), so it survives restarts and is
  the same in every process. The cards are printed once: a claim holds in every round of the
  event until an organiser re-issues the cards (older claims are then `old_claim`), and seats
  nobody while the table's round has ended. The round comes from the pairing's player ID,
  which no public page shows: at a seat paired with an ID the claim seats the phone only when
  the typed ID is the pairing's (`server.core.names.same_player_id`); a wrong ID waits for a judge
  (`id_mismatch` on the floor) and spends the address's miss budget, as a wrong code does.
  A seat paired without an ID goes to the round's first phone with the claim. The seat takes
  the pairing's name and ID. A request for a held seat under the holder's own name and ID is
  marked on the floor (`projections.floor`: `twin`). The `/s/` link leads to the join screen only
  with a valid claim: it reveals no table code otherwise, and a client address sending wrong
  claims is held back (`HTTP_MISS_*`).
- Joining an **event** seat with the right claim takes it at once (when free). Without it, or
  when the seat is taken, the phone's request **waits for a judge** (202 with the request id
  and a token that works once approved).
- At a **casual** table a phone asking for a taken seat (`"takeover": true`) waits for the
  seat's **own phone** to agree or refuse; the **other seat** may give the seat away only once
  the owner is gone: its phone has not been seen for `SEAT_AWAY_SECONDS`, or it said "this is
  not my phone any more" (`seat.disowned`). The rule is `server.rules.table.seat_answer`. A
  phone that holds a seat of the table never asks for the other one.
- Each asker (client address and device id) has at most one waiting request for a seat, and a
  table at most `SEAT_REQUESTS_PER_TABLE`: each is one prompt on the phones and the floor.
- A **one-phone** table (both seats joined with one device id) gets a **recovery code**, shown
  once: it moves both seats to a new phone (`POST /api/tables/<code>/recover`), whose answer
  carries the next code.
- A judge can **release** a seat, or approve a request for a taken seat (the seat **moves** to
  the new phone). The old token stops working at once and its sockets close (the old phone is
  told). Each is an event in the table's log (`seat.requested`, `seat.joined`/`seat.moved`
  with `by`, `seat.refused`, `seat.released`, `seat.disowned`).
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from collections import OrderedDict
from collections.abc import Callable
from typing import Any

from flask import Blueprint, Flask, Response, current_app, jsonify, request

from server.api.context import services
from server.core.errors import AppError, DomainError
from server.core.names import same_player_id
from server.rules.state import SeatAsk
from server.rules.table import seat_answer
from server.store.events import hash_token, new_recovery_code, normal_recovery_code

from .access import bearer, end_seat, viewer
from .claims import BAD, OK, OLD, claim_check
from .identity import check_request, require_staff, tournament
from .session import sessions

bp = Blueprint("seats", __name__)
bp.before_request(check_request)  # a same-site Origin, and staff's CSRF token


def _spend_miss(what: str) -> None:
    """A wrong guess spends one of the client address's few "miss" tokens (429 when gone)."""
    if not services().misses.take(request.remote_addr or "?"):
        raise AppError("rate_limited", f"Too many wrong {what}; try again later.", status=429)


def _same(a: str, b: str) -> bool:
    return a.strip().casefold() == b.strip().casefold()


def _asker(device: str, seat: str) -> str:
    """Who is asking for which seat, as far as the server can tell: the client's address and
    the phone's device id, and the seat (hashed: the request rows keep no address)."""
    text = f"seat-asker\n{request.remote_addr or '?'}\n{device}\n{seat}".encode()
    return hashlib.sha256(text).hexdigest()[:32]


def join(code: str, body: dict[str, Any]) -> tuple[dict[str, Any], int]:
    """The HTTP join's decision: a seat at once, or a request that waits (202)."""
    found = services()
    seat, name, player_id = body.get("seat"), body["name"], body["player_id"]
    typed = (name, player_id)  # as the phone sent them: a request shows the judge these
    device = str(body.get("device") or "")
    info = tournament().table_info(code)
    event_table = info is not None
    verdict = claim_check(code, seat, body.get("claim", "")) if event_table else BAD
    paired = pairing_of(info, seat)
    mismatch = False
    if paired and paired["name"] and verdict == OK:
        if paired["player_id"]:
            # The card is the same in every round: the pairing's player ID says whose round
            # this is. No ID typed: the join screen asks for it (nothing changes).
            if not player_id:
                raise AppError("player_id_required", "Type your player ID.", status=400)
            mismatch = not same_player_id(player_id, paired["player_id"])
            # Past a few wrong IDs at this seat, no ID seats a phone there: right or wrong, it
            # waits for a judge, so a guesser past its budget cannot tell a hit (201) from a miss.
            locked = _id_guessed(f"{code}:{seat}", mismatch)
            if mismatch or locked:
                mismatch = True
                _spend_miss("player IDs")  # guessing IDs is throttled like guessing codes
        if not mismatch:
            name, player_id = carried_identity(paired, name, player_id)
    if info is not None and info["require_player_id"] and not player_id:
        # R1.1: this event asks every player for a player ID (checked before any seat or request).
        raise AppError("player_id_required", "This event needs your player ID.", status=400)
    taken = seat is not None and found.store.snapshot(code).state.seats[seat].joined
    if info is not None:
        if seat is None:
            raise AppError("seat_needed", "Name the seat on your table card.", status=400)
        if mismatch:
            why = "id_mismatch"  # the card, not the pairing's player ID: the floor is told
        elif taken:
            why = "taken"  # with the same name and ID as the holder: the floor marks it
        elif verdict == OLD:
            why = "old_claim"  # a re-issued card, or its round has ended: the floor is told
        elif verdict == BAD:
            why = "no_claim"
        else:
            why = ""
        if why:
            return _request(code, seat, *typed, why, device, card=verdict == OK), 202
    if taken and body.get("takeover"):
        return _request(code, str(seat), name, player_id, "takeover", device), 202
    joined = found.tables.join(code, seat, name, player_id, found.clock(), device)
    if event_table and verdict == OK:
        _close_answered(code, str(joined.seat))
    answer: dict[str, Any] = {"seat": joined.seat, "token": joined.token, "seq": joined.seq}
    if device and not event_table:
        # One phone now holds both seats: the code that moves them to another phone, once.
        recovery = new_recovery_code()
        if found.store.set_recovery(code, device, hash_token(recovery)):
            answer["recovery"] = recovery
    return answer, 201


# Requests a seat's proper join answers: they asked for a free seat with a wrong or missing ID
# or card, and the pairing's player now sits there (a request for a held seat stays a judge's).
ANSWERED_BY_JOIN = ("id_mismatch", "no_claim", "old_claim")


def _close_answered(code: str, seat: str) -> None:
    """Close the waiting requests for `seat` that its card's join with the pairing's ID has
    answered (a mistyped ID, corrected): no stale alert stays on the floor."""
    found = services()
    for asked in found.store.fresh(code).state.seat_requests:
        if asked.seat == seat and asked.why in ANSWERED_BY_JOIN:
            try:
                found.tables.refuse_request(code, asked.request, "seated", found.clock())
            except DomainError:
                pass  # answered meanwhile (a judge, or the asker's own cancel)


def _request(
    code: str, seat: str, name: str, player_id: str, why: str, device: str, card: bool = False
) -> dict[str, Any]:
    found = services()
    holder = viewer(code).seat
    if holder is not None:
        # A seat's phone never asks for a seat of its own table (and so never confirms it).
        raise AppError(
            "already_seated",
            f"This phone holds seat {holder.seat} of this table.",
            {"seat": holder.seat},
            status=409,
        )
    _charge_request(f"card:{code}:{seat}" if card else request.remote_addr or "?")
    per_table = int(current_app.config.get("SEAT_REQUESTS_PER_TABLE", 3))
    stale = _stale()
    waiting = [r for r in found.store.fresh(code).state.seat_requests if not stale(r)]
    if per_table and len(waiting) >= per_table:
        # Refused before the writer (which checks again, on the latest state): a flood of
        # requests costs a cached look-up each.
        raise AppError(
            "too_many_requests",
            "This table has enough phones waiting; ask a judge or the players.",
            status=429,
        )
    ref, token, _seq = found.tables.request_seat(
        code,
        seat,
        name,
        player_id,
        why,
        found.clock(),
        asker=_asker(device, seat),
        per_table=per_table,
        stale=stale,
    )
    return {"status": "waiting", "request": ref, "seat": seat, "token": token, "why": why}


def _id_guessed(key: str, wrong: bool) -> bool:
    """Count a wrong player ID typed at a seat (`key`: table code and seat, one round's); whether
    the seat has had `SEAT_ID_GUESSES` wrong ones, after which its card seats nobody by itself."""
    most = int(current_app.config.get("SEAT_ID_GUESSES", 5))
    if not most:
        return False
    wrongs: OrderedDict[str, int] = services().id_guesses
    count = wrongs.get(key, 0)
    if count >= most:
        return True
    if wrong:
        wrongs[key] = count + 1
        wrongs.move_to_end(key)
        while len(wrongs) > 50_000:  # the oldest seats fall out first
            wrongs.popitem(last=False)
    return False


def _stale() -> Callable[[SeatAsk], bool]:
    """Whether a waiting seat request has expired: its phone stopped asking how it stands
    (`SEAT_REQUEST_GONE_SECONDS`), or it was made `SEAT_REQUEST_SECONDS` ago. Before, they
    never expired: one address kept 75 tables at their cap for 45 minutes."""
    config = current_app.config
    now = services().clock()
    gone_ms = int(config.get("SEAT_REQUEST_GONE_SECONDS", 60)) * 1000
    most_ms = int(config.get("SEAT_REQUEST_SECONDS", 300)) * 1000
    polls = _polls()

    def stale(r: SeatAsk) -> bool:
        asked = max(r.at_ms, polls.get(r.request, 0))
        return bool(most_ms and now - r.at_ms >= most_ms) or bool(
            gone_ms and now - asked >= gone_ms
        )

    return stale


def _polls() -> OrderedDict[str, int]:
    """When each waiting request's phone last asked how it stands (this process's memory: after
    a restart a request counts from when it was made)."""
    found: OrderedDict[str, int] = services().seat_polls
    return found


def _polled(ref: str) -> None:
    polls = _polls()
    polls[ref] = services().clock()
    polls.move_to_end(ref)
    while len(polls) > 20_000:  # requests answered long ago fall out first
        polls.popitem(last=False)


def _charge_request(key: str) -> None:
    """A seat request counts against its asker, a few a minute (429 past them): its address, or
    the table card's seat when it came with that card's valid claim (a mistyped ID, a taken
    seat), so a hall's shared address never refuses a player holding their own card."""
    limiter = services().seat_asks
    if limiter is not None and not limiter.take(key):
        raise AppError(
            "rate_limited", "Too many seat requests from here; try again later.", status=429
        )


def pairing_of(info: dict[str, Any] | None, seat: Any) -> dict[str, str] | None:
    """An event table's pairing for `seat` (`Tournament.table_info`), or None."""
    return ((info or {}).get("pairing") or {}).get(seat) if seat in ("A", "B") else None


def carried_identity(paired: dict[str, str] | None, name: str, player_id: str) -> tuple[str, str]:
    """The name and player ID a seat carries: at an event seat paired by name, the pairing's
    (the typed ID only where the pairing has none), never what a phone typed; else as typed."""
    if not paired or not paired["name"]:
        return name, player_id
    return paired["name"], paired["player_id"] or player_id


def _grant(code: str, ref: str, by: str) -> Response:
    found = services()
    info = tournament().table_info(code)
    # The phone that had the seat: its sockets close before the table hears of the change.
    # Whatever its phone typed, an event seat a judge gives carries the pairing's name and ID.
    seat, _old = found.tables.grant_request(
        code,
        ref,
        by,
        found.clock(),
        ended=end_seat,
        identity=lambda s, name, pid: carried_identity(pairing_of(info, s), name, pid),
    )
    return jsonify({"request": ref, "seat": seat, "status": "approved"})


@bp.get("/api/tables/<code>/seat-requests/<ref>")
def request_status(code: str, ref: str) -> Response:
    """A waiting phone asks how its request stands (its request token as Bearer)."""
    code = code.upper()
    request_row = services().store.seat_request(code, ref)
    token = bearer()
    if (
        request_row is None
        or not token
        or not hmac.compare_digest(request_row.token_hash, hash_token(token))
    ):
        raise AppError("no_such_request", "No request has this id and token.", status=404)
    status = str(request_row.status)
    if status == "waiting":
        asked = SeatAsk(ref, str(request_row.seat), "", "", "", int(request_row.created_ms))
        if _stale()(asked):
            status = "expired"  # written as such by the table's next request
        else:
            _polled(ref)  # its phone is still there (a phone back after it expired is not)
    return jsonify({"request": ref, "seat": request_row.seat, "status": status})


@bp.post("/api/tables/<code>/seat-requests/<ref>/cancel")
def cancel_request(code: str, ref: str) -> Response:
    """The waiting phone takes its own request back (its request token as Bearer): a player who
    mistyped their ID corrects it or goes; the floor's alert closes with it."""
    code = code.upper()
    request_row = services().store.seat_request(code, ref)
    token = bearer()
    if (
        request_row is None
        or not token
        or not hmac.compare_digest(request_row.token_hash, hash_token(token))
    ):
        raise AppError("no_such_request", "No request has this id and token.", status=404)
    return _refuse(code, ref, "asker")


def unseen_ms(code: str, seat: str, asked_ms: int) -> int:
    """How long the phone of `seat` has not been seen, counted from `asked_ms` at the
    earliest: 0 while one of its sockets is open here; otherwise since the later of the
    request and the last time a process saw it (`seat.seen_ms`: socket opened, closed or
    kept while the request waited)."""
    if sessions().seated(code, seat):
        return 0
    row = services().store.seat_row(code, seat)
    seen = (row.seen_ms or 0) if row is not None else 0
    return max(0, services().clock() - max(seen, asked_ms))


def _answerer(code: str, ref: str, verb: str) -> str:
    """At a casual table, who answers a phone's request for a seat: the seat's own phone, or
    the other seat once the owner is gone (`seat_answer`); its actor label."""
    v = viewer(code)
    asked = services().store.seat_request(code, ref)
    if asked is None or asked.status != "waiting":
        raise AppError("no_such_request", "No waiting request has this id.", status=404)
    if tournament().table_info(code) is not None:
        raise AppError("judge_needed", "At an event table a judge answers.", status=403)
    if v.seat is None or not v.seat.seat:
        raise AppError("forbidden", "Only a seat of this table answers.", status=403)
    state = services().store.snapshot(code).state
    away_ms = int(current_app.config.get("SEAT_AWAY_SECONDS", 60)) * 1000
    unseen = unseen_ms(code, asked.seat, int(asked.created_ms))
    seat_answer(state, asked.seat, v.seat.seat, verb, unseen, away_ms)  # RuleError: 409
    return f"seat {v.seat.seat}"


@bp.post("/api/tables/<code>/seat-requests/<ref>/confirm")
def confirm_request(code: str, ref: str) -> Response:
    """At a casual table, the seat's own phone gives its seat to a new phone; or the other
    seat does, once the owner is gone."""
    code = code.upper()
    return _grant(code, ref, _answerer(code, ref, "confirm"))


@bp.post("/api/tables/<code>/seat-requests/<ref>/refuse")
def refuse_request(code: str, ref: str) -> Response:
    """At a casual table, either seat refuses a new phone's request for a seat."""
    code = code.upper()
    return _refuse(code, ref, _answerer(code, ref, "refuse"))


@bp.post("/api/tables/<code>/seat/disown")
def disown_seat(code: str) -> Response:
    """The seat's phone says "this is not my phone any more": at a casual table the other seat
    may then give the seat to the player's new phone at once (the seat stays until then)."""
    code = code.upper()
    v = viewer(code)
    if v.seat is None or not v.seat.seat:
        raise AppError("bad_token", "Send your seat's token.", status=401)
    if tournament().table_info(code) is not None:
        raise AppError("judge_needed", "At an event table a judge moves seats.", status=403)
    found = services()
    found.tables.disown(code, v.seat.seat, found.clock())
    return jsonify({"seat": v.seat.seat, "disowned": True})


def recover(code: str, body: dict[str, Any]) -> dict[str, Any]:
    """A one-phone table's recovery: both seats move to the phone that has its code."""
    found = services()
    typed = normal_recovery_code(body["recovery"])
    if not typed or found.store.table_recovery(code) != hash_token(typed):
        # A wrong code spends one of the address's few "miss" tokens, as an unknown code does.
        _spend_miss("codes")
        raise AppError("bad_recovery", "This is not the table's recovery code.", status=403)
    tokens = {seat: secrets.token_urlsafe(32) for seat in ("A", "B")}
    fresh = found.tables.recover(
        code, hash_token(typed), tokens, str(body.get("device") or ""), found.clock(), end_seat
    )
    state = found.store.snapshot(code).state
    names = {seat: state.seats[seat].name for seat in ("A", "B")}
    return {"seats": tokens, "names": names, "recovery": fresh}


def _refuse(code: str, ref: str, by: str) -> Response:
    found = services()
    seat = found.tables.refuse_request(code, ref, by, found.clock())
    return jsonify({"request": ref, "seat": seat, "status": "refused"})


def _require_judge(code: str) -> str:
    staff = require_staff()
    role = tournament().role(staff, tournament().table_event(code))
    if role is None:
        raise AppError("forbidden", "You are not staff of this table's event.", status=403)
    return f"{role} {staff.username}"


@bp.post("/api/staff/tables/<code>/seat-requests/<ref>/approve")
def approve_request(code: str, ref: str) -> Response:
    """A judge gives a waiting phone its seat (moving it from the phone that had it)."""
    code = code.upper()
    return _grant(code, ref, _require_judge(code))


@bp.post("/api/staff/tables/<code>/seat-requests/<ref>/refuse")
def judge_refuse_request(code: str, ref: str) -> Response:
    """A judge refuses a waiting request: its token never works."""
    code = code.upper()
    return _refuse(code, ref, _require_judge(code))


@bp.post("/api/staff/tables/<code>/seats/<seat>/release")
def release_seat(code: str, seat: str) -> Response:
    """A judge frees a seat: its phone's token stops working, its sockets close."""
    code = code.upper()
    by = _require_judge(code)
    if seat not in ("A", "B"):
        raise AppError("unknown_seat", "The seat must be A or B.", status=404)
    found = services()
    found.tables.release_seat(code, seat, by, found.clock(), ended=end_seat)
    return jsonify({"seat": seat, "released": True})


def init_app(app: Flask) -> None:
    app.register_blueprint(bp)
