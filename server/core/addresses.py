"""The addresses a phone can open: this machine's LAN addresses, and the one base URL every
public address is made from (`public_base`: `PUBLIC_URL`, else the LAN address when the page was
opened on a loopback address). Table cards and their QR codes, invites, the hall's link and QR
code to the players' page all come from it, so none prints 127.0.0.1.

Standard library only: `server/gunicorn_conf.py` loads this file by its path in gunicorn's
master to print the addresses as the server starts, before any of the app is imported.
"""

from __future__ import annotations

import ipaddress
import socket
import time
from urllib.parse import urlsplit

LOOPBACK_NAMES = {"localhost", "localhost.localdomain", "ip6-localhost"}


def is_loopback(host: str) -> bool:
    """Whether `host` (a name or an address, IPv6 with or without brackets) is this machine
    only: 127.0.0.0/8, ::1, localhost."""
    name = host.strip().strip("[]").lower()
    if name in LOOPBACK_NAMES or name.endswith(".localhost"):
        return True
    try:
        return ipaddress.ip_address(name).is_loopback
    except ValueError:
        return False


def _usable(address: str) -> bool:
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        return False
    return not (ip.is_loopback or ip.is_link_local or ip.is_unspecified or ip.is_multicast)


# The hall polls its data every second and each answer carries the players' page's address:
# the machine's addresses are looked up again at most every LAN_TTL_S (a laptop that joins the
# club's Wi-Fi after the start is seen within that).
LAN_TTL_S = 10.0
_lan_cache: tuple[float, list[str]] = (float("-inf"), [])
_now = time.monotonic


def lan_addresses() -> list[str]:
    """This machine's IPv4 addresses another device on the network can reach: the one of the
    default route first (a UDP socket's connect picks it and sends nothing), then the host
    name's other addresses. Empty with no network. Kept for LAN_TTL_S."""
    global _lan_cache
    at, known = _lan_cache
    now = _now()
    if now - at < LAN_TTL_S:
        return list(known)
    found = _look_up_lan()
    _lan_cache = (now, found)
    return list(found)


def _look_up_lan() -> list[str]:
    found: list[str] = []
    probe = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    try:
        probe.connect(("192.0.2.1", 9))  # TEST-NET-1: no packet is sent by a UDP connect
        found.append(probe.getsockname()[0])
    except OSError:
        pass
    finally:
        probe.close()
    try:
        infos = socket.getaddrinfo(socket.gethostname(), None, socket.AF_INET)
        found += [str(info[4][0]) for info in infos]
    except OSError:
        pass
    out: list[str] = []
    for address in found:
        if _usable(address) and address not in out:
            out.append(address)
    return out


def listens_beyond_loopback(bind_host: str) -> bool:
    """Whether a server bound to `bind_host` (HOST) answers other devices: not 127.0.0.1."""
    return not is_loopback(bind_host)


def phone_urls(port: int, bind_host: str, public_url: str = "") -> list[str]:
    """The base URLs a phone can open: PUBLIC_URL when set, then http://<LAN address>:<port>
    for each LAN address when the server listens beyond loopback."""
    urls = [public_url.rstrip("/")] if public_url else []
    if listens_beyond_loopback(bind_host):
        specific = bind_host not in ("", "0.0.0.0", "::")
        hosts = [bind_host] if specific else lan_addresses()
        urls += [f"http://{host}:{port}" for host in hosts]
    return urls


def public_base(page_url: str, bind_host: str, public_url: str = "") -> tuple[str, str]:
    """The base URL every printed or shown address carries (cards, QR codes, invites, the hall's
    link) and where it came from: ("<PUBLIC_URL>", "public_url");
    for a page opened on a loopback address of a server that listens beyond it, the LAN
    address on the page's port ("http://192.168.1.20:8000", "lan"); else the page's own
    (`page_url`, "page")."""
    if public_url:
        return public_url.rstrip("/"), "public_url"
    page = urlsplit(page_url)
    host = page.hostname or ""
    if is_loopback(host) and listens_beyond_loopback(bind_host):
        specific = bind_host not in ("", "0.0.0.0", "::")
        lan = [bind_host] if specific else lan_addresses()
        if lan:
            port = page.port or (443 if page.scheme == "https" else 80)
            return f"{page.scheme}://{lan[0]}:{port}", "lan"
    return page_url.rstrip("/"), "page"


def reaches_phones(base: str) -> bool:
    """Whether a phone can open an address made from `base` (not this machine's loopback)."""
    return not is_loopback(urlsplit(base).hostname or "")


def banner(port: int, bind_host: str, public_url: str = "") -> str:
    """What the server prints as it starts: where to open it on this machine and on a phone."""
    here = bind_host if bind_host not in ("", "0.0.0.0", "::") else "127.0.0.1"
    lines = ["Duel Table is running.", f"  On this computer:  http://{here}:{port}"]
    phones = phone_urls(port, bind_host, public_url)
    if phones:
        lines += [f"  On a phone:        {url}" for url in phones]
        lines.append("  (the phone on the same Wi-Fi as this computer)")
    else:
        lines.append(
            f"  Phones cannot reach it: it listens on {bind_host} only (HOST=0.0.0.0 to open it)."
        )
    return "\n".join(lines)
