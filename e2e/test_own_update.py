"""A phone's own command comes back as one frame: the reply carries the phone's update
(protocol 3, docs/protocol.md "Versions"), and the screen shows what the command did from it.

Phone A proposes 300 damage to B: A's screen lists its own waiting entry and B's shows the
banner to confirm it (R1.4); A's socket received the command's reply with the update inside
it, and no separate update for that seq.
"""

from __future__ import annotations

import json
from typing import Any

from playwright.sync_api import WebSocket, expect

from e2e.steps import keypad, seat_both, start_duel


def test_a_phone_s_own_entry_shows_from_the_update_in_its_reply(new_phone, script_errors):
    a, b = new_phone(), new_phone()
    frames: list[dict[str, Any]] = []

    def on_socket(ws: WebSocket) -> None:
        if "/ws/table/" in ws.url:
            ws.on("framereceived", lambda payload: frames.append(json.loads(payload)))

    a.on("websocket", on_socket)
    seat_both(a, b)
    start_duel(a, b)
    hello = [f for f in frames if f.get("type") == "welcome"]
    assert hello and hello[-1]["v"] == 3, hello

    keypad(a, 300)
    expect(b.get_by_test_id("confirm-banner")).to_be_visible()
    expect(a.get_by_test_id("pending-list").get_by_test_id("pending-entry")).to_have_count(1)

    replies = [f for f in frames if f.get("type") == "reply" and f.get("update")]
    proposed = [
        r for r in replies if any(e["type"] == "lp.proposed" for e in r["update"]["events"])
    ]
    assert len(proposed) == 1, replies
    seq = proposed[0]["update"]["seq"]
    assert proposed[0]["ok"] and seq >= proposed[0]["seq"]
    # Nothing of that seq came again as an update of its own.
    assert [f for f in frames if f.get("type") == "update" and f["seq"] == seq] == []
