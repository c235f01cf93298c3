"""Marshmallow schemas built from the commands' field specs (server/rules/args.py), as a
reference: the compiled validators (server/api/arguments.py) must load and refuse exactly as a
marshmallow schema of the same fields would (tests/test_schemas.py)."""

from __future__ import annotations

from typing import Any

from marshmallow import Schema, ValidationError, fields, post_load, validate, validates_schema

from server.api.schemas import Bool, Choice, Int, ListText, Text
from server.rules import DECLARATIONS
from server.rules.args import MISSING, Args, Field


def _kwargs(f: Field) -> dict[str, Any]:
    out: dict[str, Any] = {}
    if f.required:
        out["required"] = True
    if f.default is not MISSING:
        out["load_default"] = f.default
    if f.allow_none:
        out["allow_none"] = True
    return out


def reference_field(f: Field) -> fields.Field:
    """The marshmallow field of `f`."""
    kw = _kwargs(f)
    if f.kind == "int":
        return Int(f.low, f.high, **kw)
    if f.kind == "bool":
        return Bool(**kw)
    if f.kind == "choice":
        return Choice(*f.options, **kw)
    if f.kind == "text":
        return Text(f.max_len or 0, f.min_len or 0, **kw)
    if f.kind == "lines":
        return ListText(f.max_len or 0, f.min_len or 0, **kw)
    if f.kind == "list":
        assert f.item is not None
        length = validate.Length(min=f.min_len, max=f.max_len)
        return fields.List(reference_field(f.item), validate=length, **kw)
    if f.kind == "object":
        assert f.spec is not None
        return fields.Nested(reference_schema(f.spec), **kw)
    if f.kind == "map":
        assert f.key is not None and f.item is not None
        return fields.Dict(
            keys=reference_field(f.key),
            values=reference_field(f.item),
            validate=validate.Length(max=f.max_len),
            **kw,
        )
    raise AssertionError(f.kind)


def reference_schema(spec: Args) -> Schema:
    """A marshmallow schema of `spec`: its fields, its check as a schema validator, its shape
    as a post-load step."""
    attrs: dict[str, Any] = {name: reference_field(f) for name, f in spec.fields.items()}

    def _check(self: Schema, data: dict[str, Any], **kwargs: Any) -> None:
        problem = spec.check(data) if spec.check else None
        if problem is not None:
            raise ValidationError(problem[1], problem[0])

    def _shape(self: Schema, data: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
        return spec.shape(data) if spec.shape else data

    attrs["_check"] = validates_schema(_check)
    attrs["_shape"] = post_load(_shape)
    return type("Reference", (Schema,), attrs)()


REFERENCE: dict[str, Schema] = {
    name: reference_schema(d.args) for name, d in DECLARATIONS.items() if d.args is not None
}
