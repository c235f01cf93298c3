"""The floor's feeds give way to the phones: a flush waits while the loop is behind (the hall's
busiest second), never longer than its bound (server/api/floor_feeds.py)."""

from __future__ import annotations

import pytest

from server.api.floor_feeds import DEFER_LAG_S, DEFER_MAX_S, DEFER_STEP_S, FeedRegistry


class Waits:
    """A stop event that is never set, noting each wait."""

    def __init__(self, stop_at: int | None = None) -> None:
        self.waits: list[float] = []
        self.stop_at = stop_at

    def wait(self, seconds: float) -> bool:
        self.waits.append(seconds)
        return self.stop_at is not None and len(self.waits) >= self.stop_at


def registry(lags: list[float]) -> FeedRegistry:
    readings = iter(lags)
    return FeedRegistry(None, None, None, lambda: 0, 500, behind=lambda: next(readings))  # type: ignore[arg-type]


def test_a_flush_waits_until_the_loop_has_caught_up():
    stop = Waits()
    assert registry([0.4, DEFER_LAG_S * 2, DEFER_LAG_S / 2]).give_way(stop) is False
    assert stop.waits == [DEFER_STEP_S, DEFER_STEP_S]


def test_a_loop_on_time_is_not_waited_for():
    stop = Waits()
    assert registry([0.0]).give_way(stop) is False
    assert stop.waits == []


def test_a_loop_behind_for_good_holds_a_flush_no_longer_than_its_bound():
    stop = Waits()
    assert registry([5.0] * 1000).give_way(stop) is False
    assert sum(stop.waits) == pytest.approx(DEFER_MAX_S)


def test_a_feed_stopped_while_it_waits_says_so():
    stop = Waits(stop_at=2)
    assert registry([5.0] * 1000).give_way(stop) is True
    assert len(stop.waits) == 2
