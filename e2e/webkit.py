"""WebKit, the iPhone's engine, in the tests: Debian's WebKitGTK (its MiniBrowser) driven through
its WebDriver (`webkit2gtk-driver`) with Selenium, on an Xvfb display of its own.

Each phone is one MiniBrowser at 390x844 behind a proxy of its own in front of the live server:
the proxy puts the page-error collector (`/__errs.js`) first in every page's <head>, before
the app's scripts, and can cut the phone's network for a few seconds (every connection dropped,
new ones refused), as a phone losing the club's Wi-Fi does. `make chromium` installs the
packages (root, as CI is); elsewhere the tests that need them are skipped, naming what is
missing. docs/decisions.md says what WebKitGTK shares with iOS Safari and what it does not.

A phone may also be another device on the club's Wi-Fi (`World.phone(lan, net=...)`, with
e2e/hall_world.py's namespace): its WebKitWebDriver and MiniBrowser run inside the phones'
network namespace, the driver listening on the namespace's end of the veth pair (Selenium on
this machine reaches it there), and the proxy is the browser's HTTP proxy on the namespace's
own 127.0.0.1, whose sockets to the server are made inside the namespace too: the phone opens
the address as printed, and 127.0.0.1 there is not the server.
"""

from __future__ import annotations

import copy
import ctypes
import glob
import json
import os
import select
import shutil
import signal
import socket
import subprocess
import tempfile
import threading
import time
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

if TYPE_CHECKING:
    from e2e.hall_world import PhoneNet

WEBDRIVER = "/usr/bin/WebKitWebDriver"
MINIBROWSER_GLOB = "/usr/lib/*/webkit2gtk-4.1/MiniBrowser"
PACKAGES = "webkit2gtk-driver xvfb libgl1-mesa-dri xauth"
WIDTH, HEIGHT = 390, 844
WAIT = 15.0  # seconds: what a step waits for the page before it fails
ANSWER = 20  # seconds: what one WebDriver command may take (a hung page never answers)

# The page-error collector: uncaught errors (a script's or a resource's), unhandled promise
# rejections, CSP violations and console.error, kept in sessionStorage so that they outlive a
# reload; the test reads them back (WebDriver BiDi and console logs are not available here).
ERRS_JS = r"""(() => {
  const KEY = "__errs";
  const push = (text) => {
    try {
      const seen = JSON.parse(sessionStorage.getItem(KEY) || "[]");
      seen.push(`${String(text).slice(0, 400)} @ ${location.pathname}`);
      sessionStorage.setItem(KEY, JSON.stringify(seen));
    } catch (e) { /* storage full or blocked: nothing to keep it in */ }
  };
  addEventListener("error", (e) => {
    if (e.target && e.target !== window) {
      push(`resource: ${e.target.tagName} ${e.target.src || e.target.href || ""}`);
    } else {
      push(`error: ${e.message} (${e.filename}:${e.lineno})`);
    }
  }, true);
  addEventListener("unhandledrejection", (e) => {
    const r = e.reason;
    push(`unhandledrejection: ${(r && (r.stack || r.message)) || r}`);
  });
  document.addEventListener("securitypolicyviolation", (e) => {
    push(`csp: ${e.violatedDirective} ${e.blockedURI}`);
  });
  const original = console.error;
  console.error = function (...args) {
    push(`console.error: ${args.map((a) => (a && a.stack) || String(a)).join(" ")}`);
    return original.apply(this, args);
  };
})();
"""
ERRS_TAG = b'<script src="/__errs.js"></script>'

# MiniBrowser's toolbar keeps its window at 447 px or more; smaller buttons and entries let it
# be 390 px wide, as a phone is.
GTK_CSS = """
toolbar, toolbar * { min-height: 0; min-width: 0; padding: 0; margin: 0; font-size: 6px; }
entry { min-width: 0; min-height: 0; padding: 0; font-size: 6px; }
button { min-width: 0; min-height: 0; padding: 0; }
"""


T = TypeVar("T")
CLONE_NEWNET = 0x40000000


