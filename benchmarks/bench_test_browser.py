"""The browser the tests drive: Debian's ``chromium-headless-shell`` against the full ``chromium``
(the baseline), in the same run, on one server with a warm cache.

Each round opens the ADePT (reduced settings), Partial sensitivity and HoHo pages one after the other
in a new browser of each kind, in turn (A B A B ...), and times it: the wall clock from the browser's
launch to the last page's charts drawn, and the CPU-seconds of the browser's processes meanwhile.
It prints each round and the medians with their ratio (headless shell / full browser).

    .venv/bin/python benchmarks/bench_test_browser.py [--rounds 3]
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import tempfile
import time
from pathlib import Path

import from_tests  # noqa: E402, F401 - the tests' helpers (benchmarks/from_tests.py)

PAGES = ("ADePT_sensitivity?{FAST}", "Partial_sensitivity", "HoHo_attack")


def _browser_cpu(root_pid: int) -> float:
    """CPU-seconds of the browser processes under ``root_pid`` (the driver's children)."""
    import psutil

    total = 0.0
    for child in psutil.Process(root_pid).children(recursive=True):
        try:
            if "chrom" in child.name() or "headless" in child.name():
                times = child.cpu_times()
                total += times.user + times.system
        except psutil.Error:
            continue
    return total


def main() -> None:
    """Start a server, warm it with one visit, then the rounds; print the medians and their ratio."""
    from browser_support import CHROMIUM_ARGS, FAST, start_server, stop_server, wait_for_charts
    from playwright.sync_api import sync_playwright

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    shell, full = shutil.which("chromium-headless-shell"), shutil.which("chromium")
    if not shell or not full:
        raise SystemExit("needs Debian's chromium and chromium-headless-shell (apt-get install -y both)")
    proc, url, log = start_server(Path(tempfile.mkdtemp()))
    results: dict[str, list[tuple[float, float]]] = {shell: [], full: []}
    try:
        with sync_playwright() as p:
            for k in range(args.rounds + 1):  # round 0 warms the server's cache, not counted
                for exe in (full, shell):
                    start, cpu0 = time.monotonic(), _browser_cpu(os.getpid())
                    browser = p.chromium.launch(executable_path=exe, args=CHROMIUM_ARGS)
                    # each page kept open until the CPU is read (a closed page's process is gone)
                    for page_path in PAGES:
                        page = browser.new_page(viewport={"width": 1500, "height": 1100})
                        page.set_default_timeout(300_000)
                        page.goto(f"{url}/{page_path.format(FAST=FAST)}")
                        wait_for_charts(page, 4)
                    wall, cpu = time.monotonic() - start, _browser_cpu(os.getpid()) - cpu0
                    browser.close()
                    if k:
                        results[exe].append((wall, cpu))
                        print(
                            f"round {k} {Path(exe).name:24} wall {wall:5.1f} s   browser CPU {cpu:5.1f} s", flush=True
                        )
    finally:
        stop_server(proc, log)
    med = {exe: (statistics.median(w for w, _ in r), statistics.median(c for _, c in r)) for exe, r in results.items()}
    print(f"median full chromium:    wall {med[full][0]:.1f} s, browser CPU {med[full][1]:.1f} s")
    print(f"median headless shell:   wall {med[shell][0]:.1f} s, browser CPU {med[shell][1]:.1f} s")
    print(f"ratio shell/full:        wall {med[shell][0] / med[full][0]:.2f}, CPU {med[shell][1] / med[full][1]:.2f}")


if __name__ == "__main__":
    main()
