"""A hosted class survives its faults, in real browsers against the hosted start command (two
supervised server processes behind a real HAProxy): one server process killed with ``kill -9``;
the teacher reloading, opening a second tab and the projector link; PostgreSQL restarted
mid-class; a rolling restart; a fresh start on an empty cache. Each test checks what a teacher
and the students see, and what the store holds; the recovery times are benchmarks/bench_faults.py's
to report (no clock thresholds here)."""

from __future__ import annotations

import os
import re
import shutil
import sqlite3
import subprocess
import time

import pytest
import shared_models
from browser_support import ROOT, start_server, stop_server
from class_support import (
    HealthProbe,
    Tab,
    all_up,
    join_by_link,
    kill_server,
    next_step,
    predict,
    run_dir_of,
    server_pid,
    settled,
    shows_prediction,
    start_class,
    unanswered_spans,
)
from db_support import Postgres, needs_postgres
from playwright.sync_api import expect

from dpviz.classroom import Store
from webui.identity import STUDENT_COOKIE, TEACHER_COOKIE

pytestmark = [
    pytest.mark.timeout(900),
    pytest.mark.skipif(
        shutil.which("haproxy") is None and not os.environ.get("DPVIZ_REQUIRE_BROWSER"),
        reason="no HAProxy here (scripts/test.sh installs Debian's haproxy; CI requires it)",
    ),
]
HOSTED = {"DPVIZ_HOSTED": "1", "DPVIZ_PROCESSES": "2", "DPVIZ_WARMUP": "0"}


def _wait(tab: Tab, ok, seconds: float = 60) -> None:
    """Wait (pumping the browser's events) until ``ok()``; fail after ``seconds``."""
    for _ in range(int(seconds * 10)):
        if ok():
            return
        tab.page.wait_for_timeout(100)
    raise AssertionError(f"{tab.name}: not reached in {seconds:.0f} s")


@pytest.fixture
def tab(browser):
    """``tab(url, process, name)``: a new browser tab (a context of its own), closed after the test."""
    made = []

    def open_tab(url: str, process: str | None, name: str) -> Tab:
        made.append(Tab(browser, url, process, name))
        return made[-1]

    yield open_tab
    for t in made:
        t.close()


@pytest.fixture
def hosted(tmp_path, warm_cache):
    proc, url, log = start_server(tmp_path, HOSTED, cache_from=warm_cache)
    yield url, run_dir_of(tmp_path), tmp_path
    stop_server(proc, log)


def test_a_killed_process_is_restarted_and_its_students_come_back_by_themselves(hosted, tab):
    url, run, tmp = hosted
    teacher = tab(url, "p2", "teacher")
    code = start_class(teacher)
    next_step(teacher, 2)
    students = []
    for k, process in enumerate(("p1", "p2", "p1")):
        s = tab(url, process, f"s{k}")
        join_by_link(s, code)
        predict(s, k + 3)
        students.append(s)
    teacher.page.get_by_text("Your class: 3 answered.").wait_for(timeout=30_000)
    tokens = [s.cookie(STUDENT_COOKIE) for s in students]
    assert all(tokens) and len(set(tokens)) == 3  # each browser keeps its own identity
    old_pid = server_pid(run, "p1")
    teacher_sockets = len(teacher.opened)

    probe = HealthProbe(url, tmp / "health.jsonl")
    teacher.page.wait_for_timeout(500)
    _, killed = kill_server(run, "p1")
    for k in (0, 2):  # the students of the killed process: drawn again in full, with their prediction
        s = students[k]
        _wait(s, lambda s=s: s.whole_runs_since(killed) and shows_prediction(s, 3 + students.index(s)))
        assert s.cookie("DPVIZ_SERVER") == "p2"  # the proxy sent them to the live process
        assert s.cookie(STUDENT_COOKIE) == tokens[k]  # the same student
    _wait(teacher, lambda: all_up(run))  # supervisord started p1 again; the proxy sees it up
    assert server_pid(run, "p1") != old_pid
    teacher.page.wait_for_timeout(1000)
    rows = probe.stop()
    failed, _ = unanswered_spans(rows, killed, rows[-1][0])
    assert failed == 0  # the proxy's health endpoint answered every probe
    # the teacher and the other student were never cut off
    assert len(teacher.opened) == teacher_sockets and not teacher.closed
    assert not students[1].closed

    # one prediction each, however often they came back (the class store: SQLite in the server's cache)
    with sqlite3.connect(tmp / "cache" / "classes.sqlite") as db:
        rows = db.execute("SELECT student, number FROM dpviz_prediction_v2 WHERE code = ?", (code,)).fetchall()
    assert sorted(n for _, n in rows) == [3.0, 4.0, 5.0] and {s for s, _ in rows} == set(tokens)
    teacher.page.get_by_text("Your class: 3 answered.").wait_for(timeout=30_000)
    next_step(teacher, 3)
    for s in students:
        s.page.get_by_text("Step 3 of 7").first.wait_for(timeout=30_000)
        assert s.errors() == 0
    log = next(tmp.glob("streamlit-*.log")).read_text(errors="replace")
    assert re.search(r"exited: p1 \(exit status 137; not expected\)", log)  # why it died, in the log
    assert "was ended by signal 9 (SIGKILL)" in log
    assert "Traceback" not in log


