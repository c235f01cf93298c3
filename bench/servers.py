"""Start and stop the servers the bench measures: gunicorn with the project's configuration."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
import uuid
from dataclasses import dataclass, field
from pathlib import Path

from . import procstat

ROOT = Path(__file__).resolve().parent.parent
GUNICORN_CONF = ROOT / "server" / "gunicorn_conf.py"
POSTGRES_ADMIN_URL = "postgresql://postgres@127.0.0.1:5432/test"
REDIS_URL = "redis://127.0.0.1:6379/0"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@dataclass
class Server:
    name: str
    port: int
    proc: subprocess.Popen
    log_path: Path
    env: dict[str, str] = field(default_factory=dict)
    root: Path = ROOT  # the checkout whose code it runs (its cwd and first PYTHONPATH entry)
    code_file: str = ""  # `server.__file__` as the server imports it (`check_code`)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def worker_pids(self) -> list[int]:
        return procstat.children(self.proc.pid)

    def all_pids(self) -> list[int]:
        return procstat.tree(self.proc.pid)

    def stop(self, timeout: float = 15.0) -> None:
        """SIGTERM the gunicorn master we started, then SIGKILL its tree if it lingers."""
        if self.proc.poll() is not None:
            return
        pids = self.all_pids()
        self.proc.send_signal(signal.SIGTERM)
        try:
            self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            for pid in pids:
                try:
                    os.kill(pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
            self.proc.wait(5)


def code_path(root: Path, environ: dict[str, str]) -> str:
    """PYTHONPATH for a server running the code of checkout `root`: `root` first, and no entry
    naming this checkout when `root` is another one (a baseline's worktree)."""
    kept = [
        entry
        for entry in environ.get("PYTHONPATH", "").split(os.pathsep)
        if entry and (root == ROOT or Path(entry).resolve() != ROOT)
    ]
    return os.pathsep.join([str(root), *(e for e in kept if Path(e).resolve() != root)])


def cpu_split() -> tuple[set[int], set[int]] | None:
    """(the server's CPUs, the clients' CPUs) when this process may run on two or more: the
    server on the first, its load on the rest, so the clients' work never waits behind the
    server's (or inflates its latency). None on one CPU."""
    cpus = sorted(os.sched_getaffinity(0))
    if len(cpus) < 2:
        return None
    return {cpus[0]}, set(cpus[1:])


def start_gunicorn(
    name: str,
    app_spec: str,
    run_dir: Path,
    env_extra: dict[str, str] | None = None,
    conf: Path = GUNICORN_CONF,
    root: Path = ROOT,
    drop: tuple[str, ...] = (),
    cpus: set[int] | None = None,
) -> Server:
    """One gunicorn master with one gevent worker on a free loopback port, running the code of
    checkout `root` (this one, or a baseline's worktree: its cwd and first PYTHONPATH entry,
    and its own gunicorn settings unless `conf` names others). `drop`: variables of this
    process's environment the server must not inherit. `cpus`: the CPUs it may run on."""
    port = free_port()
    if conf == GUNICORN_CONF:
        conf = root / "server" / "gunicorn_conf.py"
    data_dir = run_dir / f"data-{name}"
    env = {k: v for k, v in os.environ.items() if k not in drop}
    env["PYTHONPATH"] = code_path(root, env)
    env.update(
        {
            "HOST": "127.0.0.1",
            "PORT": str(port),
            "WEB_CONCURRENCY": "1",
            "DATA_DIR": str(data_dir),
            "KEY_DIR": str(data_dir / "keys"),
            "ACCESS_LOG": "",
            "LOG_LEVEL": "warning",
            # One address opens every table of the bench: lift the per-address HTTP limit.
            "HTTP_RATE_PER_MINUTE": "100000000",
            "HTTP_RATE_BURST": "100000000",
            "CASUAL_TABLES_PER_ADDRESS_PER_HOUR": "0",
            "SEAT_REQUESTS_PER_ADDRESS_PER_MINUTE": "0",
            "PYTHONUNBUFFERED": "1",
        }
    )
    env.update(env_extra or {})
    Path(env["DATA_DIR"]).mkdir(parents=True, exist_ok=True)
    log_path = run_dir / f"{name}.log"
    command = [
        sys.executable,
        "-m",
        "gunicorn",
        "-c",
        str(conf),
        "-b",
        f"127.0.0.1:{port}",
        "-w",
        "1",
        app_spec,
    ]
    with open(log_path, "ab") as log:
        proc = subprocess.Popen(
            command,
            cwd=root,
            env=env,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    if cpus:
        # Set on the master as it starts, before it forks its worker: the worker inherits it.
        os.sched_setaffinity(proc.pid, cpus)
    return Server(name, port, proc, log_path, env, root)


def check_code(server: Server) -> str:
    """Make sure the server runs the code of `server.root`: its worker's cwd and PYTHONPATH
    (read from /proc), and where `server` is imported from with that cwd and environment.
    Returns that path; raises RuntimeError if any of them points elsewhere."""
    root = server.root.resolve()
    found = subprocess.run(
        [sys.executable, "-c", "import server; print(server.__file__)"],
        cwd=server.root,
        env=server.env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    imported = Path(found.stdout.strip() or "?").resolve()
    problems = []
    if imported.parent.parent != root:
        problems.append(f"server imported from {imported} ({found.stderr.strip()[-200:]})")
    workers = server.worker_pids()
    if not workers:
        problems.append("no worker process")
    for pid in workers:
        try:
            cwd = Path(os.readlink(f"/proc/{pid}/cwd")).resolve()
            environ = Path(f"/proc/{pid}/environ").read_bytes().split(b"\0")
        except OSError as exc:
            problems.append(f"worker {pid}: {exc}")
            continue
        paths = [e[len(b"PYTHONPATH=") :].decode() for e in environ if e.startswith(b"PYTHONPATH=")]
        first = paths[0].split(os.pathsep)[0] if paths else ""
        if cwd != root:
            problems.append(f"worker {pid} runs in {cwd}")
        if not first or Path(first).resolve() != root:
            problems.append(f"worker {pid} has PYTHONPATH {paths[0] if paths else '(none)'}")
    if problems:
        raise RuntimeError(f"{server.name} does not run the code of {root}: {'; '.join(problems)}")
    return str(imported)


def wait_ready(server: Server, path: str, timeout: float = 60.0) -> None:
    """Poll `path` until the server answers anything but a connection error."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if server.proc.poll() is not None:
            raise RuntimeError(f"{server.name} exited; see {server.log_path}")
        try:
            with urllib.request.urlopen(server.url + path, timeout=2):
                return
        except urllib.error.HTTPError:
            return
        except OSError:
            time.sleep(0.2)
    raise RuntimeError(f"{server.name} did not answer in {timeout:.0f} s; see {server.log_path}")


def http_status(url: str) -> int:
    """The status of a GET (0 when the server cannot be reached)."""
    try:
        with urllib.request.urlopen(url, timeout=5) as response:
            return response.status
    except urllib.error.HTTPError as exc:
        return exc.code
    except OSError:
        return 0


class PostgresDatabase:
    """A fresh database for one run, dropped afterwards."""

    def __init__(self, admin_url: str = POSTGRES_ADMIN_URL) -> None:
        self.admin_url = admin_url
        self.name = f"duelbench_{os.getpid()}_{uuid.uuid4().hex[:6]}"

    @property
    def url(self) -> str:
        base = self.admin_url.rsplit("/", 1)[0]
        return f"{base}/{self.name}"

    def _execute(self, sql: str) -> None:
        import psycopg2

        conn = psycopg2.connect(self.admin_url)
        try:
            conn.autocommit = True
            with conn.cursor() as cur:
                cur.execute(sql)
        finally:
            conn.close()

    def create(self) -> None:
        self._execute(f'CREATE DATABASE "{self.name}"')

    def drop(self) -> None:
        self._execute(f'DROP DATABASE IF EXISTS "{self.name}" WITH (FORCE)')
