"""The encoding of table views for the table socket: a viewer's state as JSON text, built from
parts encoded once per snapshot and audience, and the ledger's rows encoded once per change.

`ViewTexts` keeps what the edge encoded of the store's snapshots beside them (the store keeps
none): per snapshot object, its texts by audience, dropped with the snapshot; per table, the
ledger's row texts, handed from one snapshot of the table to the next. One `ViewTexts` belongs
to each app's services (`Services.views`, server/api/context.py) and is emptied with them.
"""

from __future__ import annotations

import threading
import weakref
from collections.abc import Iterable
from typing import Any

from server.core.jsontext import phone_text, phone_text_with
from server.rules.view import SEAT_PARTS, SHARED_PARTS, Part, ledger_row

LEDGERS_KEPT = 16384  # tables whose ledger texts are kept (the store caches 12,000 by default)

encode = phone_text
encode.__doc__ = "A message as compact JSON text (non-ASCII kept as is)."


def encode_with(message: dict[str, Any], **texts: str) -> str:
    """`message` encoded with more fields, whose values (`texts`) are JSON text already."""
    return phone_text_with(message, texts)


def json_object(members: Iterable[str]) -> str:
    """The JSON object of `members`, each one's text `"key":value`."""
    return "{" + ",".join(members) + "}"


def json_array(items: Iterable[str]) -> str:
    """The JSON array of `items`, each one's text a JSON value."""
    return "[" + ",".join(items) + "]"


class Parts(dict[str, str]):
    """A view's top-level keys -> their encoded `"key":value` texts, and what the next
    snapshot's parts reuse of them: `view`, the values they encode; `state`, the state they
    were built from; `made`, the keys each of the view's parts (`server.rules.view.Part`) gave;
    `viewer`, whom they were built for (seat, privileged). A viewer's whole state
    (`ViewTexts.parts`) is texts alone beside its `shared` and `own` parts, which keep the rest
    apart (the shared "disputes" may be overridden by the viewer's)."""

    view: dict[str, Any]
    state: Any = None
    made: dict[str, tuple[str, ...]]
    viewer: tuple[str | None, bool] | None = None
    shared: Parts | None = None
    own: Parts | None = None


def _same(a: Any, b: Any) -> bool:
    """Whether a view's value is the one it was: equal, and of the same type (1 == True)."""
    return a is b or (type(a) is type(b) and a == b)


def encode_parts(view: dict[str, Any], before: dict[str, str]) -> Parts:
    """`view` as `Parts`: the text of a value equal to the one in `before` (the parts of an
    earlier snapshot) is that one's; only the values that changed are encoded. A command
    changes a few of the view's keys; encoding every one was a fifth of the update's CPU."""
    old: dict[str, Any] = getattr(before, "view", None) or {}
    parts = Parts()
    for k, v in view.items():
        parts[k] = _text(k, v, before, old)
    parts.view = view
    return parts


def _text(key: str, value: Any, before: dict[str, str], old: dict[str, Any]) -> str:
    """`"key":value` as text: `before`'s text when `old` (the values it encodes) holds the
    same value."""
    text = before.get(key) if key in old and _same(old[key], value) else None
    return text if text is not None else f"{encode(key)}:{encode(value)}"


def _changed(state: Any, old: Any) -> set[str]:
    """The fields of `state` that are not the very objects they are in `old`."""
    was = old.__dict__
    return {k for k, v in state.__dict__.items() if was.get(k) is not v}


def build_parts(
    parts: tuple[Part, ...],
    state: Any,
    seat: str | None,
    privileged: bool,
    before: dict[str, str],
) -> Parts:
    """The view's `parts` of `state` for this viewer as `Parts`. A part whose fields are the
    very objects they were in the state of `before` (parts built earlier for the same viewer)
    is taken from it as it was, neither built nor encoded again (an event replaces only the
    fields it changes: time called at a table leaves its decks, calls and pregame as they
    were); a part built again reuses the texts of its unchanged values (`encode_parts`)."""
    old = getattr(before, "state", None)
    old_view: dict[str, Any] = getattr(before, "view", None) or {}
    old_made: dict[str, tuple[str, ...]] = getattr(before, "made", None) or {}
    if getattr(before, "viewer", None) != (seat, privileged):
        old = None
    changed = _changed(state, old) if old is not None else None
    out, view, made = Parts(), {}, {}
    for part in parts:
        keys = old_made.get(part.name)
        if keys is not None and changed is not None and changed.isdisjoint(part.reads):
            for k in keys:
                out[k], view[k] = before[k], old_view[k]
        else:
            built = part.build(state, seat, privileged)
            for k, v in built.items():
                out[k], view[k] = _text(k, v, before, old_view), v
            keys = tuple(built)
        made[part.name] = keys
    out.view, out.state, out.made, out.viewer = view, state, made, (seat, privileged)
    return out


