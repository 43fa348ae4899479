"""Benchmark: how soon a fresh install's page holds its frames (issue: live from the first second).

Per paper page, on a freshly started server (one process, scripts/serve.sh), headless Chromium at
1280 x 800, the page opened by its plain link:

- **first view**: seconds from opening the page until a chart is drawn and its run has ended, as
  the test sees it (its checks run on the page's main thread: a long drawing delays them);
- in the page's own clock (``performance.now()`` from the navigation, noted by a
  MutationObserver as it happens): the **first chart** drawn, and the **run's end** (Streamlit's
  script state) as the page shows it;
- **frames on opening**: seconds from there until every chart on the page holds its frames for
  every slider that drives it (until then a key press or a drag of that slider is a server run);

Not measured yet: the seconds from a key step of one slider until the other sliders' frames at
the new setting are there (a first version pressed a key and did not wait for the press's run to
begin, so it read the old setting's frames; waiting for the link to change did not work either:
the live section does not rewrite the link on a key press).

Two servers per page, the baseline in the same run: an **empty cache** (a fresh install before
this change) and a copy of a cache filled by ``python -m dpviz build`` (what ``scripts/start.sh``
runs at install), whose seconds are printed first. The machine is the reader's: nothing waits for
the server to be quiet.

    python benchmarks/bench_frames_ready.py
    python benchmarks/bench_frames_ready.py --pages Metric_DP,HoHo_attack --built /tmp/built
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
import from_tests  # noqa: E402, F401 - the tests' helpers (benchmarks/from_tests.py)
from browser_support import CHROMIUM_ARGS, RUN_ENDED, RUN_STATE, TEST_BROWSER, start_server, stop_server  # noqa: E402

from webui.frames_store import NEAR_SUFFIX  # noqa: E402

PAGES = ["ADePT_sensitivity", "Metric_DP", "HoHo_attack", "Partial_sensitivity"]
IDLE = RUN_ENDED  # (the page ran, and runs no more: browser_support.RUN_STATE)
# every chart (and the try-it text) that a slider drives holds that slider's frames
PART = "s.frames.endsWith('%s')" % NEAR_SUFFIX  # a set's nearest part (webui.frames_pool computes it first)
HELD = """() => {
  const els = [...document.querySelectorAll('.dpviz-chart, .dpviz-html')].filter(e => e.__dpviz);
  if (!els.length || !window.__dpvizFrames) return false;
  return els.every(e => Object.values(e.__dpviz.sliders || {}).every(s => %s window.__dpvizFrames.get(s.frames)));
}"""
ALL_FRAMES = HELD % f"!{PART} &&"
NEAR_FRAMES = HELD % ""
"""Every chart holds frames for every slider, at least the part nearest the slider's value."""
MISSING = (
    """() => [...document.querySelectorAll('.dpviz-chart, .dpviz-html')].filter(e => e.__dpviz)
  .flatMap(e => Object.entries(e.__dpviz.sliders || {})
    .filter(([, s]) => %s || !(window.__dpvizFrames && window.__dpvizFrames.get(s.frames)))
    .map(([label]) => `${e.closest('[class*=st-key-]')?.className.match(/st-key-[\\w-]+/)?.[0]} ${label}`))"""
    % PART
)


TIMELINE = (
    """(() => {
  const seen = (window.__dpvizTimeline = {});
  new MutationObserver(() => {
    if (!seen.chart && document.querySelector('.js-plotly-plot .main-svg')) seen.chart = performance.now();
    const state = %s;
    if (state === 'running') seen.ran = true;
    if (seen.ran && !seen.ended && state === 'notRunning') seen.ended = performance.now();
  }).observe(document, { subtree: true, childList: true, attributes: true });
})()"""
    % RUN_STATE
)
"""Init script: the page's own times (ms from the navigation) of its first drawn chart and its
first run's end."""


def build_cache(folder: Path) -> float:
    """``python -m dpviz build`` into ``folder``; its seconds."""
    start = time.perf_counter()
    env = dict(os.environ, DPVIZ_CACHE_DIR=str(folder))
    subprocess.run([sys.executable, "-m", "dpviz", "build", "--quiet"], cwd=ROOT, env=env, check=True)
    return time.perf_counter() - start


