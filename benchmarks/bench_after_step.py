"""Benchmark: key presses and a drag of one slider right after another slider moved, as a reader on a
fresh install does it (issue: live from the first second).

Per page with two sliders (ADePT ε and n, HoHo ε and λ, Partial σ and α) and each order of its two
sliders (and Metric DP's one slider, ε, with no step before the pause: its first view), on a
freshly started server with a copy of a cache ``python -m dpviz build`` filled,
headless Chromium at 1280 x 800; nothing waits for the server to be quiet:

1. the page opened by its plain link, its first view drawn and its run ended;
2. one press of the right arrow on slider A, the page's run at the new setting drawn (the charts
   that follow slider B have new frames keys for it), then a **3-s pause** with the first chart
   that follows B in the middle of the window (a reader who looks at it);
3. ``--presses`` key presses on slider B (right, left, right, ...), each timed in the page from the
   key going down to that chart's redraw, whether it came from frames (the browser) or from the
   server's run (the frames not there yet): the median and 95th percentile, and how many came from
   frames;
   During the pause, the seconds from the press until every chart that follows B holds the whole
   set of its frames along B at the new setting (the issue's "from a settled key step until the
   other sliders' frames are there"), or "not yet" if that took longer than the pause;
4. a 1-s mouse drag across slider B (the mouse that does not wait, at a mouse's report rate,
   ``bench_live_browser.free_drag``): the distinct chart states the chart drew during it and in
   the 1.5 s after the release (from frames, or the server's answer to the release), and the
   reruns the page sent during the drag and in the 1.5 s after the release (a frames element's
   checks for frames computed after the release are counted apart).

The same on a second server, the baseline in the same run: ``DPVIZ_FRAMES=0`` (every move drawn by
the server, as before frames). The issue's goal: median <= 50 ms, p95 <= 100 ms, >= 20 states a
drag and <= 1 rerun, on every slider.

    python benchmarks/bench_after_step.py --built /tmp/built
    python benchmarks/bench_after_step.py --pages HoHo_attack --presses 10
"""

from __future__ import annotations

import os
import shutil
import statistics
import tempfile
import time
from pathlib import Path

import from_tests  # noqa: F401 - the tests' helpers (benchmarks/from_tests.py)
from bench_frames_ready import IDLE, arguments, built_or_new  # noqa: E402
from bench_frames_step import KEYS, MOVED  # noqa: E402
from bench_live_browser import DEVTOOLS_PORT, FRAME_CLOCK, MOUSE_HZ, free_drag  # noqa: E402
from browser_support import CHROMIUM_ARGS, RUN_STATE, TEST_BROWSER, look_at, slider_geometry, start_server, stop_server  # noqa: E402

PAGES = {  # page: its two sliders, each with the chart that follows it (as bench_live_browser's)
    "ADePT_sensitivity": (("Dimension n", "adept-sensitivity"), ("Privacy budget ε (claimed)", "adept-epsilon")),
    "HoHo_attack": (("Claimed ε", "hoho-live"), ("λ", "hoho-live")),
    "Partial_sensitivity": (("Gaussian noise σ", "partial-individuals"), ("Rényi order α", "partial-individuals")),
    "Metric_DP": ((None, None), ("ε", "metric-live")),  # one slider: the page opened, a 3-s pause, then ε
    "Privacy_budget": (("Noise multiplier σ", "budget-composition"), ("Releases k", "budget-composition")),
}
ROUTES = {
    "server runs": {"DPVIZ_FRAMES": "0"},
    "none ahead": {"DPVIZ_FRAMES_AHEAD": "0"},
    "frames": {"DPVIZ_FRAMES_AHEAD": "1"},
}
"""The routes, each on a server of its own: every move drawn by the server; frames without the sets one
key step ahead (webui.live_frames.ask_ahead; its cache from ``--built-plain``, a build without them:
``DPVIZ_FRAMES_AHEAD=0 python -m dpviz build``), the route before 2026-11-30's twentieth session; frames
as a user gets them."""
TRACE = "/tmp/bench-after-step-messages.txt"
"""Where the server's messages to a page that had an uncaught error are written, decoded (the last
400 before the error: their type, delta path, fragment and run), to say what the page was sent."""
# whether every chart that follows the slider holds the whole set of its frames along it for where
# the other sliders are now: the set it reads (positions.js setOf: its own, or one the server named a
# key step ahead, fetched at the step), new since ``before`` (KEYS, before the step; on a page without
# setOf, its own set once the run at the new setting brought a new key) where the chart follows the
# stepped slider ``first`` too
EVERY_WHOLE = """([label, before, first]) => { const all = [...document.querySelectorAll('.dpviz-chart')]
  .filter((gd) => gd.__dpviz && gd.__dpviz.sliders && gd.__dpviz.sliders[label]);
  return all.length > 0 && all.every((gd) => {
    const key = window.__dpvizSetOf ? window.__dpvizSetOf(gd, label) : gd.__dpviz.sliders[label].frames;
    const id = (gd.closest('[class*=st-key-]')?.className.match(/st-key-[\\w-]+/) || [''])[0];
    // (a chart that follows B alone keeps its set)
    const old = first in gd.__dpviz.sliders && before[id] && before[id][label];
    return !!key && key !== old && !key.endsWith('-near') && !!window.__dpvizFrames.get(key); }); }"""
