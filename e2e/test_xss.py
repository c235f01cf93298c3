"""Names, notes, reasons and counter names with HTML in them are shown as text (R-security).

Both seats join with hostile names and play to the duel over the API and a websocket; their LP
notes, a rejection reason, a judge call and a counter name carry markup too. A spectator's
phone and a seated phone then show all of it literally: no script runs, no element is made
from it, and the page is served with a strict Content-Security-Policy.
"""

from __future__ import annotations

import json
import urllib.request
import uuid

from playwright.sync_api import Page, expect
from websockets.sync.client import connect

from e2e.steps import api_create_table

NAME_A = "<img src=x onerror=window.__pwned=1>"
NAME_B = "<script>window.__pwned=2</script>"
NOTE_SCRIPT = "<script>window.__pwned=3</script>"
NOTE_IMG = '"><img src=x onerror="window.__pwned=4">'
REASON = "<svg onload=window.__pwned=5>"
COUNTER = "<b onmouseover=window.__pwned=6>C</b>"
CALL = "<iframe src=javascript:window.__pwned=7>"
HOSTILE = [NAME_A, NAME_B, NOTE_SCRIPT, NOTE_IMG, REASON, COUNTER, CALL]


def post(base: str, path: str, body: dict) -> dict:
    request = urllib.request.Request(
        base + path,
        data=json.dumps(body).encode(),
        method="POST",
        headers={"Content-Type": "application/json"},
    )
    with urllib.request.urlopen(request, timeout=5) as response:
        return json.load(response)


class Seat:
    """A seat driven over the websocket, the way a phone would."""

    def __init__(self, ws_url: str, code: str, token: str) -> None:
        self.ws = connect(f"{ws_url}/ws/table/{code}", open_timeout=5, legacy=True)
        self.ws.send(json.dumps({"type": "hello", "token": token}))
        self.state = self._next("welcome")["state"]

    def _next(self, kind: str) -> dict:
        while True:
            message = json.loads(self.ws.recv(timeout=10))
            if message.get("state"):
                self.state = message["state"]
            if message.get("type") == kind:
                return message

    def do(self, cmd: str, **args) -> dict:
        cid = str(uuid.uuid4())
        self.ws.send(json.dumps({"type": "command", "id": cid, "cmd": cmd, "args": args}))
        while True:
            reply = self._next("reply")
            if reply["re"] == cid:
                assert reply["ok"], (cmd, reply)
                return reply


def hostile_table(live_server) -> str:
    code = api_create_table(live_server)
    a = post(live_server, f"/api/tables/{code}/join", {"seat": "A", "name": NAME_A})
    b = post(live_server, f"/api/tables/{code}/join", {"seat": "B", "name": NAME_B})
    sa, sb = Seat(live_server.ws_url, code, a["token"]), Seat(live_server.ws_url, code, b["token"])
    deck = {"main": 40, "extra": 15, "side": 15}
    sa.do("deck.declare", **deck)
    sb.do("deck.declare", **deck)
    sa.do("deck.confirm", seat="B")
    sb.do("deck.confirm", seat="A")
    for s in (sa, sb):
        s.do("pregame.check", items=["handshake", "side_shown", "shuffled", "cut"])
    sa.do("rps.report", winner="A")
    sb.do("rps.confirm")
    sa.do("duel.choose", order="first")
    sa.do("duel.draw")
    sb.do("duel.draw")
    sa.do("lp.propose", changes=[{"seat": "B", "kind": "damage", "amount": 100}], note=NOTE_SCRIPT)
    sb.do("lp.confirm", entry=1)
    sa.do("lp.propose", changes=[{"seat": "B", "kind": "damage", "amount": 200}], note=NOTE_IMG)
    sb.do("lp.reject", entry=2, reason=REASON)
    sa.do("counter.change", name=COUNTER, delta=1)
    sb.do("judge.call", reason=CALL)
    sa.ws.close()
    sb.ws.close()
    return code


def assert_inert(page: Page) -> None:
    """No hostile markup became an element or ran."""
    assert page.evaluate("window.__pwned") is None
    for selector in (
        "img[src='x']",
        "svg[onload]",
        "iframe",
        "[onerror]",
        "[onmouseover]",
        "body script:not([src])",
    ):
        assert page.locator(selector).count() == 0, selector


def test_hostile_names_and_notes_are_text_for_spectators(new_phone, live_server):
    code = hostile_table(live_server)
    page = new_phone()
    violations: list[str] = []
    page.on("console", lambda m: violations.append(m.text) if "Content Security" in m.text else 0)
    response = page.goto(f"/t/{code}")
    csp = response.headers.get("content-security-policy", "") if response else ""
    assert "script-src 'self'" in csp and "unsafe-inline" not in csp
    page.get_by_test_id("watch").click()
    expect(page.get_by_test_id("role")).to_have_text("Spectator")
    expect(page.get_by_test_id("name-A")).to_have_text(NAME_A)
    expect(page.get_by_test_id("name-B")).to_have_text(NAME_B)
    body = page.locator("body")
    for text in (NOTE_SCRIPT, REASON, COUNTER):
        expect(body).to_contain_text(text)
    assert_inert(page)
    assert not violations, violations  # nothing even tried to run inline


def test_a_hostile_name_typed_on_a_phone_is_text(new_phone, live_server):
    code = api_create_table(live_server)
    post(live_server, f"/api/tables/{code}/join", {"seat": "A", "name": NAME_A})
    page = new_phone()
    page.goto(f"/t/{code}")
    page.get_by_test_id("name-input").fill(NAME_B)
    page.get_by_test_id("take-seat-B").click()
    expect(page.get_by_test_id("role")).to_contain_text("B")
    expect(page.get_by_test_id("name-B")).to_have_text(NAME_B)
    expect(page.get_by_test_id("name-A")).to_have_text(NAME_A)
    page.goto("/")  # the home screen lists this table with the names
    expect(page.get_by_test_id("home-screen")).to_be_visible()
    assert_inert(page)
