"""The worker's stall monitor (runtime/stalls.py): off by default at no cost, a late wake becomes
a stall record naming what overlapped it, and under gevent a busy greenlet is caught with its
stack."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
import threading
import time
import traceback
from pathlib import Path

from server import create_app
from server.runtime import stalls
from server.runtime.stalls import Monitor, thread_stack


def test_off_by_default_span_is_one_shared_no_op(tmp_path: Path):
    app = create_app({"DATA_DIR": str(tmp_path), "TIMER_ENABLED": False})
    try:
        assert app.config["STALL_REPORT"] == ""
        assert stalls._monitor is None
        assert stalls.span("timer sweep") is stalls.span("floor flush")
        with stalls.span("checkpoint"):
            pass
    finally:
        app.extensions["duel_table"].close()


def test_a_late_wake_is_a_stall_naming_what_overlapped_it(tmp_path: Path):
    m = Monitor(str(tmp_path / "stalls.jsonl"), period_ms=5, threshold_ms=20)
    t = 1000.0
    m.done.append(("floor flush", t + 0.001, t + 0.031, "", True))
    m.done.append(("gc gen0", t + 0.010, t + 0.012, "3 collected", True))
    m.done.append(("gc gen0", t + 0.020, t + 0.021, "0 collected", True))
    m.done.append(("checkpoint", t - 1.0, t - 0.9, "", False))  # before: not a cause
    assert m.woke(t, t + 0.015) is None  # 10 ms late: under the threshold
    record = m.woke(t, t + 0.040, waited_ms=4.0)
    assert record is not None and record["kind"] == "stall"
    assert record["ms"] == 35.0
    names = [(c["name"], c["count"]) for c in record["causes"]]
    assert names == [("floor flush", 1), ("waiting for a CPU", 1), ("gc gen0", 2)]
    assert record["causes"][2]["detail"] == "3 collected"  # the longest one's
    assert (m.wakes, m.stalls, m.over[20], m.over[50]) == (2, 1, 1, 0)


def test_the_collector_hook_records_each_collection(tmp_path: Path):
    m = Monitor(str(tmp_path / "stalls.jsonl"))
    m._on_gc("start", {"generation": 2, "collected": 0, "uncollectable": 0})
    m._on_gc("stop", {"generation": 2, "collected": 7, "uncollectable": 0})
    [(name, start, end, detail, on_loop)] = list(m.done)
    assert (name, detail, on_loop) == ("gc gen2", "7 collected", True)
    assert end >= start


def test_a_thread_stack_ends_in_the_running_function():
    import threading

    stack = thread_stack(threading.get_ident())
    assert stack is not None
    # Sampled from this very thread, the innermost frame is the sampler's own.
    assert stack[-1].startswith("server/runtime/stalls.py:") and stack[-1].endswith(" thread_stack")
    assert stack[-2].startswith("tests/test_stalls.py:")
    assert stack[-2].endswith(" test_a_thread_stack_ends_in_the_running_function")


SCRIPT = textwrap.dedent(
    """
    from gevent import monkey; monkey.patch_all()
    import sys, time
    from server.runtime import stalls
    stalls.start(sys.argv[1], {"TIMER_INTERVAL_MS": 250})
    time.sleep(1.3)  # the header is written after a second

    def busy(seconds):
        end = time.perf_counter() + seconds
        while time.perf_counter() < end:
            pass

    with stalls.span("floor flush"):
        busy(0.15)
    time.sleep(0.1)
    stalls.stop()
    """
)


def test_under_gevent_a_busy_greenlet_is_a_stall_with_its_cause_and_stack(tmp_path: Path):
    path = tmp_path / "stalls.jsonl"
    script = tmp_path / "busy.py"
    script.write_text(SCRIPT)
    root = Path(__file__).resolve().parent.parent
    done = subprocess.run(
        [sys.executable, str(script), str(path)],
        cwd=root,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    records = [json.loads(line) for line in path.read_text().splitlines()]
    header = records[0]
    assert header["kind"] == "start" and header["server"] == str(root / "server")
    assert header["settings"]["TIMER_INTERVAL_MS"] == 250
    found = [r for r in records if r["kind"] == "stall" and r["ms"] >= 100]
    assert found, records
    stall = found[0]
    assert stall["causes"][0]["name"] in ("floor flush", "waiting for a CPU")
    assert "floor flush" in [c["name"] for c in stall["causes"]]
    assert stall["stack"] and any(frame.endswith(" busy") for frame in stall["stack"])
    assert stall["at"] <= time.time()
    assert records[-1]["kind"] == "tick" and records[-1]["stalls"] >= 1


def test_a_frame_gone_from_under_the_walk_loses_the_sample_not_the_watchdog(monkeypatch):
    def gone(*_args, **_kwargs):
        raise AttributeError("'bool' object has no attribute 'f_lineno'")

    monkeypatch.setattr(traceback, "extract_stack", gone)
    assert thread_stack(threading.get_ident()) is None
