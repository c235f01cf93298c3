"""Receipts: the signed heads a phone kept are checked by the score sheet page against the log,
so a log changed after the players saw it is caught on the phone even with the key stolen."""

from __future__ import annotations

import json

from playwright.sync_api import expect

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
