"""Benchmark: after one key step of a slider, how soon the page's other sliders follow a drag
again (issue: live from the first second).

A reader on a fresh install: a freshly started server on a copy of a cache that ``python -m dpviz
build`` filled, headless Chromium at 1280 x 800, the page opened by its plain link, its first view
drawn, then a 3-s pause (nothing waits for the server to be quiet). The reader presses the right
arrow once on one slider; the charts' frames for every *other* slider at the new setting are
missing (the build made those of the defaults), and until they are there a key press or a drag
of those sliders is a server run. Measured from the key press:

- **drawn**: until the page's run at the new setting has drawn the charts (their frames keys
  for the other sliders changed);
- **near**: until every chart holds, for every slider, at least the part of its frames nearest
  the slider's value (:func:`webui.frames_pool.nearest`, computed first: a drag near the value
  follows from then on);
- **frames**: until every chart on the page holds its frames for every slider again.

Then the same with the page's other slider (a reader who pressed ε once and now moves λ), on the
same server. Two routes, each on a server of its own, in the same run (``--compare``):

- ``drawing`` (the default): *Plotly*, the frame workers drawing every frame with Plotly's objects
  (``DPVIZ_FAST_DRAWING=0``, as before the fast drawing), against *fast*, the fast drawing
  (:mod:`dpviz.fast_figure`);
- ``points``: *own*, each process computing the frontiers' points itself
  (``DPVIZ_SHARED_POINTS=0``, as before 2026-11-29), against *shared*, the points kept in the
  disk cache (the build's among them: after a step, the frames along the other slider compute
  one new point per curve and position);
- ``fetch``: *runs*, the frames brought by the page's next run, which a waiting page asks for
  every 2 s (``DPVIZ_FRAMES_FETCH=0``, as before 2026-11-30), against *fetched*, the page
  fetching them as files as soon as they are computed (:mod:`webui.frames_fetch`);
- ``news``: *one by one*, the page asking for each waiting file in turn, one request at a time
  (``DPVIZ_FRAMES_NEWS=0``), against *news*, the page reading its session's news file, which names
  the files published for it, and fetching those side by side;
- ``workers``: the *baseline* computes the frames in one background thread of the server process
  (``DPVIZ_FRAME_WORKERS=0``, as before the frame workers); *workers* hands them to the frame
  worker processes (:mod:`webui.frames_pool`, one per core).

The Metric DP page has one slider (its frames do not depend on ε's own value) and is not measured
here.

    python benchmarks/bench_frames_step.py --built /tmp/built
    python benchmarks/bench_frames_step.py --pages HoHo_attack --limit 120 --compare workers
"""

from __future__ import annotations

import shutil
import tempfile
import time
from pathlib import Path

import from_tests  # noqa: E402, F401 - the tests' helpers (benchmarks/from_tests.py)
from bench_frames_ready import ALL_FRAMES, IDLE, NEAR_FRAMES, _s, arguments, built_or_new  # noqa: E402
from browser_support import CHROMIUM_ARGS, TEST_BROWSER, start_server, stop_server  # noqa: E402

PAGES = ["ADePT_sensitivity", "HoHo_attack", "Partial_sensitivity"]
COMPARISONS = {
    # the frames in the server's thread (as before the frame workers) against the workers
    "workers": {"baseline": {"DPVIZ_FRAME_WORKERS": "0"}, "workers": {}},
    # the frame workers drawing each frame with Plotly (as before the fast drawing) against the fast drawing
    "drawing": {"Plotly": {"DPVIZ_FAST_DRAWING": "0"}, "fast": {}},
    # the frontiers' points per process (as before 2026-11-29) against kept in the disk cache
    "points": {"own": {"DPVIZ_SHARED_POINTS": "0"}, "shared": {}},
    # frames brought by the page's next run, asked for every 2 s (as before 2026-11-30), against
    # fetched by the page as files once computed (webui/frames_fetch.py)
    "fetch": {"runs": {"DPVIZ_FRAMES_FETCH": "0"}, "fetched": {}},
    # files asked for one at a time (as before 2026-11-29, twelfth session) against the session's
    # news file naming them (webui/frames_fetch.py)
    "news": {"one by one": {"DPVIZ_FRAMES_NEWS": "0"}, "news": {}},
}
KEYS = """() => Object.fromEntries([...document.querySelectorAll('.dpviz-chart, .dpviz-html')]
  .filter(e => e.__dpviz).map((e, i) => [
    (e.closest('[class*=st-key-]')?.className.match(/st-key-[\\w-]+/) || [`element ${i}`])[0],
    Object.fromEntries(Object.entries(e.__dpviz.sliders || {}).map(([label, s]) => [label, s.frames]))]))"""
