"""The bench's derived figures and printed tables, kept pure (no processes, no clock) so that
`tests/test_bench_report.py` can check them: the worker's stall report (`server/runtime/stalls.py`),
CPU per command, RSS per table, and the ratios of a run to the relay and to a baseline."""

from __future__ import annotations

import json
import math
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

# The targets for the long run and the per-command figures (printed, not asserted).
LONG_TARGETS = {"max_ms": 150.0, "p999_ms": 50.0}
CPU_PER_COMMAND_MS = 0.65
RSS_PER_TABLE_KIB = 230.0
P99_RELAY_RATIO = 4.0
BASELINE_WITHIN = 0.10  # current / baseline at most 1.10
STALL_BUCKETS_MS = (20, 50, 100, 150)


@dataclass
class StallReport:
    """One worker's stall report, as read back: its header, stalls and ticks."""

    header: dict[str, Any] | None = None
    stalls: list[dict[str, Any]] = field(default_factory=list)
    ticks: list[dict[str, Any]] = field(default_factory=list)
    bad_lines: int = 0

    def window(self, start: float, end: float) -> StallReport:
        """The stalls that began within [start, end] (unix seconds), and the ticks in it."""
        return StallReport(
            self.header,
            [s for s in self.stalls if start <= s["at"] <= end],
            [t for t in self.ticks if start <= t["at"] <= end],
            self.bad_lines,
        )

    def wakes(self) -> int | None:
        """How many times the monitor woke between the first and last tick (None: < 2 ticks)."""
        if len(self.ticks) < 2:
            return None
        return int(self.ticks[-1]["wakes"] - self.ticks[0]["wakes"])


def parse_stall_report(lines: Iterable[str]) -> StallReport:
    """Read the JSON lines of a stall report; a line cut short (the worker killed mid-write)
    is counted, not fatal."""
    report = StallReport()
    for line in lines:
        if not line.strip():
            continue
        try:
            record = json.loads(line)
            kind = record["kind"]
        except (ValueError, KeyError, TypeError):
            report.bad_lines += 1
            continue
        if kind == "start":
            report.header = record
        elif kind == "stall":
            report.stalls.append(record)
        elif kind == "tick":
            report.ticks.append(record)
    return report


def cause_text(stall: dict[str, Any]) -> str:
    """What overlapped a stall, longest first: `gc gen2 896 ms (x12, longest 151 ms: 0
    collected)`; a cause off the loop (a thread that can only have held the GIL) says so;
    none named: `unknown`."""
    parts = []
    for c in stall.get("causes") or ():
        text = f"{c['name']} {c['ms']:.0f} ms"
        extra = []
        if c.get("count", 1) > 1:
            extra.append(f"x{c['count']}, longest {c['span_ms']:.0f} ms")
        if c.get("detail"):
            extra.append(str(c["detail"]))
        if not c.get("on_loop", True):
            extra.append("in a thread")
        if extra:
            text += f" ({'; '.join(extra)})"
        parts.append(text)
    return "; ".join(parts) or "unknown"


def stack_text(stall: dict[str, Any], frames: int = 3) -> str:
    """The innermost `frames` frames of the sampled stack, innermost first ('' if none)."""
    stack = stall.get("stack") or []
    return " <- ".join(reversed(stack[-frames:]))


def clock_text(at: float) -> str:
    """A unix time as UTC hh:mm:ss.mmm."""
    return time.strftime("%H:%M:%S", time.gmtime(at)) + f".{int(at % 1 * 1000):03d}"


def stall_table(stalls: Sequence[dict[str, Any]], start: float) -> list[str]:
    """The printed table: every stall, in time order, with the time it began (UTC, and
    seconds into the measured window), how late the loop woke, and the cause; the sampled
    stack under it."""
    lines = [f"  {'time (UTC)':<12} {'+s':>7} {'ms':>7}  cause"]
    for s in sorted(stalls, key=lambda s: s["at"]):
        lines.append(
            f"  {clock_text(s['at']):<12} {s['at'] - start:>7.1f} {s['ms']:>7.1f}  {cause_text(s)}"
        )
        stack = stack_text(s)
        if stack:
            lines.append(f"  {'':<12} {'':>7} {'':>7}    at {stack}")
    return lines


