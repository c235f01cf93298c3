"""The stored form of a secret token: the server keeps a seat's, a request's and a login's
token only as its SHA-256, and compares what a client sends by hashing it the same way."""

from __future__ import annotations

import hashlib


def hash_token(token: str) -> str:
    """The stored form of a token (a seat's, a seat request's, a staff login's): SHA-256, hex."""
    return hashlib.sha256(token.encode("utf-8")).hexdigest()