LABELS = """() => [...new Set([...document.querySelectorAll('.dpviz-chart, .dpviz-html')]
  .filter(e => e.__dpviz).flatMap(e => Object.keys(e.__dpviz.sliders || {})))]"""
# every chart that follows the pressed slider (by its container's key) has new frames keys for
# its other sliders: the run at the new setting drew it; a chart that does not follow it keeps them
MOVED = (
    """([label, before]) => {
  const now = (%s)();
  const following = Object.entries(before).filter(([, b]) => label in b && Object.keys(b).length > 1);
  return following.length > 0 && following.every(([id, b]) => now[id] &&
    Object.keys(b).filter(l => l !== label).every(l => now[id][l] !== undefined && now[id][l] !== b[l]));
}"""
    % KEYS
)


def _until(page, expression: str, arg, limit: float, start: float) -> float | None:
    try:
        page.wait_for_function(expression, arg=arg, timeout=limit * 1000, polling=50)
    except Exception:  # noqa: BLE001 - a timeout is a figure here ("> limit")
        return None
    return time.perf_counter() - start


def _step(page, label: str, limit: float) -> dict:
    """Press the right arrow once on slider ``label`` after a 3-s pause; the seconds until the run
    at the new setting drew the charts, and until every chart holds its frames again."""
    page.wait_for_function(IDLE, timeout=300_000)
    page.wait_for_timeout(3000)
    before = page.evaluate(KEYS)
    slider = page.get_by_role("slider", name=label)
    slider.focus()
    start = time.perf_counter()
    page.keyboard.press("ArrowRight")
    drawn = _until(page, MOVED, [label, before], limit, start)
    near = _until(page, NEAR_FRAMES, None, limit, start) if drawn is not None else None
    frames = _until(page, ALL_FRAMES, None, limit, start) if near is not None else None
    return {"label": label, "drawn": drawn, "near": near, "frames": frames}


def measure(browser, path: str, built: Path, route_env: dict, limit: float) -> list[dict]:
    tmp = Path(tempfile.mkdtemp(prefix="dpviz-step-"))
    env = {"DPVIZ_FRAMES": "1", "DPVIZ_FRAME_WORKERS": "", **route_env}
    proc, url, log = start_server(tmp, extra_env=env, cache_from=built)
    try:
        page = browser.new_page(viewport={"width": 1280, "height": 800})
        page.goto(f"{url}/{path}")
        page.wait_for_function("document.querySelectorAll('.js-plotly-plot').length > 0", timeout=300_000)
        page.wait_for_function(IDLE, timeout=300_000)
        page.wait_for_function(ALL_FRAMES, timeout=limit * 1000, polling=100)  # the build's: at once
        labels = page.evaluate(LABELS)
        rows = [_step(page, label, limit) for label in labels]
        page.close()
        return rows
    finally:
        stop_server(proc, log)
        shutil.rmtree(tmp, ignore_errors=True)


def main() -> None:
    from playwright.sync_api import sync_playwright

    args = arguments(
        PAGES,
        90.0,
        lambda ap: ap.add_argument("--compare", choices=sorted(COMPARISONS), default="drawing", help="the two routes"),
    )
    routes = COMPARISONS[args.compare]
    first, second = routes
    built = built_or_new(args.built)
    results: dict[tuple, dict] = {}
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=TEST_BROWSER, args=CHROMIUM_ARGS)
        for path in args.pages.split(","):
            for route, route_env in routes.items():
                for r in measure(browser, path, built, route_env, args.limit):
                    results[(path, r["label"], route)] = r
                    print(
                        f"{path:20s} {route:8s} step of {r['label']:28s} drawn {_s(r['drawn'], args.limit):>5} s"
                        f"  nearest frames {_s(r['near'], args.limit):>5} s"
                        f"  every frame again {_s(r['frames'], args.limit):>5} s",
                        flush=True,
                    )
        browser.close()
    for what, title in (("frames", "every chart holds its frames again"), ("near", "its nearest frames are there")):
        print(f"\nseconds from a key step until {title}: {first} / {second} (ratio)")
        for (path, label, route), r in results.items():
            if route != first or (path, label, second) not in results:
                continue
            w = results[(path, label, second)]
            b_s, w_s = r[what] or args.limit, w[what] or args.limit
            print(
                f"{path:20s} {label:28s} {_s(r[what], args.limit):>5} / {_s(w[what], args.limit):>5} s"
                f" ({b_s / max(w_s, 0.05):.1f}x)"
            )


if __name__ == "__main__":
    main()
