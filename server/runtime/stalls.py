"""The worker's event-loop stalls and what caused them, for the bench (`STALL_REPORT=<file>`).

Off unless `STALL_REPORT` names a file (production leaves it empty): then `span()` hands back
one shared no-op and nothing else runs. When on (`start`, from `create_app`):

- a green thread sleeps `PERIOD_MS` at a time and notes how late it woke. Under gevent nothing
  else runs on the loop while one greenlet computes, so a wake later than `THRESHOLD_MS` is a
  stall of every socket of the worker;
- hooks name what ran meanwhile: the collector (`gc.callbacks`: generation, pause, objects
  found) and `span(name)` around the SQLite checkpoint, the timer's sweep, the floor feed's
  flush and the group commit's wait for its transaction. A stall lists every span that overlaps
  it, longest overlap first (a span off the loop, in a thread, is marked so: it can only have
  held the GIL);
- a watchdog in a real OS thread samples the stack of the loop's thread when the loop is late
  by more than `THRESHOLD_MS`, so a stall without a named cause still shows where it was.

The file gets one JSON object a line: `{"kind": "start", ...}` (the process, the code it runs,
the settings it was given) once the worker serves; `{"kind": "stall", "at": <unix time the
stall began>, "ms": <how late>, "causes": [{"name", "ms", "detail", "on_loop"}], "stack": [...]}`
for each stall; `{"kind": "tick", "at", "wakes", "over": {"5": n, ...}, "max_ms"}` every
`TICK_SECONDS` (counts since start), so an empty report still proves the monitor ran. The bench
reads it (`bench/report.py`).
"""

from __future__ import annotations

import gc
import json
import logging
import os
import threading
import time
import traceback
from collections import deque
from collections.abc import Callable
from contextlib import AbstractContextManager, nullcontext
from pathlib import Path
from types import FrameType, TracebackType
from typing import Any

from server.core.compat import thread_frames
from server.runtime import gctune

log = logging.getLogger(__name__)

PERIOD_MS = 5.0
THRESHOLD_MS = 20.0
WATCH_MS = 10.0
TICK_SECONDS = 10.0
SPANS_KEPT = 8192  # a few seconds of group commits at 2,500 tables
STACK_FRAMES = 14
BUCKETS_MS = (5, 10, 20, 50, 100, 250)
PACKAGE = Path(__file__).resolve().parents[1]

_NOOP: AbstractContextManager[None] = nullcontext()
_monitor: Monitor | None = None


def span(name: str, detail: str = "") -> AbstractContextManager[Any]:
    """Time a named piece of work for the stall report (a shared no-op when the report is off)."""
    monitor = _monitor
    if monitor is None:
        return _NOOP
    return _Span(monitor, name, detail)


_Originals = tuple[Callable[..., Any], Callable[[], int], Callable[[float], None]]


def _real_thread_functions() -> _Originals:
    """`start_new_thread`, `get_ident` and `sleep` of the OS, even where gevent patched them."""
    try:
        from gevent import monkey
    except ImportError:  # pragma: no cover - gevent is a dependency of the worker
        import _thread

        return _thread.start_new_thread, _thread.get_ident, time.sleep
    return (
        monkey.get_original("_thread", "start_new_thread"),
        monkey.get_original("_thread", "get_ident"),
        monkey.get_original("time", "sleep"),
    )


_start_thread, _get_ident, _os_sleep = _real_thread_functions()


def thread_stack(ident: int, limit: int = STACK_FRAMES) -> list[str] | None:
    """The innermost `limit` frames running in OS thread `ident` now, outermost first.

    Uses `sys._current_frames()` (`server/core/compat.py: thread_frames`); under gevent a thread's
    current frame is the frame of whichever greenlet runs on it, so for the loop's thread this
    is the code holding the loop."""
    frame: FrameType | None = thread_frames().get(ident)
    if frame is None:
        return None
    try:
        frames = traceback.extract_stack(frame, limit=limit)
    except (AttributeError, ValueError):
        # The loop's thread runs on while this one walks its frames: a frame can be gone from
        # under the walk (seen once in a 30-minute run). A lost sample, not a dead watchdog.
        return None
    return [f"{_short(f.filename)}:{f.lineno} {f.name}" for f in frames]


