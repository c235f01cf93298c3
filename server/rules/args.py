"""The shape of a command's arguments, declared beside its decider as plain data.

A field spec says what a client may send (a bounded whole number, one of some words, a capped
text, a list, an object of its own fields); it does nothing by itself. The edge compiles each
command's spec into its one validator (`server/api/arguments.py`), which loads the arguments
before the rules see them: the rules receive arguments of exactly this shape and do not check
them again. Being data, a spec needs no serialisation library here (the rules stay pure,
tests/test_rules_purity.py); docs/decisions.md says why.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

MAX_INT = 1_000_000
NAME_MAX = 40
NOTE_MAX = 200
SEAT_NAMES: tuple[str, ...] = ("A", "B")


class _Missing:
    def __repr__(self) -> str:
        return "MISSING"


MISSING: Any = _Missing()


@dataclass(frozen=True)
class Field:
    """One argument. `kind`: int, bool, choice, text, lines (a pasted text, line breaks kept),
    list (of `item`), object (its own `spec`), map (`key` -> `item`)."""

    kind: str
    required: bool = False
    default: Any = MISSING  # given when the argument is absent (never checked)
    allow_none: bool = False
    low: int | None = None
    high: int | None = None
    options: tuple[str, ...] = ()
    min_len: int | None = None
    max_len: int | None = None
    item: Field | None = None
    key: Field | None = None
    spec: Args | None = None


# A check across fields, run once every field is loaded: None, or (field, message).
Check = Callable[[Mapping[str, Any]], "tuple[str, str] | None"]


@dataclass(frozen=True)
class Args:
    """A command's arguments: its fields (no others are accepted), a check across them, and
    `shape`, what turns the loaded fields into what the decider reads (a short form expanded)."""

    fields: Mapping[str, Field] = field(default_factory=dict)
    check: Check | None = None
    shape: Callable[[dict[str, Any]], dict[str, Any]] | None = None


NONE = Args()


def Int(  # noqa: N802 - reads like a type
    low: int = -MAX_INT, high: int = MAX_INT, *, required: bool = False, default: Any = MISSING
) -> Field:
    """A whole number (never a bool, a float or a string) within [low, high]."""
    return Field("int", required=required, default=default, allow_none=default is None,
                 low=low, high=high)  # fmt: skip


def Bool(*, required: bool = False) -> Field:  # noqa: N802
    """Only true or false."""
    return Field("bool", required=required)


def Choice(*options: str, required: bool = False) -> Field:  # noqa: N802
    """One of the given words."""
    return Field("choice", required=required, options=options)


def Seat(*, required: bool = False, allow_none: bool = False) -> Field:  # noqa: N802
    """ "A" or "B"."""
    return Field("choice", required=required, allow_none=allow_none, options=SEAT_NAMES)


def Text(  # noqa: N802
    max_len: int = NOTE_MAX, min_len: int = 0, *, required: bool = False, default: Any = MISSING
) -> Field:
    """Text, cleaned (control and invisible characters dropped, blanks collapsed, trimmed),
    then at most `max_len` long."""
    return Field("text", required=required, default=default, min_len=min_len, max_len=max_len)


def Note() -> Field:  # noqa: N802
    """A person's words for the sheet."""
    return Text(NOTE_MAX)


def Lines(max_len: int, *, required: bool = False) -> Field:  # noqa: N802
    """A pasted text of lines (a deck list): line breaks and tabs kept, invisible characters
    dropped, at most `max_len` long."""
    return Field("lines", required=required, min_len=0, max_len=max_len)


def List(  # noqa: N802
    item: Field, min_len: int | None = None, max_len: int | None = None, *, required: bool = False
) -> Field:
    """A list of `item`, of `min_len` to `max_len` items."""
    return Field("list", required=required, item=item, min_len=min_len, max_len=max_len)


def Object(spec: Args, *, required: bool = False) -> Field:  # noqa: N802
    """An object of its own fields."""
    return Field("object", required=required, spec=spec)


def Map(key: Field, value: Field, max_len: int | None = None) -> Field:  # noqa: N802
    """An object whose keys are `key` and values `value`, at most `max_len` of them."""
    return Field("map", key=key, item=value, max_len=max_len)


def spec(check: Check | None = None, shape: Any = None, **fields: Field) -> Args:
    """`Args` from keyword fields (a field named like a Python word, `in`, is given by `Args`)."""
    return Args(fields, check, shape)


# The one shape of an LP change, shared by every command that carries changes.
CHANGE = spec(
    seat=Seat(required=True),
    kind=Choice("damage", "gain", "cost", "halve", "set", required=True),
    amount=Int(0, MAX_INT),
)


def Changes(*, required: bool = False) -> Field:  # noqa: N802
    """One or two LP changes."""
    return List(Object(CHANGE), 1, 2, required=required)
