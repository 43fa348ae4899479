"""Benchmark: live sliders in the real browser, and every page's first view on a fresh server.

0. Frames (the default: charts follow the slider in the browser, webui/live_frames.py), one session
   in headless Chromium at 1280 x 800 on a server whose warm-up computed every page's defaults and
   frames. Per page and slider, for every chart that follows it (scrolled into view under the
   sticky slider panel): ``--presses`` key presses (ArrowRight, then ArrowLeft back), timed in the
   page from the key going down to that chart's redraw from its frames, and to the paint after it.
   The presses come in pairs, the same steps each way: one pair shown from the positions' shots
   (drawn ahead in idle time, webui/live_js/; the press waits until the chart holds it), the
   next pair drawn by Plotly (the shot taken away as the key goes down), the baseline in the same
   run: per chart, the ratio of the two medians is reported. On opening each page, before any
   press: the seconds from the page settling and being scrolled to the first chart a slider
   drives until its charts in view hold their shots of the positions next to their sliders'
   (until then a key press is drawn by Plotly; ``--first-shots-only`` measures this alone).
   Then, once the charts in view hold their shots (the seconds until they did are reported) and
   the server is quiet (a drag's release makes it compute the other sliders' frames of the new
   setting, which would share the 2 cores with the browser during the next drag), 1-s mouse
   drags across the slider (the
   thumb moved by the wall clock from one end towards the other), the mouse moved as often as the
   harness can send a move, then at a mouse's report rate (``MOUSE_HZ``), both by Playwright's
   mouse (which waits for the page to take each move in before it sends the next: on a busy page
   the harness sets the pace), then at ``MOUSE_HZ`` by a mouse that does not wait (``free_drag``,
   moves sent to the browser's DevTools socket as a real mouse reports them): the distinct frames
   the slider's first chart drew during each drag, beside the mouse moves the drag sent (a waiting
   mouse sends only as many as the page takes in); of them, those that reached the screen (what the
   chart showed at each animation frame: two redraws between two frames are one picture); how many
   shots the charts in view showed (frames drawn ahead in idle time, ``webui/live_js/``; the
   rest were Plotly draws); and the messages the page sent to the server meanwhile (Streamlit's
   slider sends its value once, on release; a frames element whose frames for the new setting are
   computed after the release checks for them 2 s later, counted apart). And per page: the bytes
   of its frames as the page received them on opening it (zlib-compressed, typed arrays).
   The baseline in the same run is section 1 on a server with ``DPVIZ_FRAMES=0`` (every move
   drawn by the server).
1. One session in headless Chromium (one dpviz server, pages on their defaults, a 1280 x 800
   window), the chart that follows the slider scrolled into the middle of the window as a reader
   looking at it has it: a key press on the slider (ArrowRight: the next grid position, never
   computed before), timed in the page (``performance.now()``) from the key going down to (a)
   that chart being redrawn (its Plotly data changed) and (b) the last change to any chart on
   the page, once the run is over (its ``script_finished`` has reached the page and no chart has
   changed for half a second): every redrawn chart. Charts out of view are redrawn when they
   come into view (webui/live_js/), so (b) covers the charts in view; after the last press
   the page is scrolled to each chart left for later, and the seconds from the scroll to its
   redraw being painted are reported too. Median and 95th percentile over ``--presses`` presses
   per slider, with the bytes the page received per press and how many charts came as
   references to ones it held (not sent again). Baseline, same run: reloading the page at the
   new slider value (what any change cost when every control change reran the whole page, here
   with every other chart already cached).
2. First view: a new server with an empty cache for each page, the page opened once: seconds
   until every chart is drawn, and the progress texts seen meanwhile.

    python benchmarks/bench_live_browser.py
    python benchmarks/bench_live_browser.py --skip-first-view --skip-presses    # frames only
    python benchmarks/bench_live_browser.py --presses 10 --skip-first-view
    python benchmarks/bench_live_browser.py --skip-first-view --read 3 --split-cores
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
import from_tests  # noqa: E402, F401 - the tests' helpers (benchmarks/from_tests.py)

# page path, charts on its defaults, [(slider label, figure that follows it)]
from browser_support import RUN_ENDED, RUN_STATE  # noqa: E402 - tests/ is on the path above
from paper_pages import charts_drawn  # noqa: E402
from server_cpu import wait_until_idle  # noqa: E402 - benchmarks/ is on the path (this file's folder)

from webui.frames_store import NEAR_SUFFIX  # noqa: E402

MOUSE_HZ = 125
"""A drag's mouse moves per second in its second run: a USB mouse's default report rate."""

PAGES = [  # charts drawn without a click, counted from the papers' declarations
    (
        "ADePT_sensitivity",
        charts_drawn("adept"),
        [("Privacy budget ε (claimed)", "adept-epsilon"), ("Dimension n", "adept-sensitivity")],
    ),
    ("Metric_DP", charts_drawn("metric"), [("ε", "metric-live")]),
    ("HoHo_attack", charts_drawn("hoho"), [("Claimed ε", "hoho-live"), ("λ", "hoho-live")]),
    (
        "Partial_sensitivity",
        charts_drawn("partial"),
        [("Gaussian noise σ", "partial-individuals"), ("Rényi order α", "partial-individuals")],
    ),
]
FINGERPRINT = """(id) => { const all = document.querySelectorAll(`.st-key-chart-${id} .js-plotly-plot`);
    const gd = all[all.length - 1];
    return gd && gd.data ? JSON.stringify(gd.data) + '|' + gd.innerText.slice(0, 200) : ''; }"""
IDLE = RUN_ENDED  # (the page ran, and runs no more: browser_support.RUN_STATE)
# in the page: when the key went down, and when any chart last changed (a mutation inside a plot)
CLOCK = """(() => {
  window.__press = 0; window.__chart = 0;
  document.addEventListener('keydown', () => { window.__press = performance.now(); }, true);
  new MutationObserver(ms => { if (ms.some(m => m.target.closest && m.target.closest('.stPlotlyChart')))
    window.__chart = performance.now(); }).observe(document, {subtree: true, childList: true, attributes: true});
})();"""
# charts a move left for later because they were out of view: each scrolled into view in turn, the
# milliseconds from the scroll to its redraw having been painted
CATCH_UP = """async () => {
  const out = [];
  const frame = () => new Promise(r => requestAnimationFrame(r));
  for (const gd of document.querySelectorAll('.dpviz-chart')) {
    if (!gd.__dpvizPending) continue;
    const t0 = performance.now();
    gd.scrollIntoView({block: 'center'});
    while (gd.__dpvizPending) await frame();
    await gd.__dpvizLast;
    await frame(); await frame();
    out.push(performance.now() - t0);
  }
  return out;
}"""
# a page still replacing its first answers by the full ones is not settled
REFINED = "![...document.querySelectorAll('[data-testid=stAlert]')].some(a => a.innerText.includes('First answer'))"


def settle(page, charts: int) -> None:
    page.wait_for_function(f"document.querySelectorAll('.js-plotly-plot').length >= {charts}", timeout=300_000)
    page.wait_for_function(IDLE, timeout=300_000)
    page.wait_for_function(REFINED, timeout=300_000)


def live_presses(url: str, browser, presses: int, read: float = 0.0) -> list[tuple]:
    from browser_support import look_at
    from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

    out = []
    page = browser.new_page(viewport={"width": 1280, "height": 800})
    page.set_default_timeout(120_000)
    page.add_init_script(CLOCK)
    frames: list[bytes] = []
    page.on(
        "websocket", lambda ws: ws.on("framereceived", lambda d: frames.append(d) if isinstance(d, bytes) else None)
    )

    def finished() -> bool:
        return any(ForwardMsg.FromString(d).WhichOneof("type") == "script_finished" for d in frames)

    for path, charts, sliders in PAGES:
        page.goto(f"{url}/{path}")
        settle(page, charts)
        for label, fid in sliders:
            times, everys, sizes, refs, reloads = [], [], [], [], []
            slider = page.get_by_role("slider", name=label)
            # the reader looks at the chart the slider drives (charts out of view are redrawn when
            # they come into view)
            for _ in range(presses):
                look_at(page, f".st-key-chart-{fid}")
                page.wait_for_timeout(100)
                before = page.evaluate(FINGERPRINT, fid)
                slider.focus()
                frames.clear()
                page.keyboard.press("ArrowRight")
                page.wait_for_function("([id, b]) => (" + FINGERPRINT + ")(id) !== b", arg=[fid, before])
                followed = page.evaluate("performance.now() - window.__press")
                while not finished():
                    page.wait_for_timeout(50)
                page.wait_for_function("performance.now() - window.__chart > 500")
                times.append(followed / 1000)
                everys.append(page.evaluate("window.__chart - window.__press") / 1000)
                sizes.append(sum(len(d) for d in frames))
                refs.append(sum(ForwardMsg.FromString(d).WhichOneof("type") == "ref_hash" for d in frames))
                page.wait_for_timeout(read * 1000)  # the reader looks at the charts before the next press
            later = [ms / 1000 for ms in page.evaluate(CATCH_UP)]  # then scrolls down: the charts out of view catch up
            for _ in range(2):  # the baseline: the same kind of change as a whole-page rerun
                slider.focus()
                page.keyboard.press("ArrowRight")
                page.wait_for_function(IDLE)
                page.wait_for_timeout(300)
                t = time.perf_counter()
                page.reload()
                settle(page, charts)
                reloads.append(time.perf_counter() - t)
                slider = page.get_by_role("slider", name=label)
            out.append((path, label, times, everys, sizes, refs, reloads, later))
    page.close()
    return out


# frames: when the key went down; every frame-drawn event: when, chart key, its tag, whether a shot
# (drawn ahead, webui/live_js/) was shown, and when the frame after it was painted (an
# animation frame, then a task: the paint between them)
FRAME_CLOCK = """(() => {
  window.__press = 0; window.__drawn = []; window.__latest = {};
  document.addEventListener('keydown', () => { window.__press = performance.now(); }, true);
  document.addEventListener('dpviz-drawn', (e) => {
    const card = e.target.closest('[class*="st-key-chart-"]');
    const key = card ? [...card.classList].find(c => c.startsWith('st-key-chart-')).slice(13) : '';
    const gd = e.target, shot = !!gd.__dpvizShot && gd.__dpvizShown !== gd.__dpvizShot.figure;
    const d = [performance.now(), key, e.detail, shot, null];
    window.__drawn.push(d);
    window.__latest[key] = e.detail;
    requestAnimationFrame(() => setTimeout(() => { d[4] = performance.now(); }, 0));
  }, true);
})();"""
# whether the chart holds its shot of a position along a slider, and none is being made
SHOT_OF = """([fid, label, i]) => { const gd = document.querySelector(`.st-key-chart-${fid} .dpviz-chart`);
  const S = window.__dpvizShots;
  return S && !S.busy && gd.__dpvizShots && gd.__dpvizShots.has(window.__dpvizShotKey(gd, label, i)); }"""
# the chart's shot of a position taken away as the next key goes down (a press drawn by Plotly)
NO_SHOT = """([fid, label, i]) => { const gd = document.querySelector(`.st-key-chart-${fid} .dpviz-chart`);
  window.addEventListener('keydown', () => gd.__dpvizShots && gd.__dpvizShots.delete(
    window.__dpvizShotKey(gd, label, i)), {capture: true, once: true}); }"""
# no shot being made or planned (webui/live_js/)
SHOTS_READY = """() => { const S = window.__dpvizShots;
  return !S || (!S.busy && !S.queue.length && !S.soon); }"""
# every chart in the window holds its shots of the positions next to its sliders' (a key press
# there is shown from a shot, not drawn by Plotly); how many charts that is
NEAR_SHOTS = """() => { const near = [];
  for (const gd of document.querySelectorAll('.dpviz-chart')) {
    const r = gd.getBoundingClientRect();
    if (!gd.__dpviz || r.bottom <= 0 || r.top >= innerHeight) continue;
    for (const [label, s] of Object.entries(gd.__dpviz.sliders)) {
      const input = document.querySelector(`input[aria-label="${label}"]`);
      if (!input || !window.__dpvizFrames.get(s.frames)) return -1;
      const at = +input.value, n = s.options.length;
      for (const i of [at - 1, at + 1]) {
        if (i < 0 || i >= n) continue;
        if (!(gd.__dpvizShots && gd.__dpvizShots.has(window.__dpvizShotKey(gd, label, i)))) return -1;
      }
    }
    if (Object.keys(gd.__dpviz.sliders).length) near.push(gd);
  }
  return near.length; }"""
# what the shots are doing (for a benchmark that waits on them in vain)
SHOTS_STATE = (
    """() => { const S = window.__dpvizShots; return S && {busy: S.busy, queue: S.queue.length,
  soon: !!S.soon, made: S.made, shown: S.shown, quiet: S.quiet - performance.now(), dragging: !!S.dragging,
  run: """
    + RUN_STATE
    + """,
  failing: [...S.tried.values()].filter(v => v > 1).length, head: S.queue[0] && [S.queue[0][1], S.queue[0][2],
  window.__dpvizShotKey(S.queue[0][0], S.queue[0][1], S.queue[0][2])]}; }"""
)
# during a drag: what each chart showed at every animation frame (a redraw that reached the screen;
# two redraws between two frames are one picture)
PAINT_CLOCK = """() => { window.__painted = []; window.__painting = true; const last = {};
  const tick = () => {
    for (const [k, t] of Object.entries(window.__latest)) {
      if (last[k] !== t) { window.__painted.push([k, t]); last[k] = t; } }
    if (window.__painting) requestAnimationFrame(tick); };
  requestAnimationFrame(tick); }"""


def frames_of_page(page) -> dict:
    """The frames the page holds: key -> (figure, positions), and the set of charts per slider label."""
    return page.evaluate("""() => Object.fromEntries([...window.__dpvizFrames.entries()].filter(([k, d]) => d)
      .map(([k, d]) => [k, [d.figure || d.panel, d.grid.length]]))""")


def devtools_port() -> int:
    """A free port for the browser's DevTools socket (the mouse that does not wait uses it)."""
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


