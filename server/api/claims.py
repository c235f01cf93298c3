"""A table card's seat claims: the keyed code printed in each seat's QR for a whole event (one
printing, `issue`), and whether a claim is the current card's for a seat. Below the access
module, which charges a valid claim's requests to the card's seat (docs/security.md)."""

from __future__ import annotations

import hashlib
import hmac

from server.api.context import services
from server.core.errors import AppError

from .identity import tournament


def _secret() -> bytes:
    signer = services().store.signer
    if signer is None or signer.key is None:
        raise AppError("no_key", "The server has no signing key.", status=503)
    from cryptography.hazmat.primitives import serialization

    return signer.key.private_bytes(
        serialization.Encoding.Raw, serialization.PrivateFormat.Raw, serialization.NoEncryption()
    )


def claim_for(slug: str, number: int, seat: str, *, issue: int = 1) -> str:
    """The claim printed in a table card's QR for one seat, for the whole event (one issue)."""
    return claim_with(_secret(), slug, number, seat, issue=issue)


def claim_with(secret: bytes, slug: str, number: int, seat: str, *, issue: int = 1) -> str:
    """`claim_for` under a given key (the raw Ed25519 private key's 32 bytes)."""
    text = f"seat-claim v3\n{slug}\n{issue}\n{number}\n{seat}".encode()
    return hmac.new(secret, text, hashlib.sha256).hexdigest()[:24]


def card_claim(event_id: int, number: int, seat: str) -> str:
    """The claim of the event's current printing of table `number`'s card, for `seat`."""
    ev = tournament().event(event_id)
    return claim_for(ev.slug, number, seat, issue=int(ev.cards_issue))


OK, OLD, BAD = "ok", "old", "bad"


def claim_check(code: str, seat: str | None, claim: str) -> str:
    """Whether `claim` is the current card's claim for `seat` of event table `code` while the
    table's round is open (OK); a claim of a re-issued card, or any while the round has ended
    (OLD); else BAD."""
    if not claim or seat not in ("A", "B"):
        return BAD
    info = tournament().table_info(code)
    if info is None:
        return BAD
    ev = tournament().event(info["event"]["id"])
    number, issue = int(info["number"]), int(ev.cards_issue)
    secret = _secret()
    if hmac.compare_digest(claim_with(secret, ev.slug, number, seat, issue=issue), claim):
        return OLD if tournament().round_ended(code) else OK
    for earlier in range(1, issue):
        if hmac.compare_digest(claim_with(secret, ev.slug, number, seat, issue=earlier), claim):
            return OLD
    return BAD


def claim_ok(code: str, seat: str | None, claim: str) -> bool:
    """Whether `claim` is the card's claim for `seat` of event table `code` (round open)."""
    return claim_check(code, seat, claim) == OK
