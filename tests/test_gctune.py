"""The worker's collector settings (server/runtime/gctune.py): no automatic full collection, and the
periodic one still frees cyclic garbage that reached the oldest generation."""

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
    stop = gctune.tune(0.05)
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


def test_the_periodic_collection_freezes_survivors_and_thaws_every_few_rounds(
    restore_gc: None,
) -> None:
    """Survivors of a periodic round are frozen (the next round does not walk them again); a
    cycle that dies while frozen is freed by a later round that thaws first."""
    stop = gctune.tune(0.05, thaw_every=3)
    assert stop is not None
    try:
        a, b = Node(), Node()
        a.other, b.other = b, a
        probe = weakref.ref(a)
        frozen_before = gc.get_freeze_count()
        deadline = time.monotonic() + 5
        while gc.get_freeze_count() <= frozen_before and time.monotonic() < deadline:
            time.sleep(0.01)
        assert gc.get_freeze_count() > frozen_before  # frozen by a periodic round
        assert a not in gc.get_objects()  # frozen objects are not walked
        del a, b
        deadline = time.monotonic() + 5
        while probe() is not None and time.monotonic() < deadline:
            time.sleep(0.01)
        assert probe() is None  # a thawing round freed it
    finally:
        stop.set()


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
