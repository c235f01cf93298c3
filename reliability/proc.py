"""The server under test, run as its own process group so SIGKILL takes every worker with it."""

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

ROOT = Path(__file__).resolve().parent.parent
PG_URL = "postgresql://postgres@127.0.0.1:5432/test"


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on right now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def postgres_answers(url: str = PG_URL, timeout: float = 3.0) -> bool:
    """Tell whether PostgreSQL accepts a connection."""
    try:
        import psycopg2

        psycopg2.connect(url, connect_timeout=max(1, int(timeout))).close()
        return True
    except Exception:
        return False


@dataclass
class Backend:
    """Where the server keeps its data: an SQLite file in a fresh directory, or a fresh
    PostgreSQL schema (selected with PGOPTIONS so DATABASE_URL stays the plain URL)."""

    name: str
    data_dir: Path
    database_url: str = ""
    schema: str = ""

    @classmethod
    def make(cls, name: str, workdir: Path) -> Backend:
        data_dir = workdir / f"{name}-{uuid.uuid4().hex[:6]}"
        data_dir.mkdir(parents=True, exist_ok=True)
        if name == "sqlite":
            return cls(name, data_dir)
        if name == "postgres":
            schema = f"rel_{uuid.uuid4().hex[:10]}"
            cls._pg_exec(f"CREATE SCHEMA {schema}")
            return cls(name, data_dir, PG_URL, schema)
        raise ValueError(f"unknown backend {name!r}")

    @staticmethod
    def _pg_exec(sql: str) -> None:
        import psycopg2

        conn = psycopg2.connect(PG_URL, connect_timeout=5)
        try:
            conn.autocommit = True
            with conn.cursor() as cur:
                cur.execute(sql)
        finally:
            conn.close()

    def env(self) -> dict[str, str]:
        """Environment variables that point a process (the server or a reader) at this data."""
        env = {
            "DATA_DIR": str(self.data_dir),
            "DATABASE_URL": self.database_url,
            "KEY_DIR": str(self.data_dir / "keys"),
        }
        if self.schema:
            env["PGOPTIONS"] = f"-c search_path={self.schema}"
        return env

    def drop(self) -> None:
        """Remove the PostgreSQL schema (the SQLite directory is left for inspection)."""
        if self.schema:
            try:
                self._pg_exec(f"DROP SCHEMA IF EXISTS {self.schema} CASCADE")
            except Exception:
                pass


@dataclass
class ServerProcess:
    """Start, SIGKILL and restart the real server; its output goes to one log file."""

    backend: Backend
    log_path: Path
    port: int = field(default_factory=free_port)
    extra_env: dict[str, str] = field(default_factory=dict)
    mode: str = "gunicorn"
    proc: subprocess.Popen | None = None
    starts: int = 0
    kills: int = 0

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def ws_base(self) -> str:
        return f"ws://127.0.0.1:{self.port}"

    def command(self) -> list[str]:
        conf = ROOT / "server" / "gunicorn_conf.py"
        if self.mode == "gunicorn":
            cmd = [sys.executable, "-m", "gunicorn"]
            if conf.exists():
                cmd += ["-c", str(conf)]
            # Later flags win over the config file: one worker, this port.
            cmd += ["-k", "gevent", "--workers", "1", "--bind", f"127.0.0.1:{self.port}"]
            return [*cmd, "server:create_app()"]
        return [sys.executable, "-m", "server"]

    def env(self) -> dict[str, str]:
        env = dict(os.environ)
        env.update(self.backend.env())
        env.update(
            {
                "PORT": str(self.port),
                "HOST": "127.0.0.1",
                "BIND": f"127.0.0.1:{self.port}",
                "WEB_CONCURRENCY": "1",
                "PYTHONUNBUFFERED": "1",
            }
        )
        env.update(self.extra_env)
        return env

    def start(self, timeout: float = 30.0) -> None:
        """Start the server and wait until it answers HTTP."""
        assert self.proc is None or self.proc.poll() is not None
        log = open(self.log_path, "ab")  # noqa: SIM115 - handed to the child
        log.write(f"\n===== start {self.starts + 1} =====\n".encode())
        log.flush()
        self.proc = subprocess.Popen(
            self.command(),
            cwd=ROOT,
            env=self.env(),
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        log.close()
        self.starts += 1
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(
                    f"server exited with {self.proc.returncode}; see {self.log_path}"
                )
            try:
                with urllib.request.urlopen(self.base + "/api/time", timeout=1) as r:
                    if r.status == 200:
                        return
            except (urllib.error.URLError, OSError):
                pass
            time.sleep(0.05)
        self.kill()
        raise RuntimeError(f"server did not answer within {timeout} s; see {self.log_path}")

    def kill(self) -> None:
        """SIGKILL the server's whole process group (master and workers) and reap it."""
        if self.proc is None or self.proc.poll() is not None:
            return
        try:
            os.killpg(self.proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        self.proc.wait(timeout=10)
        self.kills += 1

    def stop(self) -> None:
        """Stop the server politely (SIGTERM), then for sure."""
        if self.proc is None or self.proc.poll() is not None:
            return
        try:
            os.killpg(self.proc.pid, signal.SIGTERM)
            self.proc.wait(timeout=10)
        except (ProcessLookupError, subprocess.TimeoutExpired):
            try:
                os.killpg(self.proc.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            self.proc.wait(timeout=10)

    def log_text(self) -> str:
        try:
            return self.log_path.read_text(errors="replace")
        except OSError:
            return ""


TRACEBACK = "Traceback (most recent call last)"


def count_tracebacks(text: str) -> int:
    """How many tracebacks a server log holds."""
    return text.count(TRACEBACK)


def tracebacks_of(text: str) -> tuple[int, str | None]:
    """How many tracebacks a server log holds, and the first one (its first 1,500 characters)."""
    count = count_tracebacks(text)
    if not count:
        return 0, None
    at = text.find(TRACEBACK)
    return count, text[at : at + 1500]
