"""CPU accounting of a server process for the benchmarks that drive a real dpviz server."""

from __future__ import annotations

import os
import time
from pathlib import Path


def process_cpu_seconds(pid: int) -> float:
    """User + system CPU seconds of a process so far (/proc/PID/stat, all its threads)."""
    stat = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(stat[11]) + int(stat[12])) / os.sysconf("SC_CLK_TCK")


def wait_until_idle(pid: int, limit: float = 300, seconds: int = 1) -> float:
    """Wait until the process uses under 0.05 CPU-seconds in each of ``seconds`` seconds in a row
    (at most ``limit`` s); the seconds waited."""
    start = time.monotonic()
    calm = 0
    while calm < seconds and time.monotonic() - start < limit:
        c = process_cpu_seconds(pid)
        time.sleep(1)
        calm = calm + 1 if process_cpu_seconds(pid) - c < 0.05 else 0
    return time.monotonic() - start
