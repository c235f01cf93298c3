"""The bench's pure parts (bench/report.py, bench/run.py, bench/servers.py): the stall report read
back and printed, CPU per command and RSS per table, the ratios to a baseline, the order of the
runs of `--baseline-ref`, what `--long` implies, and the PYTHONPATH of a baseline's server.
No processes are started and nothing is timed."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from bench import report
from bench.run import LONG_FLOOR_VIEWS, LONG_SECONDS, LONG_TABLES, build_cases, build_parser
from bench.run import resolve as resolve_args
from bench.servers import ROOT, code_path

START = 1_796_000_000.0
HEADER = {
    "kind": "start",
    "at": START - 30,
    "pid": 4242,
    "server": "/srv/duel/server",
    "settings": {
        "GC_FULL_SECONDS": 900.0,
        "SQLITE_CHECKPOINT_MS": 200,
        "checkpointer": True,
        "TIMER_ENABLED": True,
        "TIMER_INTERVAL_MS": 250,
    },
}
GC_STALL = {
    "kind": "stall",
    "at": START + 12.25,
    "ms": 180.4,
    "causes": [
        {"name": "gc gen2", "ms": 171.0, "count": 1, "span_ms": 171.0, "detail": "9 collected"},
        {
            "name": "checkpoint",
            "ms": 12.0,
            "count": 3,
            "span_ms": 6.0,
            "detail": "",
            "on_loop": False,
        },
    ],
    "stack": ["gevent/hub.py:647 run", "server/api/ws.py:10 handle", "server/store/events.py:5 x"],
}
BARE_STALL = {"kind": "stall", "at": START + 3.5, "ms": 24.0, "causes": [], "stack": None}


def lines_of(*records: dict) -> list[str]:
    return [json.dumps(r) for r in records]


def test_a_stall_report_is_read_back_and_cut_to_the_window():
    early = {**BARE_STALL, "at": START - 5}  # during set-up: not in the window
    ticks = [{"kind": "tick", "at": START + t, "wakes": w} for t, w in ((1, 200), (11, 2200))]
    text = lines_of(HEADER, early, BARE_STALL, GC_STALL, *ticks)
    text.append('{"kind": "stall", "at": 17960')  # the worker killed mid-line
    got = report.parse_stall_report(text)
    assert got.header == HEADER and got.bad_lines == 1
    assert len(got.stalls) == 3
    window = got.window(START, START + 60)
    assert [s["ms"] for s in window.stalls] == [24.0, 180.4]
    assert window.header == HEADER
    assert window.wakes() == 2000
    assert report.StallReport().wakes() is None


def test_causes_are_printed_longest_first_and_a_thread_says_so():
    assert report.cause_text(GC_STALL) == (
        "gc gen2 171 ms (9 collected); checkpoint 12 ms (x3, longest 6 ms; in a thread)"
    )
    assert report.cause_text(BARE_STALL) == "unknown"
    # The innermost frames first.
    assert report.stack_text(GC_STALL) == (
        "server/store/events.py:5 x <- server/api/ws.py:10 handle <- gevent/hub.py:647 run"
    )


def test_the_stall_table_lists_every_stall_in_time_order_with_its_stack():
    table = report.stall_table([GC_STALL, BARE_STALL], START)
    assert table[0].split() == ["time", "(UTC)", "+s", "ms", "cause"]
    assert table[1].split()[1:] == ["3.5", "24.0", "unknown"]
    assert table[1].split()[0] == report.clock_text(START + 3.5)
    assert table[2].split()[1:4] == ["12.2", "180.4", "gc"]  # 12.25 s printed to a tenth
    assert table[3].strip().startswith("at server/store/events.py:5 x")
    assert len(table) == 4  # no stack line for the stall without one


def test_the_stall_summary_counts_over_each_bound():
    line = report.stall_summary([GC_STALL, BARE_STALL], 2000)
    assert line == (
        "2 stalls (2 over 20 ms, 1 over 50 ms, 1 over 100 ms, 1 over 150 ms), "
        "the longest 180.4 ms; the monitor woke 2,000 times"
    )
    assert report.stall_summary([], None).startswith("0 stalls (0 over 20 ms")


def test_the_settings_the_worker_reported_are_printed():
    [line] = report.settings_lines(HEADER)
    assert "GC_FULL_SECONDS=900" in line
    assert "SQLITE_CHECKPOINT_MS=200 (checkpointer running)" in line
    assert "TIMER_INTERVAL_MS=250" in line and "/srv/duel/server" in line
    assert "no stall report header" in report.settings_lines(None)[0]


def test_cpu_per_command_and_rss_per_table():
    # 39% of a core for 60 s over 415 commands a second (the 2,500-table run of performance.md).
    assert report.per_unit_ms(0.39 * 60, 415 * 60) == pytest.approx(0.9398, abs=1e-4)
    assert math.isnan(report.per_unit_ms(3.0, 0))
    assert report.per_table_kib(567, 2500) == pytest.approx(232.24, abs=0.01)
    assert math.isnan(report.per_table_kib(100, 0))
    assert report.verdict(0.60, report.CPU_PER_COMMAND_MS) == "met"
    assert report.verdict(0.94, report.CPU_PER_COMMAND_MS) == "NOT met"
    assert report.verdict(math.nan, 1.0) == "not measured"


def test_ratios_to_a_baseline_are_of_the_means():
    def run(p50: float, p99: float, cpu: float, rss: float) -> dict:
        return {"p50_ms": p50, "p99_ms": p99, "cpu_per_command_ms": cpu, "rss_mib": rss}

    baseline = [run(2.0, 16.0, 0.90, 560), run(2.2, 18.0, 0.94, 570)]
    current = [run(2.1, 20.0, 0.60, 500), run(2.3, 22.0, 0.62, 505)]
    lines = report.baseline_lines(baseline, current, "v1")
    rows = {line.split()[0]: line for line in lines[1:]}
    assert "2.00 / 2.20" in rows["p50"] and "1.048 (met)" in rows["p50"]
    assert "1.235 (NOT met)" in rows["p99"]  # 21 / 17
    assert "0.663 (met)" in rows["CPU/command"]
    assert "0.889 (met)" in rows["RSS"]
    assert "within 10%" in lines[-1]
    assert math.isnan(report.ratio(1.0, 0.0)) and math.isnan(report.ratio(None, 1.0))
    assert report.ratio(3.0, 2.0) == 1.5


def parse(*argv: str):
    return resolve_args(build_parser().parse_args(list(argv)))


def test_long_means_30_minutes_at_2500_tables_with_floor_views_and_stalls():
    args = parse("--long")
    assert (args.tables, args.floor_views, args.long_seconds, args.stalls) == (
        LONG_TABLES,
        LONG_FLOOR_VIEWS,
        LONG_SECONDS,
        True,
    )
    assert (LONG_TABLES, LONG_FLOOR_VIEWS, LONG_SECONDS) == ("2500", 20, 1800.0)
    quick = parse("--long-seconds", "60", "--tables", "300")
    assert (quick.long, quick.tables, quick.long_seconds) == (True, "300", 60.0)
    cases = build_cases(quick, None)
    assert [(c.mode, c.tables, c.seconds, c.stalls) for c in cases] == [
        ("relay", 300, 30.0, False),
        ("server", 300, 60.0, True),
    ]
    plain = parse()
    # Every run has a hall's staff: a floor of 20 views, the hall page on 2 screens.
    assert (plain.long, plain.tables, plain.floor_views, plain.stalls) == (False, "500", 20, False)
    assert plain.hall_screens == 2


def test_a_baseline_alternates_with_the_current_code_baseline_first(tmp_path: Path):
    args = parse("--baseline-ref", "v1", "--repeat", "2", "--tables", "100", "--no-relay")
    cases = build_cases(args, tmp_path)
    assert [(c.code, c.root) for c in cases] == [
        ("baseline v1", tmp_path),
        ("", ROOT),
        ("baseline v1", tmp_path),
        ("", ROOT),
    ]
    assert cases[0].label == "baseline v1 sqlite 1p" and cases[1].label == "sqlite 1p"


def test_a_baseline_server_sees_its_own_checkout_first_and_never_this_one(tmp_path: Path):
    other = "/opt/extra"
    env = {"PYTHONPATH": f"{ROOT}:{other}"}
    assert code_path(tmp_path, env) == f"{tmp_path}:{other}"
    assert code_path(ROOT, env) == f"{ROOT}:{other}"
    assert code_path(ROOT, {}) == str(ROOT)


def test_the_bench_phones_timing_is_read_from_the_apps_own_files() -> None:
    """The heartbeat, clock sync, resend and backoff of the bench's phones are web/js/conn.js's
    exports, and the hall screen's poll hall.js's: read from those files, never copied."""
    import re

    from bench import phone

    web = Path(__file__).resolve().parent.parent / "web" / "js"
    conn, hall = (web / "conn.js").read_text(), (web / "hall.js").read_text()

    def declared(text: str, name: str) -> int:
        found = re.search(rf"const {name} = (\d+);", text)
        assert found, name
        return int(found.group(1))

    app = phone.APP
    assert app.ping_s * 1000 == declared(conn, "PING_MS")
    assert app.resend_s * 1000 == declared(conn, "RESEND_MS")
    assert app.dead_s * 1000 == declared(conn, "DEAD_MS")
    assert app.offset_samples == declared(conn, "OFFSET_SAMPLES")
    assert (phone.BACKOFF_MIN * 1000, phone.BACKOFF_MAX * 1000) == (
        declared(conn, "BACKOFF_MIN_MS"),
        declared(conn, "BACKOFF_MAX_MS"),
    )
    assert app.hall_poll_s * 1000 == declared(hall, "POLL_MS")
    # Another heartbeat in the app is another heartbeat in the bench.
    moved = phone.Timing.read(conn.replace("PING_MS = ", "PING_MS = 1"), hall)
    assert moved.ping_s != app.ping_s
    with pytest.raises(KeyError, match="RESEND_MS"):
        phone.Timing.read(conn.replace("RESEND_MS", "RESEND_AFTER_MS"), hall)


def test_the_clock_sync_keeps_the_best_of_the_last_samples_as_the_app_does() -> None:
    """web/js/conn.js's ClockOffset: the best round trip of the last OFFSET_SAMPLES."""
    from bench.load import ClockSync
    from bench.phone import APP

    sync = ClockSync()
    sync.sent = {1: 1000.0}
    assert sync.pong({"t": 1, "now_ms": 5000}, 1002.0) == 2.0
    assert (sync.best_rtt, sync.offset) == (2.0, 5000 - 1001.0)
    for i in range(APP.offset_samples):
        sync.sent[10 + i] = 2000.0
        sync.pong({"t": 10 + i, "now_ms": 9000}, 2010.0)
    assert sync.best_rtt == 10.0  # the 2 ms sample has left the window


