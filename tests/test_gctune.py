"""The worker's collector settings (server/runtime/gctune.py): no automatic full collection; the
periodic one waits for a quiet minute and frees cyclic garbage that reached the oldest
generation."""

from __future__ import annotations

import gc
import time
import weakref
from collections.abc import Iterator

import pytest

from server.runtime import gctune


@pytest.fixture
def restore_gc() -> Iterator[None]:
    thresholds = gc.get_threshold()
    yield
    gc.set_threshold(*thresholds)
    gc.unfreeze()


class Node:
    def __init__(self) -> None:
        self.other: Node | None = None


def test_the_periodic_full_collection_frees_old_cycles(restore_gc: None) -> None:
    stop = gctune.tune(0.05, sample_s=0.01, window_s=0.05)
    assert stop is not None
    try:
        assert gc.get_threshold() == (gctune.YOUNG, gctune.MIDDLE, gctune.NEVER)
        a, b = Node(), Node()
        a.other, b.other = b, a
        probe = weakref.ref(a)
        # Promote the cycle to the oldest generation, then make it garbage.
        gc.collect(0)
        gc.collect(1)
        assert a in gc.get_objects(generation=2)
        del a, b
        # Young collections do not look at the oldest generation.
        gc.collect(1)
        deadline = time.monotonic() + 5
        while probe() is not None and time.monotonic() < deadline:
            time.sleep(0.01)
        assert probe() is None
    finally:
        stop.set()


class Turns:
    """A hall's turn count, moved by hand."""

    def __init__(self) -> None:
        self.n = 0

    def __call__(self) -> int:
        return self.n


def play(quiet: gctune.Quiet, turns: Turns, start: float, seconds: int, per_s: int) -> float:
    """`seconds` of `per_s` turns a second, sampled every second; returns the time reached."""
    now = start
    for _ in range(seconds):
        now += 1
        turns.n += per_s
        quiet.sample(now)
    return now


def test_a_full_collection_waits_for_the_break_between_rounds() -> None:
    """Due after its interval, it waits while the tables play and runs in the first quiet
    minute (a tenth of the busiest minute's turns at most)."""
    turns = Turns()
    quiet = gctune.Quiet(every=600, window=60, activity=turns)
    start = quiet.last = 0.0
    now = play(quiet, turns, start, 500, per_s=400)  # a round in play
    assert not quiet.due(now)  # not yet due
    now = play(quiet, turns, now, 300, per_s=400)  # still playing, now due
    assert now - start >= 600 and not quiet.due(now)
    now = play(quiet, turns, now, 30, per_s=5)  # the round ends: half a quiet minute
    assert not quiet.due(now)
    now = play(quiet, turns, now, 31, per_s=5)  # a whole quiet minute
    assert quiet.due(now)
    quiet.collected(now)
    assert not quiet.due(play(quiet, turns, now, 60, per_s=0))  # the next one is 600 s away


def test_a_hall_that_never_rests_is_collected_when_overdue() -> None:
    turns = Turns()
    quiet = gctune.Quiet(every=600, window=60, activity=turns)
    start = quiet.last = 0.0
    now = play(quiet, turns, start, gctune.OVERDUE * 600 - 1, per_s=400)
    assert not quiet.due(now)
    now = play(quiet, turns, now, 1, per_s=400)
    assert quiet.due(now)


def test_an_idle_worker_is_collected_when_due() -> None:
    turns = Turns()
    quiet = gctune.Quiet(every=600, window=60, activity=turns)
    quiet.last = 0.0
    now = play(quiet, turns, 0.0, 599, per_s=0)
    assert not quiet.due(now)
    assert quiet.due(play(quiet, turns, now, 1, per_s=0))


def young_promoted(young_every: float) -> bool:
    """Whether a new object leaves the young generation within about a second while as many
    old objects are freed as new ones are made."""
    old = [Node() for _ in range(60_000)]
    stop = gctune.tune(0, young_every=young_every)
    try:
        young = [Node()]
        first = young[0]
        for _ in range(250):
            # 200 new for 200 old freed: the collector's count does not move.
            young.extend(Node() for _ in range(200))
            del old[-200:]
            if not any(o is first for o in gc.get_objects(generation=0)):
                return True
            time.sleep(0.004)
        return False
    finally:
        if stop is not None:
            stop.set()


def test_the_young_generation_is_collected_on_time_when_its_count_stays_low(
    restore_gc: None,
) -> None:
    """The count that starts a young collection is allocations less deallocations of any
    generation: objects made while older ones are freed leave it near zero, and the young
    generation fills (an idle hall's waits). The periodic young collection walks it anyway."""
    assert not young_promoted(0)  # by the count alone, it stays young
    assert young_promoted(0.02)
