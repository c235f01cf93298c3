"""The heap's free pages go back to the system after a burst of closed sockets
(`server/runtime/memtrim.py`)."""

from __future__ import annotations

import subprocess
import sys
import time

import pytest

from server.runtime import memtrim
from server.runtime.memtrim import Trimmer

FRAGMENTED = """
import sys
from server.runtime.memtrim import malloc_trim

def rss():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * 4096

# 1,500 blocks of 64 KiB (below glibc's mmap threshold: on the heap), then all freed but the
# last: the heap's top is held, so free() alone cannot shrink it.
blocks = [bytearray(65536) for _ in range(1500)]
last = blocks[-1]
del blocks
before = rss()
released = malloc_trim()
after = rss()
print(before, after, released)
"""


@pytest.mark.skipif(memtrim._trim is None, reason="no malloc_trim (not glibc)")
def test_malloc_trim_gives_back_the_free_middle_of_the_heap():
    out = subprocess.run(
        [sys.executable, "-c", FRAGMENTED], capture_output=True, text=True, check=True
    ).stdout.split()
    before, after = int(out[0]), int(out[1])
    assert out[2] == "True"
    assert before - after > 50 * 1024 * 1024, (before, after)


def test_a_trim_comes_once_a_burst_after_a_delay_and_not_too_often():
    trims: list[float] = []
    trimmer = Trimmer(burst=3, gap=0.6, delay=0.05, trim=lambda: trims.append(1) is None)
    assert [trimmer.closed() for _ in range(3)] == [False, False, True]
    assert trims == []  # not at once: after the delay
    time.sleep(0.2)
    assert trims == [1]
    # The burst goes on: one more trim, once the gap since the last has passed.
    assert [trimmer.closed() for _ in range(5)] == [False, False, True, False, False]
    time.sleep(0.2)
    assert trims == [1]
    time.sleep(0.4)
    assert trims == [1, 1]
    assert trimmer.closed() is False  # a new count