# whether the chart holds the whole set of its frames along the slider (not only its nearest part)
# how many of the chart's positions along the slider have a shot ready, of how many (shots.js)
SHOTS_HELD = """([fid, label]) => { const gd = document.querySelector(`.st-key-chart-${fid} .dpviz-chart`);
  const s = gd && gd.__dpviz && gd.__dpviz.sliders && gd.__dpviz.sliders[label];
  if (!s || !window.__dpvizShotKey) return [0, 0];
  const held = s.options.filter((_, i) => gd.__dpvizShots && gd.__dpvizShots.has(window.__dpvizShotKey(gd, label, i)));
  return [held.length, s.options.length]; }"""
WHOLE = """([fid, label]) => { const gd = document.querySelector(`.st-key-chart-${fid} .dpviz-chart`);
  const s = gd && gd.__dpviz && gd.__dpviz.sliders && gd.__dpviz.sliders[label];
  return !!(s && !s.frames.endsWith('-near') && window.__dpvizFrames.get(s.frames)); }"""


# the frames files the tab asked for in the 3 s from the press: [ms from the press to the request,
# ms it took, its HTTP status], a 404 a set not published yet
FETCHES = """(t0) => performance.getEntriesByType('resource')
  .filter((e) => e.name.includes('/static/frames/') && !e.name.endsWith('.json')
    && e.startTime >= t0 && e.startTime < t0 + 3000)
  .map((e) => [Math.round(e.startTime - t0), Math.round(e.responseEnd - e.startTime), e.responseStatus])"""
WATCH_STEP = """([whole, moved, wholeArg, movedArg]) => {
  const fw = eval(whole), fm = eval(moved), t0 = performance.now(), s = (window.__step = {done: false});
  s.pressedAt = t0; // (until the key goes down: the times below are from that moment)
  window.addEventListener('keydown', () => { s.pressedAt = performance.now(); }, {capture: true, once: true});
  const id = setInterval(() => {
    const t = performance.now();
    if (s.whole === undefined && fw(wholeArg)) s.whole = t - s.pressedAt;
    if (s.moved === undefined && (movedArg === null || fm(movedArg))) s.moved = t - s.pressedAt;
    if (t - t0 > 60000 || (s.moved !== undefined && (s.whole !== undefined || t - s.pressedAt > 3000))) {
      s.done = true; clearInterval(id); }
  }, 20); }"""
"""Watches, from the key going down, when every chart along B holds its whole set for the new
setting (EVERY_WHOLE; given up after 3 s) and when the run at the new setting drew the charts (MOVED)."""

