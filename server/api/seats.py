"""Seat claims and moves over HTTP: who may take a seat, and how a seat passes to another phone.
The policy is the seat service's (`server/service/seats.py`, rules in `server/rules/seating.py`);
these routes say who asks (the client's address, the phone's device id and seat token, a
judge's login) and what is answered.

- A table card's QR carries a per-seat **claim** (`/s/<slug>/<number>/<seat>?c=<claim>`):
  HMAC-SHA256 of the event's slug, its card issue (`cards_issue`), the table number and the
  seat under the server's signing key (`server.service.seats`), so it survives restarts and is
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

from typing import Any

from flask import Blueprint, Flask, Response, jsonify, request

from server.api.context import services
from server.core.errors import AppError
from server.service.seats import Asker

from .access import bearer, end_seat, viewer
from .identity import check_request, require_staff
from .session import sessions

bp = Blueprint("seats", __name__)
bp.before_request(check_request)  # a same-site Origin, and staff's CSRF token


def _spend_miss(what: str) -> None:
    """A wrong guess spends one of the client address's few "miss" tokens (429 when gone)."""
    if not services().misses.take(request.remote_addr or "?"):
        raise AppError("rate_limited", f"Too many wrong {what}; try again later.", status=429)


def _charge_request(key: str) -> None:
    """A seat request counts against its asker, a few a minute (429 past them): its address, or
    the table card's seat when it came with that card's valid claim (a mistyped ID, a taken
    seat), so a hall's shared address never refuses a player holding their own card."""
    limiter = services().seat_asks
    if limiter is not None and not limiter.take(key):
        raise AppError(
            "rate_limited", "Too many seat requests from here; try again later.", status=429
        )


def _asker(code: str, device: str, what: str) -> Asker:
    """Who asks, for the seat service: this request's address, the phone's device id, the
    seat its token holds at table `code`, and its budgets."""

    def holder() -> str | None:
        held = viewer(code).seat
        return held.seat if held is not None else None

    return Asker(
        request.remote_addr or "?", device, holder, _charge_request, lambda: _spend_miss(what)
    )


def join(code: str, body: dict[str, Any]) -> tuple[dict[str, Any], int]:
    """The HTTP join: a seat at once (201), or a request that waits (202)."""
    answer, waits = services().seats.join(
        code,
        body.get("seat"),
        body["name"],
        body["player_id"],
        body.get("claim", ""),
        bool(body.get("takeover")),
        _asker(code, str(body.get("device") or ""), "player IDs"),
    )
    return answer, 202 if waits else 201


@bp.get("/api/tables/<code>/seat-requests/<ref>")
def request_status(code: str, ref: str) -> Response:
    """A waiting phone asks how its request stands (its request token as Bearer)."""
    return jsonify(services().seats.request_status(code.upper(), ref, bearer()))


@bp.post("/api/tables/<code>/seat-requests/<ref>/cancel")
def cancel_request(code: str, ref: str) -> Response:
    """The waiting phone takes its own request back (its request token as Bearer): a player who
    mistyped their ID corrects it or goes; the floor's alert closes with it."""
    code = code.upper()
    seat = services().seats.cancel(code, ref, bearer())
    return jsonify({"request": ref, "seat": seat, "status": "refused"})


def _answerer(code: str, ref: str, verb: str) -> str:
    """At a casual table, who answers a phone's request for a seat: the seat's own phone, or
    the other seat once the owner is gone; its actor label."""
    v = viewer(code)
    own = v.seat.seat if v.seat is not None else None
    return services().seats.answerer(
        code, ref, verb, own, lambda seat: sessions().seated(code, seat)
    )


def _grant(code: str, ref: str, by: str) -> Response:
    # The phone that had the seat: its sockets close before the table hears of the change.
    seat = services().seats.grant(code, ref, by, ended=end_seat)
    return jsonify({"request": ref, "seat": seat, "status": "approved"})


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
    seat = services().seats.disown(code, v.seat.seat if v.seat is not None else None)
    return jsonify({"seat": seat, "disowned": True})


def recover(code: str, body: dict[str, Any]) -> dict[str, Any]:
    """A one-phone table's recovery: both seats move to the phone that has its code."""
    device = str(body.get("device") or "")
    return services().seats.recover(
        code, body["recovery"], device, _asker(code, device, "codes"), end_seat
    )


def _refuse(code: str, ref: str, by: str) -> Response:
    seat = services().seats.refuse(code, ref, by)
    return jsonify({"request": ref, "seat": seat, "status": "refused"})


def _require_judge(code: str) -> str:
    return services().seats.judge_of(require_staff(), code)


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
    services().seats.release(code, seat, _require_judge(code), ended=end_seat)
    return jsonify({"seat": seat, "released": True})


def init_app(app: Flask) -> None:
    app.register_blueprint(bp)
