"""First load of a table page on a slow phone network: bytes transferred and time to the keypad.

    .venv/bin/python -m bench.firstload [--url http://host:port] [--runs 3]

Two phones take the seats of a new table and play to the duel (so the LP keypad is shown);
then a fresh phone (empty cache, no service worker yet) holding seat A's token opens the table
under Lighthouse's "slow 4G" profile (562.5 ms latency, 1.4 Mbit/s * 0.9 down, 675 kbit/s * 0.9
up), emulated in Chromium through the DevTools protocol. Printed: the bytes transferred (the sum
of Network.loadingFinished encodedDataLength: headers and compressed bodies, the websocket
excluded) and the time from navigation until the keypad can be used (the keypad's digits
enabled and the connection online). The budget is 150 KB. The service worker's background
precache, which starts after the page has loaded, is reported separately.

Without --url a server is started for the run (as tests do: gunicorn, SQLite in a temp dir).
"""

from __future__ import annotations

import argparse
import json
import re
import statistics
import sys
import tempfile
import urllib.request
from pathlib import Path

from playwright.sync_api import Browser, expect, sync_playwright

from clients.testing import ROOT
from e2e.steps import CHROMIUM, CHROMIUM_ARGS, PHONE, seat_both, start_duel

BUDGET_BYTES = 150 * 1024
# Lighthouse's mobile "slow 4G" throttling (its simulated values, applied as DevTools does).
SLOW_4G = {
    "offline": False,
    "latency": 562.5,
    "downloadThroughput": 1.4 * 1024 * 1024 * 0.9 / 8,
    "uploadThroughput": 675 * 1024 * 0.9 / 8,
}
# The page reports when the keypad can be used: digits enabled, socket online.
KEYPAD_READY = """() => {
  const digit = document.querySelector('[data-testid="keypad-digit-1"]');
  const conn = document.querySelector('[data-testid="conn-status"]');
  return digit && !digit.disabled && conn && conn.dataset.status === "online"
    ? performance.now() : false;
}"""


def seated_table(browser: Browser, url: str) -> tuple[str, str]:
    """A table in its first duel; returns its code and seat A's stored seats (JSON)."""
    contexts = [browser.new_context(**PHONE, base_url=url) for _ in range(2)]
    a, b = (c.new_page() for c in contexts)
    code = seat_both(a, b)
    start_duel(a, b)
    seats = a.evaluate("localStorage.getItem('dt.seats')")
    contexts[0].close()  # phone A is now the fresh phone below
    return code, seats


def first_load(browser: Browser, url: str, code: str, seats: str, sw: bool) -> dict:
    """Open the table on a fresh, throttled phone; bytes and ms until the keypad is usable."""
    context = browser.new_context(**PHONE, base_url=url, service_workers="allow" if sw else "block")
    context.add_init_script(f"localStorage.setItem('dt.seats', {json.dumps(seats)});")
    page = context.new_page()
    cdp = context.new_cdp_session(page)
    cdp.send("Network.enable")
    cdp.send("Network.setCacheDisabled", {"cacheDisabled": True})
    cdp.send("Network.emulateNetworkConditions", SLOW_4G)
    requests: dict[str, str] = {}
    sizes: dict[str, int] = {}
    cdp.on(
        "Network.requestWillBeSent",
        lambda e: requests.__setitem__(e["requestId"], e["request"]["url"]),
    )
    cdp.on(
        "Network.loadingFinished",
        lambda e: sizes.__setitem__(e["requestId"], int(e["encodedDataLength"])),
    )
    page.goto(f"/t/{code}", wait_until="commit")
    ready_ms = page.wait_for_function(KEYPAD_READY, polling="raf", timeout=60_000).json_value()
    expect(page.get_by_test_id("lp-A")).to_have_text("8000")
    page.wait_for_load_state("load")
    page.wait_for_timeout(300)  # late icons and the manifest
    by_url = {requests.get(rid, rid): n for rid, n in sizes.items()}
    context.close()
    return {"bytes": sum(sizes.values()), "ready_ms": ready_ms, "files": by_url}


def precache_bytes(url: str) -> int:
    """Bytes the service worker fetches for its offline shell (bodies as served, gzip if so)."""
    text = (ROOT / "web" / "sw.js").read_text()
    block = re.search(r"const SHELL = \[(.*?)\];", text, re.S)
    assert block, "no SHELL list in web/sw.js"
    total = 0
    for path in re.findall(r'"([^"]+)"', block.group(1)):
        request = urllib.request.Request(url + path, headers={"Accept-Encoding": "gzip"})
        with urllib.request.urlopen(request, timeout=10) as response:
            total += len(response.read())
    return total


def run(url: str, runs: int) -> int:
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        code, seats = seated_table(browser, url)
        results = [first_load(browser, url, code, seats, sw=False) for _ in range(runs)]
        precache = precache_bytes(url)
        browser.close()
    last = results[-1]
    print(f"First load of /t/{code} (seated, duel), slow 4G, cold cache, {runs} run(s):")
    for path, n in sorted(last["files"].items(), key=lambda kv: -kv[1]):
        print(f"  {n:>8,d}  {path.replace(url, '')}")
    transferred = statistics.median(r["bytes"] for r in results)
    ready = statistics.median(r["ready_ms"] for r in results)
    verdict = "within" if transferred <= BUDGET_BYTES else "OVER"
    print(
        f"transferred: {transferred / 1024:.1f} KB ({transferred:,.0f} bytes), {verdict} the "
        f"{BUDGET_BYTES // 1024} KB budget"
    )
    each = ", ".join(f"{r['ready_ms']:.0f}" for r in results)
    print(f"keypad usable after: {ready:.0f} ms (median; runs: {each})")
    print(f"service worker precache afterwards: {precache / 1024:.1f} KB")
    return 0 if transferred <= BUDGET_BYTES else 1


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.firstload", description=__doc__)
    parser.add_argument("--url", help="a running server (default: start one)")
    parser.add_argument("--runs", type=int, default=3, help="first loads to measure")
    args = parser.parse_args(argv)
    if args.url:
        return run(args.url.rstrip("/"), args.runs)
    from clients.testing import start_server, stop_server

    with tempfile.TemporaryDirectory() as tmp:
        server, process = start_server(Path(tmp), "")
        try:
            return run(server, args.runs)
        finally:
            stop_server(process)


if __name__ == "__main__":
    sys.exit(main())