ERRORS: list = []
"""The pages' uncaught errors and crashes (printed at the end, and when a slider is not found)."""
STATE: list = []
"""What the chart held at each press not drawn from frames (printed at the end, to say why)."""
WHY = """([fid, label]) => { const gd = document.querySelector(`.st-key-chart-${fid} .dpviz-chart`);
  const st = gd.__dpviz, s = st.sliders[label]; if (!s) return null;
  const doc = window.__dpvizFrames.get(s.frames), at = (l) => document.querySelector(`input[aria-label='${l}']`).value;
  const base = s.frames.replace(/-near$/, '');
  return {frames: s.frames.slice(-30), held: !!doc, grid: doc ? doc.grid.length : null,
    has: doc ? doc.index.has(s.options[+at(label)]) : null, at: s.at, value: s.options[+at(label)],
    others: Object.fromEntries(Object.entries(st.sliders).filter(([l]) => l !== label)
      .map(([l, o]) => [l, [o.at, o.options[+at(l)]]])),
    keys: [...window.__dpvizFrames.keys()].filter(k => k.startsWith(base))
      .map(k => k.slice(-30) + (window.__dpvizFrames.get(k) ? '' : ' (being inflated)'))}; }"""


CLOSED: list = []
"""When the pages' websockets closed (printed with the lost presses: a page's own close ends each pair)."""
CURRENT: dict = {}
"""The page being measured: the messages it received and the server's log (for a lost press)."""
LOST: list = []
"""Why each lost press was lost, and what the page showed then (printed at the end)."""
LOST_STATE = (
    """([fid, label]) => { const el = document.querySelector(`input[aria-label='${label}']`);
  const gd = document.querySelector(`.st-key-chart-${fid} .dpviz-chart`);
  return {value: el && el.getAttribute('aria-valuetext'), focused: document.activeElement === el,
    run: """
    + RUN_STATE
    + """, chart: !!gd,
    disabled: el && el.disabled, inputs: document.querySelectorAll(`input[aria-label='${label}']`).length,
    status: [...document.querySelectorAll('[data-testid*="Status"], [data-testid*="Connection"]')]
      .map(e => e.dataset.testid + ':' + e.textContent.slice(0, 40)),
    shown: gd && gd.__dpvizShownTag, drawn: window.__drawn.filter(d => d[1] === fid).slice(-3),
    sliders: gd && gd.__dpviz && Object.fromEntries(Object.entries(gd.__dpviz.sliders)
      .map(([l, o]) => [l, [o.at, o.frames.slice(-12), !!window.__dpvizFrames.get(o.frames)]])),
    stale: document.querySelectorAll('[data-stale="true"]').length}; }"""
)


def _press(page, slider, label: str, fid: str, key: str) -> tuple[float, str] | None:
    """One key press on ``slider``: the seconds from the key going down to chart ``fid``'s first
    redraw after it, and what it drew (a frame's tag names the slider's position); None: not
    redrawn within 30 s. (A redraw between the last press and this one, such as the server's
    answer to the last press drawn over its shot, is not this press's.)"""
    page.evaluate("window.__drawn = []")
    try:
        before = slider.get_attribute("aria-valuetext")
    except Exception:  # noqa: BLE001 - say what the page showed instead, then stop
        page.screenshot(path="/tmp/bench-after-step-no-slider.png", full_page=True)
        labels = page.evaluate("() => [...document.querySelectorAll('input[type=range]')].map(e => e.ariaLabel)")
        raise RuntimeError(f"no slider {label!r} on the page; its sliders: {labels}; errors: {ERRORS}") from None
    slider.focus()
    page.keyboard.press(key)
    step = "the slider did not move"
    try:
        page.wait_for_function(
            "([label, b]) => document.querySelector(`input[aria-label='${label}']`)"
            ".getAttribute('aria-valuetext') !== b",
            arg=[label, before],
            timeout=5_000,
        )
        step = "the chart was not redrawn"
        page.wait_for_function(
            "(fid) => window.__drawn.some(d => d[1] === fid && d[0] >= window.__press)",
            arg=fid,
            timeout=30_000,
            polling="raf",
        )
    except Exception:  # noqa: BLE001 - a lost press is a figure here; what the page showed is kept
        LOST.append(f"{label} {key}: {step}; " + str(page.evaluate(LOST_STATE, [fid, label])))
        if not CURRENT.get("traced"):  # the first lost press of a page: its messages and the server's log
            CURRENT["traced"] = True
            _trace(f"lost press {label} {key}", CURRENT["received"])
            LOST.append("the server's log ends: " + CURRENT["log"].read_text()[-3000:])
        return None
    at, tag = page.evaluate(
        "(fid) => { const d = window.__drawn.find(d => d[1] === fid && d[0] >= window.__press);"
        " return [d[0] - window.__press, d[2]]; }",
        fid,
    )
    if not str(tag).startswith(label + "="):  # what the chart held when the press came (diagnosis)
        STATE.append(page.evaluate(WHY, [fid, label]))
    return at / 1000, str(tag)