def test_the_storms_phones_back_off_as_the_app_does() -> None:
    """bench/phone.py's reconnect delay is web/js/conn.js's `backoffDelay`: the same bounds."""
    import random
    import re

    from bench.phone import BACKOFF_MAX, BACKOFF_MIN, backoff_delay

    js = (Path(__file__).resolve().parent.parent / "web" / "js" / "conn.js").read_text()
    assert f"BACKOFF_MIN_MS = {int(BACKOFF_MIN * 1000)};" in js
    assert f"BACKOFF_MAX_MS = {int(BACKOFF_MAX * 1000)};" in js
    assert re.search(r"cap / 2 \+ rnd\(\) \* \(cap / 2\)", js)
    rng = random.Random(1)
    assert all(0.25 <= backoff_delay(0, rng) <= 0.5 for _ in range(100))
    assert all(10.0 <= backoff_delay(9, rng) <= 20.0 for _ in range(100))


def test_a_set_up_phone_refused_as_busy_tries_again_as_the_apps_phones_do(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A server letting a hall in at its loop's pace answers some opens 503: the bench's phones,
    as the app's, try again after their backoff; any other refusal, or too many, fails the set-up
    (never a report of a half-set-up hall)."""
    import asyncio
    import random
    from collections import Counter

    from websockets.datastructures import Headers
    from websockets.exceptions import InvalidStatus
    from websockets.http11 import Response

    from bench import phone

    waits: list[float] = []

    async def no_wait(seconds: float) -> None:
        waits.append(seconds)

    monkeypatch.setattr(phone.asyncio, "sleep", no_wait)

    def opener(statuses: list[int]):  # type: ignore[no-untyped-def]
        async def open_once() -> str:
            if statuses:
                raise InvalidStatus(Response(statuses.pop(0), "", Headers()))
            return "open"

        return open_once

    refused: Counter = Counter()
    rng = random.Random(2)
    assert asyncio.run(phone.open_as_phone(opener([503, 503]), rng, refused)) == "open"
    assert refused["busy_open"] == 2 and len(waits) == 2
    assert 0.25 <= waits[0] <= 0.5 and 0.5 <= waits[1] <= 1.0  # the app's backoff
    with pytest.raises(InvalidStatus):
        asyncio.run(phone.open_as_phone(opener([404]), rng, refused))
    assert refused["busy_open"] == 2  # not tried again
    with pytest.raises(InvalidStatus):
        asyncio.run(phone.open_as_phone(opener([503] * phone.BUSY_TRIES), rng, refused))
    assert refused["busy_open"] == 2 + phone.BUSY_TRIES - 1


def test_the_storms_figures_of_every_client_add_up() -> None:
    from bench.run import Case, Result

    result = Result(Case("server", 4))
    part = {
        "welcomed_s": [1.0, 2.0],
        "refused_opens": 3,
        "failed_opens": {"TimeoutError": 1},
        "refused_for_good": 0,
        "lost_acknowledged": 0,
        "control_ping_ms": [5.0],
        "phones": 2,
    }
    result.add_storm(part)
    result.add_storm({**part, "welcomed_s": [30.0], "failed_opens": {"TimeoutError": 2}})
    summary = result.storm_summary()
    assert summary is not None
    assert summary["phones"] == 4 and summary["welcomed"] == 3
    assert summary["welcomed_max_s"] == 30.0 and summary["refused_opens"] == 6
    assert summary["failed_opens"] == {"TimeoutError": 3}


def test_a_run_whose_set_up_fails_stops_with_an_error_and_prints_no_report(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """`setup:rps.report:round_not_started` at every table once let `make bench LONG=1` run 30
    minutes with no command and print a report: a failed set-up now stops the bench."""
    from bench import run

    ran: list[str] = []

    def failing(case: run.Case, args: object, run_dir: Path) -> run.Result:
        ran.append(case.mode)
        errors = {"rps.report:round_not_started": case.tables}
        why = run.setup_failure(case, True, 0, errors)
        assert why is not None
        raise run.SetupFailed(why)

    monkeypatch.setattr(run, "run_case", failing)
    code = run.main(["--tables", "20,40", "--no-relay", "--no-pin", "--seconds", "1"])
    out, err = capsys.readouterr()
    assert code != 0
    assert ran == ["server"]  # the 40-table run never started
    assert "round_not_started" in err and "no report" in err
    assert "Latency in ms" not in out and "Targets:" not in out


def test_a_set_up_fails_on_a_lost_client_a_table_short_or_any_error() -> None:
    from bench.run import Case, setup_failure

    case = Case("server", 10)
    assert setup_failure(case, True, 10, {}) is None
    assert setup_failure(case, True, 10, {"setup_timeout": 0}) is None
    assert "client processes" in (setup_failure(case, False, 10, {}) or "")
    assert "9/10" in (setup_failure(case, True, 9, {}) or "")
    assert "round_not_started" in (
        setup_failure(case, True, 10, {"rps.report:round_not_started": 1}) or ""
    )


def test_the_busiest_minutes_are_measured_from_the_tap_or_the_deadline() -> None:
    """--round-start: from the organiser's tap to each phone and floor view showing the clock
    running; --time-call: from the deadline to time called (R5.1); with the commands and pings
    sent within the next seconds reported beside."""
    from bench.run import BUSY_SECONDS, Case, Result, busy_kind

    assert busy_kind(parse("--round-start")) == "round_start"
    assert parse("--round-start").round_start == 10.0
    assert busy_kind(parse("--time-call", "--round-minutes", "2")) == "time_call"
    assert busy_kind(parse()) == ""
    with pytest.raises(SystemExit):
        parse("--round-start", "--time-call")
    mark = 1_796_000_000_000.0
    r = Result(Case("server", 2000), extra={"busy": "time_call"}, busy_mark=mark)
    r.busy_phones = 4
    r.busy_seen = [mark + 100, mark + 200, mark + 300]  # one phone never showed it
    r.floor_busy_seen = [mark + 400]
    r.latencies, r.latency_wall = [5.0, 50.0, 500.0], [mark - 1, mark + 1, mark + 60_000]
    r.pings, r.ping_wall = [2.0, 7.0], [mark + BUSY_SECONDS * 1000 - 1, mark + 1]
    b = r.summary()["busy"]
    assert (b["kind"], b["phones"], b["shown"], b["shown_max_ms"]) == ("time_call", 4, 3, 300)
    assert (b["floor_shown"], b["floor_max_ms"]) == (1, 400)
    assert (b["commands"], b["commands_p99_ms"]) == (1, 50.0)  # only the one sent after it
    assert (b["pings"], b["pings_p99_ms"]) == (2, 7.0)
    assert Result(Case("server", 10)).summary()["busy"] is None


def test_a_time_call_outside_the_window_stops_the_run() -> None:
    from bench.run import BUSY_SECONDS, deadline_outside

    start = 1_796_000_000.0
    assert deadline_outside((start + 30) * 1000, start, 60) is None
    assert "during set-up" in (deadline_outside((start - 1) * 1000, start, 60) or "")
    late = deadline_outside((start + 55) * 1000, start, 60) or ""
    assert f"--seconds {55 + BUSY_SECONDS:.0f}" in late