def in_namespace(namespace: str, make: Callable[[], T]) -> T:
    """`make()` run on a thread of its own that joined the network namespace first: a socket it
    makes belongs to that namespace for good (setns moves one thread only, and that thread
    ends here)."""
    found: dict[str, Any] = {}

    def run() -> None:
        try:
            libc = ctypes.CDLL(None, use_errno=True)
            fd = os.open(f"/run/netns/{namespace}", os.O_RDONLY)
            try:
                if libc.setns(fd, CLONE_NEWNET) != 0:
                    err = ctypes.get_errno()
                    raise OSError(err, f"setns {namespace}: {os.strerror(err)}")
            finally:
                os.close(fd)
            found["value"] = make()
        except BaseException as err:  # noqa: BLE001 - raised again on the caller's thread
            found["error"] = err

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    thread.join()
    if "error" in found:
        raise found["error"]
    return found["value"]


def minibrowser() -> str:
    """The MiniBrowser of the installed WebKitGTK, or ''."""
    found = sorted(glob.glob(MINIBROWSER_GLOB))
    return found[0] if found else ""


def missing() -> str:
    """What of WebKitGTK, its driver, Xvfb or Selenium this machine lacks ('' when none)."""
    lacks = [
        name
        for name, ok in (
            (WEBDRIVER, os.access(WEBDRIVER, os.X_OK)),
            ("MiniBrowser (webkit2gtk)", bool(minibrowser())),
            ("Xvfb", bool(shutil.which("Xvfb"))),
        )
        if not ok
    ]
    try:
        import selenium  # noqa: F401
    except ImportError:
        lacks.append("selenium (make install)")
    if lacks:
        return f"{', '.join(lacks)} missing: `make chromium` as root installs {PACKAGES}"
    return ""


