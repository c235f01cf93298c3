"""The reliability harness in short form: real server processes, SIGKILL, fuzzing, access.

`make reliability` runs the long form; see docs/reliability.md for what each part checks.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from reliability import access, crash, fuzz, openapi_fuzz
from reliability.proc import postgres_answers

# Minutes of kill -9, fuzzing and access runs against real servers.
pytestmark = pytest.mark.slow


def crash_run(backend: str, workdir: Path) -> crash.CrashReport:
    # Kills come after 1..30 acknowledgements each, so 20 kills fit in about a minute.
    return crash.run(backend, workdir, tables=50, kills=20, acks_between=30, min_rounds=1)


def assert_survived(report: crash.CrashReport) -> None:
    assert report.kills == 20
    assert report.acknowledged > 0
    assert report.lost == 0, report.problems
    assert report.duplicated == 0, report.problems
    assert report.mismatched == 0, report.problems
    assert report.chains_broken == 0, report.problems
    assert report.applied_unanswered == 0, report.problems
    assert report.internal_errors == 0 and report.tracebacks == 0
    assert report.stalled == 0, report.problems
    assert report.duplicate_probe_failures == 0


@pytest.mark.kill
@pytest.mark.timeout(400)
def test_sigkill_loses_and_duplicates_nothing_on_sqlite(tmp_path: Path) -> None:
    assert_survived(crash_run("sqlite", tmp_path))


@pytest.mark.kill
@pytest.mark.postgres
@pytest.mark.timeout(400)
def test_sigkill_loses_and_duplicates_nothing_on_postgresql(tmp_path: Path) -> None:
    if not postgres_answers():
        pytest.skip("PostgreSQL does not answer on 127.0.0.1:5432")
    assert_survived(crash_run("postgres", tmp_path))


@pytest.mark.timeout(300)
def test_websocket_fuzz_gets_only_coded_answers(tmp_path: Path) -> None:
    report = fuzz.run(tmp_path, examples=1000)
    assert report.sent >= 1000
    assert report.unhandled == 0, report.examples
    assert report.invariant_failures == 0, report.examples


@pytest.mark.timeout(300)
def test_http_fuzz_from_openapi_never_gets_a_5xx(tmp_path: Path) -> None:
    report = openapi_fuzz.run(tmp_path, examples=8)
    assert report.operations > 5
    assert report.server_errors == 0, report.examples
    assert report.tracebacks == 0, report.examples


@pytest.mark.timeout(200)
def test_who_may_do_what(tmp_path: Path) -> None:
    report = access.run(tmp_path)
    assert report.ok, {name: report.notes.get(name) for name in report.failed}
