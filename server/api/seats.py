"""Seat claims and moves: who may take a seat, and how a seat passes to another phone.

- A table card's QR carries a per-seat **claim** (`/s/<slug>/<number>/<seat>?c=<claim>`):
  HMAC-SHA256 of the event's slug, the table number and the seat under the server's signing
  key (`server.store.signing`), so it survives restarts and is the same in every process.
- Joining an **event** seat with the right claim takes it at once (when free). Without it, or
  when the seat is taken, the phone's request **waits for a judge** (202 with the request id
  and a token that works once approved).
- At a **casual** table a phone asking for a taken seat (`"takeover": true`) waits for the
  **other seat** to confirm it (the two-key rule).
- A judge can **release** a seat, or approve a request for a taken seat (the seat **moves** to
  the new phone). The old token stops working at once and its sockets close. Each is an event
  in the table's log (`seat.requested`, `seat.joined`/`seat.moved` with `by`, `seat.released`).
"""

from __future__ import annotations

import hashlib
import hmac
from typing import Any

from flask import Blueprint, Flask, Response, jsonify

from server.context import services
from server.errors import AppError
from server.store.events import hash_token

from .access import bearer, end_seat, viewer
from .identity import check_request, require_staff, tournament

bp = Blueprint("seats", __name__)
bp.before_request(check_request)  # a same-site Origin, and staff's CSRF token


def _secret() -> bytes:
    signer = services().store.signer
    if signer is None or signer.key is None:
        raise AppError("no_key", "The server has no signing key.", status=503)
    from cryptography.hazmat.primitives import serialization

    return signer.key.private_bytes(
        serialization.Encoding.Raw, serialization.PrivateFormat.Raw, serialization.NoEncryption()
    )


def claim_for(slug: str, number: int, seat: str) -> str:
    """The claim printed in a table card's QR for one seat."""
    return claim_with(_secret(), slug, number, seat)


def claim_with(secret: bytes, slug: str, number: int, seat: str) -> str:
    """`claim_for` under a given key (the raw Ed25519 private key's 32 bytes)."""
    text = f"seat-claim v1\n{slug}\n{number}\n{seat}".encode()
    return hmac.new(secret, text, hashlib.sha256).hexdigest()[:24]


def claim_ok(code: str, seat: str | None, claim: str) -> bool:
    """Whether `claim` is the card's claim for `seat` of event table `code`."""
    if not claim or seat not in ("A", "B"):
        return False
    info = tournament().table_info(code)
    if info is None:
        return False
    slug = tournament().event(info["event"]["id"]).slug
    return hmac.compare_digest(claim_for(slug, int(info["number"]), seat), claim)


def join(code: str, body: dict[str, Any]) -> tuple[dict[str, Any], int]:
    """The HTTP join's decision: a seat at once, or a request that waits (202)."""
    found = services()
    seat, name, player_id = body.get("seat"), body["name"], body["player_id"]
    info = tournament().table_info(code)
    event_table = info is not None
    paired = ((info or {}).get("pairing") or {}).get(seat) if seat in ("A", "B") else None
    if paired and paired["name"] and claim_ok(code, seat, body.get("claim", "")):
        # An event seat carries its pairing's name and ID (the table card's claim says which
        # seat this is): a different typed name never replaces them.
        name, player_id = paired["name"], paired["player_id"] or player_id
    if info is not None and info["require_player_id"] and not player_id:
        # R1.1: this event asks every player for a player ID (checked before any seat or request).
        raise AppError("player_id_required", "This event needs your player ID.", status=400)
    taken = seat is not None and found.store.snapshot(code).state.seats[seat].joined
    if event_table and not (claim_ok(code, seat, body.get("claim", "")) and not taken):
        if seat is None:
            raise AppError("seat_needed", "Name the seat on your table card.", status=400)
        why = "taken" if taken else "no_claim"
        return _request(code, seat, name, player_id, why), 202
    if taken and body.get("takeover"):
        return _request(code, str(seat), name, player_id, "takeover"), 202
    device = str(body.get("device") or "")
    joined = found.tables.join(code, seat, name, player_id, found.clock(), device)
    return {"seat": joined.seat, "token": joined.token, "seq": joined.seq}, 201


def _request(code: str, seat: str, name: str, player_id: str, why: str) -> dict[str, Any]:
    found = services()
    ref, token, _seq = found.tables.request_seat(code, seat, name, player_id, why, found.clock())
    return {"status": "waiting", "request": ref, "seat": seat, "token": token, "why": why}


def _grant(code: str, ref: str, by: str) -> Response:
    found = services()
    # The phone that had the seat: its sockets close before the table hears of the change.
    seat, _old = found.tables.grant_request(code, ref, by, found.clock(), ended=end_seat)
    return jsonify({"request": ref, "seat": seat, "status": "approved"})


@bp.get("/api/tables/<code>/seat-requests/<ref>")
def request_status(code: str, ref: str) -> Response:
    """A waiting phone asks how its request stands (its request token as Bearer)."""
    code = code.upper()
    request = services().store.seat_request(code, ref)
    token = bearer()
    if (
        request is None
        or not token
        or not hmac.compare_digest(request.token_hash, hash_token(token))
    ):
        raise AppError("no_such_request", "No request has this id and token.", status=404)
    return jsonify({"request": ref, "seat": request.seat, "status": request.status})


def _other_seat(code: str, ref: str, verb: str) -> str:
    """At a casual table, the seat that answers a new phone's request for the other seat (the
    two-key rule): its actor label. An event table's requests are a judge's to answer."""
    v = viewer(code)
    request = services().store.seat_request(code, ref)
    if request is None:
        raise AppError("no_such_request", "No waiting request has this id.", status=404)
    if tournament().table_info(code) is not None:
        raise AppError("judge_needed", "At an event table a judge answers.", status=403)
    if v.seat is None or v.seat.seat == request.seat:
        raise AppError("forbidden", f"Only the other seat {verb}.", status=403)
    return f"seat {v.seat.seat}"


@bp.post("/api/tables/<code>/seat-requests/<ref>/confirm")
def confirm_request(code: str, ref: str) -> Response:
    """At a casual table, the other seat lets a new phone take the seat (two keys)."""
    code = code.upper()
    return _grant(code, ref, _other_seat(code, ref, "confirms"))


@bp.post("/api/tables/<code>/seat-requests/<ref>/refuse")
def refuse_request(code: str, ref: str) -> Response:
    """At a casual table, the other seat refuses a new phone's request for a seat."""
    code = code.upper()
    return _refuse(code, ref, _other_seat(code, ref, "refuses"))


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
