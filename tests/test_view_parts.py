"""The view in parts (`server.rules.view.Part`): each part is built from the state's fields it
names alone, so that the edge may take a part whose fields are the very objects they were as
it was (`server.api.encoding.build_parts`), neither built nor encoded again.

Checked along the recorded match of tests/test_replay.py (an event table: three duels, time
called, penalties, rulings) and the two-key scripts (a casual and an event table), for every
viewer; the random tables of tests/test_rules_properties.py check the same at every step."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import server.rules as rules
from server.api.encoding import ViewTexts, build_parts, encode_parts
from server.rules import Event, TableState
from server.rules.view import SEAT_PARTS, SHARED_PARTS, Part, view
from tests import twokey_script
from tests.test_rules_registration import after_duel_one, registered

DATA = Path(__file__).resolve().parent / "data" / "replay_match.json"
VIEWERS = [("A", False), ("B", False), (None, False), (None, True)]


class Reading:
    """A state that notes which of its fields are read."""

    def __init__(self, state: TableState) -> None:
        object.__setattr__(self, "_state", state)
        object.__setattr__(self, "read", set())

    def __getattr__(self, name: str) -> Any:
        self.read.add(name)
        return getattr(self._state, name)


def unnamed_reads(part: Part, state: TableState, seat: str | None, privileged: bool) -> set[str]:
    """The fields `part` reads of `state` for this viewer that it does not name."""
    reading = Reading(state)
    assert part.build(reading, seat, privileged) == part.build(state, seat, privileged)  # type: ignore[arg-type]
    return reading.read - set(part.reads)


def check_reads(state: TableState) -> None:
    """Every part, for every viewer, reads of `state` only what it names."""
    for part in (*SHARED_PARTS, *SEAT_PARTS):
        for seat, privileged in VIEWERS:
            extra = unnamed_reads(part, state, seat, privileged)
            assert not extra, f"part {part.name!r} reads {sorted(extra)} ({state.phase})"


def recorded_states() -> Iterator[list[TableState]]:
    """Each recorded log's states, one after each event."""
    logs = [[Event.from_dict(e) for e in json.loads(DATA.read_text(encoding="utf-8"))["events"]]]
    logs += [
        twokey_script.play(rules, name, views=False)[1] for name in sorted(twokey_script.SCRIPTS)
    ]
    logs.append(after_duel_one().log)
    for log in logs:
        state = rules.replay(log[:1])
        states = [state]
        for event in log[1:]:
            state = rules.apply(state, event)
            states.append(state)
        yield states


class Snap:
    """A snapshot as the edge holds it: a state, its seq and its table."""

    def __init__(self, state: TableState, seq: int) -> None:
        self.state, self.seq, self.table_id = state, seq, 1


def test_every_part_reads_only_the_fields_it_names():
    checked = 0
    for states in recorded_states():
        for state in states:
            check_reads(state)
            checked += 1
    assert checked > 250


def test_every_field_a_part_names_is_a_field_of_the_state():
    """A misspelt field would never change, and its part would be taken as it was forever."""
    fields = set(TableState().__dict__)
    for part in (*SHARED_PARTS, *SEAT_PARTS):
        assert set(part.reads) <= fields, part.name
    assert len({p.name for p in (*SHARED_PARTS, *SEAT_PARTS)}) == len(SHARED_PARTS + SEAT_PARTS)


def test_the_parts_give_every_key_of_the_view_once():
    state = next(recorded_states())[-1]
    for seat, privileged in VIEWERS:
        keys = [k for p in SHARED_PARTS for k in p.build(state, seat, privileged)]
        assert len(keys) == len(set(keys))
        whole = view(state, seat, privileged)
        assert set(whole) - {"ledger"} == set(keys) | {
            k for p in SEAT_PARTS for k in p.build(state, seat, privileged)
        }


@pytest.mark.parametrize("seat, privileged", VIEWERS)
def test_parts_built_from_the_last_ones_are_those_built_afresh(seat, privileged):
    """Along every recorded log, each state's parts built with the last state's as `before`
    (what a socket was last sent) are exactly those built from nothing, and most parts of
    most states are taken as they were."""
    taken = built = 0
    for states in recorded_states():
        views, before = ViewTexts(), {}
        for seq, state in enumerate(states, 1):
            parts = views.parts(Snap(state, seq), seat, privileged, before)
            fresh = {**view(state, seat, privileged), "seq": seq}
            del fresh["ledger"]
            assert dict(parts) == dict(encode_parts(fresh, {}))
            assert {**parts.shared.view, "seq": seq, **parts.own.view} == fresh
            if isinstance(before, dict) and getattr(before, "own", None) is not None:
                for name, texts in (("shared", parts.shared), ("own", parts.own)):
                    old = getattr(before, name)
                    same = [k for k in texts if k in old and texts.view[k] is old.view[k]]
                    taken += len(same)
                    built += len(texts) - len(same)
            before = parts
    assert taken > 3 * built, (taken, built)


def _time_called() -> tuple[TableState, TableState]:
    """A table whose two seats registered their lists, its duel under way and its clock
    running, and the same table once its time is called."""
    t = registered().start_clock()
    t.start_duel("A")
    before = t.state
    assert before.clock.deadline_ms and before.decks["A"].cards is not None
    t.advance(before.clock.deadline_ms - t.now + 1000).tick()
    assert t.state.time.called
    return before, t.state


def test_time_called_builds_and_encodes_only_the_parts_it_changes():
    """Time called at a table (every table of a round in the same second) changes its clock
    and time: its decks, calls, people and pregame are taken as they were, the very texts."""
    before_state, after_state = _time_called()
    for seat, privileged in VIEWERS:
        before = build_parts(SEAT_PARTS, before_state, seat, privileged, {})
        after = build_parts(SEAT_PARTS, after_state, seat, privileged, before)
        for key in ("decks", "calls", "seats", "pregame"):
            assert after[key] is before[key] and after.view[key] is before.view[key], key
        assert dict(after) == dict(build_parts(SEAT_PARTS, after_state, seat, privileged, {}))
        shared = build_parts(SHARED_PARTS, before_state, None, False, {})
        shared_after = build_parts(SHARED_PARTS, after_state, None, False, shared)
        assert shared_after.view["time"] != shared.view["time"]
        for key in ("duels", "pending", "rolls", "penalties", "forms"):
            assert shared_after.view[key] is shared.view[key], key


def test_parts_built_for_another_viewer_are_never_taken():
    """A spectator's parts as a seat's `before` (a socket that took a seat): the seat's own
    deck list is built for it, not the spectator's hidden one taken."""
    _, state = _time_called()
    spectator = build_parts(SEAT_PARTS, state, None, False, {})
    assert spectator.view["decks"]["A"]["cards"] is None
    seat_a = build_parts(SEAT_PARTS, state, "A", False, spectator)
    assert seat_a.view["decks"]["A"]["cards"] is not None
    assert dict(seat_a) == dict(build_parts(SEAT_PARTS, state, "A", False, {}))
