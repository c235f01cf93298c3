"""The bench's bare relay builds on this server's keep-alive (`server.api.keepalive`): if that
changes under it, the bench's baseline fails here rather than in the middle of a run."""

from __future__ import annotations

from bench.relay import create_app


def test_the_relay_app_builds_and_answers_health():
    app = create_app()
    assert app.test_client().get("/health").json == {"ok": True}
