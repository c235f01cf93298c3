"""Waiting seat requests expire (their phone gone, or minutes after they were made) and count
against their address: one address no longer keeps tables at their cap of waiting requests
(before: 74 tables filled in 1.8 s, still full 45 minutes later, real players refused)."""

from __future__ import annotations

from typing import Any

from flask import Flask

from server import services


def casual(client) -> str:
    """A casual table with both seats taken: its code."""
    code = client.post("/api/tables", json={}).get_json()["code"]
    for name in ("Yugi", "Kaiba"):
        client.post(f"/api/tables/{code}/join", json={"name": name})
    return code


def ask(app: Flask, code: str, address: str, name: str = "Bob") -> Any:
    """A takeover request for seat B from a phone at `address`."""
    client = app.test_client()
    body = {
        "name": name,
        "seat": "B",
        "takeover": True,
        "device": "dev-" + address.replace(".", "-"),
    }
    return client.post(f"/api/tables/{code}/join", json=body, environ_base={"REMOTE_ADDR": address})


def status(app: Flask, code: str, asked: dict[str, Any]) -> str:
    """What the waiting phone hears when it asks how its request stands."""
    got = app.test_client().get(
        f"/api/tables/{code}/seat-requests/{asked['request']}",
        headers={"Authorization": f"Bearer {asked['token']}"},
    )
    return str(got.get_json()["status"])


def waiting(app: Flask, code: str) -> list[str]:
    with app.app_context():
        return [r.request for r in services().tables.store.fresh(code).state.seat_requests]


def test_requests_whose_phone_went_expire(app: Flask, clock):
    """Three requests fill the table's cap; their phones stop asking how they stand: after
    SEAT_REQUEST_GONE_SECONDS (60) a new phone's request is taken and the three are refused
    as expired in the table's log."""
    code = casual(app.test_client())
    asked = [ask(app, code, f"10.0.0.{n}").get_json() for n in range(3)]
    full = ask(app, code, "10.0.0.9")
    assert full.status_code == 429 and full.get_json()["code"] == "too_many_requests"
    clock.advance(61_000)
    new = ask(app, code, "10.0.0.9")
    assert new.status_code == 202, new.get_json()
    assert waiting(app, code) == [new.get_json()["request"]]
    assert all(status(app, code, a) == "expired" for a in asked)
    with app.app_context():
        log = services().tables.store.log(code)
    expired = [e for e in log if e["type"] == "seat.refused" and e["data"]["by"] == "expired"]
    assert sorted(e["data"]["request"] for e in expired) == sorted(a["request"] for a in asked)


def test_a_phone_that_keeps_asking_waits_until_the_minutes_are_over(app: Flask, clock):
    """A phone still asking keeps its request past a minute; SEAT_REQUEST_SECONDS (300) after
    it was made, it expires all the same."""
    code = casual(app.test_client())
    asked = [ask(app, code, f"10.0.1.{n}").get_json() for n in range(3)]
    for _ in range(5):
        clock.advance(50_000)
        assert all(status(app, code, a) == "waiting" for a in asked)
    assert ask(app, code, "10.0.1.9").status_code == 429  # 250 s: still waiting, still full
    clock.advance(50_000)
    assert all(status(app, code, a) == "expired" for a in asked)
    assert ask(app, code, "10.0.1.9").status_code == 202


def test_seat_requests_count_against_their_address(app: Flask, clock):
    """One address asks at many tables: a few requests a minute, then 429 rate_limited; another
    address is not held back by it."""
    codes = [casual(app.test_client()) for _ in range(8)]
    answers = [ask(app, code, "10.0.2.1").status_code for code in codes]
    assert answers[:6] == [202] * 6
    refused = ask(app, codes[7], "10.0.2.1")
    assert refused.status_code == 429 and refused.get_json()["code"] == "rate_limited"
    assert ask(app, codes[7], "10.0.2.2").status_code == 202


def test_a_phone_back_after_its_request_expired_finds_it_expired(app: Flask, clock):
    """Gone for over a minute, the phone's next ask does not bring its request back."""
    code = casual(app.test_client())
    asked = ask(app, code, "10.0.3.1").get_json()
    clock.advance(61_000)
    assert status(app, code, asked) == "expired"
    clock.advance(1_000)
    assert status(app, code, asked) == "expired"