def test_the_teacher_stays_the_teacher_and_the_projector_has_no_controls(hosted, tab):
    url, run, _ = hosted
    teacher = tab(url, "p1", "teacher")
    code = start_class(teacher)
    next_step(teacher, 2)
    secret = teacher.cookie(TEACHER_COOKIE + code)
    assert secret and len(secret) >= 43

    teacher.page.reload()  # a reload keeps the teacher's controls
    teacher.page.get_by_text("Step 2 of 7").first.wait_for()
    assert "You lead" in teacher.text() and teacher.page.get_by_role("button", name="Next ▶").is_enabled()

    second = teacher.ctx.new_page()  # a second tab of the same browser: the teacher too
    second.goto(f"{url}/Lessons?lesson=adept&code={code}")
    second.get_by_text("Step 2 of 7").first.wait_for()
    assert "You lead" in second.locator("body").inner_text()

    student = tab(url, "p2", "student")
    join_by_link(student, code)
    assert student.cookie(TEACHER_COOKIE + code) is None  # the secret never reaches a student
    assert secret not in student.page.content()

    projector = tab(url, "p2", "projector")  # the classroom's PC: no secret
    projector.page.goto(f"{url}/Lessons?lesson=adept&code={code}&present=true")
    projector.page.get_by_text(f"Class {code}, projector view").wait_for()
    settled(projector.page)
    page = projector.page
    assert page.get_by_role("button", name="Lock in my prediction").count() == 0
    assert page.get_by_role("button", name="Next ▶").count() == 0
    assert page.get_by_role("button", name="Reveal the answer").count() == 0
    # hidden by the projector's style, which a run stopped for the seat's rerun may draw a moment later
    expect(page.locator('[data-testid="stSidebar"]')).to_be_hidden(timeout=30_000)
    assert projector.cookie(TEACHER_COOKIE + code) is None
    page.get_by_text("0 answered.").wait_for()

    predict(student, 8)
    page.get_by_text("1 answered.").wait_for(timeout=30_000)
    teacher.page.get_by_role("button", name="Reveal the answer").click()  # the projector shows the answer
    page.get_by_text("The answer: 8.0.").wait_for(timeout=30_000)
    page.locator(".js-plotly-plot").filter(has_text="true: 8.0").first.wait_for()  # the class beside the truth

    # the teacher's own projector tab keeps the teacher's controls but has no prediction box
    mine = teacher.ctx.new_page()
    mine.goto(f"{url}/Lessons?lesson=adept&code={code}&present=true")
    mine.get_by_text("Step 2 of 7").first.wait_for()
    assert mine.get_by_role("button", name="Next ▶").is_enabled()
    mine.get_by_role("button", name="Next ▶").click()  # and it moves the class
    for p in (teacher.page, student.page, page, second):
        p.get_by_text("Step 3 of 7").first.wait_for(timeout=30_000)


