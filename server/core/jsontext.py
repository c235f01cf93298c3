"""Compact JSON text (non-ASCII kept as is) from an encoder made once.

`json.dumps(value, separators=(",", ":"), ensure_ascii=False)` builds a new encoder on every
call: for a phone's state that was a third of the time of encoding it, and the store encodes a
few small values per event. `compact_encoder` makes CPython's C encoder once and reuses it (the
hash chain's canonical text); `phone_text` is orjson, for what goes to phones
(docs/decisions.md). The internals they use live in `server/core/compat.py`."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from server.core.compat import c_json_encoder, phone_text, phone_text_with, string_literal

__all__ = ["compact_encoder", "phone_text", "phone_text_with", "string_literal"]


def compact_encoder(sort_keys: bool = False) -> Callable[[Any], str]:
    """What `json.dumps(value, separators=(",", ":"), ensure_ascii=False, sort_keys=...)`
    gives, without the check for circular references (the values encoded have none)."""
    return c_json_encoder(sort_keys)
