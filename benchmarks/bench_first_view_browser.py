"""Benchmark: a page's first view in Chromium, as a newcomer meets it (issue: live from the first
second, "every page's first chart within 5 s of opening on a fresh server").

Per page, a freshly started server (one process, scripts/serve.sh) on a copy of a cache filled by
``python -m dpviz build`` (what ``scripts/start.sh`` runs at install), or on an empty one
(``--built empty``); headless Chromium at 1280 x 800 opens the page by its plain link. Seconds from
the navigation to:

- **load**: the browser's load event (Streamlit's own scripts);
- **title**: the page's title drawn (the server's run has begun);
- **chart element**: the first chart's element in the page (its figure has arrived);
- **first chart**: the first chart drawn by Plotly (its SVG is in the page);
- **run ended**: the page's run over (no status widget for a second).

Baseline, same run and server: a second visitor opening the same page in a new tab once the first
one's run has ended (every per-process cost paid, every chart computed); the ratio is first
visitor / second visitor for the first chart. Nothing waits for the server to be quiet: the frame
workers start with the first page, as they do for a reader.

``--plotly streamlit,dpviz`` measures each page on two fresh servers, one per plotly.js: Streamlit's
copy (``DPVIZ_PLOTLY_BUNDLE=0``, the baseline) and dpviz's own bundle (webui/plotly_bundle.py, the
default), in that order; the last column then compares each route's first chart with the first
route's.

    python benchmarks/bench_first_view_browser.py --built /tmp/built
    python benchmarks/bench_first_view_browser.py --built /tmp/built --plotly streamlit,dpviz
    python benchmarks/bench_first_view_browser.py --built empty --pages Metric_DP
"""

from __future__ import annotations

import argparse
import shutil
import tempfile
import time
from pathlib import Path

import from_tests  # noqa: E402, F401 - the tests' helpers (benchmarks/from_tests.py)
from browser_support import CHROMIUM_ARGS, RUN_ENDED, TEST_BROWSER, start_server, stop_server  # noqa: E402

PAGES = ["ADePT_sensitivity", "Metric_DP", "HoHo_attack", "Partial_sensitivity", "Privacy_budget"]
MARKS = {
    "title": "document.querySelector('h1') !== null",
    "chart element": "document.querySelector('[class*=\"st-key-chart-\"]') !== null",
    "first chart": "document.querySelector('.js-plotly-plot .main-svg') !== null",
}
IDLE = RUN_ENDED  # (the page ran, and runs no more: browser_support.RUN_STATE)


def _view(browser, url: str) -> dict[str, float]:
    """Open ``url`` in a new tab; the seconds to each mark, and to the run's end (held 1 s)."""
    page = browser.new_page(viewport={"width": 1280, "height": 800})
    try:
        start = time.monotonic()
        page.goto(url, wait_until="load")
        seconds = {"load": time.monotonic() - start}
        for label, script in MARKS.items():
            page.wait_for_function(script, timeout=300_000, polling=50)
            seconds[label] = time.monotonic() - start
        while True:  # the run's end: no status widget, still none a second later
            page.wait_for_function(IDLE, timeout=300_000, polling=100)
            ended = time.monotonic() - start
            page.wait_for_timeout(1000)
            if page.evaluate(IDLE):
                break
        seconds["run ended"] = ended
        return seconds
    finally:
        page.close()


def main() -> None:
    from playwright.sync_api import sync_playwright

    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--built", required=True, help="a cache filled by `python -m dpviz build`, or 'empty'")
    ap.add_argument("--pages", default=",".join(PAGES))
    ap.add_argument(
        "--plotly", default="dpviz", help="plotly.js routes, in order: dpviz, streamlit (DPVIZ_PLOTLY_BUNDLE=0)"
    )
    args = ap.parse_args()
    built = None if args.built == "empty" else Path(args.built)
    routes = args.plotly.split(",")
    labels = ["load", *MARKS, "run ended"]
    compare = "first/second" if len(routes) == 1 else f"first/second, first/{routes[0]}'s"
    print(f"{'page':22s} {'plotly':9s} {'visitor':8s} " + " ".join(f"{x:>13s}" for x in labels) + f"  {compare}")
    for name in args.pages.split(","):
        base = None
        for route in routes:
            tmp = Path(tempfile.mkdtemp(prefix="dpviz-first-view-"))
            env = {"DPVIZ_PLOTLY_BUNDLE": "0" if route == "streamlit" else "1"}
            proc, url, log = start_server(tmp, cache_from=built, extra_env=env)
            try:
                with sync_playwright() as p:
                    browser = p.chromium.launch(executable_path=TEST_BROWSER, args=CHROMIUM_ARGS)
                    first = _view(browser, f"{url}/{name}")
                    second = _view(browser, f"{url}/{name}")
                    browser.close()
            finally:
                stop_server(proc, log)
                shutil.rmtree(tmp, ignore_errors=True)
            base = base or first["first chart"]
            ratio = f"{first['first chart'] / second['first chart']:5.2f}x"
            if len(routes) > 1:
                ratio += f", {first['first chart'] / base:5.2f}x"
            for who, seconds in (("first", first), ("second", second)):
                cells = " ".join(f"{seconds[x]:12.2f}s" for x in labels)
                print(f"{name:22s} {route:9s} {who:8s} {cells}" + (f"  {ratio}" if who == "first" else ""), flush=True)


if __name__ == "__main__":
    main()