def test_a_rolling_restart_replaces_every_process_while_the_proxy_answers(hosted, tab):
    url, run, tmp = hosted
    student = tab(url, "p1", "student")
    student.page.goto(f"{url}/Lessons?lesson=adept&step=2")
    predict(student, 5)  # solo, in this tab's session
    pids = {name: server_pid(run, name) for name in ("p1", "p2")}
    probe = HealthProbe(url, tmp / "health.jsonl")
    student.page.wait_for_timeout(500)
    out = subprocess.run(
        ["bash", "scripts/serve.sh", "restart"],
        cwd=ROOT,
        env={**os.environ, "DPVIZ_RUN_DIR": str(run)},
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert out.returncode == 0, out.stderr
    assert "p1 is back" in out.stderr and "p2 is back" in out.stderr
    rows = probe.stop()
    assert unanswered_spans(rows, rows[0][0], rows[-1][0])[0] == 0  # every probe answered
    assert all(server_pid(run, n) != pid for n, pid in pids.items())  # both replaced
    _wait(student, lambda: "Step 2 of 7" in student.text())  # the page came back by itself
    student.page.get_by_role("button", name="Next ▶").click()
    student.page.get_by_text("Step 3 of 7").first.wait_for()
    assert student.errors() == 0


@pytest.fixture
def hosted_on_postgres(tmp_path, warm_cache):
    pg = Postgres()
    proc, url, log = start_server(tmp_path, {**HOSTED, "DPVIZ_CLASS_DB": pg.url}, cache_from=warm_cache)
    yield url, pg
    stop_server(proc, log)
    pg.stop()


@needs_postgres
def test_a_postgres_restart_mid_class_shows_no_error_and_loses_nothing(hosted_on_postgres, tab):
    url, pg = hosted_on_postgres
    teacher = tab(url, "p1", "teacher")
    code = start_class(teacher)
    next_step(teacher, 2)
    students = []
    for k, process in enumerate(("p1", "p2", "p1", "p2")):
        s = tab(url, process, f"s{k}")
        join_by_link(s, code)
        students.append(s)
    predict(students[0], 1)
    pg._ctl("-m", "fast", "stop")  # the database goes away mid-class ...
    for k, s in enumerate(students[1:], start=2):  # ... while three students lock in predictions
        s.page.get_by_label("Your prediction").fill(str(k))
        s.page.get_by_role("button", name="Lock in my prediction").click()
    teacher.page.wait_for_timeout(3000)
    pg._ctl("start")  # and comes back
    for k, s in enumerate(students, start=1):
        _wait(s, lambda s=s, k=k: shows_prediction(s, k) and "Not saved yet" not in s.text())
    teacher.page.get_by_text("Your class: 4 answered.").wait_for(timeout=60_000)
    for t in (teacher, *students):
        assert t.errors() == 0, f"{t.name} shows an error box"
    rows = Store(pg.url)._run(
        "SELECT student, number FROM dpviz_prediction_v2 WHERE code = %s AND step = 2", (code,), fetch=True
    )
    assert sorted(n for _, n in rows) == [1.0, 2.0, 3.0, 4.0] and len({s for s, _ in rows}) == 4
    next_step(teacher, 3)
    for s in students:
        s.page.get_by_text("Step 3 of 7").first.wait_for(timeout=30_000)


def test_a_fresh_hosted_start_on_an_empty_cache_logs_no_traceback(tmp_path):
    """Both processes warm every page's defaults on one empty cache at once (the metric tables, the
    compiled loops, every lesson): each is built once, and nothing fails. The cache has the run's
    trained fastText stand-in, as every test cache does (tests/shared_models.py): two processes
    training it at once on an empty cache is test_build_once.py's test, and its training here was
    17 of each process's 51 s."""
    shared_models.share_models(tmp_path / "cache")
    proc, url, log = start_server(tmp_path, {"DPVIZ_HOSTED": "1", "DPVIZ_PROCESSES": "2", "PYTHONUNBUFFERED": "1"})
    try:
        path = next(tmp_path.glob("streamlit-*.log"))
        for _ in range(1800):
            if path.read_text(errors="replace").count("dpviz: warm-up done") >= 2:
                break
            time.sleep(0.5)
        text = path.read_text(errors="replace")
        assert text.count("dpviz: warm-up done") == 2, text[-3000:]
    finally:
        stop_server(proc, log)
    assert "Traceback" not in text and " ERROR " not in text and "CRIT" not in text, text[-5000:]
