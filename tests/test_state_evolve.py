"""`TableState.evolve` skips `__init__` (dataclasses.replace cost 8x as much: docs/decisions.md).
It is only right while `__init__` does nothing but set the fields: these tests pin that, and
that evolve gives what replace gives, field by field."""

from __future__ import annotations

import dataclasses

import pytest

from server.rules import EMPTY, TableState

FIELDS = [f.name for f in dataclasses.fields(TableState)]


def test_init_only_sets_the_fields():
    assert not hasattr(TableState, "__post_init__")
    assert all(f.init for f in dataclasses.fields(TableState))
    assert set(EMPTY.__dict__) == set(FIELDS)  # no InitVar, no attribute set elsewhere


@pytest.mark.parametrize("name", FIELDS)
def test_evolve_is_replace_for_every_field(name: str):
    value = object()
    evolved, replaced = EMPTY.evolve(**{name: value}), dataclasses.replace(EMPTY, **{name: value})
    assert type(evolved) is TableState
    assert evolved.__dict__ == replaced.__dict__
    assert getattr(evolved, name) is value and EMPTY.__dict__[name] is not value


def test_evolve_of_every_field_at_once_is_replace():
    changes = {name: object() for name in FIELDS}
    assert EMPTY.evolve(**changes).__dict__ == dataclasses.replace(EMPTY, **changes).__dict__


def test_an_evolved_state_is_still_frozen():
    with pytest.raises(dataclasses.FrozenInstanceError):
        EMPTY.evolve(phase="duel").phase = "registration"  # type: ignore[misc]
