"""A seated phone's pass to open its table's socket again, charged to its seat and not to its
client address (a hall's phones share one, and one device there can spend the address's whole
open budget: docs/security.md, "A phone that proved itself").

The pass is `<seat>.<mac>`, the MAC an HMAC under the server's key of the table, the seat and
the seat's token hash: the welcome of a seat's hello hands it to the phone, which adds it to
the socket's address (`?pass=`) when it opens again. It stands for no right at the table (the
hello still needs the token): it only says whose open budget the open spends, and it dies with
the token (a seat moved to another phone has another hash).
"""

from __future__ import annotations

import hashlib
import hmac

from server.api.context import services

PASS_LENGTH = 32  # hex characters of the MAC: 128 bits


def _key() -> bytes | None:
    raw = services().tables.secret()
    # Its own key, derived: a pass is never a claim or a signature of anything else.
    return None if raw is None else hashlib.sha256(b"duel-table socket pass v1\n" + raw).digest()


def _mac(key: bytes, code: str, seat: str, token_hash: str) -> str:
    text = f"{code}\n{seat}\n{token_hash}".encode()
    return hmac.new(key, text, hashlib.sha256).hexdigest()[:PASS_LENGTH]


def open_pass(code: str, seat: str, token_hash: str) -> str | None:
    """The pass of the seat holding the token of `token_hash` at table `code`."""
    key = _key()
    return None if key is None else f"{seat}.{_mac(key, code.upper(), seat, token_hash)}"


def pass_budget(code: str, given: str) -> str | None:
    """The open budget a socket to table `code` spends: its seat's (`seat:CODE:A`) when
    `given` is that seat's current pass, else None (its client address's)."""
    seat, _, mac = given.partition(".")
    if seat not in ("A", "B") or len(mac) != PASS_LENGTH or len(code) > 16:
        return None
    code = code.upper()
    key = _key()
    if key is None:
        return None
    token_hash = services().tables.seat_token_hash(code, seat)
    if not token_hash or not hmac.compare_digest(_mac(key, code, seat, token_hash), mac):
        return None
    return f"seat:{code}:{seat}"
