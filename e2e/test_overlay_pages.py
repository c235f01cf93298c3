"""The stream overlay in Chromium at 1920x1080, as OBS's browser source draws it: a transparent
page following a live duel at an event table (names, LP as confirmed with the entry waiting,
the duel score, the round's clock counting, the last coin), shown only once the organiser turns
it on, and never a player ID. Screenshots for docs/screenshots/ (transparent PNGs)."""

from __future__ import annotations

import json
import uuid
from pathlib import Path
from typing import Any

from playwright.sync_api import Browser, Page, expect
from websockets.sync.client import ClientConnection, connect

from tests.staff_actions import Staff, create_organiser, seat_claim

ROOT = Path(__file__).resolve().parent.parent
SHOTS = ROOT / "docs" / "screenshots"
FULL_HD = {"width": 1920, "height": 1080}
IDS = {"A": "0400123456", "B": "0400654321"}


class Phone:
    """A seat's phone on the table socket (the protocol, not the page: the overlay is tested)."""

    def __init__(self, ws: ClientConnection, token: str) -> None:
        self.ws, self.next_id = ws, 0
        ws.send(json.dumps({"type": "hello", "token": token, "v": 2}))
        assert self.receive("welcome")["seat"] in ("A", "B")

    def receive(self, kind: str) -> dict[str, Any]:
        while True:
            message = json.loads(self.ws.recv(timeout=5))
            if message["type"] == kind:
                return message

    def do(self, cmd: str, args: dict[str, Any] | None = None) -> int:
        self.next_id += 1
        ref = str(self.next_id)
        self.ws.send(json.dumps({"type": "command", "id": ref, "cmd": cmd, "args": args or {}}))
        reply = self.receive("reply")
        assert reply["re"] == ref and reply["ok"], reply
        return int(reply["seq"])


def join(server: str, event: dict[str, Any], seat: str, name: str) -> str:
    status, body = Staff(server).request(
        "POST",
        f"/api/tables/{event['tables'][0]['code']}/join",
        {"seat": seat, "name": name, "player_id": IDS[seat],
         "claim": seat_claim(server, event["slug"], 1, seat)},
    )  # fmt: skip
    assert status == 201, body
    return str(body["token"])


def transparent(page: Page) -> None:
    """Only the overlay's panels are painted: the page itself lets the video through."""
    for selector in ("html", "body", "#overlay"):
        colour = page.eval_on_selector(selector, "el => getComputedStyle(el).backgroundColor")
        assert colour in ("rgba(0, 0, 0, 0)", "transparent"), (selector, colour)


