"""Class mode in the real browser: one teacher and three students, each a browser context of its
own. The teacher starts a class; the students join by its code; the teacher moves the class and
the students follow; they predict; the teacher's view counts three answers and shows them beside
the true value; the next step is followed. Once on one server with SQLite, once on two server
processes behind HAProxy sharing a PostgreSQL server started for the test, the teacher and the
students spread over both processes."""

from __future__ import annotations

import re

import pytest
from browser_support import SETTLE_MS, start_server, stop_server, wait_run_ended
from db_support import Postgres, needs_postgres
from playwright.sync_api import expect

from serving.proxy_config import COOKIE

PREDICTIONS = ("8", "3", "8")


def _settled(page) -> None:
    wait_run_ended(page, timeout=120_000, hold_ms=SETTLE_MS)


def _open(browser, url: str, process: str | None = None):
    ctx = browser.new_context(viewport={"width": 1300, "height": 1000})
    if process:  # the proxy's cookie: this browser is kept on that server process
        ctx.add_cookies([{"name": COOKIE, "value": process, "url": url}])
    page = ctx.new_page()
    page.set_default_timeout(90_000)
    return ctx, page


def _take_a_class(browser, url: str, processes=(None, None, None, None)) -> None:
    contexts = []
    try:
        ctx, teacher = _open(browser, url, processes[0])
        contexts.append(ctx)
        teacher.goto(f"{url}/Lessons?lesson=adept")
        teacher.get_by_text("Step 1 of 7").wait_for()
        teacher.get_by_role("button", name="Class mode").click()
        teacher.get_by_role("button", name="Start a class with this lesson").click()
        info = teacher.get_by_text(re.compile(r"Class code [A-Z0-9]{6}")).first
        info.wait_for()
        code = re.search(r"Class code ([A-Z0-9]{6})", info.inner_text()).group(1)
        assert f"code={code}" in teacher.url

        students = []
        for k in range(3):
            ctx, page = _open(browser, url, processes[k + 1])
            contexts.append(ctx)
            page.goto(f"{url}/Lessons")
            page.get_by_role("button", name="Class mode").click()
            page.get_by_label("Join a class: its code").fill(code.lower())  # typed as a student might
            page.get_by_role("button", name="Join", exact=True).click()
            page.get_by_text(f"Class {code}: your teacher leads").wait_for()
            # the student's one Next button, disabled (while the page redraws, the one it replaces may
            # still stand beside it)
            page.wait_for_function(
                "() => { const b = [...document.querySelectorAll('button')].filter("
                "(e) => e.innerText.trim() === 'Next ▶'); return b.length === 1 && b[0].disabled; }"
            )
            students.append(page)

        teacher.get_by_role("button", name="Next ▶").click()
        teacher.get_by_text("Step 2 of 7").first.wait_for()
        for page in students:  # they follow within the polling interval
            page.get_by_text("Step 2 of 7").first.wait_for(timeout=30_000)
            assert "step=2" in page.url

        for page, guess in zip(students, PREDICTIONS):
            page.get_by_label("Your prediction").fill(guess)
            page.get_by_role("button", name="Lock in my prediction").click()
            page.get_by_text(f"Your prediction: {float(guess):.1f}").wait_for()
        teacher.get_by_text("Your class: 3 answered.").wait_for(timeout=30_000)
        chart = teacher.locator(".js-plotly-plot").last
        # the class's chart redrawn with the three answers (the sentence above can come a moment first)
        expect(chart).to_contain_text("3 answered", timeout=30_000)
        assert "true: 8.0" in chart.inner_text()

        students[1].get_by_role("button", name="Reveal the answer").click()
        box = students[1].locator('[data-testid="stAlertContentWarning"]').filter(has_text="The answer: 8.0.")
        box.wait_for()
        assert "Your prediction: 3.0. Not what you predicted." in box.inner_text()

        teacher.get_by_role("button", name="Next ▶").click()
        for page in students:
            page.get_by_text("Step 3 of 7").first.wait_for(timeout=30_000)
    finally:
        for ctx in contexts:
            ctx.close()


def test_a_class_on_one_server_with_sqlite(server, browser):
    _take_a_class(browser, server)


@needs_postgres
def test_a_class_on_two_processes_sharing_postgres(browser, tmp_path, warm_cache):
    pg = Postgres()
    try:
        proc, url, log = start_server(
            tmp_path,
            {"DPVIZ_HOSTED": "1", "DPVIZ_PROCESSES": "2", "DPVIZ_WARMUP": "0", "DPVIZ_CLASS_DB": pg.url},
            cache_from=warm_cache,
        )
        try:
            # the teacher on one process, the students on both
            _take_a_class(browser, url, processes=("p1", "p2", "p1", "p2"))
        finally:
            stop_server(proc, log)
    finally:
        pg.stop()


def test_a_bad_class_code_is_a_sentence(server, browser):
    ctx, page = _open(browser, server)
    try:
        page.goto(f"{server}/Lessons?lesson=adept&code=ZZZZZZ")
        page.get_by_text("There is no class ZZZZZZ").wait_for()
        page.get_by_text("Step 1 of 7").first.wait_for()  # the lesson works on its own
        page.goto(f"{server}/Lessons?lesson=../../etc/passwd")
        page.get_by_text("There is no lesson '../../etc/passwd'").wait_for()
        _settled(page)
        assert page.locator('[data-testid="stException"]').count() == 0
    finally:
        ctx.close()


pytestmark = pytest.mark.timeout(900)
