"""Receipts: the signed heads a phone kept are checked by the score sheet page against the log,
so a log changed after the players saw it is caught on the phone even with the key stolen."""

from __future__ import annotations

import json

from playwright.sync_api import expect

from e2e.steps import confirm_entry, keypad, lp, seat_both, start_duel
from tests.ws_helpers import http


def test_the_sheet_page_checks_the_phones_receipts(live_server, new_phone):
    _, made = http(live_server, "POST", "/api/tables", {})
    code = made["code"]
    _, export = http(live_server, "GET", f"/api/tables/{code}/export.json")
    first = export["events"][0]
    phone = new_phone()
    phone.goto("/")
    kept = [{"seq": first["seq"], "hash": first["hash"], "signature": "", "key": None}]
    phone.evaluate(f"localStorage.setItem('dt.receipts.{code}', {json.dumps(json.dumps(kept))})")
    phone.goto(f"/t/{code}/sheet")
    expect(phone.locator("[data-testid=receipts]")).to_contain_text("1 signed receipt(s) match")

    forged = [{**kept[0], "hash": "f" * 64}]  # what the phone saw is not what the log now says
    phone.evaluate(f"localStorage.setItem('dt.receipts.{code}', {json.dumps(json.dumps(forged))})")
    phone.goto(f"/t/{code}/sheet")
    expect(phone.locator("[data-testid=receipts]")).to_contain_text("does NOT match the log")


def test_both_phones_keep_the_signed_head_of_a_result_asked_for_with_their_seat(new_phone):
    # At a duel's confirmed result each phone fetches the signed heads with its seat's token
    # (charged to the seat: a hall's phones share one address) and keeps the result's head.
    from e2e.steps import confirm_result, expect_phase

    a, b = new_phone(), new_phone()
    asked: list[str | None] = []
    for page in (a, b):
        page.on(
            "request",
            lambda r: (
                asked.append(r.headers.get("authorization")) if r.url.endswith("/heads") else None
            ),
        )
    code = seat_both(a, b)
    start_duel(a, b, winner=a, order="first")
    keypad(a, 8000)
    confirm_entry(b)
    expect(lp(a, "B")).to_have_text("0")
    confirm_result(a, b, "Yugi", 1)
    for page in (a, b):
        # The second tap's command is signed before its reply: ask for the heads only once both
        # phones have left the result (asked at the tap, the request could pass the command).
        expect_phase(page, "between")
    heads = a.request.get(f"/api/tables/{code}/heads").json()["heads"]
    assert heads
    for page in (a, b):
        # A function, not an expression: polling an expression is an eval, which the page's
        # CSP refuses (seen when the receipt came after the first look).
        page.wait_for_function(
            "(key) => JSON.parse(localStorage.getItem(key) || '[]').length > 0",
            arg=f"dt.receipts.{code}",
        )
        kept = page.evaluate(f"JSON.parse(localStorage.getItem('dt.receipts.{code}'))")
        assert {r["seq"]: r["hash"] for r in kept}.items() <= {
            h["seq"]: h["hash"] for h in heads
        }.items()
    assert asked and all(h and h.startswith("Bearer ") for h in asked), asked
