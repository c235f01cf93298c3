"""Every address a phone is given comes from one place (`server.core.addresses.public_base`):
table cards and their QR codes, the hall's link and QR code to the players' page, invites.
Opened by the organiser on 127.0.0.1 they carry the LAN address (or PUBLIC_URL), never
loopback; with neither, the organiser is warned before printing."""

from __future__ import annotations

import base64
import io
import re
import secrets
from pathlib import Path
from typing import Any

import pytest
import segno

from server import create_app
from server.core import addresses
from tests.test_event_rounds import PASSWORD

LAN = "192.168.1.20"
LOCAL = "http://127.0.0.1:8000"


@pytest.fixture
def on_lan(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(addresses, "lan_addresses", lambda: [LAN])


@pytest.fixture
def lan_app(app_config: dict[str, Any]):
    app = create_app({**app_config, "HOST": "0.0.0.0", "PUBLIC_URL": ""})
    try:
        yield app
    finally:
        app.extensions["duel_table"].close()


class Org:
    """The organiser, logged in on this computer's 127.0.0.1 (as `make run` says to)."""

    def __init__(self, client: Any, app: Any) -> None:
        # A name of its own: the PostgreSQL test database is shared by the session's tests.
        name = f"org{secrets.token_hex(4)}"
        app.extensions["duel_table"].tournament.create_account(name, PASSWORD, "organiser", 0)
        body = {"username": name, "password": PASSWORD}
        r = client.post("/api/auth/login", json=body, base_url=LOCAL)
        assert r.status_code == 200, r.json
        self.client, self.csrf = client, r.json["csrf"]

    def post(self, path: str, body: Any) -> Any:
        headers = {"X-CSRF-Token": self.csrf}
        return self.client.post(path, json=body, headers=headers, base_url=LOCAL)


def event(org: Org, tables: int) -> dict[str, Any]:
    """An event of `tables` tables, no player ID asked."""
    body = {"name": "Cup", "date": "2026-12-01", "tables": tables, "match_minutes": 40}
    r = org.post("/api/events", {**body, "require_player_id": False})
    assert r.status_code == 201, r.json
    return dict(r.json)


def qr_svg_scaled(url: str, scale: int) -> str:
    """The QR code the server makes of `url` at `scale` (segno, as `server.api.http.qr_svg`)."""
    buffer = io.BytesIO()
    segno.make(url, error="m").save(buffer, kind="svg", scale=scale, border=2, xmldecl=False)
    return buffer.getvalue().decode()


def _cards(client: Any, event_id: int) -> str:
    with client.get(f"/organiser/events/{event_id}/cards", base_url=LOCAL) as r:
        assert r.status_code == 200
        return r.get_data(as_text=True)


def _qr_images(page: str) -> list[str]:
    """Each card's QR code, as the SVG its data URI holds."""
    found = re.findall(r"src='data:image/svg\+xml;base64,([^']+)'", page)
    return [base64.b64decode(b).decode() for b in found]


def test_cards_opened_on_127_0_0_1_print_the_lan_address(lan_app, on_lan) -> None:
    client = lan_app.test_client()
    org = Org(client, lan_app)
    ev = event(org, tables=2)
    detail = client.get(f"/api/events/{ev['id']}", base_url=LOCAL).json
    page = _cards(client, ev["id"])
    assert "127.0.0.1" not in page and "localhost" not in page
    slug = ev["slug"]
    for n in (1, 2):
        assert f">{LAN}:8000/s/{slug}/{n}<" in page  # typed when a QR will not scan
    assert f">{LAN}:8000/e/{slug}<" in page
    images = _qr_images(page)
    urls = [
        f"http://{LAN}:8000/s/{slug}/{t['number']}/{seat}?c={t['claims'][seat]}"
        for t in detail["tables"]
        for seat in "AB"
    ]
    assert images == [qr_svg_scaled(u, 5) for u in urls]
    assert "cards-loopback" not in page


def test_the_halls_link_and_qr_code_carry_the_lan_address(lan_app, on_lan) -> None:
    client = lan_app.test_client()
    ev = event(Org(client, lan_app), tables=2)
    hall = client.get(f"/api/hall/{ev['slug']}", base_url=LOCAL).json
    assert hall["link"] == f"http://{LAN}:8000/e/{ev['slug']}"
    qr = client.get(f"/api/e/{ev['slug']}/qr.svg", base_url=LOCAL)
    assert qr.status_code == 200 and qr.mimetype == "image/svg+xml", qr.get_data(as_text=True)
    assert qr.get_data(as_text=True) == qr_svg_scaled(hall["link"], 10)
    assert client.get("/api/e/no-such-event/qr.svg", base_url=LOCAL).status_code == 404


def test_public_url_is_what_cards_and_the_hall_carry(app_config, on_lan) -> None:
    app = create_app({**app_config, "HOST": "0.0.0.0", "PUBLIC_URL": "https://duel.example.org"})
    try:
        client = app.test_client()
        ev = event(Org(client, app), tables=1)
        page = _cards(client, ev["id"])
        assert f">duel.example.org/s/{ev['slug']}/1<" in page and LAN not in page
        hall = client.get(f"/api/hall/{ev['slug']}", base_url=LOCAL).json
        assert hall["link"] == f"https://duel.example.org/e/{ev['slug']}"
    finally:
        app.extensions["duel_table"].close()


def test_with_no_address_a_phone_can_open_the_organiser_is_warned_before_printing(
    lan_app, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(addresses, "lan_addresses", lambda: [])  # no network, no PUBLIC_URL
    client = lan_app.test_client()
    ev = event(Org(client, lan_app), tables=1)
    said = client.get("/api/addresses", base_url=LOCAL).json
    assert said == {"base": LOCAL, "from": "page", "phones": False}
    assert "data-testid='cards-loopback'" in _cards(client, ev["id"])


def test_the_addresses_answer_names_the_lan_base(lan_app, on_lan) -> None:
    said = lan_app.test_client().get("/api/addresses", base_url=LOCAL).json
    assert said == {"base": f"http://{LAN}:8000", "from": "lan", "phones": True}


def test_one_place_makes_the_addresses_phones_are_given() -> None:
    """No other code builds an absolute address from the request's or the page's own host: the
    server's `public_base_here` is the one maker (the origin checks compare hosts, and a shared
    invite falls back to the page's own address only when the server cannot answer)."""
    root = Path(__file__).resolve().parent.parent
    makers = {
        str(p.relative_to(root))
        for p in (root / "server").rglob("*.py")
        if re.search(r"request\.(host_url|url_root|base_url)", p.read_text())
    }
    assert makers == {"server/api/http.py"}, makers
    pages = {
        str(p.relative_to(root))
        for p in (root / "web" / "js").rglob("*.js")
        if re.search(r"location\.(host|origin)\b", p.read_text())
    }
    assert pages <= {"web/js/panels/share.js"}, pages


def test_the_machines_addresses_are_looked_up_once_per_while(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The hall asks every second: its answers reuse the look-up (LAN_TTL_S), then look again."""
    calls: list[int] = []
    monkeypatch.setattr(addresses, "_look_up_lan", lambda: calls.append(1) or [LAN])
    monkeypatch.setattr(addresses, "_lan_cache", (float("-inf"), []))
    clock = iter([100.0, 101.0, 100.0 + addresses.LAN_TTL_S + 1])
    monkeypatch.setattr(addresses, "_now", lambda: next(clock))
    assert addresses.lan_addresses() == [LAN] and addresses.lan_addresses() == [LAN]
    assert len(calls) == 1
    assert addresses.lan_addresses() == [LAN] and len(calls) == 2
