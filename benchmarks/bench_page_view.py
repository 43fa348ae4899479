"""Benchmark: the server's CPU time per page view, in one run, for two server settings.

1. Page reruns (Streamlit AppTest, in-process): a control change reruns a page's script. With
   the shared figure cache (webui.views.cached_view) the charts whose parameters did not change
   are neither recomputed nor re-rendered; the baseline turns that cache off (size 0), so every
   rerun renders every chart again (tables still come from the disk cache where they have one).
2. Page views in a real browser (streamlit run + headless Chromium): server CPU seconds per
   warm page view with Streamlit's source watcher on (fileWatcherType=auto, Streamlit's
   default) against off (dpviz's .streamlit/config.toml): after every script run the watcher
   walks every loaded module.

    python benchmarks/bench_page_view.py
"""

from __future__ import annotations

import os
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
import from_tests  # noqa: E402, F401 - the tests' helpers (benchmarks/from_tests.py)
from server_cpu import process_cpu_seconds, wait_until_idle  # noqa: E402

PAGES = {  # page file, its link with small parameters (the hosted demo's), charts it shows
    "ADePT": (
        "pages/1_ADePT_sensitivity.py",
        "/ADePT_sensitivity?pairs=1000&dims=1-40&samples=5000&draws=200&audit_samples=2000",
        6,
    ),
    "Metric DP": ("pages/2_Metric_DP.py", "/Metric_DP?words=3&samples=100&knn_words=20&epsilons=2,5,10,30", 9),
    "HoHo": ("pages/3_HoHo_attack.py", "/HoHo_attack?targets=0.05&epsilons=0.1,1&lambdas=1,10&audit_samples=2000", 7),
    "Partial": (
        "pages/4_Partial_sensitivity.py",
        "/Partial_sensitivity?per_class=100&sgd_steps=100&dpsgd_steps=100&eval_per_class=50",
        6,
    ),
}
REPEATS = 5


def rerun_seconds(page_file: str, link: str, cache_size: int) -> float:
    """Median wall time of a warm rerun of the page script (AppTest, this process)."""
    from urllib.parse import parse_qsl

    from streamlit.testing.v1 import AppTest

    from dpviz import memo
    from webui import views

    views._VIEWS = memo.ProcessMemo(maxsize=cache_size)  # size 0: every view is computed again
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=300)
    at.switch_page(page_file)
    for k, v in parse_qsl(link.split("?", 1)[1]):
        at.query_params[k] = v
    at.run()  # cold: computes (and fills the disk cache)
    times = []
    for _ in range(REPEATS):
        t = time.perf_counter()
        at.run()
        times.append(time.perf_counter() - t)
    assert not at.exception, at.exception
    return sorted(times)[len(times) // 2]


def server_cpu_per_view(watcher: str) -> dict[str, float]:
    """Server CPU seconds per warm page view (the mean of REPEATS views of each page)."""
    from browser_support import CHROMIUM, CHROMIUM_ARGS, RUN_ENDED, start_server, stop_server
    from playwright.sync_api import sync_playwright

    tmp = Path(tempfile.mkdtemp())
    proc, url, log = start_server(tmp, {"DPVIZ_HOSTED": "1", "STREAMLIT_SERVER_FILE_WATCHER_TYPE": watcher})
    out = {}
    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
            page = browser.new_page(viewport={"width": 1400, "height": 1000})

            def view(link: str, charts: int) -> None:
                page.goto(url + link)
                page.wait_for_function(
                    f"document.querySelectorAll('.js-plotly-plot').length >= {charts}", timeout=180_000
                )
                page.wait_for_function(RUN_ENDED, timeout=180_000)
                page.wait_for_timeout(1000)  # the run's last messages and the watcher's pass

            for name, (_, link, charts) in PAGES.items():
                view(link, charts)  # warm: first computations, some after the charts (the try-it box)
                wait_until_idle(proc.pid)
                c = process_cpu_seconds(proc.pid)
                for _ in range(REPEATS):
                    view(link, charts)
                out[name] = (process_cpu_seconds(proc.pid) - c) / REPEATS
            browser.close()
    finally:
        stop_server(proc, log)
    return out


def main() -> None:
    os.environ.setdefault("DPVIZ_HOSTED", "1")
    print(f"1. warm rerun of a page script (AppTest, median of {REPEATS})")
    print(f"{'page':10s} {'no figure cache':>16s} {'figure cache':>13s} {'ratio':>6s}")
    for name, (page_file, link, _) in PAGES.items():
        off = rerun_seconds(page_file, link, 0)
        on = rerun_seconds(page_file, link, 128)
        print(f"{name:10s} {off:15.3f}s {on:12.3f}s {off / on:5.1f}x")
    print(f"\n2. server CPU per warm page view (streamlit run + Chromium, mean of {REPEATS})")
    auto, none = server_cpu_per_view("auto"), server_cpu_per_view("none")
    print(f"{'page':10s} {'watcher on':>11s} {'watcher off':>12s} {'ratio':>6s}")
    for name in PAGES:
        print(f"{name:10s} {auto[name]:10.3f}s {none[name]:11.3f}s {auto[name] / none[name]:5.1f}x")


if __name__ == "__main__":
    main()
