"""A hosted demo under attack, in the real browser: hostile formulas and uploads from one visitor
while another visitor works. Each attack ends in one sentence on the attacker's page; the server
stays within its CPU and memory bounds; the other visitor's slider keeps answering."""

from __future__ import annotations

import os
import time
from urllib.parse import quote

import pytest
from browser_support import (
    PS_FAST,
    SETTLE_MS,
    chart_html,
    chart_js,
    children,
    descendants,
    start_server,
    stop_server,
    submit,
    wait_for_charts,
    wait_run_ended,
)

FAST = "pairs=1000&dims=1-40&samples=5000&draws=200&audit_samples=2000"


def _server_usage(pid: int) -> tuple[float, int]:
    """(CPU seconds of the server process and its reaped children, resident bytes of the server)."""
    with open(f"/proc/{pid}/stat") as fh:
        fields = fh.read().rsplit(")", 1)[1].split()
    ticks = os.sysconf("SC_CLK_TCK")
    cpu = sum(int(fields[k]) for k in (11, 12, 13, 14)) / ticks  # utime stime cutime cstime
    with open(f"/proc/{pid}/statm") as fh:
        rss = int(fh.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    return cpu, rss


def _worker_cpu(pid: int) -> float:
    """CPU seconds of the formula workers so far: the reaped children of the server's fork server."""
    for child in children(pid):
        with open(f"/proc/{child}/cmdline") as fh:
            if "dpviz.sandbox" in fh.read():
                with open(f"/proc/{child}/stat") as st:
                    fields = st.read().rsplit(")", 1)[1].split()
                return (int(fields[13]) + int(fields[14])) / os.sysconf("SC_CLK_TCK")
    return 0.0


def _wait_idle(pid: int, limit: float = 180.0) -> None:
    """Wait until the server is idle (under 0.1 CPU-s per second): what the first visits left running
    (a page's last charts, the sessions' reruns) must not be counted as an attack's cost."""
    end = time.monotonic() + limit
    while time.monotonic() < end:
        before = _server_usage(pid)[0]
        time.sleep(1.0)
        if _server_usage(pid)[0] - before < 0.1:
            return


def _all_rss(pid: int) -> int:
    """Resident bytes of the server and every process below it (the formula workers included)."""
    total = 0
    for p in [pid, *descendants(pid)]:
        try:
            with open(f"/proc/{p}/statm") as fh:
                total += int(fh.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
        except OSError:  # (ended meanwhile)
            continue
    return total


FORMULA_CPU = 4


@pytest.fixture(scope="module")
def hosted(tmp_path_factory, warm_cache):
    tmp = tmp_path_factory.mktemp("hosted")
    # a formula's CPU-seconds set by the operator's knob (dpviz.sandbox.CPU_ENV): 4, not the default 8,
    # which the two formulas that never finish burned for 16 s of the run's CPU; hosted mode's limits,
    # without its warm-up of every page's views (the tests here waited for it to end, _wait_idle, and it
    # is the fault tests' subject: tests/browser/test_faults.py)
    env = {"DPVIZ_HOSTED": "1", "DPVIZ_FORMULA_CPU_SECONDS": str(FORMULA_CPU), "DPVIZ_WARMUP": "0"}
    proc, url, log = start_server(tmp, env, cache_from=warm_cache)
    yield proc, url
    stop_server(proc, log)


def _page(browser):
    ctx = browser.new_context(viewport={"width": 1500, "height": 1100})
    pg = ctx.new_page()
    pg.set_default_timeout(90_000)
    return ctx, pg


def _one_sentence_and_no_traceback(page, fragment: str) -> None:
    try:
        page.wait_for_function("(t) => document.body.innerText.includes(t)", arg=fragment, timeout=90_000)
    except Exception:
        raise AssertionError(f"no {fragment!r} on the page: {page.locator('body').inner_text()[:3000]}") from None
    assert page.locator('[data-testid="stException"]').count() == 0
    body = page.locator("body").inner_text()
    assert "Traceback" not in body and "/site-packages/" not in body and 'File "' not in body


def _slider_move_seconds(page) -> float:
    """Move the ADePT dimension slider one step and wait for the chart it drives to be redrawn."""
    before = chart_html(page, 0)
    slider = page.get_by_role("slider", name="Dimension n")
    start = time.perf_counter()
    slider.focus()
    page.keyboard.press("ArrowRight")
    page.wait_for_function(
        "(b) => { const c = " + chart_js("all[0]") + "; return c && c.innerHTML !== b; }",
        arg=before,
        timeout=90_000,
    )
    return time.perf_counter() - start


HOSTILE_FORMULAS = [  # alternating, so that each sentence differs from the one still on the page
    ("max(exp(exp(exp(20))), a)", "CPU-seconds"),  # never finishes: ends in the worker
    ("a + log(0)", "infinite or undefined"),
    ("min(exp(exp(exp(20))), b) + a", "CPU-seconds"),
    ("a*(-1)**0.5", "complex values"),
]


def test_hostile_formulas_end_in_a_sentence_while_another_visitor_keeps_working(hosted, browser):
    proc, url = hosted
    ctx_a, attacker = _page(browser)
    ctx_b, visitor = _page(browser)
    try:
        visitor.goto(f"{url}/ADePT_sensitivity?{FAST}")
        wait_for_charts(visitor, 6)
        baseline = [_slider_move_seconds(visitor) for _ in range(3)]
        attacker.goto(f"{url}/Partial_sensitivity?{PS_FAST}")
        wait_for_charts(attacker, 6)
        box = attacker.get_by_role("textbox", name="Query per individual f", exact=True)
        _wait_idle(proc.pid)
        during, costs = [], []
        for formula, fragment in HOSTILE_FORMULAS:
            cpu0, work0 = _server_usage(proc.pid)[0], _worker_cpu(proc.pid)
            submit(box, formula)
            if fragment == "CPU-seconds":  # while the worker burns its budget, the other visitor moves a slider
                time.sleep(1.0)
                during.append(_slider_move_seconds(visitor))
                assert "CPU-seconds" not in attacker.locator("body").inner_text()  # the attack was still running
            _one_sentence_and_no_traceback(attacker, fragment)
            if fragment == "CPU-seconds":  # the sentence gives the limit the operator set: "needs more
                # than the 4 CPU-seconds", or on a loaded machine, where the wall clock stopped a starved
                # worker first, "the server is busy (it had 1.2 of its 4 CPU-seconds)" (run 27)
                assert f"{FORMULA_CPU} CPU-seconds" in attacker.locator("body").inner_text()
            # the network section still draws, once the run that shows the sentence is over (counted
            # during the run, charts the run was putting back were not drawn yet)
            wait_run_ended(attacker, timeout=90_000, hold_ms=SETTLE_MS)
            attacker.wait_for_function("document.querySelectorAll('.js-plotly-plot').length >= 3", timeout=60_000)
            costs.append((formula, _server_usage(proc.pid)[0] - cpu0, _worker_cpu(proc.pid) - work0))
        # non-smooth functions now work: the query charts come back
        submit(box, "abs(a - 1.5)*b + max(a, b)")
        attacker.wait_for_function("document.querySelectorAll('.js-plotly-plot').length >= 6", timeout=90_000)
        assert attacker.locator('[data-testid="stException"]').count() == 0
        print(
            f"\nslider move, seconds: alone {[round(x, 2) for x in baseline]}, during the attack "
            f"{[round(x, 2) for x in during]}"
        )
        for formula, server_cpu, worker_cpu in costs:
            print(
                f"  {formula}: server process {server_cpu:.2f} CPU-s (both visitors' reruns), formula worker "
                f"{worker_cpu:.2f} CPU-s"
            )
            assert worker_cpu <= FORMULA_CPU + 1  # the kernel's limit on the worker, as the operator set it
    finally:
        ctx_a.close()
        ctx_b.close()


def _bombs(tmp_path) -> dict:
    """Hostile embedding files and the words of the sentence each must get."""
    files = {
        "billion.vec": (b"1000000000 300\nthe 0.1\n", "claims 1,000,000,000 words"),
        "billion.bin": (b"999999999 300\n" + bytes(400), "claims 999,999,999 words"),
        "wide.txt": (b"word " + b"0.5 " * 20_000 + b"\n", "longer than a word and 10,000 numbers"),
    }
    out = {}
    for name, (data, fragment) in files.items():
        p = tmp_path / name
        p.write_bytes(data)
        out[p] = fragment
    return out


def test_hostile_uploads_are_refused_with_a_sentence_and_the_server_keeps_its_memory(hosted, browser, tmp_path):
    proc, url = hosted
    ctx, page = _page(browser)
    try:
        page.goto(f"{url}/Metric_DP?words=3&samples=100&knn_words=20&epsilons=2,5,10,30")
        wait_for_charts(page, 8)
        base = _all_rss(proc.pid)
        page.get_by_text("Use your own embedding file").click()
        upload = page.locator("input[type=file]").first
        peak = base
        for path, fragment in _bombs(tmp_path).items():
            upload.set_input_files(str(path))
            _one_sentence_and_no_traceback(page, fragment)
            peak = max(peak, _all_rss(proc.pid))
            # the next file once the refusal's run has ended, as a reader who read the sentence: a file
            # set while it ran was once refused by Streamlit's upload (HTTP 400) in a loaded suite run
            wait_run_ended(page, timeout=90_000, hold_ms=SETTLE_MS)
        assert page.locator(".js-plotly-plot").count() >= 8  # the page still works on its embedding
        print(
            f"\nserver memory: {base / 2**20:.0f} MiB before the hostile uploads, at most {peak / 2**20:.0f} MiB during"
        )
        assert peak - base < 2**30
    finally:
        ctx.close()


def test_a_link_with_an_over_cap_word_list_or_attack_is_one_sentence(hosted, browser):
    _, url = hosted
    ctx, page = _page(browser)
    try:
        words = quote(",".join(["of", "to", "in", "is", "it"] * 32))
        page.goto(f"{url}/Metric_DP?words=3&samples=100&knn_words=20&word_list={words}")
        _one_sentence_and_no_traceback(page, "above the hosted demo's cap")
        page.goto(f"{url}/HoHo_attack?targets=1&audit_samples=2000")
        _one_sentence_and_no_traceback(page, "the hosted demo attacks at most")
    finally:
        ctx.close()


def test_hostile_sentence_files_are_refused_with_a_sentence(hosted, browser, tmp_path):
    _, url = hosted
    ctx, page = _page(browser)
    files = {
        "many.txt": (
            "\n".join(f"the film number {i} was fine" for i in range(2_500)).encode(),
            "At most 2,000 sentences",
        ),
        "labels.csv": (
            ("sentence,label\n" + "\n".join(f"sentence {i} here,{i % 3}" for i in range(12))).encode(),
            "found '2'",
        ),
        "field.csv": (
            ("sentence,label\n" + "\n".join(f"s {i},0" for i in range(11)) + '\n"' + "x" * 140_000 + '",1\n').encode(),
            "could not be read",
        ),
    }
    try:
        page.goto(f"{url}/HoHo_attack?targets=0.05&epsilons=0.1,1&lambdas=1,10&audit_samples=2000")
        wait_for_charts(page, 6)
        page.get_by_text("Use your own sentences").click()
        upload = page.locator("input[type=file]").first
        for name, (data, fragment) in files.items():
            path = tmp_path / name
            path.write_bytes(data)
            upload.set_input_files(str(path))
            _one_sentence_and_no_traceback(page, fragment)
        bom = tmp_path / "excel.csv"
        bom.write_bytes(
            b"\xef\xbb\xbf"
            + ("sentence,label\n" + "\n".join(f"the film {i} was good,{i % 2}" for i in range(12))).encode()
        )
        upload.set_input_files(str(bom))
        _one_sentence_and_no_traceback(page, "12 sentences with labels.")
        assert page.locator(".js-plotly-plot").count() >= 6
    finally:
        ctx.close()
