"""The stream overlay (docs/protocol.md, "The stream overlay"): shown only when a judge or the
organiser of the table's event turns it on, and then public facts only."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from access_world import World, make_world
from flask import Flask

from server.rules import EMPTY, Actor, Event, apply
from server.rules.overlay import overlay_view
from server.rules.time_over import stage_turns

REPLAY = Path(__file__).resolve().parent / "data" / "replay_match.json"


@pytest.fixture
def world(app: Flask, clock) -> World:
    return make_world(app, clock())


def overlay(world: World, role: str = "spectator") -> tuple[int, dict]:
    answer = world.request(role, "GET", f"/api/tables/{world.code}/overlay.json")
    return answer.status_code, answer.get_json()


def turn(world: World, role: str, on: bool) -> int:
    url = f"/api/tables/{world.code}/overlay"
    return world.request(role, "POST", url, json={"on": on}).status_code


def test_the_overlay_shows_nothing_until_its_staff_show_the_table(world: World):
    status, body = overlay(world)
    assert (status, body["code"]) == (404, "overlay_off")
    page = world.request("spectator", "GET", f"/t/{world.code}/overlay")
    assert page.status_code == 200 and b"overlay.js" in page.data
    page.close()
    assert turn(world, "judge", True) == 200
    status, body = overlay(world)
    assert status == 200 and body["names"] == {"A": "Yugi", "B": ""}
    assert body["lp"] == {"A": 8000, "B": 8000} and body["wins"] == {"A": 0, "B": 0}
    world.spectators(False)  # a broadcast tool has no login: the staff's choice is enough
    assert overlay(world)[0] == 200
    assert turn(world, "organiser", False) == 200
    assert overlay(world)[0] == 404


@pytest.mark.parametrize(
    ("role", "status"),
    [("spectator", 401), ("seat", 401), ("other_seat", 401), ("other_judge", 403)],
)
def test_only_the_events_staff_show_a_table_on_the_overlay(world: World, role: str, status: int):
    assert turn(world, role, True) == status
    assert overlay(world)[0] == 404


def test_the_overlay_carries_no_player_id_and_no_hidden_value(world: World):
    assert turn(world, "judge", True) == 200
    _, body = overlay(world)
    text = json.dumps(body)
    assert '"player_id"' not in text and "hand" not in text and "cards" not in text
    assert set(body) == {
        "code", "names", "lp", "waiting", "wins", "wins_needed", "duel_no", "extra_duel",
        "phase", "turn", "clock", "time", "roll", "match", "seq", "now_ms",
    }  # fmt: skip


def test_the_waiting_entry_and_the_last_roll():
    seat = Actor("seat", "A", "Yugi")
    damage = [{"seat": "B", "kind": "damage", "amount": 1200}]
    events = [
        Event("lp.proposed", {"entry": 1, "by": "A", "note": "", "changes": damage}, 5, seat),
        Event("roll.made", {"roll": 1, "kind": "coin", "results": ["heads"], "by": "A"}, 6, seat),
        Event("roll.made", {"roll": 2, "kind": "die", "results": [4], "by": "B"}, 7, seat),
        Event("roll.voided", {"roll": 2, "note": ""}, 8, seat),
    ]  # fmt: skip
    state = EMPTY
    for e in events:
        state = apply(state, e)
    shown = overlay_view(state)
    assert shown["waiting"] == [
        {"entry": 1, "by": "A", "changes": [{"seat": "B", "kind": "damage", "amount": 1200}]}
    ]
    assert shown["lp"] == {"A": 8000, "B": 8000}  # as confirmed: the entry still waits
    assert shown["roll"] == {"roll": 1, "kind": "coin", "results": ["heads"], "by": "A"}


def test_the_time_over_stage_and_the_score_along_the_recorded_match():
    """The recorded match of tests/test_replay.py (three duels, time called, extra turns): the
    overlay follows its score and time-over stages, and never shows a player ID or a pick."""
    recorded = json.loads(REPLAY.read_text(encoding="utf-8"))["events"]
    state, stages, scores = EMPTY, set(), set()
    for e in recorded:
        state = apply(state, Event.from_dict(e))
        shown = overlay_view(state)
        stages.add(shown["time"]["stage"])
        # the stage's turns as the rules count them, not worked out again by the page (R5.1.3)
        assert shown["time"]["of"] == stage_turns(state.ruleset, state.time.stage)
        if shown["time"]["stage"] == "extra_turns":
            assert shown["time"]["of"] == state.ruleset.extra_turns
        scores.add((shown["wins"]["A"], shown["wins"]["B"]))
        text = json.dumps(shown)
        for seat in ("A", "B"):
            player_id = state.seats[seat].player_id
            assert not player_id or player_id not in text
        assert '"hand"' not in text and '"cards"' not in text
    assert {"finish_turn", "extra_turns"} <= stages and shown["match"]["decided"]
    assert len(scores) >= 3
