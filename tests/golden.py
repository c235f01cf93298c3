"""Recorded views compared by what was recorded: a shape (the keys a recording saw) and the
values under those keys.

A golden file keeps, beside its digests, the shape of the values it digested (`shape_of`: every
object's keys, merged over every value seen; a list's items merged into one shape under
`ITEMS`). A test digests a value projected on that shape (`project`): a key added since (a new
view field, a new event field) is left out, so adding one does not mean recording again; a
recorded key whose value changed, or that is gone, changes the digest and fails the test.

An object whose recorded shape has no keys (it was always empty, or a leaf) is compared whole.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

ITEMS = "[]"  # the shape's key for a list's items

Shape = dict[str, Any] | None


def merge(a: Shape, b: Shape) -> Shape:
    """The union of two shapes."""
    if a is None:
        return b
    if b is None:
        return a
    out = dict(a)
    for key, sub in b.items():
        out[key] = merge(out.get(key), sub)
    return out


def shape_of(value: Any) -> Shape:
    """The keys of `value`, at every depth (None for a scalar)."""
    if isinstance(value, dict):
        return {str(k): shape_of(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        items: Shape = None
        for v in value:
            items = merge(items, shape_of(v))
        return {ITEMS: items}
    return None


def shape_of_all(values: Iterable[Any]) -> Shape:
    """The union of the shapes of `values`."""
    out: Shape = None
    for v in values:
        out = merge(out, shape_of(v))
    return out


def project(value: Any, shape: Shape) -> Any:
    """`value` with only the keys `shape` recorded (in `value`'s own order); a value whose shape
    is a leaf or an empty object is kept whole."""
    if not shape:
        return value
    if isinstance(value, dict):
        return {k: project(v, shape.get(k)) for k, v in value.items() if k in shape}
    if isinstance(value, list | tuple) and ITEMS in shape:
        return [project(v, shape[ITEMS]) for v in value]
    return value