def _short(path: str) -> str:
    """A frame's file as `server/store/events.py` or `gevent/hub.py`: short, still findable."""
    for marker in ("/site-packages/", "/lib/python3"):
        if marker in path:
            tail = path.split(marker, 1)[1]
            return tail.split("/", 1)[1] if marker == "/lib/python3" and "/" in tail else tail
    parts = Path(path).parts
    for top in ("server", "bench"):
        if top in parts[:-1]:
            return "/".join(parts[len(parts) - 1 - parts[::-1].index(top) :])
    return "/".join(parts[-2:])


def _schedstat() -> Callable[[], float]:
    """A reader of how long the calling OS thread has been runnable without a CPU, in ms
    (/proc/thread-self/schedstat, Linux; always 0 elsewhere). One kept descriptor, re-read."""
    try:
        fd = os.open("/proc/thread-self/schedstat", os.O_RDONLY)
    except OSError:
        return lambda: 0.0

    def read() -> float:
        try:
            return int(os.pread(fd, 128, 0).split()[1]) / 1e6
        except (OSError, IndexError, ValueError):
            return 0.0

    return read


class _Span:
    __slots__ = ("monitor", "name", "detail", "start", "on_loop")

    def __init__(self, monitor: Monitor, name: str, detail: str) -> None:
        self.monitor = monitor
        self.name = name
        self.detail = detail
        self.start = 0.0
        self.on_loop = True

    def __enter__(self) -> _Span:
        self.start = time.perf_counter()
        self.on_loop = _get_ident() == self.monitor.loop_ident
        self.monitor.running[id(self)] = self
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        value: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        end = time.perf_counter()
        self.monitor.running.pop(id(self), None)
        self.monitor.done.append((self.name, self.start, end, self.detail, self.on_loop))