def _mark(what: str) -> None:
    """A line in the server's frames trace (``DPVIZ_FRAMES_TRACE``, when set): what the reader did."""
    path = os.environ.get("DPVIZ_FRAMES_TRACE", "").strip()
    if path:
        with open(path, "a") as out:
            out.write(f"{time.time():.3f} bench {what}\n")


def _pair(page, sent, checks, first: str, second: str, fid: str, presses: int) -> dict:
    """Slider ``first`` pressed once (None: a page with one slider, opened and not moved), a 3-s
    pause, then ``second`` pressed and dragged."""
    before = page.evaluate(KEYS)
    frames_on = any(before.values())
    if frames_on:  # watched in the page from the press: the sets whole (a set fetched at the step comes
        # before the step's run answers) and the run at the new setting drawn (the charts' keys changed)
        whole_arg = [second, before if first is not None else {}, first]
        page.evaluate(WATCH_STEP, [EVERY_WHOLE, MOVED, whole_arg, [first, before] if first is not None else None])
    pressed = time.monotonic()
    if first is not None:
        a = page.get_by_role("slider", name=first)
        a.focus()
        _mark(f"press {first}")
        pressed = time.monotonic()
        page.keyboard.press("ArrowRight")
    sets_whole, fetches = None, []  # seconds from the press until every chart following B held its whole set
    if frames_on:
        page.wait_for_function("() => window.__step.done", timeout=60_000, polling=50)
        step = page.evaluate("() => window.__step")
        sets_whole = step["whole"] / 1000 if step.get("whole") is not None else None
        fetches = page.evaluate(FETCHES, step["pressedAt"])
    run_drawn = step["moved"] / 1000 if frames_on and step.get("moved") is not None else None
    page.wait_for_timeout(300)
    page.wait_for_function(IDLE, timeout=120_000)  # the page's answer to the press is in
    look_at(page, f".st-key-chart-{fid}")
    _mark(f"run drawn after the press of {first}; the pause")
    paused = time.monotonic()
    page.wait_for_timeout(
        max(0.0, 3.0 - (time.monotonic() - paused)) * 1000
    )  # the reader's pause; the server is not waited for
    b = page.get_by_role("slider", name=second)
    times, from_frames, lost, others = [], 0, 0, []
    for k in range(presses):
        _mark(f"press {k} of {second}")
        got = _press(page, b, second, fid, "ArrowRight" if k % 2 == 0 else "ArrowLeft")
        _mark(f"press {k} drawn: {got}")
        if got is None:
            lost += 1
            continue
        times.append(got[0])
        if got[1].startswith(second + "="):
            from_frames += 1
        else:
            others.append(f"{k}: {got[1][:40]}")
        page.wait_for_timeout(150)  # a reader's next press (holding a key repeats every 30-50 ms)
    page.wait_for_timeout(300)
    # the drag: the mouse that does not wait, at a mouse's report rate
    whole = page.evaluate(WHOLE, [fid, second])
    shots = page.evaluate(SHOTS_HELD, [fid, second])
    x, y, left, width = slider_geometry(b)
    page.evaluate("window.__drawn = []")
    shown_before = page.evaluate("window.__dpvizShots ? window.__dpvizShots.shown : 0")
    sent_before, checks_before = len(sent), len(checks)
    start = time.monotonic()
    free_drag(page, x, y, left, width, MOUSE_HZ)
    released = time.monotonic()
    shown = page.evaluate("window.__dpvizShots ? window.__dpvizShots.shown : 0") - shown_before
    page.wait_for_timeout(1500)
    during = sum(1 for t in sent[sent_before:] if t < released - 0.05)
    after = len(sent) - sent_before - during
    states = page.evaluate(  # what the chart showed, from frames or from the server's answer
        "(fid) => new Set(window.__drawn.filter(d => d[1] === fid).map(d => String(d[2]))).size", fid
    )
    page.wait_for_function(IDLE, timeout=120_000)
    return {
        "times": times,
        "from_frames": from_frames,
        "others": others,
        "lost": lost,
        "states": states,
        "shots": shots,
        "shown": shown,
        "during": during,
        "after": after,
        "checks": len(checks) - checks_before,
        "drag_s": released - start,
        "chart": fid,
        "whole": whole,
        "sets_whole": sets_whole,
        "fetches": fetches,
        "run_drawn": run_drawn if run_drawn is not None else paused - pressed,
    }