def stall_summary(stalls: Sequence[dict[str, Any]], wakes: int | None) -> str:
    """One line: how many stalls over each bound, the longest, and how often the monitor woke."""
    counts = ", ".join(
        f"{sum(1 for s in stalls if s['ms'] > bound)} over {bound} ms" for bound in STALL_BUCKETS_MS
    )
    longest = max((s["ms"] for s in stalls), default=0.0)
    woke = f"; the monitor woke {wakes:,} times" if wakes is not None else ""
    return f"{len(stalls)} stalls ({counts}), the longest {longest:.1f} ms{woke}"


def per_unit_ms(cpu_seconds: float, count: int) -> float:
    """CPU milliseconds per command (or relayed message); NaN with none."""
    if count <= 0:
        return math.nan
    return cpu_seconds * 1000 / count


def per_table_kib(rss_mib: float, tables: int) -> float:
    """Resident memory per table in KiB (the servers' RSS over the tables they hold)."""
    if tables <= 0:
        return math.nan
    return rss_mib * 1024 / tables


def ratio(current: float | None, baseline: float | None) -> float:
    """current / baseline; NaN when either is missing or the baseline is 0."""
    if current is None or baseline is None or not baseline or math.isnan(baseline):
        return math.nan
    return current / baseline


def verdict(value: float, limit: float) -> str:
    if math.isnan(value):
        return "not measured"
    return "met" if value <= limit else "NOT met"


def num(value: float | None, digits: int = 2) -> str:
    if value is None or math.isnan(value):
        return "-"
    return f"{value:,.{digits}f}"


BASELINE_FIGURES = (
    ("p50_ms", "p50", 2),
    ("p99_ms", "p99", 2),
    ("cpu_per_command_ms", "CPU/command", 3),
    ("rss_mib", "RSS", 0),
)


def mean(values: Sequence[float]) -> float:
    kept = [v for v in values if v is not None and not math.isnan(v)]
    return sum(kept) / len(kept) if kept else math.nan


def baseline_lines(
    baseline: Sequence[dict[str, Any]], current: Sequence[dict[str, Any]], ref: str
) -> list[str]:
    """Current against the baseline at one table count: each figure's value per run (in run
    order), the mean of each side, and the ratio current / baseline of the means."""
    lines = [f"  {'figure':<12} {'baseline ' + ref:>24} {'current':>24} {'current/baseline':>17}"]
    for key, label, digits in BASELINE_FIGURES:
        b = [s[key] for s in baseline]
        c = [s[key] for s in current]
        r = ratio(mean(c), mean(b))
        bounded = f" ({verdict(r, 1 + BASELINE_WITHIN)})" if not math.isnan(r) else ""
        lines.append(
            f"  {label:<12} {' / '.join(num(v, digits) for v in b):>24} "
            f"{' / '.join(num(v, digits) for v in c):>24} {num(r, 3):>8}{bounded}"
        )
    lines.append(
        f"  target: every ratio <= {1 + BASELINE_WITHIN:.2f} (within "
        f"{BASELINE_WITHIN:.0%} of the figures before the change, same run)"
    )
    return lines


def settings_lines(header: dict[str, Any] | None) -> list[str]:
    """What the worker reported it ran with (the stall report's header)."""
    if header is None:
        return ["  the worker wrote no stall report header (no monitor in its code?)"]
    s = header.get("settings") or {}
    gc_full = s.get("GC_FULL_SECONDS")
    checkpoint = s.get("SQLITE_CHECKPOINT_MS")
    return [
        f"  the worker ran the code in {header.get('server')} (pid {header.get('pid')}) with: "
        f"GC_FULL_SECONDS={'not tuned' if gc_full is None else f'{gc_full:g}'}, "
        f"GC_YOUNG_MS={'not tuned' if s.get('GC_YOUNG_MS') is None else s['GC_YOUNG_MS']}, "
        f"SQLITE_CHECKPOINT_MS={checkpoint} "
        f"({'checkpointer running' if s.get('checkpointer') else 'no checkpointer'}), "
        f"TIMER_ENABLED={s.get('TIMER_ENABLED')}, TIMER_INTERVAL_MS={s.get('TIMER_INTERVAL_MS')}"
    ]