class Monitor:
    """The stall monitor of one process: a green thread, a watchdog thread and the hooks."""

    def __init__(
        self,
        path: str,
        settings: dict[str, Any] | None = None,
        period_ms: float = PERIOD_MS,
        threshold_ms: float = THRESHOLD_MS,
    ) -> None:
        self.path = path
        self.settings = dict(settings or {})
        self.period = period_ms / 1000
        self.threshold_ms = threshold_ms
        # (name, start, end, detail, on the loop's thread), perf_counter seconds.
        self.done: deque[tuple[str, float, float, str, bool]] = deque(maxlen=SPANS_KEPT)
        self.running: dict[int, _Span] = {}
        self.loop_ident = _get_ident()
        self.beat = time.perf_counter()  # when the green thread last went to sleep
        self.wakes = 0
        self.over = dict.fromkeys(BUCKETS_MS, 0)
        self.max_ms = 0.0
        self.stalls = 0
        self._stack: tuple[float, list[str] | None] | None = None  # (beat, stack) sampled
        self._gc_started = 0.0
        self._stopped = False
        self._file: Any = None

    # -- hooks ---------------------------------------------------------------------------------

    def _on_gc(self, phase: str, info: dict[str, int]) -> None:
        now = time.perf_counter()
        if phase == "start":
            self._gc_started = now
            return
        self.done.append(
            (
                f"gc gen{info['generation']}",
                self._gc_started,
                now,
                f"{info['collected']} collected",
                _get_ident() == self.loop_ident,
            )
        )

    def causes(self, start: float, end: float) -> list[dict[str, Any]]:
        """What overlapped [start, end] (perf_counter seconds), by name (and on or off the
        loop), the longest overlap first: overlap `ms` summed over `count` spans, the longest
        one `span_ms` with its `detail`."""
        found: dict[tuple[str, bool], dict[str, Any]] = {}
        # list() of a deque or dict is one C call under the GIL: a consistent copy.
        spans = list(self.done)
        spans += [
            (s.name, s.start, end, f"{s.detail} still running".strip(), s.on_loop)
            for s in list(self.running.values())
        ]
        for name, s0, s1, detail, on_loop in spans:
            overlap = (min(s1, end) - max(s0, start)) * 1000
            if overlap <= 0:
                continue
            cause = found.setdefault(
                (name, on_loop),
                {"name": name, "ms": 0.0, "count": 0, "span_ms": -1.0, "on_loop": on_loop},
            )
            cause["ms"] += overlap
            cause["count"] += 1
            if (s1 - s0) * 1000 > cause["span_ms"]:
                cause["span_ms"], cause["detail"] = (s1 - s0) * 1000, detail
        ordered = sorted(found.values(), key=lambda c: -c["ms"])[:6]
        for cause in ordered:
            cause["ms"], cause["span_ms"] = round(cause["ms"], 1), round(cause["span_ms"], 1)
        return ordered

    # -- the green thread ------------------------------------------------------------------------

    def _write(self, record: dict[str, Any]) -> None:
        if self._file is None:
            self._file = open(self.path, "a", buffering=1, encoding="utf-8")
        self._file.write(json.dumps(record) + "\n")

    def header(self) -> dict[str, Any]:
        return {
            "kind": "start",
            "at": time.time(),
            "pid": os.getpid(),
            "server": str(PACKAGE),
            "cwd": os.getcwd(),
            "period_ms": self.period * 1000,
            "threshold_ms": self.threshold_ms,
            "settings": {
                **self.settings,
                "GC_FULL_SECONDS": gctune.full_every_s,
                "GC_YOUNG_MS": gctune.young_every_ms(),
            },
        }

    def tick(self) -> dict[str, Any]:
        return {
            "kind": "tick",
            "at": time.time(),
            "wakes": self.wakes,
            "stalls": self.stalls,
            "over": {str(k): v for k, v in self.over.items()},
            "max_ms": round(self.max_ms, 1),
        }

    def woke(self, before: float, after: float, waited_ms: float = 0.0) -> dict[str, Any] | None:
        """Account for one wake of the green thread; the stall record if it was late.
        `waited_ms`: how long the loop's thread was runnable but had no CPU meanwhile."""
        late = (after - before - self.period) * 1000
        self.wakes += 1
        self.max_ms = max(self.max_ms, late)
        for bucket in BUCKETS_MS:
            if late > bucket:
                self.over[bucket] += 1
        if late <= self.threshold_ms:
            return None
        self.stalls += 1
        sampled = self._stack
        causes = self.causes(before, after)
        if waited_ms >= 1.0:
            # The machine's other processes had the cores: not this worker's doing.
            starved = {"name": "waiting for a CPU", "ms": round(waited_ms, 1), "count": 1}
            starved.update(span_ms=round(waited_ms, 1), on_loop=True, detail="")
            causes = sorted([starved, *causes], key=lambda c: -c["ms"])
        return {
            "kind": "stall",
            "at": round(time.time() - (time.perf_counter() - before - self.period), 3),
            "ms": round(late, 1),
            "causes": causes,
            "stack": sampled[1] if sampled is not None and sampled[0] == before else None,
        }

    def _run(self) -> None:
        # The header waits for the worker to serve: the collector is tuned after the app loads.
        time.sleep(1.0)
        self.loop_ident = _get_ident()
        self._write(self.header())
        sched = _schedstat()
        next_tick = time.monotonic() + TICK_SECONDS
        waiting = sched()
        while not self._stopped:
            before = time.perf_counter()
            self.beat = before
            time.sleep(self.period)
            after = time.perf_counter()
            waited, waiting = -waiting, sched()
            record = self.woke(before, after, waited + waiting)
            try:
                if record is not None:
                    self._write(record)
                if time.monotonic() >= next_tick:
                    next_tick += TICK_SECONDS
                    self._write(self.tick())
            except OSError:
                log.exception("stall report %s", self.path)

    # -- the watchdog (an OS thread) --------------------------------------------------------------

    def _watch(self) -> None:
        while not self._stopped:
            _os_sleep(WATCH_MS / 1000)
            beat = self.beat
            late = (time.perf_counter() - beat - self.period) * 1000
            sampled = self._stack
            if late > self.threshold_ms and (sampled is None or sampled[0] != beat):
                self._stack = (beat, thread_stack(self.loop_ident))

    def start(self) -> None:
        gc.callbacks.append(self._on_gc)
        threading.Thread(target=self._run, name="stall-monitor", daemon=True).start()
        _start_thread(self._watch, ())

    def stop(self) -> None:
        self._stopped = True
        if self._on_gc in gc.callbacks:
            gc.callbacks.remove(self._on_gc)
        if self._file is not None:
            try:
                self._write(self.tick())
            finally:
                self._file.close()
                self._file = None


def start(path: str, settings: dict[str, Any] | None = None) -> Monitor | None:
    """Start this process's stall monitor writing to `path` (none if `path` is empty, or one
    already runs)."""
    global _monitor
    if not path or _monitor is not None:
        return None
    _monitor = Monitor(path, settings)
    _monitor.start()
    log.warning("stall monitor on: %s (off in production: STALL_REPORT unset)", path)
    return _monitor


def stop() -> None:
    """Stop the monitor (tests)."""
    global _monitor
    monitor, _monitor = _monitor, None
    if monitor is not None:
        monitor.stop()