def test_the_overlay_follows_a_live_duel(live_server, browser: Browser, script_errors):
    script_errors.allow(r"overlay\.json")  # 404 while the table is not shown: nothing drawn
    organiser = f"org{uuid.uuid4().hex[:6]}"
    create_organiser(live_server, organiser)
    staff = Staff(live_server).login(organiser)
    event = staff.create_event("Stream Cup", 1)
    csv = f"1,Yugi,{IDS['A']},Kaiba,{IDS['B']}"
    assert staff.request("POST", f"/api/events/{event['id']}/pairings", {"csv": csv})[0] == 200
    code = event["tables"][0]["code"]
    tokens = {
        "A": join(live_server, event, "A", "Yugi"),
        "B": join(live_server, event, "B", "Kaiba"),
    }

    context = browser.new_context(base_url=live_server, viewport=FULL_HD, locale="en-GB")
    page = context.new_page()
    page.goto(f"/t/{code}/overlay")
    root = page.get_by_test_id("overlay")
    expect(root).to_have_attribute("data-state", "off")  # not shown yet: nothing drawn
    transparent(page)
    # The organiser turns it on from the table's staff page (the J command `overlay.set`).
    desk = browser.new_context(base_url=live_server, viewport={"width": 1280, "height": 800})
    desk.add_cookies([{"name": c.name, "value": c.value, "url": live_server} for c in staff.jar])
    judge = desk.new_page()
    judge.goto(f"/judge/e/{event['id']}/t/{code}")
    expect(judge.get_by_test_id("overlay-link")).to_have_attribute("href", f"/t/{code}/overlay")
    judge.get_by_test_id("overlay-show").click()
    expect(root).to_have_attribute("data-state", "on")
    desk.close()
    expect(page.get_by_test_id("ov-name-A")).to_have_text("Yugi")
    expect(page.get_by_test_id("ov-name-B")).to_have_text("Kaiba")

    url = f"{live_server.ws_url}/ws/table/{code}"
    with connect(url) as wa, connect(url) as wb:
        a, b = Phone(wa, tokens["A"]), Phone(wb, tokens["B"])
        deck = {"main": 40, "extra": 15, "side": 15}
        a.do("deck.declare", deck)
        b.do("deck.declare", deck)
        a.do("deck.confirm", {"seat": "B"})
        b.do("deck.confirm", {"seat": "A"})
        assert staff.request("POST", f"/api/events/{event['id']}/round/start")[0] == 200
        expect(page.get_by_test_id("ov-clock")).to_have_attribute("data-status", "running")
        first = page.get_by_test_id("ov-clock").text_content()
        items = {"items": ["handshake", "side_shown", "shuffled", "cut"]}
        a.do("pregame.check", items)
        b.do("pregame.check", items)
        a.do("rps.pick", {"hand": "rock"})
        b.do("rps.pick", {"hand": "scissors"})
        a.do("duel.choose", {"order": "first"})
        a.do("duel.draw")
        b.do("duel.draw")
        expect(page.get_by_test_id("ov-score")).to_have_text("Duel 1 · 0–0")
        expect(page.get_by_test_id("ov-clock")).not_to_have_text(first or "")  # counting down

        # An entry proposed: the LP stay as confirmed, the entry shows as waiting.
        a.do("lp.propose", {"seat": "B", "delta": -1200})
        expect(page.get_by_test_id("ov-wait-B")).to_have_attribute("data-waiting", "−1200")
        expect(page.get_by_test_id("ov-lp-B")).to_have_text("8000")
        seq = b.do("lp.confirm", {"entry": 1})
        expect(root).to_have_attribute("data-seq", str(seq))
        expect(page.get_by_test_id("ov-lp-B")).to_have_text("6800")
        expect(page.get_by_test_id("ov-wait-B")).to_have_text("")
        a.do("coin.toss")
        expect(page.get_by_test_id("ov-roll")).to_be_visible()
        expect(page.get_by_test_id("ov-roll")).to_contain_text("Yugi:")
        a.do("lp.propose", {"seat": "A", "delta": -500})  # waiting in the screenshot
        expect(page.get_by_test_id("ov-wait-A")).to_have_attribute("data-waiting", "−500")

        transparent(page)
        content = page.content() + json.dumps(
            staff.request("GET", f"/api/tables/{code}/overlay.json")[1]
        )
        assert IDS["A"] not in content and IDS["B"] not in content
        # The board sits inside the frame, across the top.
        box = page.locator(".ov-board").bounding_box()
        assert box and box["y"] >= 0 and box["y"] + box["height"] <= 1080 * 0.25, box
        page.screenshot(path=str(SHOTS / "overlay-1920x1080.png"), omit_background=True)

        lower = context.new_page()
        lower.goto(f"/t/{code}/overlay?layout=lower")
        expect(lower.get_by_test_id("ov-lp-B")).to_have_text("6800")
        box = lower.locator(".ov-board").bounding_box()
        assert box and box["y"] >= 1080 * 2 / 3 and box["y"] + box["height"] <= 1080, box
        transparent(lower)
        lower.screenshot(
            path=str(SHOTS / "overlay-lower-third-1920x1080.png"), omit_background=True
        )

        # In the viewer's language, from the catalogue (no English word on a Japanese stream).
        ja = json.loads((ROOT / "web" / "i18n" / "ja.json").read_text(encoding="utf-8"))
        jp = browser.new_context(base_url=live_server, viewport=FULL_HD, locale="ja-JP")
        shown = jp.new_page()
        shown.goto(f"/t/{code}/overlay")
        expect(shown.get_by_test_id("ov-score")).to_contain_text(ja["duel.no"].format(n=1))
        expect(shown.get_by_test_id("ov-wait-A")).to_contain_text(ja["pending.title"])
        jp.close()

    # Turned off: nothing is drawn over the video any more.
    assert staff.request("POST", f"/api/tables/{code}/overlay", {"on": False})[0] == 200
    expect(root).to_have_attribute("data-state", "off")
    context.close()
