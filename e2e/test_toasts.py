"""Toasts replace each other (one at a time, never a pile over the screen) and expire."""

from __future__ import annotations

from playwright.sync_api import expect

from e2e.steps import create_on_phone


def test_a_toast_replaces_the_last_and_expires(new_phone):
    a = new_phone()
    create_on_phone(a)
    expect(a.get_by_test_id("toast")).to_have_count(0, timeout=10_000)
    for _ in range(3):
        a.get_by_test_id("share-copy").click()
    expect(a.get_by_test_id("toast")).to_have_count(1)
    expect(a.get_by_test_id("toast")).to_have_count(0, timeout=10_000)
