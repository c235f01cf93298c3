"""A command's one validator, compiled from its declaration's field spec (server/rules/args.py).

Each declared command's arguments are loaded here and nowhere else, once, before the rules
decide: whole numbers bounded, text cleaned and capped, unknown fields refused, a check across
fields. The compiled loader is a few closures per field, with no library underneath (a
marshmallow load was a third of a command's CPU); what it refuses raises marshmallow's
`ValidationError` with the messages a marshmallow schema of the same fields would give, so a
refusal reads as every other one on the wire (`invalid`, `details` naming each field).
tests/test_schemas.py checks the loaders against schemas built from the same specs.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from marshmallow import ValidationError

from server.core.names import invisible
from server.rules import DECLARATIONS
from server.rules.args import MISSING, Args, Field

from .schemas import clean_text

Loader = Callable[[Any], Any]

_LINE_BREAKS = frozenset("\n\r\t")


class Refused(Exception):
    """What one field (or object) refuses, in marshmallow's shape: a list of messages, or a
    dict of them by field, index or key."""

    def __init__(self, messages: Any) -> None:
        super().__init__(messages)
        self.messages = messages


def _range(low: int | None, high: int | None) -> str:
    if low is not None and high is not None:
        return f"Must be greater than or equal to {low} and less than or equal to {high}."
    if low is not None:
        return f"Must be greater than or equal to {low}."
    return f"Must be less than or equal to {high}."


def _length(low: int | None, high: int | None) -> Callable[[int], str | None]:
    """Marshmallow's `Length(min, max)`: the message for a length, or None if it fits."""
    both = low is not None and high is not None
    too_short = (
        f"Length must be between {low} and {high}."
        if both
        else f"Shorter than minimum length {low}."
    )
    too_long = (
        f"Length must be between {low} and {high}."
        if both
        else f"Longer than maximum length {high}."
    )

    def fits(n: int) -> str | None:
        if low is not None and n < low:
            return too_short
        if high is not None and n > high:
            return too_long
        return None

    return fits


def _int(f: Field) -> Loader:
    low, high = f.low, f.high
    out_of_range = [_range(low, high)]

    def load(value: Any) -> Any:
        if type(value) is not int:  # a bool is not a whole number here, nor a float or text
            raise Refused(["Not a valid integer."])
        if (low is not None and value < low) or (high is not None and value > high):
            raise Refused(out_of_range)
        return value

    return load


def _bool(f: Field) -> Loader:
    def load(value: Any) -> Any:
        if type(value) is not bool:
            raise Refused(["Not a valid boolean."])
        return value

    return load


def _choice(f: Field) -> Loader:
    options = frozenset(f.options)
    unknown = [f"Must be one of: {', '.join(f.options)}."]

    def load(value: Any) -> Any:
        if type(value) is not str:
            raise Refused(["Not a valid string."])
        if value not in options:
            raise Refused(unknown)
        return value

    return load


def _pasted(value: str) -> str:
    """A pasted text: invisible characters dropped, its line breaks and tabs kept."""
    return "".join(ch for ch in value if ch in _LINE_BREAKS or not invisible(ch))


def _string(clean: Callable[[str], str]) -> Callable[[Field], Loader]:
    """A loader maker for a string field, cleaned by `clean`, then held to its length."""

    def make(f: Field) -> Loader:
        fits = _length(f.min_len, f.max_len)

        def load(value: Any) -> Any:
            if type(value) is not str:
                raise Refused(["Not a valid string."])
            text = clean(value)
            problem = fits(len(text))
            if problem is not None:
                raise Refused([problem])
            return text

        return load

    return make


_text = _string(clean_text)
_lines = _string(_pasted)


def _inner(f: Field) -> Loader:
    """The loader of a list's item or a map's key or value: null refused as a field's is."""
    load = compile_field(f)
    if f.allow_none:
        return lambda value: None if value is None else load(value)

    def not_null(value: Any) -> Any:
        if value is None:
            raise Refused(["Field may not be null."])
        return load(value)

    return not_null