DEVTOOLS_PORT = devtools_port()


def drag_path(left: float, width: float, hz: int):
    """The mouse's x along a 1-s drag across a slider (``left``, ``width``): from 3% to 97% of it by
    the wall clock, one position every 1/``hz`` s (0: as often as the caller takes them)."""
    start = due = time.monotonic()
    while (elapsed := time.monotonic() - start) < 1.0:
        yield left + width * (0.03 + 0.94 * elapsed)
        if hz:
            due += 1 / hz
            time.sleep(max(0.0, due - time.monotonic()))


def free_drag(page, x: float, y: float, left: float, width: float, hz: int) -> int:
    """A 1-s drag by a mouse that does not wait: press at (x, y), then a move every 1/hz s towards
    the slider's far end by the wall clock, then release, each sent to the page's DevTools socket
    without waiting for the page to take the last one in, as a real mouse reports to the browser
    (Playwright's mouse waits for each move to be handled before it sends the next: on a busy page
    the harness, not the mouse, sets the pace). The browser queues the moves and the page takes
    the newest at each frame."""
    import json

    from websockets.sync.client import connect

    cdp = page.context.new_cdp_session(page)
    target = cdp.send("Target.getTargetInfo")["targetInfo"]["targetId"]
    cdp.detach()
    with connect(f"ws://127.0.0.1:{DEVTOOLS_PORT}/devtools/page/{target}", max_size=None, max_queue=None) as ws:
        ids = iter(range(1, 10**6))

        def send(kind: str, at: float, buttons: int) -> None:
            params = {"type": kind, "x": at, "y": y, "button": "left", "buttons": buttons}
            if kind != "mouseMoved":
                params["clickCount"] = 1
            ws.send(json.dumps({"id": next(ids), "method": "Input.dispatchMouseEvent", "params": params}))

        send("mouseMoved", x, 0)
        send("mousePressed", x, 1)
        at, moves = x, 0
        for at in drag_path(left, width, hz):
            send("mouseMoved", at, 1)
            moves += 1
        send("mouseReleased", at, 0)
        # every event taken in (the answers come in order: the release's is the last)
        last = next(ids) - 1
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            if json.loads(ws.recv(timeout=60)).get("id") == last:
                break
    page.mouse.move(at, y)  # (where Playwright's mouse is now)
    return moves


