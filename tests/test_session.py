"""The websocket session's reader replaces two methods of simple-websocket: pinned here."""

from __future__ import annotations

import hashlib
import inspect

from simple_websocket.ws import Base

from server.api.ratelimit import TokenBucket

# `server.api.session.GuardedServer._thread` is a copy of `Base._thread` (without its own
# pinger) that spends a budget and yields, and it relies on `Base._handle_events` parsing
# through `self.ws.events()`. If simple-websocket changes either, read the new code, port the
# change to GuardedServer and update these digests.
PINNED = {
    "_thread": "da9a912028a48435f175f88669b7fbca702fdaea3726554c7b5a44d6c2e7b610",
    "_handle_events": "fa982a271583fe76851a1e20657a75c01c77a41a8a6d952dd32264e5ba613ac8",
}


def digest(name: str) -> str:
    return hashlib.sha256(inspect.getsource(getattr(Base, name)).encode()).hexdigest()


def test_the_reader_replaced_is_the_one_pinned():
    assert {name: digest(name) for name in PINNED} == PINNED
    assert "self.ws.events()" in inspect.getsource(Base._handle_events)


def test_a_bucket_spends_a_cost():
    now = [0.0]
    bucket = TokenBucket(10, 100, clock=lambda: now[0])
    assert bucket.take(60) and not bucket.take(60) and bucket.take(40) and not bucket.take()
    now[0] = 1.0
    assert bucket.take(10) and not bucket.take()
