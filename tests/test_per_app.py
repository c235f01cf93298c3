"""What an app holds is its own and stops with it: the open sockets by grant and their sweeper,
and the threads password hashes run on (no process-wide state two apps would share)."""

from __future__ import annotations

from typing import Any

from server import create_app
from server.api.access import seat_grant


def test_two_apps_hold_their_own_grants_and_offload(app_config: dict[str, Any]) -> None:
    first = create_app(app_config)
    first_services = first.extensions["duel_table"]
    second = create_app({**app_config})
    second_services = second.extensions["duel_table"]
    try:
        assert first_services.grants is not second_services.grants
        assert first_services.offload is not second_services.offload
        # Each app's sweeper checks against its own app (made by its own `init_app`).
        assert first_services.grants.check is not None
        assert first_services.grants.check is not second_services.grants.check
        closed: list[str] = []
        first_services.grants.add(seat_grant("h" * 64), lambda: closed.append("first"))
        assert second_services.grants.revoke(seat_grant("h" * 64)) == 0 and closed == []
        assert first_services.grants.revoke(seat_grant("h" * 64)) == 1 and closed == ["first"]
    finally:
        second_services.close()
    assert second_services.grants.stopped
    first_services.close()


def test_closing_an_app_stops_its_grants_sweeper(app_config: dict[str, Any]) -> None:
    application = create_app(app_config)
    found = application.extensions["duel_table"]
    forget = found.grants.add(seat_grant("s" * 64), lambda: None)
    thread = found.grants._thread
    assert thread is not None and thread.is_alive()
    found.close()
    thread.join(timeout=5)
    assert not thread.is_alive()
    forget()
