"""An invite the other phone can open (server/core/addresses.py): PUBLIC_URL when set; for a page
opened on a loopback address, this machine's LAN address on the page's port; else the page's
own address. The QR code carries the same link as the invite's answer. The server says where
to open it as it starts."""

from __future__ import annotations

import io
from typing import Any

import pytest
import segno

from server import create_app
from server.core import addresses
from server.core.config import from_env, parse_url

LAN = "192.168.1.20"


@pytest.fixture
def on_lan(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(addresses, "lan_addresses", lambda: [LAN, "10.0.0.7"])


def make_client(app_config: dict[str, Any], **conf: Any):
    app = create_app({**app_config, **conf})
    return app, app.test_client()


def invite(client, code: str, base: str) -> dict:
    response = client.get(f"/api/tables/{code}/invite", base_url=base)
    assert response.status_code == 200, response.get_data(as_text=True)
    return response.json


def qr_svg(url: str) -> str:
    buffer = io.BytesIO()
    segno.make(url, error="m").save(buffer, kind="svg", scale=4, border=2, xmldecl=False)
    return buffer.getvalue().decode()


@pytest.mark.parametrize("host", ["127.0.0.1", "localhost", "[::1]", "127.0.1.1"])
def test_a_page_on_a_loopback_address_invites_on_the_lan_address(app_config, on_lan, host):
    app, client = make_client(app_config, HOST="0.0.0.0", PUBLIC_URL="")
    try:
        code = client.post("/api/tables", json={}).json["code"]
        answer = invite(client, code, f"http://{host}:8000")
        assert answer == {"url": f"http://{LAN}:8000/t/{code}", "from": "lan"}
        qr = client.get(f"/api/tables/{code}/qr.svg", base_url=f"http://{host}:8000")
        assert qr.get_data(as_text=True) == qr_svg(answer["url"])  # the QR says the same
    finally:
        app.extensions["duel_table"].close()


def test_public_url_wins_over_every_page_address(app_config, on_lan):
    app, client = make_client(app_config, PUBLIC_URL="https://duel.example.org")
    try:
        code = client.post("/api/tables", json={}).json["code"]
        for base in ("http://127.0.0.1:8000", f"http://{LAN}:8000", "https://other.example"):
            answer = invite(client, code, base)
            assert answer == {"url": f"https://duel.example.org/t/{code}", "from": "public_url"}
        qr = client.get(f"/api/tables/{code}/qr.svg", base_url="http://127.0.0.1:8000")
        assert qr.get_data(as_text=True) == qr_svg(f"https://duel.example.org/t/{code}")
    finally:
        app.extensions["duel_table"].close()


def test_a_page_opened_on_a_reachable_address_invites_on_it(app_config, on_lan):
    app, client = make_client(app_config, HOST="0.0.0.0", PUBLIC_URL="")
    try:
        code = client.post("/api/tables", json={}).json["code"]
        answer = invite(client, code, "http://10.0.0.7:8000")
        assert answer == {"url": f"http://10.0.0.7:8000/t/{code}", "from": "page"}
    finally:
        app.extensions["duel_table"].close()


def test_a_server_listening_on_loopback_only_keeps_the_page_address(app_config, on_lan):
    """No phone can reach 127.0.0.1's server: the LAN address would be a link that fails."""
    app, client = make_client(app_config, HOST="127.0.0.1", PUBLIC_URL="")
    try:
        code = client.post("/api/tables", json={}).json["code"]
        answer = invite(client, code, "http://127.0.0.1:8000")
        assert answer == {"url": f"http://127.0.0.1:8000/t/{code}", "from": "page"}
    finally:
        app.extensions["duel_table"].close()


def test_no_invite_for_a_table_that_does_not_exist(client):
    response = client.get("/api/tables/ZZZZZZ/invite")
    assert response.status_code == 404 and response.json["code"] == "no_such_table"


def test_public_url_is_parsed_and_a_bad_one_names_its_variable():
    assert parse_url(" https://duel.example.org/ ") == "https://duel.example.org"
    assert parse_url("http://10.0.0.5:8000") == "http://10.0.0.5:8000"
    assert parse_url("") == ""
    for bad in ("duel.example.org", "ftp://duel.example.org", "https://", "https://x/?a=1"):
        with pytest.raises(ValueError):
            parse_url(bad)
    assert from_env({"PUBLIC_URL": "https://duel.example.org/"})["PUBLIC_URL"] == (
        "https://duel.example.org"
    )
    with pytest.raises(ValueError, match="PUBLIC_URL"):
        from_env({"PUBLIC_URL": "duel.example.org"})


def test_loopback_names_and_addresses():
    for host in ("127.0.0.1", "127.5.0.1", "localhost", "LOCALHOST", "::1", "[::1]", "a.localhost"):
        assert addresses.is_loopback(host), host
    for host in ("0.0.0.0", LAN, "10.0.0.7", "duel.example.org", "fd00::2"):
        assert not addresses.is_loopback(host), host


def test_the_lan_addresses_are_reachable_ones():
    found = addresses.lan_addresses()
    assert all(not addresses.is_loopback(a) and not a.startswith("169.254.") for a in found)
    assert len(found) == len(set(found))


def test_the_start_banner_names_the_phone_addresses(on_lan):
    text = addresses.banner(8000, "0.0.0.0")
    assert "http://127.0.0.1:8000" in text
    assert f"http://{LAN}:8000" in text and "http://10.0.0.7:8000" in text
    text = addresses.banner(8000, "0.0.0.0", "https://duel.example.org")
    assert "https://duel.example.org" in text
    alone = addresses.banner(8000, "127.0.0.1")
    assert LAN not in alone and "HOST=0.0.0.0" in alone


def test_gunicorn_prints_the_addresses_when_ready(capsys, monkeypatch):
    from server import gunicorn_conf

    monkeypatch.setenv("HOST", "0.0.0.0")
    monkeypatch.setenv("PORT", "8123")
    monkeypatch.delenv("PUBLIC_URL", raising=False)
    gunicorn_conf.when_ready(None)
    printed = capsys.readouterr().out
    assert "http://127.0.0.1:8123" in printed
    # Loaded by its path in the master, the module finds this machine's own addresses.
    for address in addresses.lan_addresses():
        assert f"http://{address}:8123" in printed


def test_the_opener_policy_only_where_browsers_take_it(client):
    """COOP on a secure context (HTTPS, loopback); over plain http on the LAN the browser
    ignores it and says so as an error on the page, so it is not sent there."""
    for base in ("http://localhost", "http://127.0.0.1:8000", "https://duel.example.org"):
        answer = client.get("/", base_url=base)
        assert answer.headers["Cross-Origin-Opener-Policy"] == "same-origin", base
        answer.close()
    answer = client.get("/", base_url=f"http://{LAN}:8000")
    assert "Cross-Origin-Opener-Policy" not in answer.headers
    assert answer.headers["X-Content-Type-Options"] == "nosniff"
    answer.close()