def measure(browser, path: str, built: Path, route_env: dict, presses: int) -> list[tuple[str, str, dict]]:
    tmp = Path(tempfile.mkdtemp(prefix="dpviz-after-step-"))
    proc, url, log = start_server(tmp, extra_env={"DPVIZ_FRAMES": "1", **route_env}, cache_from=built)
    rows = []
    try:
        sliders = PAGES[path]
        pairs = (sliders, sliders[::-1]) if sliders[0][0] is not None else (sliders,)
        for (first, _), (second, fid) in pairs:
            page = browser.new_page(viewport={"width": 1280, "height": 800})
            page.add_init_script(FRAME_CLOCK)
            sent: list[float] = []
            checks: list[float] = []
            received: list[bytes] = []

            def on_ws(ws, sent=sent, checks=checks, received=received, where=f"{path} {first} then {second}"):
                ws.on(
                    "framesent",
                    lambda d: (checks if isinstance(d, bytes) and b'"event":"check"' in d else sent).append(
                        time.monotonic()
                    ),
                )
                ws.on("framereceived", lambda d: received.append(d) if isinstance(d, bytes) else None)
                ws.on("close", lambda _ws: CLOSED.append(f"{where}: a websocket closed at {time.monotonic():.1f}"))

            page.on("websocket", on_ws)
            CURRENT.update(received=received, log=Path(log.name), traced=False)

            def on_error(e, where=f"{path} {first} then {second}", received=received):
                ERRORS.append(f"{where}: {e}\n{getattr(e, 'stack', '')}")
                _trace(where, received)

            page.on("pageerror", on_error)
            page.on("crash", lambda _p, where=f"{path} {first} then {second}": ERRORS.append(f"{where}: tab crashed"))
            _mark(f"open {path}")
            page.goto(f"{url}/{path}")
            page.wait_for_function("document.querySelectorAll('.js-plotly-plot').length > 0", timeout=300_000)
            page.wait_for_function(IDLE, timeout=300_000)
            page.wait_for_timeout(500)
            rows.append((first, second, _pair(page, sent, checks, first, second, fid, presses)))
            page.close()
        return rows
    finally:
        stop_server(proc, log)
        shutil.rmtree(tmp, ignore_errors=True)


def _trace(where: str, received: list[bytes]) -> None:
    """Append the page's last 400 messages from the server, decoded, to :data:`TRACE`."""
    from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

    with open(TRACE, "a") as out:
        out.write(f"== {where}: the last {min(400, len(received))} of {len(received)} messages\n")
        for raw in received[-400:]:
            msg = ForwardMsg()
            try:
                msg.ParseFromString(raw)
            except Exception as err:  # noqa: BLE001 - an undecodable message is noted, not fatal
                out.write(f"  (undecodable, {len(raw)} bytes: {err})\n")
                continue
            kind = msg.WhichOneof("type")
            line = f"  {kind}"
            if kind == "delta":
                what = msg.delta.WhichOneof("type")
                sub = getattr(msg.delta, what).WhichOneof("type") if what in ("new_element", "add_block") else ""
                line += f" {what}:{sub} path={list(msg.metadata.delta_path)} fragment={msg.delta.fragment_id[:8]}"
            elif kind in ("script_finished", "new_session"):
                run = msg.metadata.run
                line += f" {msg.script_finished if kind == 'script_finished' else ''} run={run.script_run_id[:8]}"
                line += f" fragments={[f[:8] for f in run.fragment_ids]}"
            elif kind == "ref_hash":
                line += f" path={list(msg.metadata.delta_path)}"
            out.write(line + "\n")


