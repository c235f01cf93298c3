"""A seat request nobody answers expires, and the asking phone says so (not "not approved"):
this module's server lets a request wait SEAT_REQUEST_SECONDS = 3 (300 by default)."""

from __future__ import annotations

import json
import urllib.request
from collections.abc import Iterator

import pytest
from playwright.sync_api import expect

from clients.testing import LiveServer, isolated_database, start_server, stop_server


@pytest.fixture(scope="module")
def live_server(
    tmp_path_factory: pytest.TempPathFactory, database_url: str
) -> Iterator[LiveServer]:
    url = isolated_database(database_url, "seat_request_expiry")
    server, process = start_server(
        tmp_path_factory.mktemp("seat_request_expiry"), url, {"SEAT_REQUEST_SECONDS": "3"}
    )
    try:
        yield server
    finally:
        stop_server(process)


def post(server: str, path: str, body: dict) -> dict:
    request = urllib.request.Request(
        server + path,
        data=json.dumps(body).encode(),
        method="POST",
        headers={"Content-Type": "application/json"},
    )
    with urllib.request.urlopen(request, timeout=10) as response:
        return json.load(response)


def test_an_unanswered_seat_request_expires_on_the_asking_phone(live_server, new_phone):
    code = post(live_server, "/api/tables", {})["code"]
    for name in ("Yugi", "Kaiba"):
        post(live_server, f"/api/tables/{code}/join", {"name": name})
    stranger = new_phone()
    stranger.goto(f"/t/{code}")
    stranger.get_by_test_id("name-input").fill("Bandit Keith")
    stranger.get_by_test_id("take-seat-B").click()
    expect(stranger.get_by_test_id("join-waiting")).to_be_visible()
    expect(stranger.locator(".toast")).to_contain_text("expired", timeout=15_000)
    expect(stranger.get_by_test_id("join-screen")).to_be_visible()
