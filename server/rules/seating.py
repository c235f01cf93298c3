"""Who a phone joining an event seat is, by the rules: the pairing's identity a seat carries,
whether the typed player ID is the pairing's (R1.1), and why a join waits for a judge.

Pure: the seat service (`server/service/seats.py`) gathers the facts (the table's pairing, the
card's claim verdict, whether the seat is taken) and asks these."""

from __future__ import annotations

from typing import Any

from server.core.names import same_player_id

# A card's claim for a seat: the current card's while its round is open, a re-issued card's (or
# any while the round has ended), or none.
CLAIM_OK, CLAIM_OLD, CLAIM_BAD = "ok", "old", "bad"

# Requests a seat's proper join answers: they asked for a free seat with a wrong or missing ID
# or card, and the pairing's player now sits there (a request for a held seat stays a judge's).
ANSWERED_BY_JOIN = ("id_mismatch", "no_claim", "old_claim")


def pairing_of(info: dict[str, Any] | None, seat: Any) -> dict[str, str] | None:
    """An event table's pairing for `seat` (`Tournament.table_info`), or None."""
    return ((info or {}).get("pairing") or {}).get(seat) if seat in ("A", "B") else None


def carried_identity(paired: dict[str, str] | None, name: str, player_id: str) -> tuple[str, str]:
    """The name and player ID a seat carries: at an event seat paired by name, the pairing's
    (the typed ID only where the pairing has none), never what a phone typed; else as typed."""
    if not paired or not paired["name"]:
        return name, player_id
    return paired["name"], paired["player_id"] or player_id


def checks_player_id(paired: dict[str, str] | None, verdict: str) -> bool:
    """Whether the typed player ID decides whose round it is at this seat: the card is the same
    in every round, so at a seat paired with an ID, the current card's claim seats only the
    pairing's player (R1.1)."""
    return bool(paired and paired["name"] and paired["player_id"] and verdict == CLAIM_OK)


def id_mismatch(paired: dict[str, str], player_id: str) -> bool:
    """Whether the typed player ID is not the pairing's (R1.1)."""
    return not same_player_id(player_id, paired["player_id"])


def player_id_missing(required: bool, player_id: str) -> bool:
    """R1.1: an event that asks every player for a player ID refuses a join without one."""
    return required and not player_id


def why_waiting(mismatch: bool, taken: bool, verdict: str) -> str:
    """Why a join at an event seat waits for a judge ("" when it seats the phone at once):
    a player ID not the pairing's, a held seat, a re-issued card or a round that has ended,
    or no card at all."""
    if mismatch:
        return "id_mismatch"  # the card, not the pairing's player ID: the floor is told
    if taken:
        return "taken"  # with the same name and ID as the holder: the floor marks it
    if verdict == CLAIM_OLD:
        return "old_claim"  # a re-issued card, or its round has ended: the floor is told
    if verdict == CLAIM_BAD:
        return "no_claim"
    return ""
