"""The table socket's state updates as a client applies them (protocol 3, docs/protocol.md).

Shared by the Python clients (the bench, the reliability runs, the tests); the browser's copy is
`applyDelta` in web/js/conn.js."""

from __future__ import annotations

from typing import Any

PROTOCOL = 3


def unfold(message: dict[str, Any]) -> list[dict[str, Any]]:
    """The messages a frame holds, in the order a client takes them: a version-3 reply that
    carries its sender's own update is the reply (without it), then that update, as version 2
    sends them in two frames; any other message is itself."""
    if message.get("type") == "reply" and isinstance(message.get("update"), dict):
        reply = dict(message)
        update = reply.pop("update")
        return [reply, update]
    return [message]


def apply_update(state: dict[str, Any] | None, message: dict[str, Any]) -> dict[str, Any]:
    """The state a client holds after `message` (a welcome or an update, either version): a
    whole "state" replaces it; a "delta" replaces the top-level keys it names, and "ledger"
    keeps the rows before its "from" and puts its "rows" after them. A new dict."""
    if "state" in message:
        return message["state"]
    if state is None:
        raise ValueError("a delta with no state to apply it to")
    merged = {**state, **message.get("delta", {})}
    part = message.get("ledger")
    if part is not None:
        merged["ledger"] = list(state.get("ledger", []))[: part["from"]] + list(part["rows"])
    return merged
