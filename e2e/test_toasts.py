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


def test_a_toast_never_covers_the_table_code_or_the_offline_note(new_phone, script_errors):
    """The offline note (two lines in Chinese at 360 px) pushes the table's bar down; a toast
    shown before or after it sits under both, so the table's code stays readable."""
    script_errors.allow("ERR_INTERNET_DISCONNECTED")  # what the phone tries while offline
    a = new_phone(viewport={"width": 360, "height": 640})
    create_on_phone(a)
    a.get_by_test_id("lang").select_option("zh-Hant")
    a.get_by_test_id("share-copy").click()  # a toast, then the network goes
    expect(a.get_by_test_id("toast")).to_have_count(1)
    a.context.set_offline(True)
    expect(a.get_by_test_id("offline-notice")).to_be_visible()
    below = """() => {
      const bottom = (s) => document.querySelector(s).getBoundingClientRect().bottom;
      const toast = document.querySelector('[data-testid=toast]');
      if (!toast) return false;
      const top = toast.getBoundingClientRect().top;
      return top >= bottom('[data-testid=offline-notice]') && top >= bottom('.bar');
    }"""
    a.wait_for_function(below)
    a.get_by_test_id("share-copy").click()  # a toast shown while offline
    a.wait_for_function(below)
    a.context.set_offline(False)
