"""The hash chain of a table's log: the canonical text of an event, its hash, the salt of
secret fields, and the check of a whole chain.

One encoder: the canonical text is sorted-key compact JSON (non-ASCII kept as is) of
`{"actor", "at_ms", "code", "data", "seq", "type"}`, spliced from `data` and `actor` encoded
once (`server.core.jsontext`), which is the text `json.dumps(..., sort_keys=True,
separators=(",", ":"), ensure_ascii=False)` gives. Every stored hash was made from that text:
changing it would break every log already written.
"""

from __future__ import annotations

import bisect
import hashlib
import json
import secrets
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from server.core.jsontext import compact_encoder, string_literal
from server.core.tokens import hash_token as hash_token  # the store keeps tokens hashed
from server.rules import EVENTS

GENESIS = "0" * 64

# Fields some viewers may not see (`server.rules.view`): an event carrying one also carries a
# random 128-bit salt, disclosed only with the value, so its public hash cannot be matched by
# hashing the few values it could hold.
# Each event's declaration beside its handler says which they are (`EventDeclaration.secret`).
SECRET_FIELDS: dict[str, tuple[str, ...]] = {t: d.secret for t, d in EVENTS.items() if d.secret}
SALT = "salt"

# Sorted-key compact JSON: the canonical form of an event's `data` and `actor`.
dumps = compact_encoder(sort_keys=True)


def salted(type_: str, data: Mapping[str, Any]) -> dict[str, Any]:
    """The data to store of an event of `type_`: with a fresh salt when it carries a secret
    field (a copy then; `data` itself is left as it was)."""
    fields = SECRET_FIELDS.get(type_, ())
    if fields and SALT not in data and any(k in data for k in fields):
        return {**data, SALT: secrets.token_hex(16)}
    return data  # type: ignore[return-value]


def _number(value: int) -> str:
    return str(value) if type(value) is int else dumps(value)


def canonical_text(code: str, seq: int, type_: str, data: str, actor: str, at_ms: int) -> str:
    """The exact text an event's hash covers, from `data` and `actor` already encoded by
    `dumps` (as they are stored)."""
    return (
        f'{{"actor":{actor},"at_ms":{_number(at_ms)},"code":{string_literal(code)},'
        f'"data":{data},"seq":{_number(seq)},"type":{string_literal(type_)}}}'
    )


def canonical(code: str, seq: int, type_: str, data: Any, actor: Any, at_ms: int) -> str:
    """The exact text an event's hash covers, from `data` and `actor` as values."""
    return canonical_text(code, seq, type_, dumps(data), dumps(actor), at_ms)


def sha256(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def link_hash(
    prev_hash: str, code: str, seq: int, type_: str, data: str, actor: str, at_ms: int
) -> str:
    """`chain_hash` from `data` and `actor` already encoded by `dumps`."""
    return sha256(prev_hash + canonical_text(code, seq, type_, data, actor, at_ms))


def chain_hash(
    prev_hash: str, code: str, seq: int, type_: str, data: Any, actor: Any, at_ms: int
) -> str:
    """sha256(prev_hash + canonical JSON of the event), hex."""
    return sha256(prev_hash + canonical(code, seq, type_, data, actor, at_ms))


@dataclass(frozen=True)
class Verification:
    """The result of checking a table's hash chain; `seq` names the first broken link."""

    ok: bool
    count: int
    seq: int | None = None
    problem: str | None = None


class Link(Protocol):
    """A stored event as the chain sees it (`models.EventRow`)."""

    seq: int
    type: str
    data: str
    actor: str
    at_ms: int
    prev_hash: str
    hash: str


def verify_chain(
    code: str, rows: Iterable[Link], seq: int, hashes: dict[int, str] | None = None
) -> Verification:
    """Check `rows` (the table's log in order) link by link from GENESIS up to `seq`, the
    table's sequence number. `hashes`, when given, is filled with each good link's hash."""
    prev, count = GENESIS, 0
    for expected, row in enumerate(rows, start=1):
        count += 1
        if row.seq != expected:
            return Verification(False, count, expected, "missing event")
        if row.prev_hash != prev:
            return Verification(False, count, row.seq, "prev_hash does not match")
        try:
            data, actor = json.loads(row.data), json.loads(row.actor)
        except ValueError:
            return Verification(False, count, row.seq, "unreadable event")
        if chain_hash(prev, code, row.seq, row.type, data, actor, row.at_ms) != row.hash:
            return Verification(False, count, row.seq, "hash does not match")
        prev = row.hash
        if hashes is not None:
            hashes[row.seq] = prev
    if count != seq:
        return Verification(False, count, count + 1, "log shorter than the table's seq")
    return Verification(True, count)


class Stamped(Protocol):
    """A stored event as the signed-head check sees it."""

    seq: int
    type: str
    at_ms: int


def check_signed(
    links: Sequence[Stamped], signed: Iterable[int], signs_at: frozenset[str], finished: bool
) -> Verification:
    """Whether the signed heads (their seqs, `signed`) cover the log `links`, a chain already
    checked: every write holding an event of `signs_at` (a confirmed result, the match's end)
    has its head signed, and a finished table's final head is signed. A log re-chained after
    an edit and rid of the heads that betrayed it fails here: "missing signed head" at the
    first event whose head should have been signed, or "events after the last signed head"
    at the first of them.

    A write's events share their `at_ms` and its head is signed at its last event, before
    the next write: the head of an event of `signs_at` is at or after it and before the next
    such event stamped at another time."""
    heads = sorted(signed)
    count = len(links)
    for i, link in enumerate(links):
        if link.type not in signs_at:
            continue
        until = next(
            (
                later.seq
                for later in links[i + 1 :]
                if later.type in signs_at and later.at_ms != link.at_ms
            ),
            count + 1,
        )
        at = bisect.bisect_left(heads, link.seq)
        if at == len(heads) or heads[at] >= until:
            return Verification(False, count, link.seq, "missing signed head")
    if finished and count and (not heads or heads[-1] < links[-1].seq):
        after = heads[-1] + 1 if heads else 1
        return Verification(False, count, after, "events after the last signed head")
    return Verification(True, count)
