"""CPU time and resident memory of processes, read from /proc (Linux)."""

from __future__ import annotations

import os
from pathlib import Path

CLK_TCK = os.sysconf("SC_CLK_TCK")
PAGE = os.sysconf("SC_PAGE_SIZE")


def _stat_fields(pid: int) -> list[str] | None:
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    # The command name may hold spaces and parentheses: split after the last ')'.
    return text[text.rindex(")") + 2 :].split()


def cpu_seconds(pid: int) -> float:
    """User plus system CPU time of a process (all its threads), in seconds; 0 if gone."""
    fields = _stat_fields(pid)
    if fields is None:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / CLK_TCK


def rss_bytes(pid: int) -> int:
    """Resident set size of a process in bytes; 0 if gone."""
    try:
        return int(Path(f"/proc/{pid}/statm").read_text().split()[1]) * PAGE
    except (OSError, IndexError, ValueError):
        return 0


def _all_pids() -> list[int]:
    return [int(name) for name in os.listdir("/proc") if name.isdigit()]


def children(pid: int) -> list[int]:
    """Direct children of a process."""
    found = []
    for candidate in _all_pids():
        fields = _stat_fields(candidate)
        if fields is not None and int(fields[1]) == pid:
            found.append(candidate)
    return found


def tree(pid: int) -> list[int]:
    """A process and all its descendants."""
    result, todo = [], [pid]
    while todo:
        current = todo.pop()
        result.append(current)
        todo.extend(children(current))
    return result


def named(*names: str) -> list[int]:
    """Processes whose command name (/proc/<pid>/comm) is one of `names`."""
    found = []
    for pid in _all_pids():
        try:
            comm = Path(f"/proc/{pid}/comm").read_text().strip()
        except OSError:
            continue
        if comm in names:
            found.append(pid)
    return found


def total_cpu(pids: list[int]) -> float:
    return sum(cpu_seconds(pid) for pid in pids)


def total_rss(pids: list[int]) -> int:
    return sum(rss_bytes(pid) for pid in pids)


def machine_busy_seconds() -> float:
    """CPU seconds spent by the whole machine outside idle and iowait, since boot."""
    fields = Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]
    values = [int(v) for v in fields]
    idle = values[3] + (values[4] if len(values) > 4 else 0)
    return (sum(values[:8]) - idle) / CLK_TCK


def loadavg() -> str:
    return " ".join(Path("/proc/loadavg").read_text().split()[:3])


def runqueue_wait_seconds(pid: int) -> float:
    """Time the process's threads spent runnable but waiting for a CPU, in seconds
    (/proc/<pid>/task/*/schedstat): how much a busy machine starved it."""
    total = 0.0
    try:
        tasks = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return 0.0
    for tid in tasks:
        try:
            total += int(Path(f"/proc/{pid}/task/{tid}/schedstat").read_text().split()[1]) / 1e9
        except (OSError, IndexError, ValueError):
            continue
    return total
