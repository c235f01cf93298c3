"""A table card's seat claims at the edge: the seat service (`server/service/seats.py`) makes
and checks them; the views and the access policy ask through these. Below the access module,
which charges a valid claim's requests to the card's seat (docs/security.md)."""

from __future__ import annotations

from server.api.context import services
from server.rules.seating import CLAIM_OK
from server.service.seats import claim_with

__all__ = ["card_claim", "claim_check", "claim_for", "claim_ok", "claim_with"]


def claim_for(slug: str, number: int, seat: str, *, issue: int = 1) -> str:
    """The claim printed in a table card's QR for one seat, for the whole event (one issue)."""
    return services().seats.claim_for(slug, number, seat, issue=issue)


def card_claim(event_id: int, number: int, seat: str) -> str:
    """The claim of the event's current printing of table `number`'s card, for `seat`."""
    return services().seats.card_claim(event_id, number, seat)


def claim_check(code: str, seat: str | None, claim: str) -> str:
    """The claim's verdict for `seat` of event table `code` (`server.rules.seating`)."""
    return services().seats.claim_check(code, seat, claim)


def claim_ok(code: str, seat: str | None, claim: str) -> bool:
    """Whether `claim` is the card's claim for `seat` of event table `code` (round open)."""
    return claim_check(code, seat, claim) == CLAIM_OK
