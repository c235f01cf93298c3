"""The websocket session's budgets (the library internals its reader uses are pinned in
tests/test_compat.py)."""

from __future__ import annotations

from server.api.ratelimit import TokenBucket


def test_a_bucket_spends_a_cost():
    now = [0.0]
    bucket = TokenBucket(10, 100, clock=lambda: now[0])
    assert bucket.take(60) and not bucket.take(60) and bucket.take(40) and not bucket.take()
    now[0] = 1.0
    assert bucket.take(10) and not bucket.take()
