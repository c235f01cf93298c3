"""A test world like the hall: phones are other devices on the club's Wi-Fi.

The phones' Chromium runs in a network namespace of its own (made by the test run as root, with
iproute2), joined to this machine by a veth pair: in there 127.0.0.1 is the namespace's own
loopback, so a phone reaches the server only by the laptop's LAN address (the one the server
prints as "On a phone", `server.core.addresses.lan_addresses`), as a phone on the Wi-Fi does.
The organiser's browser stays on this machine, at 127.0.0.1. A phone opens a table only by the
QR code decoded (`zbarimg`, Debian's zbar-tools) from what the organiser's page printed or showed.

Without root or iproute2 the tests that need this world are skipped, with the reason.
"""

from __future__ import annotations

import itertools
import os
import shutil
import stat
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from e2e.steps import CHROMIUM

ZBARIMG = "/usr/bin/zbarimg"
_made = itertools.count()


@dataclass
class PhoneNet:
    """A namespace for the phones: its name, the two ends' addresses, and the Chromium wrapper
    that runs inside it."""

    namespace: str
    host_address: str  # this machine's end of the veth pair
    phone_address: str  # the phones' end
    chromium: str  # an executable: `ip netns exec <namespace> /usr/bin/chromium "$@"`

    def run(self, *command: str, timeout: float = 10) -> subprocess.CompletedProcess[str]:
        """Run `command` inside the phones' namespace."""
        return subprocess.run(
            ["ip", "netns", "exec", self.namespace, *command],
            capture_output=True,
            text=True,
            timeout=timeout,
            check=False,
        )

    def can_connect(self, host: str, port: int) -> bool:
        """Whether a TCP connection from inside the namespace to host:port succeeds."""
        probe = f"import socket; socket.create_connection(({host!r}, {port}), 3).close()"
        return self.run(sys.executable, "-c", probe).returncode == 0


def unavailable() -> str:
    """Why this machine cannot make the phones' namespace ("" when it can)."""
    if os.geteuid() != 0:
        return "the phones' network namespace needs root (CI runs as root)"
    if shutil.which("ip") is None:
        return "the phones' network namespace needs iproute2 (`ip`)"
    if not os.path.exists(CHROMIUM):
        return f"no Chromium at {CHROMIUM} (make chromium)"
    if not os.path.exists(ZBARIMG):
        return f"no QR decoder at {ZBARIMG} (make chromium installs zbar-tools)"
    return ""


def _ip(*args: str) -> None:
    subprocess.run(["ip", *args], check=True, capture_output=True, text=True, timeout=10)


def _subnet(seed: int) -> tuple[str, str]:
    """A /30 in 10.213.0.0/16 of this run's own (from the pid): the host's and the phones' end."""
    n = seed % (1 << 14)
    third, fourth = n >> 6, (n & 63) << 2
    return f"10.213.{third}.{fourth + 1}", f"10.213.{third}.{fourth + 2}"


@contextmanager
def phone_net() -> Iterator[PhoneNet]:
    """Make the phones' namespace, its veth pair and the Chromium wrapper; remove them after
    (the veth pair goes with the namespace)."""
    # Unique per run and per use in it (a run's modules each make their own, one after another).
    pid, n = os.getpid(), next(_made)
    tag = f"{pid % 100_000}x{n}"
    namespace, host_end, phone_end = f"dt-phones-{tag}", f"dth{tag}", f"dtp{tag}"
    host_address, phone_address = _subnet(pid * 16 + n)
    folder = Path(tempfile.mkdtemp(prefix="dt-phones-"))
    wrapper = folder / "chromium-in-phones"
    wrapper.write_text(f'#!/bin/sh\nexec ip netns exec {namespace} {CHROMIUM} "$@"\n')
    wrapper.chmod(wrapper.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
    try:
        _ip("netns", "add", namespace)
        _ip("link", "add", host_end, "type", "veth", "peer", "name", phone_end)
        _ip("link", "set", phone_end, "netns", namespace)
        inside = ("netns", "exec", namespace, "ip")
        # No IPv6 link-local address on either end: the kernel adds one a second or two after
        # the link is up (duplicate address detection), and Chromium aborts the loads in flight
        # at any address change (net::ERR_NETWORK_CHANGED), the phones' first page among them.
        _ip("link", "set", host_end, "addrgenmode", "none")
        _ip(*inside, "link", "set", phone_end, "addrgenmode", "none")
        _ip("addr", "add", f"{host_address}/30", "dev", host_end)
        _ip("link", "set", host_end, "up")
        _ip(*inside, "addr", "add", f"{phone_address}/30", "dev", phone_end)
        _ip(*inside, "link", "set", phone_end, "up")
        _ip(*inside, "link", "set", "lo", "up")
        _ip(*inside, "route", "add", "default", "via", host_address)
        left = subprocess.run(
            ["ip", *inside, "-6", "addr", "show", "dev", phone_end],
            capture_output=True,
            text=True,
            timeout=10,
            check=True,
        ).stdout
        assert not left.strip(), f"an address may still change under the phones: {left}"
        yield PhoneNet(namespace, host_address, phone_address, str(wrapper))
    finally:
        subprocess.run(["ip", "netns", "del", namespace], capture_output=True, check=False)
        subprocess.run(["ip", "link", "del", host_end], capture_output=True, check=False)
        shutil.rmtree(folder, ignore_errors=True)


def decode_qr(png: bytes) -> str:
    """What a QR code in a PNG says, read by a real decoder (zbarimg)."""
    with tempfile.NamedTemporaryFile(suffix=".png") as image:
        image.write(png)
        image.flush()
        done = subprocess.run(
            [ZBARIMG, "--raw", "-q", image.name], capture_output=True, text=True, timeout=20
        )
    if done.returncode != 0:
        raise AssertionError(f"no QR code found by zbarimg (exit {done.returncode})")
    found = [line for line in done.stdout.splitlines() if line.strip()]
    assert len(found) == 1, found
    return found[0].strip()