FIRST_SHOTS: list[tuple[str, float, int]] = []
"""Per page opened: the seconds from its settling and being scrolled to its first slider's chart until
its charts in view held the shots next to their sliders' positions, and how many charts were in view."""


def frames_presses(url: str, browser, presses: int, server_pid: int, first_shots_only: bool = False) -> list[tuple]:
    """Section 0: per slider and chart, key press -> that chart redrawn from its frames; per slider,
    a 1-s drag (each begun once the server is quiet: a drag's release makes it compute the frames of
    the new setting for the other sliders, which would share the 2 cores with the browser during the
    next drag; ``wait_until_idle`` for 3 s in a row); per page, the frames' bytes received on
    opening it."""
    from browser_support import look_at, slider_geometry
    from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

    page = browser.new_page(viewport={"width": 1280, "height": 800})
    page.set_default_timeout(120_000)
    page.add_init_script(FRAME_CLOCK)
    received: list[bytes] = []
    sent: list[float] = []  # the page's messages to the server, but a frames element's checks:
    checks: list[float] = []  # (frames computed after a release, for the new setting: ready yet?)
    page.on(
        "websocket",
        lambda ws: (
            ws.on("framereceived", lambda d: received.append(d) if isinstance(d, bytes) else None),
            ws.on(
                "framesent",
                lambda d: (checks if isinstance(d, bytes) and b'"event":"check"' in d else sent).append(
                    time.monotonic()
                ),
            ),
        ),
    )
    out = []
    for path, charts, sliders in PAGES:
        received.clear()
        page.goto(f"{url}/{path}")
        settle(page, charts)
        # a reader scrolls to the first chart a slider drives: the seconds until a key press on any
        # slider is shown from shots in every chart in view (no pointer over a slider, no focus on one:
        # shots planned by the page alone)
        page.mouse.move(5, 5)
        look_at(page, f".st-key-chart-{sliders[0][1]}")
        begin = time.monotonic()
        in_view = (
            page.wait_for_function(
                f"(() => {{ const n = ({NEAR_SHOTS})(); return n >= 0 ? n + 1 : 0; }})()", timeout=300_000, polling=50
            ).json_value()
            - 1
        )
        FIRST_SHOTS.append((path, time.monotonic() - begin, in_view))
        print(
            f"  {path}: {in_view} charts in view hold the shots next to their sliders' positions "
            f"{FIRST_SHOTS[-1][1]:.2f} s after the page settled and was scrolled to its first slider's chart",
            flush=True,
        )
        if first_shots_only:
            continue
        weight = 0
        for d in received:
            fm = ForwardMsg.FromString(d)
            el = fm.delta.new_element if fm.WhichOneof("type") == "delta" else None
            if el is not None and el.WhichOneof("type") == "bidi_component":
                if el.bidi_component.component_name == "dpviz_frames":
                    weight += len(d)
        for k_slider, (label, _) in enumerate(sliders):
            if k_slider:  # each slider from the page's defaults (a drag moved the last one)
                page.goto(f"{url}/{path}")
                settle(page, charts)
            page.wait_for_function(  # every chart that follows the slider holds its frames
                "(label) => [...document.querySelectorAll('.dpviz-chart')].every(gd => !gd.__dpviz.sliders[label]"
                f" || (!gd.__dpviz.sliders[label].frames.endsWith('{NEAR_SUFFIX}')"
                " && (window.__dpvizFrames.get(gd.__dpviz.sliders[label].frames) || null) !== null))",
                arg=label,
                timeout=300_000,
            )
            charts_of = page.evaluate(
                "(label) => [...document.querySelectorAll('.dpviz-chart')].filter(gd => gd.__dpviz.sliders[label])"
                ".map(gd => [...gd.closest('[class*=\"st-key-chart-\"]').classList]"
                ".find(c => c.startsWith('st-key-chart-')).slice(13))",
                label,
            )
            print(f"  {path} {label}: {len(charts_of)} charts follow it: {charts_of}", flush=True)
            slider = page.get_by_role("slider", name=label)
            latencies = {}
            for fid in charts_of:
                page.wait_for_selector(f".st-key-chart-{fid}")
                look_at(page, f".st-key-chart-{fid}")
                page.wait_for_timeout(300)
                times = {"shot": [], "plotly": [], "shot painted": [], "plotly painted": []}
                for k in range(presses):
                    # presses in pairs (there and back): shown from the position's shot, then drawn
                    # by Plotly (the shot taken away as the key goes down), the same chart and steps
                    way = "shot" if (k // 2) % 2 == 0 else "plotly"
                    at = int(slider.input_value())
                    target = at + 1 if k % 2 == 0 else at - 1
                    if way == "shot":
                        try:
                            page.wait_for_function(SHOT_OF, arg=[fid, label, target], timeout=60_000, polling=100)
                        except Exception:  # noqa: BLE001 - no shot came: this press is Plotly's
                            way = "plotly"
                    if way == "plotly":
                        page.evaluate(NO_SHOT, [fid, label, target])
                    page.evaluate("window.__drawn = []")
                    before = slider.get_attribute("aria-valuetext")
                    for _ in range(3):  # a press that lands while Streamlit draws the slider again is lost: again
                        slider.focus()
                        page.keyboard.press("ArrowRight" if k % 2 == 0 else "ArrowLeft")
                        try:
                            page.wait_for_function(
                                '([label, b]) => document.querySelector(`input[aria-label="${label}"]`)'
                                ".getAttribute('aria-valuetext') !== b",
                                arg=[label, before],
                                timeout=2_000,
                            )
                            break
                        except Exception:  # noqa: BLE001
                            page.evaluate("window.__drawn = []")
                    try:
                        page.wait_for_function(
                            "([fid, label]) => window.__drawn.some(d => d[1] === fid && d[2].startsWith(label + '=')"
                            " && d[4] !== null)",
                            arg=[fid, label],
                            timeout=30_000,
                        )
                    except Exception:  # noqa: BLE001 - say what the page showed, then stop
                        state = page.evaluate(
                            "(fid) => { const gd = document.querySelector(`.st-key-chart-${fid} .dpviz-chart`);"
                            " return [gd && gd.__dpvizSeen, gd && !!gd.__dpvizPending, window.__drawn]; }",
                            fid,
                        )
                        raise RuntimeError(f"{path} {label}: {fid} not redrawn after press {k}: {state}") from None
                    drawn_at, by_shot, painted_at = page.evaluate(
                        "([fid, label]) => { const d = window.__drawn"
                        ".find(d => d[1] === fid && d[2].startsWith(label + '='));"
                        " return [d[0] - window.__press, d[3], d[4] - window.__press]; }",
                        [fid, label],
                    )
                    way = "shot" if by_shot else "plotly"
                    times[way].append(drawn_at / 1000)
                    times[f"{way} painted"].append(painted_at / 1000)
                    page.wait_for_function(IDLE)  # the server's answer (a reference to the same frame) is in
                    page.wait_for_function(  # and Plotly has drawn a key's move shown from a shot
                        "(fid) => !document.querySelector(`.st-key-chart-${fid} .dpviz-shot`)", arg=fid
                    )
                    page.wait_for_timeout(200)
                latencies[fid] = times
            # 1-s drags across the slider, the first chart that follows it in view: the mouse moved
            # as often as the harness can send a move (its messages compete with the page for the
            # 2 cores), then at a mouse's report rate (MOUSE_HZ, a USB mouse's default); the same
            # session, one after the other
            drawn, painted, shots, ready, during, after, asked = {}, {}, {}, {}, 0, 0, 0
            moves = {}  # the mouse moves the drag sent (a waiting mouse: as many as the page took in)
            for hz in (0, MOUSE_HZ, -MOUSE_HZ):  # (-: the mouse that does not wait, free_drag)
                look_at(page, f".st-key-chart-{charts_of[0]}")
                page.wait_for_timeout(500)
                # a reader who has had the page in front of them a moment: the charts in view hold
                # their shots (drawn in idle time; the seconds it took are reported)
                begin = time.monotonic()
                try:
                    page.wait_for_function(SHOTS_READY, timeout=300_000, polling=250)
                except Exception:  # noqa: BLE001 - say what the shots were doing, then stop
                    raise RuntimeError(f"{path} {label}: shots not ready: {page.evaluate(SHOTS_STATE)}") from None
                ready[hz] = time.monotonic() - begin + 0.5
                quiet = wait_until_idle(server_pid, seconds=3)
                print(f"    drag at {hz} Hz: shots ready after {ready[hz]:.1f} s, server quiet after {quiet:.1f} s")
                x, y, left, width = slider_geometry(slider)
                page.evaluate("window.__drawn = []")
                shown = page.evaluate("window.__dpvizShots ? window.__dpvizShots.shown : 0")
                page.evaluate(PAINT_CLOCK)
                before, checked = len(sent), len(checks)
                if hz < 0:
                    moves[hz] = free_drag(page, x, y, left, width, -hz)
                    moving = None  # (the page's messages are counted once they are all in, below)
                else:
                    page.mouse.move(x, y)
                    page.mouse.down()
                    moves[hz] = 0
                    for at in drag_path(left, width, hz):
                        page.mouse.move(at, y)
                        moves[hz] += 1
                    moving = len(sent) - before
                    page.mouse.up()
                painted[hz] = page.evaluate(
                    "([fid, label]) => { window.__painting = false; return new Set(window.__painted"
                    ".filter(d => d[0] === fid && d[1].startsWith(label + '=')).map(d => d[1])).size; }",
                    [charts_of[0], label],
                )
                page.wait_for_timeout(1500)
                page.wait_for_function(IDLE)
                if moving is None:  # every message but the release's one (a drag's value, sent once)
                    moving = max(0, len(sent) - before - 1)
                during, after = max(during, moving), max(after, len(sent) - before - moving)
                asked = max(asked, len(checks) - checked)
                drawn[hz] = page.evaluate(
                    "([fid, label]) => [...new Set(window.__drawn"
                    ".filter(d => d[1] === fid && d[2].startsWith(label + '=')).map(d => d[2]))].length",
                    [charts_of[0], label],
                )
                # of which shots (drawn ahead, live_js/shots.js), on any chart in view
                shots[hz] = page.evaluate("window.__dpvizShots ? window.__dpvizShots.shown : 0") - shown
                page.wait_for_timeout(1000)
            out.append((path, label, latencies, drawn, painted, shots, ready, during, after, asked, weight, moves))
            print(f"    {out[-1]}", flush=True)  # (as it comes: a later failure loses nothing)
    page.close()
    return out


def first_views(browser) -> list[tuple[str, float, list[str]]]:
    from browser_support import start_server, stop_server

    out = []
    for path, charts, _ in PAGES:
        tmp = Path(tempfile.mkdtemp())
        proc, url, log = start_server(tmp)  # an empty cache under tmp
        try:
            page = browser.new_page(viewport={"width": 1280, "height": 800})
            seen: list[str] = []
            t = time.perf_counter()
            page.goto(f"{url}/{path}")
            deadline = t + 300
            while time.perf_counter() < deadline:
                texts = page.locator('[data-testid="stProgress"]').all_inner_texts()
                seen += [x for x in texts if x and x not in seen]
                if page.evaluate(f"document.querySelectorAll('.js-plotly-plot').length >= {charts}"):
                    break
                page.wait_for_timeout(150)
            page.wait_for_function(IDLE, timeout=300_000)
            out.append((path, time.perf_counter() - t, seen))
            page.close()
        finally:
            stop_server(proc, log)
    return out


def main() -> None:
    from browser_support import CHROMIUM, CHROMIUM_ARGS, start_server, stop_server
    from playwright.sync_api import sync_playwright

    ap = argparse.ArgumentParser()
    ap.add_argument("--presses", type=int, default=8)
    ap.add_argument("--skip-first-view", action="store_true")
    ap.add_argument("--skip-presses", action="store_true")
    ap.add_argument("--skip-frames", action="store_true")
    ap.add_argument(
        "--first-shots-only",
        action="store_true",
        help="section 0 only measures each page's time until its charts in view hold their sliders' next shots",
    )
    ap.add_argument("--pages", default="", help="comma-separated page paths (default: all)")
    ap.add_argument("--read", type=float, default=0.0, help="seconds between a press's last chart and the next press")
    ap.add_argument(
        "--split-cores",
        action="store_true",
        help="the server on the first core, the browser on the others (a visitor's browser is on their own machine)",
    )
    args = ap.parse_args()
    server_cpus = None
    if args.split_cores:
        cores = sorted(os.sched_getaffinity(0))
        server_cpus = {cores[0]}
        os.sched_setaffinity(0, set(cores[1:]))  # this process, and the browser it launches
    if args.pages:
        PAGES[:] = [row for row in PAGES if row[0] in args.pages.split(",")]
    with sync_playwright() as p:
        browser = p.chromium.launch(
            executable_path=CHROMIUM, args=[*CHROMIUM_ARGS, f"--remote-debugging-port={DEVTOOLS_PORT}"]
        )
        if not args.skip_frames:
            tmp = Path(tempfile.mkdtemp())
            proc, url, log = start_server(tmp, {"DPVIZ_FRAMES": "1", "DPVIZ_WARMUP": "1"}, cpus=server_cpus)
            try:
                logfile = next(tmp.glob("streamlit-*.log"))
                # the first visitor's page run starts the warm-up (pages' defaults, then their frames)
                port = url.rsplit(":", 1)[1]
                subprocess.run([sys.executable, "-m", "webui.session_client", "--wake", port], cwd=ROOT, check=True)
                while "dpviz: warm-up done" not in logfile.read_text(errors="replace"):
                    time.sleep(1)
                rows = frames_presses(url, browser, args.presses, proc.pid, args.first_shots_only)
            finally:
                stop_server(proc, log)
            print(
                f"0. frames: key press -> each chart that follows the slider redrawn ({args.presses} presses per chart)"
            )
            print(
                f"{'page':20} {'slider':28} {'p50 / p95 s per chart: from a shot | by Plotly':>40} "
                f"{'1-s drag: frames':>17} {'sent':>5}  frames kB"
            )

            def p50_95(t: list) -> str:
                return f"{statistics.median(t):.3f}/{float(np.percentile(t, 95)):.3f}" if t else "-"

            for path, label, latencies, drawn, painted, shots, ready, during, after, asked, weight, moves in rows:
                per = ", ".join(
                    f"{fid.split('-', 1)[1]} {p50_95(t['shot'])} | {p50_95(t['plotly'])}"
                    for fid, t in latencies.items()
                )
                print(
                    f"{path:20} {label:28} {per}  drag {drawn[0]} frames ({drawn[MOUSE_HZ]} at {MOUSE_HZ} Hz, "
                    f"{drawn[-MOUSE_HZ]} with a mouse that does not wait; painted {painted[0]}, {painted[MOUSE_HZ]}, "
                    f"{painted[-MOUSE_HZ]}; shots shown {shots[0]}, {shots[MOUSE_HZ]}, {shots[-MOUSE_HZ]}, "
                    f"ready after {ready[0]:.1f} s; mouse moves sent {moves[0]}, {moves[MOUSE_HZ]}, "
                    f"{moves[-MOUSE_HZ]}), "
                    f"{during} sent (+{after} on release, then {asked} checks for frames)  "
                    f"{weight / 1e3:.0f}"
                )
            for way in ("shot", "plotly", "shot painted", "plotly painted"):
                every = [t for row in rows for times in row[2].values() for t in times[way]]
                if every:
                    print(
                        f"every chart of every page, key press -> {way:14}: p50 {statistics.median(every):.3f} s, "
                        f"p95 {float(np.percentile(every, 95)):.3f} s ({len(every)} presses)"
                    )
            for path, seconds, in_view in FIRST_SHOTS:
                print(
                    f"{path}: the {in_view} charts in view hold the shots next to their sliders' positions "
                    f"{seconds:.2f} s after the page settled and was scrolled to its first slider's chart"
                )
            pairs = [(fid, t) for row in rows for fid, t in row[2].items() if t["shot"] and t["plotly"]]
            if pairs:  # per chart: the median from a shot against the median by Plotly, same presses
                worst = max(pairs, key=lambda p: statistics.median(p[1]["shot"]))
                ratios = [statistics.median(t["shot"]) / statistics.median(t["plotly"]) for _, t in pairs]
                print(
                    f"per chart, median from a shot / median by Plotly: {min(ratios):.2f}-{max(ratios):.2f}; "
                    f"slowest chart from a shot: {worst[0]} {statistics.median(worst[1]['shot']):.3f} s"
                )
        if not args.skip_presses:
            tmp = Path(tempfile.mkdtemp())
            proc, url, log = start_server(tmp, {"DPVIZ_FRAMES": "0"}, cpus=server_cpus)
            try:
                rows = live_presses(url, browser, args.presses, read=args.read)
            finally:
                stop_server(proc, log)
            print(
                "1. key press on a slider -> its chart, and every chart, redrawn "
                f"(one session, {args.presses} presses per slider)"
            )
            print(
                f"{'page':20} {'slider':28} {'its chart p50/p95 s':>20} {'every chart p50/p95 s':>22} "
                f"{'kB/press':>9} {'refs':>5} {'reload s':>9} {'ratio':>6}  out of view: charts, redraw p50/max s"
            )
            for path, label, times, everys, sizes, refs, reloads, later in rows:
                med, p95 = statistics.median(times), float(np.percentile(times, 95))
                emed, ep95, rel = (
                    statistics.median(everys),
                    float(np.percentile(everys, 95)),
                    statistics.median(reloads),
                )
                print(
                    f"{path:20} {label:28} {med:9.2f} / {p95:5.2f}     {emed:9.2f} / {ep95:5.2f}      "
                    f"{statistics.median(sizes) / 1e3:9.0f} {statistics.median(refs):5.0f} "
                    f"{rel:9.2f} {rel / emed:5.1f}x  "
                    + (f"{len(later)}, {statistics.median(later):.2f} / {max(later):.2f}" if later else "none")
                )
        if not args.skip_first_view:
            print("\n2. first view on a freshly started server with an empty cache")
            for path, seconds, seen in first_views(browser):
                shown = "; ".join(seen[:4]) + (" ..." if len(seen) > 4 else "")
                print(f"{path:20} {seconds:6.1f} s  progress seen: {shown or 'none'}")
        browser.close()


if __name__ == "__main__":
    main()
