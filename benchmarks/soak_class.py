"""A class of 30 for half an hour, at the protocol level: does a server process's memory settle?

The hosted start command (two supervised server processes behind HAProxy), warmed; then classes
of ``--students`` one after another (each a teacher who starts a class and moves it to a question,
and students who open its link, poll, predict, reveal and drag the revealed chart's slider:
``benchmarks/class_lesson_load.py``'s play), each class ``--round`` seconds, for ``--minutes``.
The resident memory (RSS) of each server process is read every 10 s; the figures are each
process's RSS after the first 5 minutes and at the end, and their ratio (the target: within 10%),
with the errors and answer times of the rounds.

    python benchmarks/soak_class.py                       # 30 minutes, classes of 30, 5 minutes each
    python benchmarks/soak_class.py --minutes 6 --round 60
"""

from __future__ import annotations

import argparse
import json
import tempfile
import threading
import time
from pathlib import Path

import from_tests  # noqa: E402, F401 - the tests' helpers (benchmarks/from_tests.py)
from browser_support import start_server, stop_server  # noqa: E402
from class_lesson_load import Plan, play  # noqa: E402
from class_support import run_dir_of, server_pid  # noqa: E402

from serving.supervision import backends  # noqa: E402


def rss_mb(pid: int) -> float:
    """A process's resident memory in MB (from /proc)."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--students", type=int, default=30)
    ap.add_argument("--minutes", type=float, default=30)
    ap.add_argument("--round", type=float, default=300, help="seconds each class lasts")
    ap.add_argument("--settle", type=float, default=5, help="minutes after which the reference RSS is read")
    ap.add_argument("--json", help="write the figures here")
    args = ap.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="soak-"))
    proc, url, log = start_server(tmp, {"DPVIZ_HOSTED": "1", "DPVIZ_PROCESSES": "2", "PYTHONUNBUFFERED": "1"})
    run = run_dir_of(tmp)
    samples: list[tuple[float, dict]] = []
    stop = threading.Event()
    try:
        logfile = next(tmp.glob("streamlit-*.log"))
        while logfile.read_text(errors="replace").count("dpviz: warm-up done") < 2:
            time.sleep(1)
        names = list(backends(run))
        pids = {n: server_pid(run, n) for n in names}
        start = time.monotonic()

        def sample():
            while not stop.is_set():
                samples.append((time.monotonic() - start, {n: rss_mb(pids[n]) for n in names}))
                stop.wait(10)

        sampler = threading.Thread(target=sample, daemon=True)
        sampler.start()
        plan = Plan.of("adept", None)
        rounds = []
        while time.monotonic() - start < args.minutes * 60:
            left = args.minutes * 60 - (time.monotonic() - start)
            row, code = play(url, plan, args.students, min(args.round, max(left, 30)), proc.pid)
            rounds.append(row)
            print(
                f"{(time.monotonic() - start) / 60:5.1f} min: class {code}, errors {row['errors']}, "
                f"move p95 {row['move']['p95']:.2f} s, RSS {samples[-1][1]}",
                flush=True,
            )
        stop.set()
        sampler.join()
        assert all(server_pid(run, n) == pids[n] for n in names), "a server process was restarted during the soak"
    finally:
        stop.set()
        stop_server(proc, log)
    settle = min(samples, key=lambda s: abs(s[0] - args.settle * 60))
    end = samples[-1]
    figures = {
        "minutes": args.minutes,
        "classes": len(rounds),
        "students_per_class": args.students,
        "errors": sum(r["errors"] for r in rounds),
        "move_p95_s": max(r["move"]["p95"] for r in rounds),
        "rss_mb_at_settle": settle[1],
        "rss_mb_at_end": end[1],
        "rss_end_over_settle": {n: round(end[1][n] / settle[1][n], 3) for n in end[1]},
        "rss_samples": samples,
    }
    print(
        f"RSS after {settle[0] / 60:.1f} min: {settle[1]}; at the end ({end[0] / 60:.1f} min): {end[1]}; "
        f"end / {args.settle:g}-min: {figures['rss_end_over_settle']}; errors {figures['errors']} in "
        f"{len(rounds)} classes",
        flush=True,
    )
    if args.json:
        Path(args.json).write_text(json.dumps(figures, indent=2))


if __name__ == "__main__":
    main()
