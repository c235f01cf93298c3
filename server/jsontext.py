"""Compact JSON text (non-ASCII kept as is) from an encoder made once.

`json.dumps(value, separators=(",", ":"), ensure_ascii=False)` builds a new encoder on every
call: for a phone's state that was a third of the time of encoding it, and the store encodes a
few small values per event. These make the C encoder once and reuse it."""

from __future__ import annotations

import json
from collections.abc import Callable
from functools import partial
from typing import Any


def compact_encoder(sort_keys: bool = False) -> Callable[[Any], str]:
    """What `json.dumps(value, separators=(",", ":"), ensure_ascii=False, sort_keys=...)`
    gives, without the check for circular references (the values encoded have none)."""
    make = getattr(json.encoder, "c_make_encoder", None)
    if make is None:
        return partial(json.dumps, separators=(",", ":"), ensure_ascii=False, sort_keys=sort_keys)
    basestring = json.encoder.c_encode_basestring  # type: ignore[attr-defined]
    chunks = make(None, None, basestring, None, ":", ",", sort_keys, False, True)
    return lambda value: "".join(chunks(value, 0))


# A JSON string literal of a str, non-ASCII kept as is.
string_literal: Callable[[str], str] = json.encoder.encode_basestring  # type: ignore[attr-defined]