def arguments(pages: list[str], limit: float, more=None) -> argparse.Namespace:
    """The frames benchmarks' command line: pages, a built cache, the seconds to wait (``more(ap)``
    adds a benchmark's own)."""
    ap = argparse.ArgumentParser()
    ap.add_argument("--pages", default=",".join(pages))
    ap.add_argument("--built", help="a cache folder `dpviz build` already filled (default: build one now)")
    ap.add_argument("--limit", type=float, default=limit, help="seconds to wait for the frames")
    if more is not None:
        more(ap)
    return ap.parse_args()


def built_or_new(path: str | None) -> Path:
    """The cache folder ``path`` that `dpviz build` filled, or one it fills now (its seconds printed)."""
    if path:
        return Path(path)
    built = Path(tempfile.mkdtemp(prefix="dpviz-built-"))
    print(f"python -m dpviz build into an empty cache: {build_cache(built):.0f} s", flush=True)
    return built


def _until(page, expression: str, limit: float) -> float | None:
    """Seconds until ``expression`` holds in the page (None: not within ``limit`` seconds)."""
    start = time.perf_counter()
    try:
        page.wait_for_function(expression, timeout=limit * 1000, polling=100)
    except Exception:  # noqa: BLE001 - a timeout is a figure here ("> limit")
        return None
    return time.perf_counter() - start


def measure(browser, path: str, cache_from: Path | None, limit: float) -> dict:
    tmp = Path(tempfile.mkdtemp(prefix="dpviz-ready-"))
    proc, url, log = start_server(tmp, extra_env={"DPVIZ_FRAMES": "1"}, cache_from=cache_from)
    try:
        page = browser.new_page(viewport={"width": 1280, "height": 800})
        page.add_init_script(TIMELINE)
        start = time.perf_counter()
        page.goto(f"{url}/{path}")
        page.wait_for_function("document.querySelectorAll('.js-plotly-plot').length > 0", timeout=300_000)
        page.wait_for_function(IDLE, timeout=300_000)
        first = time.perf_counter() - start
        timeline = page.evaluate("window.__dpvizTimeline")
        opening = _until(page, ALL_FRAMES, limit)
        missing = [] if opening is not None else page.evaluate(MISSING)
        page.close()
        return {
            "first": first,
            "chart": timeline.get("chart", float("nan")) / 1000,
            "ended": timeline.get("ended", float("nan")) / 1000,
            "opening": opening,
            "missing": missing,
        }
    finally:
        stop_server(proc, log)
        shutil.rmtree(tmp, ignore_errors=True)


def _s(x: float | None, limit: float) -> str:
    return f"> {limit:.0f}" if x is None else f"{x:.1f}"


def main() -> None:
    from playwright.sync_api import sync_playwright

    args = arguments(PAGES, 120.0)
    built = built_or_new(args.built)
    rows = []
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=TEST_BROWSER, args=CHROMIUM_ARGS)
        for path in args.pages.split(","):
            for name, cache in (("after dpviz build", built), ("empty cache", None)):
                r = measure(browser, path, cache, args.limit)
                rows.append((path, name, r))
                print(
                    f"{path:22s} {name:18s} first chart {r['chart']:5.1f} s  run ended {r['ended']:5.1f} s  "
                    f"first view {r['first']:5.1f} s  frames on opening "
                    f"{_s(r['opening'], args.limit):>6} s"
                    + (f"  (missing: {', '.join(r['missing'][:4])})" if r["missing"] else ""),
                    flush=True,
                )
        browser.close()
    print("\npage                   frames on opening: built / empty (ratio)   first view: built / empty")
    for path in args.pages.split(","):
        b, e = (r for p_, _, r in rows if p_ == path)
        ratio = f"{(e['opening'] or args.limit) / max(b['opening'], 0.05):.0f}x" if b["opening"] is not None else "-"
        print(
            f"{path:22s} {_s(b['opening'], args.limit):>6} / {_s(e['opening'], args.limit):>6} s ({ratio})"
            f"          {b['first']:.1f} / {e['first']:.1f} s"
        )


if __name__ == "__main__":
    main()