def _list(f: Field) -> Loader:
    assert f.item is not None
    item = _inner(f.item)
    fits = _length(f.min_len, f.max_len)

    def load(value: Any) -> Any:
        if type(value) is not list:
            raise Refused(["Not a valid list."])
        result, errors = [], {}
        for i, each in enumerate(value):
            try:
                result.append(item(each))
            except Refused as exc:
                errors[i] = exc.messages
        if errors:
            raise Refused(errors)
        problem = fits(len(result))
        if problem is not None:
            raise Refused([problem])
        return result

    return load


def _map(f: Field) -> Loader:
    assert f.key is not None and f.item is not None
    key, item = _inner(f.key), _inner(f.item)
    fits = _length(f.min_len, f.max_len)

    def load(value: Any) -> Any:
        if not isinstance(value, Mapping):
            raise Refused(["Not a valid mapping type."])
        keys: dict[Any, Any] = {}
        errors: dict[Any, dict[str, Any]] = {}
        for k in value:
            try:
                keys[k] = key(k)
            except Refused as exc:
                errors.setdefault(k, {})["key"] = exc.messages
        result = {}
        for k, v in value.items():
            try:
                loaded = item(v)
            except Refused as exc:
                errors.setdefault(k, {})["value"] = exc.messages
            else:
                if k in keys:
                    result[keys[k]] = loaded
        if errors:
            raise Refused(errors)
        problem = fits(len(result))
        if problem is not None:
            raise Refused([problem])
        return result

    return load


def compile_object(spec: Args) -> Loader:
    """The loader of an object of `spec`'s fields (a command's arguments, a nested object)."""
    fields = [
        (name, f.required, f.default, f.allow_none, compile_field(f))
        for name, f in spec.fields.items()
    ]
    names = frozenset(spec.fields)
    check, shape = spec.check, spec.shape

    def load(data: Any) -> dict[str, Any]:
        if not isinstance(data, Mapping):
            raise Refused({"_schema": ["Invalid input type."]})
        out: dict[str, Any] = {}
        errors: dict[str, Any] | None = None
        seen = 0
        for name, required, default, allow_none, field_load in fields:
            if name not in data:
                if default is not MISSING:
                    out[name] = default
                elif required:
                    errors = errors or {}
                    errors[name] = ["Missing data for required field."]
                continue
            seen += 1
            value = data[name]
            if value is None:
                if allow_none:
                    out[name] = None
                else:
                    errors = errors or {}
                    errors[name] = ["Field may not be null."]
                continue
            try:
                out[name] = field_load(value)
            except Refused as exc:
                errors = errors or {}
                errors[name] = exc.messages
        if len(data) > seen:
            for k in data:
                if k not in names:
                    errors = errors or {}
                    errors[k] = ["Unknown field."]
        if errors:
            raise Refused(errors)
        if check is not None:
            problem = check(out)
            if problem is not None:
                raise Refused({problem[0]: [problem[1]]})
        return shape(out) if shape is not None else out

    return load


_KINDS: dict[str, Callable[[Field], Loader]] = {
    "int": _int,
    "bool": _bool,
    "choice": _choice,
    "text": _text,
    "lines": _lines,
    "list": _list,
    "map": _map,
}


def compile_field(f: Field) -> Loader:
    """The loader of one field's present, non-null value."""
    if f.kind == "object":
        assert f.spec is not None
        return compile_object(f.spec)
    return _KINDS[f.kind](f)


def compile_args(spec: Args) -> Callable[[Any], dict[str, Any]]:
    """A command's validator: its loaded arguments, or marshmallow's `ValidationError`."""
    load = compile_object(spec)

    def validate(args: Any) -> dict[str, Any]:
        try:
            return load(args)
        except Refused as exc:
            raise ValidationError(exc.messages) from None

    return validate


# Every command a client may send, by name: its one validator.
LOADERS: dict[str, Callable[[Any], dict[str, Any]]] = {
    name: compile_args(declared.args)
    for name, declared in DECLARATIONS.items()
    if declared.args is not None
}


def load_args(cmd: str, args: Any) -> dict[str, Any]:
    """The arguments of `cmd` as its declaration loads them; `ValidationError` otherwise."""
    return LOADERS[cmd](args)