def _quantile(xs: list[float], q: float) -> float:
    if not xs:
        return float("nan")
    xs = sorted(xs)
    return xs[min(len(xs) - 1, max(0, round(q * (len(xs) - 1))))]


def main() -> None:
    from playwright.sync_api import sync_playwright

    args = arguments(
        list(PAGES),
        90.0,
        lambda ap: (
            ap.add_argument("--presses", type=int, default=8, help="key presses on the second slider"),
            ap.add_argument("--routes", default=",".join(ROUTES), help="which of the routes to run"),
            ap.add_argument("--built-plain", help="for 'none ahead': a cache built with DPVIZ_FRAMES_AHEAD=0"),
        ),
    )
    built = built_or_new(args.built)
    plain = Path(args.built_plain) if args.built_plain else built
    results = {}
    with sync_playwright() as p:
        browser = p.chromium.launch(
            executable_path=TEST_BROWSER, args=[*CHROMIUM_ARGS, f"--remote-debugging-port={DEVTOOLS_PORT}"]
        )
        for path in args.pages.split(","):
            for route, env in ROUTES.items():
                if route not in args.routes.split(","):
                    continue
                cache = plain if route == "none ahead" else built
                for first, second, r in measure(browser, path, cache, env, args.presses):
                    results[(path, second, route)] = r
                    t = r["times"]
                    median = statistics.median(t) * 1000 if t else float("nan")
                    print(
                        f"{path:20s} {route:12s} {first + ' pressed' if first else 'opened'}, 3 s, "
                        f"then {second:28s}: key -> chart median "
                        f"{median:5.0f} ms, p95 {_quantile(t, 0.95) * 1000:5.0f}"
                        f" ms ({r['from_frames']} of {len(t)} from frames, {r['lost']} lost, others {r['others']});"
                        " 1-s drag: "
                        f"{r['states']} chart states ({'whole set' if r['whole'] else 'not the whole set'} held"
                        f" as it began, shots of {r['shots'][0]} of {r['shots'][1]} positions, {r['shown']} shown),"
                        f" reruns {r['during']} during + {r['after']} after "
                        f"(+{r['checks']} frames checks); the press's run drawn in {r['run_drawn']:.2f} s, every "
                        f"chart along {second} whole "
                        + (f"{r['sets_whole']:.2f} s after the press" if r["sets_whole"] is not None else "not yet")
                        + (" (3-s pause)" if route != "server runs" else "")
                        + (
                            f"; frames files asked for [ms from the press, ms, status]: {r['fetches']}"
                            if r["fetches"]
                            else ""
                        ),
                        flush=True,
                    )
        browser.close()
    for row in filter(None, STATE):  # (None: frames off)
        print("a press not drawn from frames; the chart held:", row)
    for error in ERRORS:
        print("a page's uncaught error:", error)
    for lost in LOST:
        print("a lost press:", lost)
    if LOST:
        print(*CLOSED, sep="\n")
    for baseline in ("server runs", "none ahead"):
        _compare(results, baseline)


def _compare(results: dict, baseline: str) -> None:
    print(f"\nper slider, right after the other slider moved: {baseline} / frames (ratio of the medians)")
    for (path, second, route), r in results.items():
        if route != "frames" or (path, second, baseline) not in results:
            continue
        base = results[(path, second, baseline)]
        m_base = statistics.median(base["times"]) if base["times"] else float("nan")
        m_now = statistics.median(r["times"]) if r["times"] else float("nan")
        print(
            f"{path:20s} {second:28s} median {m_base * 1000:5.0f} / {m_now * 1000:4.0f} ms"
            f" ({m_base / max(m_now, 1e-3):.1f}x)"
            f"  p95 {_quantile(base['times'], 0.95) * 1000:5.0f} / {_quantile(r['times'], 0.95) * 1000:4.0f} ms"
            f"  drag states {base['states']} / {r['states']}  reruns {base['during'] + base['after']} / "
            f"{r['during'] + r['after']}  every chart's set whole after the press "
            f"{_whole(base)} / {_whole(r)}"
        )


def _whole(r: dict) -> str:
    return f"{r['sets_whole']:.2f} s" if r["sets_whole"] is not None else "not yet"


if __name__ == "__main__":
    main()
