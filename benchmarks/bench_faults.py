"""Recovery figures of a hosted class under its faults, in real browsers (headless Chromium).

The hosted start command (``DPVIZ_HOSTED=1 DPVIZ_PROCESSES=2 bash scripts/serve.sh``: two
supervised server processes behind HAProxy), a teacher and ``--students`` students (half on each
process, each with a prediction locked in), then, in order:

1. **baseline**: the proxy's health endpoint probed every 50 ms from a process of its own for 10 s
   with nothing wrong, and one student's page reloaded (a whole run of the page, as a reconnection
   needs): the figures the faults are compared with;
2. **kill -9** of one server process: the longest time the proxy's health endpoint gave no answer;
   per student of that process, the time from the kill to a whole new run of the page in their
   browser showing their own prediction; the time until every process is running and up in the
   proxy again; whether the teacher or the other students lost their connection;
3. **teacher**: a reload, a second tab and the projector link (kept controls; none on the projector);
4. **PostgreSQL restart** (the class store on a PostgreSQL server started here, down for
   ``--db-down`` seconds while students lock in predictions): error boxes on every page, predictions
   stored, lost and duplicated;
5. **rolling restart** (``bash scripts/serve.sh restart``): its duration and the longest time
   the health endpoint gave no answer;
6. **fresh starts** (``--fresh-runs``, default 10): the hosted start on an empty cache until both
   processes say their warm-up is done; tracebacks in the log, warm-up time.

    python benchmarks/bench_faults.py                 # everything
    python benchmarks/bench_faults.py --fresh-runs 0  # without the fresh starts (about 2 minutes)
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
import from_tests  # noqa: E402, F401 - the tests' helpers (benchmarks/from_tests.py)
from browser_support import CHROMIUM, CHROMIUM_ARGS, start_server, stop_server  # noqa: E402
from class_support import (  # noqa: E402
    HealthProbe,
    Tab,
    all_up,
    join_by_link,
    kill_server,
    next_step,
    predict,
    run_dir_of,
    shows_prediction,
    start_class,
    unanswered_spans,
)

HOSTED = {"DPVIZ_HOSTED": "1", "DPVIZ_PROCESSES": "2"}


def _until(tab: Tab, ok, limit: float = 60.0) -> float | None:
    """Seconds until ``ok()`` (checked every 50 ms while the browser's events are pumped), or None."""
    start = time.monotonic()
    while time.monotonic() - start < limit:
        if ok():
            return time.monotonic() - start
        tab.page.wait_for_timeout(50)
    return None


def _all_until(checks: dict, tab: Tab, since: float, limit: float = 60.0) -> dict:
    """For each named check, the seconds from ``since`` until it first held (checked together every
    50 ms while the browser's events are pumped), or None if it never did within ``limit``."""
    got: dict = {name: None for name in checks}
    while time.monotonic() - since < limit and None in got.values():
        for name, ok in checks.items():
            if got[name] is None and ok():
                got[name] = time.monotonic() - since
        tab.page.wait_for_timeout(50)
    return got


def _wait_warm(tmp: Path, processes: int = 2, limit: float = 900) -> float:
    log = next(tmp.glob("streamlit-*.log"))
    start = time.monotonic()
    while log.read_text(errors="replace").count("dpviz: warm-up done") < processes:
        if time.monotonic() - start > limit:
            raise TimeoutError("the warm-up did not finish")
        time.sleep(0.5)
    return time.monotonic() - start


def _class(browser, url: str, students: int) -> tuple[Tab, list[Tab], str]:
    teacher = Tab(browser, url, "p2", "teacher")
    code = start_class(teacher)
    next_step(teacher, 2)
    tabs = []
    for k in range(students):
        s = Tab(browser, url, "p1" if k % 2 == 0 else "p2", f"s{k}")
        join_by_link(s, code)
        predict(s, k + 1)
        tabs.append(s)
    teacher.page.get_by_text(f"Your class: {students} answered.").wait_for(timeout=60_000)
    return teacher, tabs, code


def baseline(url: str, tmp: Path, student: Tab) -> dict:
    probe = HealthProbe(url, tmp / "health-baseline.jsonl")
    time.sleep(10)
    rows = probe.stop()
    failed, longest = unanswered_spans(rows, rows[0][0], rows[-1][0])
    mark = time.monotonic()
    student.page.reload()
    back = _until(student, lambda: student.whole_runs_since(mark) and shows_prediction(student, 1))
    return {"health_failed": failed, "health_longest_s": longest, "probes": len(rows), "reload_redrawn_s": back}


def kill_one(url: str, run: Path, tmp: Path, teacher: Tab, students: list[Tab]) -> dict:
    probe = HealthProbe(url, tmp / "health-kill.jsonl")
    teacher.page.wait_for_timeout(1000)
    sockets = {t.name: len(t.closed) for t in [teacher, *students]}
    _, killed = kill_server(run, "p1")
    back = _all_until(
        {
            s.name: (lambda s=s, k=k: s.whole_runs_since(killed) and shows_prediction(s, k + 1))
            for k, s in enumerate(students)
            if k % 2 == 0
        },
        teacher,
        killed,
    )
    up = _until(teacher, lambda: all_up(run), 120)
    all_healthy = None if up is None else time.monotonic() - killed
    teacher.page.wait_for_timeout(1000)
    rows = probe.stop()
    failed, longest = unanswered_spans(rows, killed - 0.5, rows[-1][0])
    others = [t for k, t in enumerate([teacher, *students]) if t is teacher or (k - 1) % 2 == 1]
    cut = [t.name for t in others if len(t.closed) != sockets[t.name]]
    return {
        "health_failed": failed,
        "health_longest_unanswered_s": longest,
        "students_redrawn_with_prediction_s": back,
        "all_processes_up_s": all_healthy,
        "interrupted_among_teacher_and_other_students": cut,
    }


def teacher_faults(browser, url: str, teacher: Tab, code: str) -> dict:
    out = {}
    teacher.page.reload()
    teacher.page.get_by_text("Step 2 of").first.wait_for()
    out["reload_keeps_teacher"] = teacher.page.get_by_role("button", name="Next ▶").is_enabled()
    second = teacher.ctx.new_page()
    second.goto(f"{url}/Lessons?lesson=adept&code={code}")
    second.get_by_text("Step 2 of").first.wait_for()
    out["second_tab_keeps_teacher"] = "You lead" in second.locator("body").inner_text()
    second.close()
    projector = Tab(browser, url, "p1", "projector")
    projector.page.goto(f"{url}/Lessons?lesson=adept&code={code}&present=true")
    projector.page.get_by_text(f"Class {code}, projector view").wait_for()
    projector.page.wait_for_timeout(2000)
    controls = projector.page.get_by_role("button", name="Lock in my prediction").count()
    controls += projector.page.get_by_role("button", name="Next ▶").count()
    out["projector_student_controls"] = controls
    projector.close()
    return out


def postgres_restart(browser, students: int, down: float) -> dict:
    from db_support import Postgres

    from dpviz.classroom import Store

    tmp = Path(tempfile.mkdtemp(prefix="faults-pg-"))
    pg = Postgres()
    proc, url, log = start_server(tmp, {**HOSTED, "DPVIZ_WARMUP": "0", "DPVIZ_CLASS_DB": pg.url})
    tabs = []
    try:
        teacher = Tab(browser, url, "p2", "teacher")
        tabs.append(teacher)
        code = start_class(teacher)
        next_step(teacher, 2)
        for k in range(students):
            s = Tab(browser, url, "p1" if k % 2 == 0 else "p2", f"s{k}")
            tabs.append(s)
            join_by_link(s, code)
        pg._ctl("-m", "fast", "stop")
        start = time.monotonic()
        for k, s in enumerate(tabs[1:]):
            s.page.get_by_label("Your prediction").fill(str(k + 1))
            s.page.get_by_role("button", name="Lock in my prediction").click()
        teacher.page.wait_for_timeout(max(0.0, down - (time.monotonic() - start)) * 1000)
        pg._ctl("start")
        restarted = time.monotonic()
        saved = [
            _until(s, lambda s=s, k=k: shows_prediction(s, k + 1) and "Not saved yet" not in s.text(), 60)
            for k, s in enumerate(tabs[1:])
        ]
        counted = _until(teacher, lambda: f"Your class: {students} answered." in teacher.text(), 60)
        rows = Store(pg.url)._run(
            "SELECT student, number FROM dpviz_prediction_v2 WHERE code = %s AND step = 2", (code,), fetch=True
        )
        numbers = sorted(n for _, n in rows)
        return {
            "down_s": round(restarted - start, 1),
            "error_boxes": sum(t.errors() for t in tabs),
            "stored": len(rows),
            "lost": len(set(range(1, students + 1)) - {int(n) for n in numbers}),
            "duplicated": len(rows) - len({s for s, _ in rows}),
            "all_saved_after_restart_s": None if None in saved else time.monotonic() - restarted,
            "teacher_counts_all": counted is not None,
        }
    finally:
        for t in tabs:
            t.close()
        stop_server(proc, log)
        pg.stop()


def rolling(url: str, run: Path, tmp: Path) -> dict:
    probe = HealthProbe(url, tmp / "health-rolling.jsonl")
    time.sleep(1)
    start = time.monotonic()
    out = subprocess.run(
        ["bash", "scripts/serve.sh", "restart"],
        cwd=ROOT,
        env={**os.environ, "DPVIZ_RUN_DIR": str(run)},
        capture_output=True,
        text=True,
    )
    took = time.monotonic() - start
    time.sleep(1)
    rows = probe.stop()
    failed, longest = unanswered_spans(rows, start, rows[-1][0])
    return {"ok": out.returncode == 0, "took_s": took, "health_failed": failed, "health_longest_unanswered_s": longest}


def fresh_starts(runs: int) -> dict:
    tracebacks, warm = [], []
    for _ in range(runs):
        tmp = Path(tempfile.mkdtemp(prefix="faults-fresh-"))
        proc, url, log = start_server(tmp, {**HOSTED, "PYTHONUNBUFFERED": "1"})
        try:
            warm.append(_wait_warm(tmp))
        finally:
            stop_server(proc, log)
        text = next(tmp.glob("streamlit-*.log")).read_text(errors="replace")
        tracebacks.append(text.count("Traceback"))
        print(f"  fresh start: warm-up {warm[-1]:.0f} s, tracebacks {tracebacks[-1]}", flush=True)
    return {"runs": runs, "runs_with_tracebacks": sum(1 for t in tracebacks if t), "warm_up_s": warm}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--students", type=int, default=6)
    ap.add_argument("--fresh-runs", type=int, default=10)
    ap.add_argument("--db-down", type=float, default=3.0, help="seconds PostgreSQL stays down")
    ap.add_argument("--json", help="write the figures here")
    args = ap.parse_args()
    from playwright.sync_api import sync_playwright

    figures: dict = {"machine": f"{os.cpu_count()} cores"}
    tmp = Path(tempfile.mkdtemp(prefix="faults-"))
    proc, url, log = start_server(tmp, {**HOSTED, "PYTHONUNBUFFERED": "1"})
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            _wait_warm(tmp)
            teacher, students, code = _class(browser, url, args.students)
            figures["baseline"] = baseline(url, tmp, students[0])
            print("baseline", figures["baseline"], flush=True)
            figures["kill_9"] = kill_one(url, run_dir_of(tmp), tmp, teacher, students)
            print("kill -9", figures["kill_9"], flush=True)
            figures["teacher"] = teacher_faults(browser, url, teacher, code)
            print("teacher", figures["teacher"], flush=True)
            figures["rolling_restart"] = rolling(url, run_dir_of(tmp), tmp)
            print("rolling restart", figures["rolling_restart"], flush=True)
            for t in [teacher, *students]:
                t.close()
        finally:
            stop_server(proc, log)
        figures["postgres_restart"] = postgres_restart(browser, args.students, args.db_down)
        print("postgres restart", figures["postgres_restart"], flush=True)
        browser.close()
    if args.fresh_runs:
        figures["fresh_start"] = fresh_starts(args.fresh_runs)
        print("fresh starts", {k: v for k, v in figures["fresh_start"].items() if k != "warm_up_s"}, flush=True)
    if args.json:
        Path(args.json).write_text(json.dumps(figures, indent=2))


if __name__ == "__main__":
    main()
