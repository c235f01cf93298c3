"""Signed chain heads: the record proves itself.

At each confirmed result and at a match's end the server signs the table's chain head
(`code`, `seq`, `hash`) with an Ed25519 key kept in a file outside the database
(`SIGNING_KEY_FILE`, default `<KEY_DIR>/signing-key.pem`, created on first start; KEY_DIR is
apart from DATA_DIR: `key_dir`). The
signatures are stored beside the log and handed to both phones, which keep them as receipts.

A log edited in the database and re-chained (every later hash recomputed) no longer matches
the signed heads after the edit: `verify` says so. With the key stolen too, the edit can be
re-signed, but not the receipts the phones already hold (the sheet page checks them).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import Any, Protocol

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey

from server.runtime.stalls import span

# A confirmed result (both seats), a decided match, and a match confirmed by a seat.
SIGN_AT = frozenset({"duel.final", "match.decided", "match.confirmed"})


def message(code: str, seq: int, head: str) -> bytes:
    """The exact bytes a head's signature covers."""
    return f"duel-table head v1\n{code}\n{seq}\n{head}".encode()


class Signer:
    """An Ed25519 key: signs heads, checks them."""

    def __init__(self, key: Ed25519PrivateKey | None, public: Ed25519PublicKey) -> None:
        self.key = key
        self.public = public

    @classmethod
    def load_or_create(cls, path: str | Path) -> Signer:
        """The key in `path`; a new one written there (mode 0600) when there is none."""
        path = Path(path)
        if not path.exists():
            path.parent.mkdir(parents=True, exist_ok=True)
            key = Ed25519PrivateKey.generate()
            pem = key.private_bytes(
                serialization.Encoding.PEM,
                serialization.PrivateFormat.PKCS8,
                serialization.NoEncryption(),
            )
            try:
                fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
            except FileExistsError:
                pass  # another process made it first: read theirs
            else:
                with os.fdopen(fd, "wb") as out:
                    out.write(pem)
        return cls.load(path)

    @classmethod
    def load(cls, path: str | Path) -> Signer:
        loaded = serialization.load_pem_private_key(Path(path).read_bytes(), password=None)
        if not isinstance(loaded, Ed25519PrivateKey):
            raise ValueError(f"{path} is not an Ed25519 private key")
        return cls(loaded, loaded.public_key())

    def raw_secret(self) -> bytes | None:
        """The private key's raw 32 bytes (the secret the cards' claims and the socket passes
        are made from), or None for a key that only checks."""
        if self.key is None:
            return None
        return self.key.private_bytes(
            serialization.Encoding.Raw,
            serialization.PrivateFormat.Raw,
            serialization.NoEncryption(),
        )

    @property
    def public_hex(self) -> str:
        raw = self.public.public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)
        return raw.hex()

    def sign(self, code: str, seq: int, head: str) -> str:
        assert self.key is not None
        return self.key.sign(message(code, seq, head)).hex()

    def check(self, code: str, seq: int, head: str, signature: str) -> bool:
        try:
            self.public.verify(bytes.fromhex(signature), message(code, seq, head))
        except (InvalidSignature, ValueError):
            return False
        return True


def key_dir(config: dict[str, Any]) -> Path:
    """The directory of the signing key and the heads ledger: KEY_DIR, else the server user's
    state directory, never DATA_DIR (the key beside the database re-signs any edit to it)."""
    named = str(config.get("KEY_DIR") or "").strip()
    if named:
        return Path(named).expanduser()
    state = os.environ.get("XDG_STATE_HOME", "").strip()
    return (Path(state) if state else Path.home() / ".local" / "state") / "duel-table"


def key_path(config: dict[str, Any]) -> Path:
    """Where the signing key lives (SIGNING_KEY_FILE, else in `key_dir`)."""
    named = str(config.get("SIGNING_KEY_FILE") or "").strip()
    return Path(named) if named else key_dir(config) / "signing-key.pem"


def old_key_path(config: dict[str, Any]) -> Path:
    """Where releases before KEY_DIR kept the key: beside the database."""
    return Path(str(config["DATA_DIR"])) / "signing-key.pem"


class Audited(Protocol):
    """What the auditor asks of the table service (`TableService.audit_some`)."""

    def audit_some(self, count: int, now_ms: int) -> int: ...


class Auditor:
    """A thread that checks a slice of the cached tables' heads against the database every
    `interval` seconds (`TableService.audit_some`): a log changed under the cache raises an
    alarm at its table even when nobody opens its sheet."""

    def __init__(
        self,
        tables: Audited,
        clock: Callable[[], int],
        interval: float = 5.0,
        per_round: int = 50,
    ) -> None:
        import threading

        self.tables, self.clock = tables, clock
        self.interval, self.per_round = interval, per_round
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="audit", daemon=True)

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()

    def _run(self) -> None:
        import logging

        while not self._stop.wait(self.interval):
            try:
                with span("audit"):
                    self.tables.audit_some(self.per_round, self.clock())
            except Exception:
                logging.getLogger(__name__).exception("audit failed")