class ViewTexts:
    """What one app's edge encoded of the store's snapshots (see the module's docstring)."""

    def __init__(self, ledgers_kept: int = LEDGERS_KEPT) -> None:
        self.ledgers_kept = ledgers_kept
        self._encoded: dict[int, dict[Any, Any]] = {}
        self._ledgers: dict[int, tuple[Any, list[str]]] = {}
        self._lock = threading.Lock()

    def __contains__(self, snap: Any) -> bool:
        """Whether texts of `snap` are kept."""
        return id(snap) in self._encoded

    def encoded(self, snap: Any) -> dict[Any, Any]:
        """The texts encoded of `snap` so far, by audience: one dict per snapshot object, which
        lives as long as the snapshot does."""
        key = id(snap)
        texts = self._encoded.get(key)
        if texts is None:
            mine: dict[Any, Any] = {}
            texts = self._encoded.setdefault(key, mine)
            if texts is mine:
                weakref.finalize(snap, self._encoded.pop, key, None)
        return texts

    def kept(self, key: int) -> bool:
        """Whether the texts of the snapshot whose id is `key` are still kept."""
        return key in self._encoded

    def ledger_rows(self, snap: Any) -> list[str]:
        """The ledger of `snap`, one encoded text per row: a row is encoded once, when it first
        appears (or changes), and its text handed on to the table's later snapshots."""
        ledger = snap.state.ledger
        memo = self._ledgers.get(snap.table_id)
        if memo is not None and memo[0] is ledger:
            return memo[1]
        old_rows, old_texts = (memo[0], memo[1]) if memo is not None else ((), [])
        texts = [
            old_texts[i] if i < len(old_rows) and old_rows[i] is row else encode(ledger_row(row))
            for i, row in enumerate(ledger)
        ]
        with self._lock:
            self._ledgers.pop(snap.table_id, None)  # kept last in order: the oldest go first
            self._ledgers[snap.table_id] = (ledger, texts)
            while len(self._ledgers) > self.ledgers_kept:
                del self._ledgers[next(iter(self._ledgers))]
        return texts

    def parts(self, snap: Any, seat: str | None, privileged: bool, before: dict[str, str]) -> Parts:
        """The viewer's state of `snap` but the ledger, as top-level key -> encoded
        `"key":value` text: the shared keys built once per snapshot, the viewer's once per
        audience, each part only if what it reads changed since `before` (what this socket was
        last sent: `build_parts`)."""
        key = ("parts", seat, privileged)
        texts = self.encoded(snap)
        parts = texts.get(key)
        if parts is None:
            shared = texts.get("parts")
            if shared is None:
                old = getattr(before, "shared", None) or {}
                shared = build_parts(SHARED_PARTS, snap.state, None, False, old)
                texts["parts"] = shared
            own = build_parts(SEAT_PARTS, snap.state, seat, privileged, getattr(before, "own", {}))
            # Texts alone: the values of what was sent are kept once, in `shared` and `own`.
            parts = Parts({**shared, "seq": f'"seq":{int(snap.seq)}', **own})
            parts.shared, parts.own = shared, own
            texts[key] = parts
        return parts

    def state_text(
        self, snap: Any, seat: str | None, privileged: bool, before: dict[str, str]
    ) -> str:
        """`view(...)` of `snap` plus its "seq", encoded, from its parts (the viewer-independent
        keys encoded once per snapshot) and the ledger's rows (encoded once per change of them:
        most commands leave it as it was)."""
        parts = self.parts(snap, seat, privileged, before)
        return json_object([*parts.values(), f'"ledger":{json_array(self.ledger_rows(snap))}'])

    def close(self) -> None:
        """Forget every text (the app's services are closing)."""
        with self._lock:
            self._encoded.clear()
            self._ledgers.clear()
