"""SWISS_SEED: round 1's random source fixed for every event of a server (README), so the same
registrations pair the same way; unset, each event draws its own seed."""

from __future__ import annotations

from typing import Any

import pytest
from flask.testing import FlaskClient

from server import create_app
from server.core.config import from_env
from tests.test_swiss_api import Org, register


def round_one(org: Org) -> tuple[list[tuple[int, int]], Any]:
    ev = org.event(tables=8)
    register(org, ev, 16)
    r = org.call("POST", f"/api/events/{ev}/swiss/pair")
    assert r.status_code == 200, r.json
    s = org.summary(ev)
    pairs = [(t["a"]["player"], t["b"]["player"]) for t in s["rounds"][0]["tables"]]
    return pairs, s["rounds"][0].get("seed")


def test_the_seed_is_read_from_the_environment() -> None:
    assert from_env({"SWISS_SEED": "29"})["SWISS_SEED"] == 29
    assert from_env({"SWISS_SEED": ""})["SWISS_SEED"] is None
    with pytest.raises(ValueError, match="SWISS_SEED"):
        from_env({"SWISS_SEED": "tomorrow"})


def test_a_fixed_seed_pairs_the_same_registrations_the_same_way(app_config: dict[str, Any]):
    app = create_app({**app_config, "SWISS_SEED": 29})
    try:
        client: FlaskClient = app.test_client()
        org = Org(app, client)
        first, _ = round_one(org)
        second, _ = round_one(org)
        assert first == second
        assert sorted(x for pair in first for x in pair) == list(range(1, 17))
    finally:
        app.extensions["duel_table"].close()


def test_without_a_seed_events_draw_their_own(app_config: dict[str, Any]):
    app = create_app(app_config)
    try:
        org = Org(app, app.test_client())
        # 16! orders: five events all paired alike would mean a fixed source.
        seen = {tuple(round_one(org)[0]) for _ in range(5)}
        assert len(seen) > 1
    finally:
        app.extensions["duel_table"].close()