class Display:
    """An Xvfb display of its own: the server picks a free number and writes it to a pipe."""

    def __init__(self) -> None:
        read, write = os.pipe()
        self.process = subprocess.Popen(
            ["Xvfb", "-displayfd", str(write), "-screen", "0", "1280x1024x24", "-nolisten", "tcp"],
            pass_fds=(write,),
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        os.close(write)
        number = b""
        deadline = time.monotonic() + 20
        while not number.endswith(b"\n") and time.monotonic() < deadline:
            ready, _, _ = select.select([read], [], [], 1)
            if ready:
                chunk = os.read(read, 16)
                if not chunk:
                    break
                number += chunk
        os.close(read)
        if not number.strip():
            self.stop()
            raise RuntimeError("Xvfb did not start")
        self.name = f":{number.decode().strip()}"

    def stop(self) -> None:
        self.process.terminate()
        try:
            self.process.wait(timeout=5)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()


class PhoneProxy:
    """One phone's way to the server: HTTP passed on with the error collector put in each page,
    websockets piped through as they are, and a cut of the phone's network on demand.

    With a `namespace` it is the phone's HTTP proxy inside that network namespace: it listens
    on the namespace's 127.0.0.1, and passes each request on to the host it names (the address
    the page was opened at), connecting from inside the namespace as the phone would."""

    def __init__(self, upstream: str, namespace: str = "") -> None:
        host, _, port = upstream.removeprefix("http://").partition(":")
        self.upstream = (host, int(port))
        self.namespace = namespace
        self.listener = self._socket(lambda: socket.create_server(("127.0.0.1", 0)))
        self.port = self.listener.getsockname()[1]
        self.url = f"http://127.0.0.1:{self.port}"
        self.down_until = 0.0
        self.live: set[socket.socket] = set()
        self.lock = threading.Lock()
        self.closed = False
        threading.Thread(target=self._accept, daemon=True).start()

    # --- the network cut ------------------------------------------------------------------

    def cut(self, seconds: float) -> None:
        """Drop every connection of this phone now and refuse new ones for `seconds`."""
        self.down_until = time.monotonic() + seconds
        with self.lock:
            for sock in list(self.live):
                self._close(sock)

    @property
    def down(self) -> bool:
        return time.monotonic() < self.down_until

    def close(self) -> None:
        self.closed = True
        self.listener.close()
        with self.lock:
            for sock in list(self.live):
                self._close(sock)

    # --- passing on ------------------------------------------------------------------------

    def _socket(self, make: Callable[[], socket.socket]) -> socket.socket:
        """A socket on this machine, or inside the phone's namespace."""
        return in_namespace(self.namespace, make) if self.namespace else make()

    def _close(self, sock: socket.socket) -> None:
        self.live.discard(sock)
        try:
            sock.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
        sock.close()

    def _accept(self) -> None:
        while not self.closed:
            try:
                client, _ = self.listener.accept()
            except OSError:
                return
            if self.down:
                client.close()  # no network: the connection goes nowhere
                continue
            threading.Thread(target=self._serve, args=(client,), daemon=True).start()

    def _serve(self, client: socket.socket) -> None:
        with self.lock:
            self.live.add(client)
        try:
            head = self._read_head(client)
            if not head:
                return
            head, target = self._target(head)
            if head.startswith(b"CONNECT "):
                server = self._upstream(target)
                client.sendall(b"HTTP/1.1 200 Connection established\r\n\r\n")
                self._pipe(client, b"", server)
            elif b"\r\nupgrade: websocket" in head.lower():
                self._pipe(client, head, self._upstream(target))
            else:
                self._http(client, head, target)
        except (OSError, ValueError):
            # A cut closes this phone's sockets under the thread passing them on: select()
            # then meets a closed socket (ValueError, its descriptor is -1), recv an OSError.
            pass
        finally:
            with self.lock:
                self._close(client)

    @staticmethod
    def _read_head(sock: socket.socket) -> bytes:
        data = b""
        while b"\r\n\r\n" not in data:
            chunk = sock.recv(65536)
            if not chunk:
                return b""
            data += chunk
        return data

    def _target(self, head: bytes) -> tuple[bytes, tuple[str, int]]:
        """Where a request goes, and its head as the server takes it: a proxy's request names
        its host (`GET http://host:port/path`, `CONNECT host:port`), a page's does not."""
        line, sep, rest = head.partition(b"\r\n")
        parts = line.split(b" ")
        if len(parts) == 3 and parts[0] == b"CONNECT":
            host, _, port = parts[1].decode().rpartition(":")
            return head, (host, int(port))
        if len(parts) == 3 and parts[1].startswith(b"http://"):
            where, slash, path = parts[1][len(b"http://") :].partition(b"/")
            host, _, port = where.decode().partition(":")
            kept = [
                x for x in rest.split(b"\r\n") if not x.lower().startswith(b"proxy-connection:")
            ]
            line = b" ".join([parts[0], b"/" + path if slash else b"/", parts[2]])
            return line + sep + b"\r\n".join(kept), (host, int(port or 80))
        return head, self.upstream

    def _upstream(self, target: tuple[str, int]) -> socket.socket:
        sock = self._socket(lambda: socket.create_connection(target, timeout=30))
        with self.lock:
            self.live.add(sock)
        return sock

    def _pipe(self, client: socket.socket, head: bytes, server: socket.socket) -> None:
        try:
            if head:
                server.sendall(head)
            pair = {client: server, server: client}
            while True:
                ready, _, _ = select.select(list(pair), [], [], 1)
                if self.down and ready == []:
                    return
                for sock in ready:
                    chunk = sock.recv(65536)
                    if not chunk:
                        return
                    pair[sock].sendall(chunk)
        finally:
            with self.lock:
                self._close(server)

    def _http(self, client: socket.socket, head: bytes, target: tuple[str, int]) -> None:
        top, _, rest = head.partition(b"\r\n\r\n")
        lines = top.split(b"\r\n")
        path = lines[0].split(b" ")[1] if len(lines[0].split(b" ")) > 1 else b"/"
        if path.split(b"?")[0] == b"/__errs.js":
            body = ERRS_JS.encode()
            client.sendall(
                b"HTTP/1.1 200 OK\r\nContent-Type: text/javascript; charset=utf-8\r\n"
                b"Cache-Control: no-store\r\nContent-Length: %d\r\nConnection: close\r\n\r\n"
                % len(body)
                + body
            )
            return
        length = 0
        kept = [lines[0]]
        for line in lines[1:]:
            name = line.split(b":", 1)[0].strip().lower()
            if name == b"content-length":
                length = int(line.split(b":", 1)[1])
            # One request per connection, and the page's bytes as they are (to put the
            # collector in): no keep-alive, no compression.
            if name in (b"connection", b"accept-encoding", b"keep-alive"):
                continue
            kept.append(line)
        kept.append(b"Connection: close")
        body = rest
        while len(body) < length:
            chunk = client.recv(65536)
            if not chunk:
                break
            body += chunk
        try:
            server = self._upstream(target)
        except OSError as err:  # nothing answers there: what a browser says of it
            client.sendall(
                b"HTTP/1.1 502 Bad Gateway\r\nContent-Type: text/plain\r\nConnection: close\r\n"
                b"\r\n" + f"Could not connect to {target[0]}: {err.strerror}".encode()
            )
            return
        try:
            server.sendall(b"\r\n".join(kept) + b"\r\n\r\n" + body)
            answer = b""
            while True:
                chunk = server.recv(65536)
                if not chunk:
                    break
                answer += chunk
        finally:
            with self.lock:
                self._close(server)
        client.sendall(self._with_collector(answer))

    @staticmethod
    def _dechunk(body: bytes) -> bytes:
        """A chunked body's bytes, joined."""
        out, rest = b"", body
        while rest:
            size_line, _, rest = rest.partition(b"\r\n")
            size = int(size_line.split(b";")[0] or b"0", 16)
            if size == 0:
                break
            out += rest[:size]
            rest = rest[size + 2 :]
        return out

    @staticmethod
    def _with_collector(answer: bytes) -> bytes:
        """The server's answer, a page's with the collector first in its <head>."""
        top, sep, body = answer.partition(b"\r\n\r\n")
        if not sep or b"content-type: text/html" not in top.lower():
            return answer
        if b"transfer-encoding: chunked" in top.lower():
            body = PhoneProxy._dechunk(body)
        if b"<head>" not in body:
            return answer
        body = body.replace(b"<head>", b"<head>" + ERRS_TAG, 1)
        lines = [
            line
            for line in top.split(b"\r\n")
            if not line.lower().startswith((b"content-length:", b"transfer-encoding:"))
        ]
        lines.append(b"Content-Length: %d" % len(body))
        return b"\r\n".join(lines) + b"\r\n\r\n" + body


class Phone:
    """One WebKit phone: a MiniBrowser session at 390x844 behind its own proxy. Steps find
    their elements again each time (the app redraws its panels) and wait up to WAIT seconds."""

    def __init__(
        self, display: str, config: Path, server: str, net: PhoneNet | None = None
    ) -> None:
        from selenium import webdriver
        from selenium.webdriver.common.proxy import Proxy, ProxyType
        from selenium.webdriver.webkitgtk.options import Options
        from selenium.webdriver.webkitgtk.service import Service

        self.proxy = PhoneProxy(server, net.namespace if net else "")
        # In the namespace pages are opened at the server's own (LAN) address, through the
        # proxy; on this machine at the proxy's.
        self.url = server.rstrip("/") if net else self.proxy.url
        self.scope = ""  # a CSS selector every step looks inside ("": the whole page)
        options = Options()
        options.binary_location = minibrowser()
        options.add_argument("--automation")
        env = {**os.environ, "DISPLAY": display, "XDG_CONFIG_HOME": str(config)}
        env.pop("WAYLAND_DISPLAY", None)
        if net is None:
            # A process group of its own: the driver, its MiniBrowser and WebKit's processes
            # end together, even when a page hangs and the driver no longer answers.
            service = Service(WEBDRIVER, env=env, popen_kw={"start_new_session": True})
            with warnings.catch_warnings():
                # Selenium's WebKitGTK driver hands its address on the way Selenium deprecates.
                warnings.simplefilter("ignore", DeprecationWarning)
                self.driver = webdriver.WebKitGTK(options=options, service=service)
            self.group = service.process.pid
            self.process: subprocess.Popen[bytes] | None = None
        else:
            options.proxy = Proxy(
                {"proxyType": ProxyType.MANUAL, "httpProxy": f"127.0.0.1:{self.proxy.port}"}
            )
            self.driver, self.process = _driver_in(net, env, options)
            self.group = self.process.pid
        # A command that has no answer in this time means the page hangs: fail, do not wait on.
        self.driver.command_executor._client_config.timeout = ANSWER
        self.driver.set_script_timeout(WAIT)
        self.driver.set_page_load_timeout(30)
        self.size(WIDTH, HEIGHT)

    def size(self, width: int, height: int) -> None:
        """Give the page exactly width x height (the window is grown by its toolbar)."""
        self.driver.set_window_size(width, height)
        for _ in range(3):
            inner = self.driver.execute_script("return [innerWidth, innerHeight]")
            dw, dh = width - inner[0], height - inner[1]
            if dw == 0 and dh == 0:
                return
            now = self.driver.get_window_size()
            self.driver.set_window_size(now["width"] + dw, now["height"] + dh)

    def half(self, seat: str) -> Phone:
        """The same phone, its steps inside one seat's half of the one-phone table."""
        view = copy.copy(self)
        view.scope = f"[data-testid='duo-{seat}']"
        return view

    def _all(self, testid: str) -> str:
        """The CSS selector of every element with that test id inside the scope."""
        return f"{self.scope} [data-testid='{testid}']".strip()

    def quit(self) -> None:
        """End the browser and its driver (their process group, whatever the page does)."""
        try:
            self.driver.quit()
        except Exception:  # noqa: BLE001 - a hung page: its processes are ended below
            pass
        finally:
            self.proxy.close()
            try:
                os.killpg(self.group, signal.SIGKILL)
            except ProcessLookupError:
                pass
            if self.process is not None:
                self.process.wait()

    # --- pages -------------------------------------------------------------------------------

    def go(self, path: str) -> None:
        self.driver.get(self.url + path)

    def open(self, url: str) -> None:
        """Open an address exactly as given (a decoded QR code's)."""
        self.driver.get(url)

    def reload(self) -> None:
        self.driver.refresh()

    def js(self, script: str, *args: Any) -> Any:
        return self.driver.execute_script(script, *args)

    def errors(self) -> list[str]:
        """What the collector kept in this tab since it was cleared."""
        raw = self.js("return sessionStorage.getItem('__errs') || '[]'")
        return list(json.loads(raw))

    def collector_in_place(self) -> bool:
        """Whether the page's first script is the collector (it runs before the app's)."""
        return bool(
            self.js(
                "const s = document.querySelector('head > script');"
                "return !!s && s.getAttribute('src') === '/__errs.js';"
            )
        )

    # --- waiting and acting ------------------------------------------------------------------

    def until(self, what: Callable[[], Any], why: str, timeout: float = WAIT) -> Any:
        """Wait until what() is truthy (errors of a redrawn element count as not yet)."""
        from selenium.common.exceptions import StaleElementReferenceException, WebDriverException

        deadline = time.monotonic() + timeout
        last: Exception | None = None
        while True:
            try:
                value = what()
                if value:
                    return value
            except (StaleElementReferenceException, WebDriverException) as err:
                last = err
            if time.monotonic() > deadline:
                raise AssertionError(f"{why} (after {timeout:g} s){f': {last}' if last else ''}")
            time.sleep(0.1)

    def attr(self, testid: str, name: str) -> str | None:
        """An attribute of the first element with that test id (None: no such element)."""
        return self.js(
            "const e = document.querySelector(arguments[0]);"
            "return e ? e.getAttribute(arguments[1]) : null;",
            self._all(testid),
            name,
        )

    def text(self, testid: str) -> str:
        """The text of the first element with that test id ('' when there is none)."""
        return (
            self.js(
                "const e = document.querySelector(arguments[0]); return e ? e.textContent : null;",
                self._all(testid),
            )
            or ""
        )

    def count(self, testid: str) -> int:
        return int(
            self.js("return document.querySelectorAll(arguments[0]).length", self._all(testid))
        )

    def visible(self, testid: str, within: str = "") -> Any:
        """The first shown element with that test id (inside `within`'s test id), or None."""
        from selenium.webdriver.common.by import By

        css = f"[data-testid='{testid}']"
        if within:
            css = f"[data-testid='{within}'] {css}"
        css = f"{self.scope} {css}".strip()
        for el in self.driver.find_elements(By.CSS_SELECTOR, css):
            if el.is_displayed():
                return el
        return None

    def tap(self, testid: str, within: str = "") -> None:
        """Click the shown element with that test id once it is shown and enabled."""

        def done() -> bool:
            el = self.visible(testid, within)
            if el is None or not el.is_enabled():
                return False
            self.js("arguments[0].scrollIntoView({block: 'center'})", el)
            el.click()
            return True

        self.until(done, f"tap {testid}")

    def fill(self, testid: str, text: str, within: str = "") -> None:
        def done() -> bool:
            el = self.visible(testid, within)
            if el is None:
                return False
            el.clear()
            el.send_keys(text)
            return el.get_attribute("value") == text

        self.until(done, f"fill {testid}")

    def choose(self, testid: str, value: str) -> None:
        """Pick an option of a select (GTK's pop-up is not driven: set it and say so)."""
        self.until(
            lambda: self.js(
                "const e = [...document.querySelectorAll(arguments[0])]"
                "  .find((x) => x.getClientRects().length);"
                "if (!e) return false;"
                "e.value = arguments[1];"
                "e.dispatchEvent(new Event('input', {bubbles: true}));"
                "e.dispatchEvent(new Event('change', {bubbles: true}));"
                "return true;",
                self._all(testid),
                value,
            ),
            f"choose {value} in {testid}",
        )

    def wait_attr(self, testid: str, name: str, value: str, timeout: float = WAIT) -> None:
        self.until(
            lambda: self.attr(testid, name) == value,
            f"{testid}[{name}] = {value!r}, is {self.attr(testid, name)!r}",
            timeout,
        )

    def wait_text(self, testid: str, part: str, timeout: float = WAIT) -> None:
        self.until(lambda: part in self.text(testid), f"{testid} says {part!r}", timeout)

    def wait_count(self, testid: str, n: int, timeout: float = WAIT) -> None:
        self.until(lambda: self.count(testid) == n, f"{n} x {testid}", timeout)


def _driver_in(
    net: PhoneNet, env: dict[str, str], options: Any
) -> tuple[Any, subprocess.Popen[bytes]]:
    """WebKitWebDriver (and so its MiniBrowser) started inside the phones' namespace,
    listening on the namespace's end of the veth pair, and a Selenium session on it from this
    machine; with the driver's process group, to end it whatever the page does."""
    from selenium import webdriver

    probe = in_namespace(net.namespace, lambda: socket.create_server((net.phone_address, 0)))
    port = probe.getsockname()[1]
    probe.close()
    command = ["ip", "netns", "exec", net.namespace, WEBDRIVER]
    command += [f"--host={net.phone_address}", f"--port={port}"]
    process = subprocess.Popen(
        command,
        env=env,
        start_new_session=True,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    address = f"http://{net.phone_address}:{port}"
    deadline = time.monotonic() + 10
    while True:
        try:
            socket.create_connection((net.phone_address, port), timeout=1).close()
            break
        except OSError:
            if process.poll() is not None or time.monotonic() > deadline:
                os.killpg(process.pid, signal.SIGKILL)
                process.wait()
                raise RuntimeError(f"WebKitWebDriver in {net.namespace} did not listen") from None
            time.sleep(0.05)
    try:
        with warnings.catch_warnings():
            # Selenium deprecates handing the address this way, the simplest there is.
            warnings.simplefilter("ignore", DeprecationWarning)
            return webdriver.Remote(command_executor=address, options=options), process
    except Exception:
        os.killpg(process.pid, signal.SIGKILL)
        process.wait()
        raise


class World:
    """The display, the MiniBrowsers' GTK settings and the phones made on them."""

    def __init__(self) -> None:
        self.display = Display()
        self.config = Path(tempfile.mkdtemp(prefix="dt-webkit-"))
        (self.config / "gtk-3.0").mkdir()
        (self.config / "gtk-3.0" / "gtk.css").write_text(GTK_CSS, encoding="utf-8")
        self.phones: list[Phone] = []

    def phone(self, server: str, net: PhoneNet | None = None) -> Phone:
        """A phone on this machine, or (with `net`) inside the phones' namespace, opening
        `server` (there: the LAN address)."""
        made = Phone(self.display.name, self.config, server, net)
        self.phones.append(made)
        return made

    def close(self) -> None:
        for phone in self.phones:
            try:
                phone.quit()
            except Exception:  # noqa: BLE001 - a phone that is gone already
                pass
        self.display.stop()
        shutil.rmtree(self.config, ignore_errors=True)


# --- a table's steps (e2e/steps.py's, for WebDriver) ------------------------------------------


def take_seat(p: Phone, seat: str, name: str) -> None:
    p.fill("name-input", name)
    p.tap(f"take-seat-{seat}")
    p.wait_text("role", seat)
    p.wait_attr("conn-status", "data-status", "online")


def seat_both(a: Phone, b: Phone) -> str:
    """Phone A makes a table on its home screen and takes A; B types the code and takes B."""
    a.go("/")
    a.tap("new-table")
    a.wait_count("join-screen", 1)
    code = a.text("table-code").strip()
    take_seat(a, "A", "Yugi")
    b.go("/")
    b.fill("join-code", code)
    b.tap("join-go")
    b.wait_count("join-screen", 1)
    take_seat(b, "B", "Kaiba")
    a.wait_text("name-B", "Kaiba")
    return code


def phase(p: Phone, name: str, timeout: float = 10) -> None:
    p.wait_attr("phase", "data-phase", name, timeout)


def start_duel(a: Phone, b: Phone) -> None:
    """Decks declared and confirmed, the checklist, rock-paper-scissors won by A, A goes
    first, both drew five: duel 1 is on."""
    for p in (a, b):
        p.fill("deck-main", "40")
        p.fill("deck-extra", "15")
        p.fill("deck-side", "15")
        if p is b:
            p.wait_text("deck-declare", "40")
        p.tap("deck-declare")
    a.tap("confirm-deck")
    for p in (a, b):
        phase(p, "pregame")
    for p in (a, b):
        p.tap("checks-all-done")
    for p in (a, b):
        p.wait_count("checks-all-done", 0)
    a.tap("rps-report-me")
    b.tap("rps-confirm")
    a.tap("choose-first")
    for p in (a, b):
        p.tap("draw-5")
    for p in (a, b):
        phase(p, "duel")


def keypad(p: Phone, amount: int, kind: str = "damage", target: str = "opp") -> None:
    p.tap(f"keypad-target-{target}")
    p.tap(f"keypad-kind-{kind}")
    p.tap("keypad-clear")
    for digit in str(amount):
        p.tap(f"keypad-digit-{digit}")
    p.tap("propose")


def confirm_entry(p: Phone) -> None:
    """Confirm the first entry waiting on this phone; wait until its banner goes."""
    entry = p.until(lambda: p.attr("confirm-banner", "data-entry"), "a banner to confirm")
    p.tap("confirm-entry", within="confirm-banner")
    p.until(lambda: p.attr("confirm-banner", "data-entry") != entry, f"entry {entry} confirmed")


def lp(p: Phone, seat: str) -> str:
    return p.text(f"lp-{seat}").strip()


def wait_lp(p: Phone, seat: str, value: str) -> None:
    p.until(lambda: lp(p, seat) == value, f"LP {seat} = {value}, is {lp(p, seat)!r}")
