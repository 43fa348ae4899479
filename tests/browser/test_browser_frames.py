"""Charts that follow the slider in the browser (frames: dpviz/frames.py, webui/live_frames.py,
webui/live_js/), in Chromium against a server with frames on:

- at random positions of each slider, what a chart shows (Plotly's data as drawn) is, number for
  number, the figure the server computes at that position in this test's own process;
- during a mouse drag the charts change and the page sends the server nothing; on release, one run;
- a link's value off the grid is drawn by the server (never as its nearest frame), and the next
  position is its frame;
- the try-it box's text follows ε as the charts do;
- frames computed after the page opened reach it without a reload.
"""

from __future__ import annotations

import json
import os
import random
import re
import time

import numpy as np
import plotly.io as pio
import pytest
from browser_support import (
    FAST,
    HOHO_FAST,
    MDP_FAST,
    PS_FAST,
    RUN_ENDED,
    RUN_STATE,
    axe_check,
    descendants,
    look_at,
    look_at_drawn,
    slider_geometry,
    start_server,
    stop_server,
    wait_run_ended,
)

from dpviz import frames, registry
from dpviz.params import validate
from webui.frames_store import NEAR_SUFFIX

pytestmark = pytest.mark.timeout(900)


# what a chart shows: per trace its name and numeric x and y (typed arrays read out), the title
def _words(text):
    """A title or legend name as words: the page wraps long ones to the chart's width
    (webui/live_js/text_fit.js fitLayout), which changes only where the lines break."""
    return None if text is None else " ".join(re.sub(r"<[^>]+>", " ", str(text)).split())


def _as_words(*figs):
    """The figures with their titles and legend names as words (:func:`_words`), in place."""
    for fig in figs:
        fig["title"] = _words(fig["title"])
        for trace in fig["data"]:
            trace["name"] = _words(trace["name"])


SHOWN = """(gd) => {
  const plain = (v) => (v && ArrayBuffer.isView(v)) ? Array.from(v) : v;
  return {data: gd.data.map(t => ({name: t.name, x: plain(t.x), y: plain(t.y)})),
          title: gd.layout.title && gd.layout.title.text};
}"""


def _chart(page, where: str, body: str, arg=None):
    """``body`` (``(gd, arg) => value``) on the drawn chart under ``where``, read in one call once a
    chart is there: the run on release may put the chart in a new element between two calls (the
    same figure), and a read in between found none."""
    return page.wait_for_function(
        f"([sel, arg]) => {{ const gd = document.querySelector(sel);"
        f" return gd && gd.data && gd.__dpviz ? [({body})(gd, arg)] : null; }}",
        arg=[f"{where} .dpviz-chart", arg],
    ).json_value()[0]


def _shown(page, where: str) -> dict:
    """The traces and title of the chart under ``where`` as drawn."""
    return _chart(page, where, SHOWN)


@pytest.fixture(scope="module")
def frames_server(tmp_path_factory, warm_cache, warm_frames):
    proc, url, log = start_server(
        tmp_path_factory.mktemp("frames"),
        {"DPVIZ_FRAMES": "1", "DPVIZ_WARMUP": "0"},
        cache_from=[warm_cache, warm_frames],
    )
    yield url
    stop_server(proc, log)


def _query(text: str) -> dict[str, str]:
    return dict(kv.split("=", 1) for kv in text.split("&") if kv)


def _server_figure(fid: str, query: dict[str, str], slider: str, value, others: dict | None = None) -> dict:
    """The figure at this slider value (and ``others``: the chart's other live sliders where the
    page shows them), computed here exactly as the server does."""
    spec = registry.get(fid)
    raw = {k: v for k, v in query.items() if k in {p.name for p in spec.params}}
    values, errors = validate(spec.params, raw)
    assert not errors
    values.update(others or {})
    values[slider] = value
    fig = json.loads(pio.to_json(spec.figure_dict(spec.table(values), values), validate=False))
    return {
        "data": [
            {"name": t.get("name"), "x": frames._plain(t.get("x")), "y": frames._plain(t.get("y"))} for t in fig["data"]
        ],
        "title": (fig["layout"].get("title") or {}).get("text"),
    }


def _spread(shown: dict, expected: dict) -> str:
    """How two figures' numbers differ overall (a failure's second line): how many differ beyond
    rounding, and the largest relative difference, per trace and axis."""
    out = []
    for i, (a, b) in enumerate(zip(shown["data"], expected["data"])):
        for axis in ("x", "y"):
            x, y = a.get(axis), b.get(axis)
            if not (isinstance(x, list) and isinstance(y, list) and len(x) == len(y)):
                continue
            try:
                x, y = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
            except (TypeError, ValueError):
                continue
            rel = np.abs(x - y) / np.maximum(np.maximum(np.abs(x), np.abs(y)), 1e-300)
            bad = int(np.sum(rel > 1e-9))
            if bad:
                out.append(f"data[{i}].{axis}: {bad} of {len(x)} differ, largest relative {np.nanmax(rel):.2e}")
    return "; ".join(out) or "no other number differs"


def _wait_frames(page, label: str, charts: tuple[str, ...] = ()) -> None:
    """Until every chart that follows the slider ``label`` holds its frames (the whole set, not
    only its part nearest the slider's value), and each chart of ``charts`` (ids) is on the page
    among them. A fresh page's run draws its charts in page order: the first ones may hold their
    frames while a later one is still being computed (CI, stop 73: the ADePT page's fixes chart
    was not on the page yet when the test looked for it)."""
    page.wait_for_function(
        "([label, want]) => { const c = [...document.querySelectorAll('.dpviz-chart')]"
        ".filter(gd => gd.__dpviz && gd.__dpviz.sliders[label]);"
        " return c.length && want.every(f => document.querySelector(`.st-key-chart-${f} .dpviz-chart`))"
        " && c.every(gd => window.__dpvizFrames"
        f" && !gd.__dpviz.sliders[label].frames.endsWith('{NEAR_SUFFIX}')"
        " && window.__dpvizFrames.get(gd.__dpviz.sliders[label].frames)); }",
        arg=[label, list(charts)],
        timeout=300_000,
    )


def _wait_drawn(page, fid: str) -> None:
    """Until Plotly has drawn the chart ``fid`` at least once."""
    page.wait_for_function(
        "(fid) => { const gd = document.querySelector(`.st-key-chart-${fid} .dpviz-chart`);"
        " return gd && gd.__dpvizDrawn && gd.data; }",
        arg=fid,
        timeout=120_000,
    )


def _options(page, fid: str, label: str) -> list:
    return _chart(page, f".st-key-chart-{fid}", "(gd, label) => gd.__dpviz.sliders[label].options", label)


def _other_sliders(page, fid: str, label: str) -> dict:
    """The chart's other live sliders (HoHo's ε beside λ) where the page shows them, by parameter
    name: what the chart is drawn at besides ``label`` (a key press meant for one slider that a
    redraw sent to the other moves it, and the chart rightly follows)."""
    from webui.widgets import widget_label

    by_label = {widget_label(p): p.name for p in registry.get(fid).params}
    return {by_label[other]: _options(page, fid, other)[at] for other, at in _other_positions(page, fid, label).items()}


def _other_positions(page, fid: str, label: str) -> dict:
    """The positions of the chart's live sliders other than ``label``, by label."""
    labels = _chart(page, f".st-key-chart-{fid}", "(gd) => Object.keys(gd.__dpviz.sliders)")
    return {other: _position(page, other) for other in labels if other != label}


def _wait_drawn_by_plotly(page, where: str, label: str, position: int, value) -> None:
    """Until Plotly has drawn the chart under ``where`` itself at slider ``label``'s ``position``
    (its frame), or the server's figure at ``value``: a key press shown from a shot dispatches its
    tag while the chart's data is still the last position's, and Plotly draws the frame a moment
    later. The page's run on release may put the chart in a new element meanwhile. A server's
    drawing counts only when it drew the chart's latest message (a message whose reference waits
    for its frames leaves the last drawing in place, with that drawing's tag)."""
    page.wait_for_function(
        "([sel, label, i, v]) => { const gd = document.querySelector(`${sel} .dpviz-chart`);"
        " const d = gd && gd.__dpviz && !gd.__dpvizShot && gd.__dpvizDrawn;"
        " return d && (d.tag === `${label}=${i}` || (d.state === gd.__dpviz &&"
        " gd.__dpviz.sliders[label].at === v && d.tag.startsWith('server'))); }",
        arg=[where, label, position, value],
        timeout=60_000,
    )


def _press(page, label: str, key: str) -> None:
    slider = page.get_by_role("slider", name=label)
    before = slider.get_attribute("aria-valuetext")
    for _ in range(3):  # a press that lands while Streamlit draws the slider again is lost
        # pressed once the page's last run has ended: a run that ends just after a press may draw
        # the slider again at the value the run began with (loaded machines: presses in a row lost)
        wait_run_ended(page, timeout=60_000)
        slider.focus()
        page.keyboard.press(key)
        deadline = time.monotonic() + 3
        while time.monotonic() < deadline:
            if slider.get_attribute("aria-valuetext") != before:
                return
            page.wait_for_timeout(50)


def _position(page, label: str) -> int:
    return int(page.get_by_role("slider", name=label).input_value())


CASES = [  # page, query, slider label, URL key, charts to compare
    (
        "ADePT_sensitivity",
        FAST,
        "Privacy budget ε (claimed)",
        "epsilon",
        ["adept-epsilon", "adept-privacy-loss", "adept-fixes"],
    ),
    # n: two full runs before 6d4778c showed adept-fixes at n = 12 with the figure of n = 9 or 11
    # under the server's tag for 12, after a dozen key presses in a row (an open bug of the page,
    # docs/testing.md). It passed in every full run since (18-22), and since fbbd29d the test reaches
    # a position with one press, so it no longer provokes that bug: a plain case again, not a
    # non-strict xfail that could not fail the run
    ("ADePT_sensitivity", FAST, "Dimension n", "dim", ["adept-sensitivity", "adept-fixes"]),
    ("HoHo_attack", HOHO_FAST, "λ", "lambda_", ["hoho-live"]),
    ("Partial_sensitivity", PS_FAST, "Gaussian noise σ", "sigma", ["partial-individuals"]),
    # the privacy-budget page's σ: every chart of the page follows it (each recomputed at each position;
    # two of them here: with the δ chart too it was the run's slowest test, 46 s)
    ("Privacy_budget", "", "Noise multiplier σ", "sigma", ["budget-composition", "budget-attacker"]),
]


@pytest.mark.parametrize(
    "path, query, label, key, charts",
    CASES,
    ids=[c.id if hasattr(c, "id") else f"{c[0]}-{c[3]}" for c in CASES],
)
def test_at_random_positions_the_charts_show_the_servers_figures(
    frames_server, browser, path, query, label, key, charts
):
    page = browser.new_page(viewport={"width": 1280, "height": 800})
    page.set_default_timeout(120_000)
    try:
        page.goto(f"{frames_server}/{path}?{query}")
        _wait_frames(page, label, charts)
        rng = random.Random(f"{path}-{key}")
        options = _options(page, charts[0], label)
        linked = {fid: _other_positions(page, fid, label) for fid in charts}
        # three random positions, each reached by a key press from its neighbour, which a link
        # opens the page at (a position of the grid, so the slider's options are the grid's: one
        # press, not the dozens of presses in a row, one server run each, that walked there before);
        # at each, every chart that follows the slider is looked at (one out of view is drawn when
        # it comes into view) and compared
        for _ in range(3):
            target = rng.randrange(len(options))
            step, start = ("ArrowRight", target - 1) if target > 0 else ("ArrowLeft", target + 1)
            page.goto(f"{frames_server}/{path}?{query}&{key}={options[start]!r}")
            _wait_frames(page, label, charts)
            assert _options(page, charts[0], label) == options  # the link's value is a position of the grid
            assert _position(page, label) == start
            _press(page, label, step)
            assert _position(page, label) == target, (
                f"{label}: one {step} from {start} went to {_position(page, label)}"
            )
            value = options[target]
            for fid in charts:
                look_at(page, f".st-key-chart-{fid}")
                # drawn from its frame (before the server's answer, a reference to the same frame)
                _wait_drawn_by_plotly(page, f".st-key-chart-{fid}", label, target, value)
                shown = _shown(page, f".st-key-chart-{fid}")
                others = _other_sliders(page, fid, label)
                expected = _server_figure(fid, _query(query), key, value, others)
                _as_words(shown, expected)
                state = _chart(
                    page,
                    f".st-key-chart-{fid}",
                    "(gd, label) => [gd.__dpvizDrawn && gd.__dpvizDrawn.tag, gd.__dpviz.sliders[label].at, null]",
                    label,
                )
                state[2] = others
                # the other sliders stay where the link put them: at most a press that a redraw sent
                # to them (a slider created without the session's value as its default fell back to
                # its first position, ε = 0.0001, when the browser mounted it again: webui.widgets)
                for other, at in _other_positions(page, fid, label).items():
                    assert abs(at - linked[fid][other]) <= 1, (
                        f"{other} moved from position {linked[fid][other]} to {at}"
                    )
                # to 1e-12: relative for numbers above 1, absolute below (probabilities near 0 are
                # rounding noise that differs between processes in the last bits)
                where = frames.difference(shown, expected, tol=1e-12, floor=1.0)
                assert where is None, f"{fid} at {key} = {value}: drawn {state}; {where}; {_spread(shown, expected)}"
    finally:
        page.close()


def test_a_dozen_quick_key_presses_leave_every_chart_on_the_sliders_figure(frames_server, browser):
    """A reader who holds the arrow key on ADePT's n: a dozen presses 60 ms apart, as a held key
    repeats, each one a frame and a server run. Once the page has settled, every chart that
    follows n shows the server's figure at the position the slider shows (presses a run swallowed
    do not matter; a chart left at an earlier position under the last one's tag would: the page's
    open bug of runs 15-17, docs/testing.md)."""
    label, key, charts = "Dimension n", "dim", ["adept-sensitivity", "adept-fixes"]
    page = browser.new_page(viewport={"width": 1280, "height": 800})
    page.set_default_timeout(120_000)
    try:
        page.goto(f"{frames_server}/ADePT_sensitivity?{FAST}")
        _wait_frames(page, label, charts)
        options = _options(page, charts[0], label)
        start = _position(page, label)
        wait_run_ended(page, timeout=60_000)
        page.get_by_role("slider", name=label).focus()
        for _ in range(12):
            page.keyboard.press("ArrowRight")
            page.wait_for_timeout(60)
        page.wait_for_timeout(500)  # the last press's run has begun
        wait_run_ended(page, timeout=120_000)
        at = _position(page, label)
        assert start < at <= min(start + 12, len(options) - 1), f"from {start}, a dozen presses went to {at}"
        for fid in charts:
            look_at(page, f".st-key-chart-{fid}")
            _wait_drawn_by_plotly(page, f".st-key-chart-{fid}", label, at, options[at])
            shown = _shown(page, f".st-key-chart-{fid}")
            expected = _server_figure(fid, _query(FAST), key, options[at], _other_sliders(page, fid, label))
            _as_words(shown, expected)
            where = frames.difference(shown, expected, tol=1e-12, floor=1.0)
            assert where is None, f"{fid} at {key} = {options[at]} (position {at}): {where}"
    finally:
        page.close()


def test_a_drag_redraws_from_frames_and_tells_the_server_once(frames_server, browser):
    from streamlit.proto.BackMsg_pb2 import BackMsg

    page = browser.new_page(viewport={"width": 1280, "height": 800})
    sent = []
    page.on("websocket", lambda ws: ws.on("framesent", lambda d: sent.append(d)))
    try:
        page.goto(f"{frames_server}/Partial_sensitivity?{PS_FAST}")
        label = "Gaussian noise σ"
        _wait_frames(page, label)
        look_at_drawn(page, ".st-key-chart-partial-individuals")
        page.evaluate(
            "window.__tags = []; document.addEventListener('dpviz-drawn', e => window.__tags.push(e.detail), true)"
        )
        slider = page.get_by_role("slider", name=label)
        x, y, left, width = slider_geometry(slider)
        page.mouse.move(x, y)
        page.mouse.down()
        before = len(sent)
        for k in range(12):
            page.mouse.move(left + width * (0.1 + 0.8 * k / 11), y)
            page.wait_for_timeout(60)
        during = len(sent) - before
        drawn = page.evaluate("[...new Set(window.__tags.filter(t => t.startsWith('Gaussian noise σ=')))].length")
        page.mouse.up()

        def reruns():
            msgs = [BackMsg.FromString(d) for d in sent[before:] if isinstance(d, bytes)]
            return [m for m in msgs if m.WhichOneof("type") == "rerun_script"]

        for _ in range(300):  # the release's run asked for (pumping the page's events), then ended
            if reruns():
                break
            page.wait_for_timeout(100)
        wait_run_ended(page, timeout=60_000)
        runs = reruns()
        assert during == 0  # the drag itself asks the server for nothing
        assert drawn >= 5  # the chart followed the drag from its frames
        assert len(runs) == 1 and runs[0].rerun_script.fragment_id  # one run of the live section, on release
        assert page.locator('[data-testid="stException"]').count() == 0
    finally:
        page.close()


def test_a_link_off_the_grid_is_drawn_by_the_server(frames_server, browser):
    page = browser.new_page(viewport={"width": 1280, "height": 800})
    try:
        page.goto(f"{frames_server}/Partial_sensitivity?{PS_FAST}&sigma=3.33")
        label = "Gaussian noise σ"
        _wait_frames(page, label)
        look_at(page, ".st-key-chart-partial-individuals")
        _wait_drawn(page, "partial-individuals")
        expected = _server_figure("partial-individuals", _query(PS_FAST), "sigma", 3.33)
        assert 3.33 in _options(page, "partial-individuals", label)  # the link's value, put in its place
        assert 3.33 not in frames.slider_grid(registry.get("partial-individuals").param("sigma"))
        # drawn by the server (its figure, or a frame along α computed at σ = 3.33), never σ's nearest frame
        assert frames.close(_shown(page, ".st-key-chart-partial-individuals"), expected, tol=1e-12, floor=1.0)
        assert page.get_by_role("slider", name=label).get_attribute("aria-valuetext") == "3.33"
        _press(page, label, "ArrowRight")  # onto the grid: the next frame, exactly
        page.wait_for_function("() => location.search.includes('sigma=3.5')", timeout=60_000)
        _wait_drawn_by_plotly(page, ".st-key-chart-partial-individuals", label, _position(page, label), 3.5)
        following = _server_figure("partial-individuals", _query(PS_FAST), "sigma", 3.5)
        assert frames.close(_shown(page, ".st-key-chart-partial-individuals"), following, tol=1e-12, floor=1.0)
        assert not frames.close(following, expected, tol=1e-12, floor=1.0)
        assert page.locator('[data-testid="stException"]').count() == 0
    finally:
        page.close()


def test_the_try_it_text_follows_epsilon(frames_server, browser):
    from dpviz.papers import get as get_paper
    from dpviz.params import validate as check
    from webui.panels.try_it import as_html

    page = browser.new_page(viewport={"width": 1280, "height": 800})
    try:
        page.goto(f"{frames_server}/Metric_DP?{MDP_FAST}")
        page.wait_for_selector(".dpviz-html", timeout=300_000)
        page.wait_for_function(
            "() => { const el = document.querySelector('.dpviz-html'); const s = el.__dpviz.sliders['ε'];"
            " return s && window.__dpvizFrames.get(s.frames); }",
            timeout=300_000,
        )
        look_at(page, ".dpviz-html")
        _press(page, "ε", "ArrowRight")
        value = page.evaluate(
            "() => { const s = document.querySelector('.dpviz-html').__dpviz.sliders['ε'];"
            " return s.options[+document.querySelector('input[aria-label=\"ε\"]').value]; }"
        )
        page.wait_for_function(
            "(v) => document.querySelector('.dpviz-html').innerText.includes(`ε = ${v},`)", arg=value
        )
        panel = next(p for p in get_paper("metric").panels if p.id == "try-it")
        own = {p.name for p in panel.params}
        values, errors = check(
            panel.params, {k: v for k, v in {**_query(MDP_FAST), "epsilon": str(value)}.items() if k in own}
        )
        assert not errors
        shown = page.evaluate("() => document.querySelector('.dpviz-html').__dpvizShown")
        assert shown == as_html(panel.run(values), values)
    finally:
        page.close()


def test_a_lessons_slider_redraws_its_chart_from_frames(frames_server, browser):
    """A lesson step's slider (ADePT's first step, n) moves its chart in the browser from the
    chart's frames, as on the paper pages, and the frame drawn is the server's figure there."""
    page = browser.new_page(viewport={"width": 1280, "height": 800})
    page.set_default_timeout(120_000)
    label, where = "Dimension n", ".st-key-lesson-chart-adept-1-0-chart"
    try:
        page.goto(f"{frames_server}/Lessons?lesson=adept")
        page.get_by_text("Step 1 of").first.wait_for()
        _wait_frames(page, label)
        look_at(page, where)
        options = _chart(page, where, "(gd, label) => gd.__dpviz.sliders[label].options", label)
        page.evaluate(  # on the document, capturing: a run may put the chart in a new element
            "(where) => { window.__tags = []; document.addEventListener('dpviz-drawn',"
            " (e) => { if (e.target.closest(where)) window.__tags.push(e.detail); }, true); }",
            where,
        )
        start = _position(page, label)
        _press(page, label, "ArrowRight")
        value = options[start + 1]
        page.wait_for_function(
            "(t) => window.__tags.includes(t)", arg=f"{label}={start + 1}", timeout=60_000
        )  # shown from its frame (a shot, or Plotly), before or without the server's run
        _wait_drawn_by_plotly(page, where, label, start + 1, value)  # the chart's data is what is compared
        shown = _shown(page, where)
        expected = _server_figure("adept-sensitivity", {"dim": "64"}, "dim", value)
        _as_words(shown, expected)
        where_differ = frames.difference(shown, expected, tol=1e-12, floor=1.0)
        assert where_differ is None, f"{where_differ}; {_spread(shown, expected)}"
    finally:
        page.close()


_CHART_STATE = """(sel) => {
  const charts = [...document.querySelectorAll(`${sel} .dpviz-chart`)].map((gd) => {
    const r = gd.getBoundingClientRect();
    return { connected: gd.isConnected, drawn: !!gd._fullLayout, top: Math.round(r.top), bottom: Math.round(r.bottom),
             width: Math.round(r.width), pending: !!gd.__dpvizPending, shot: !!gd.__dpvizShot, seen: gd.__dpvizSeen };
  });
  const first = window.__dpvizFirstDraws || {};
  return { window: [Math.round(window.scrollY), window.innerHeight], charts, firstBusy: first.busy,
           firstQueue: (first.queue || []).map((e) => ({ connected: e.gd.isConnected, drawn: !!e.gd._fullLayout,
             key: e.gd.closest('[class*=st-key-]')?.className.match(/st-key-[\\w-]+/)?.[0] })) };
}"""
"""What a failure says of the chart under ``sel``: its elements (in the page, drawn, where, a drawing
pending, a shot over it) and the page's queue of first drawings (webui/live_js/first_draws.js)."""


def test_a_drag_keeps_the_plot_still_and_draws_each_frame_once(frames_server, browser):
    """Along a slider a chart's tick labels change width (ADePT's ε chart: 0.001 at one end, 100k at
    the other), and Plotly widened or narrowed the left margin to fit them, drawing the chart a second
    time whenever it did. A chart keeps the widest margins it has needed at its size
    (live_js/chart.js ``keepSides``): once both ends have been drawn, the plot's left edge stands
    still and every frame is one Plotly draw. Tick labels are let run past the edge (no per-label
    measuring to hide them): they are fitted, and the overlap test fails a text off the chart."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    page = browser.new_page(viewport={"width": 1280, "height": 800})
    page.set_default_timeout(120_000)
    fid = "adept-epsilon"
    where = f".st-key-chart-{fid}"
    try:
        page.goto(f"{frames_server}/ADePT_sensitivity?{FAST}")
        _wait_frames(page, "Privacy budget ε (claimed)")
        look_at(page, where)
        _wait_drawn(page, fid)
        # Plotly's own draws, and the frames drawn with the plot's left edge at each. Heard on the
        # document, so that a run that puts the chart in a new element (the same figure) is still
        # heard: a listener on the first element heard nothing after that (CI, stop 79)
        _chart(
            page,
            where,
            """(gd, sel) => { window.__plots = 0; window.__draws = [];
                const hook = (gd) => { if (!gd.__testPlots) {
                    gd.__testPlots = true; gd.on('plotly_afterplot', () => window.__plots++); } };
                hook(gd);
                document.addEventListener('dpviz-drawn', (e) => {
                    const gd = e.target;
                    if (!gd.closest || !gd.closest(sel)) return;
                    hook(gd);
                    window.__draws.push([e.detail, gd._fullLayout._size.l, window.__plots]); }, true);
                return true; }""",
            where,
        )
        label = "Privacy budget ε (claimed)"
        ticks = "(gd) => [...gd.querySelectorAll('.ytick text')].map(t => t.textContent).join(' ')"
        seen = []
        for rounds, key in enumerate(["Home", "End", "Home", "End"]):
            if rounds == 2:  # both ends drawn once: from here on, a frame is one draw and the edge is fixed
                page.evaluate("window.__plots = 0; window.__draws = []")
            # the reader looks at the chart at each press: a chart out of the window is drawn only when
            # it comes back into view (by design), and twice in a clean-clone run (98, 102) no drawing
            # came in 60 s after Home, cause not found (the timeout's message below now says what the
            # page held: whether the chart was out of view, a drawing pending, the first drawings' queue)
            look_at(page, where)
            before = len(page.evaluate("window.__draws"))
            at = _position(page, label)
            # pressed once the last run has ended, and again if Streamlit drew the slider over the
            # press (CI, stop 79: a press right after the last one's run was lost, and nothing drawn)
            _press(page, label, key)
            assert _position(page, label) != at, f"{key} did not move the slider from position {at}"
            try:
                page.wait_for_function("(n) => window.__draws.length > n", arg=before, timeout=60_000)
            except PlaywrightTimeout:  # what the page held, for the next failure's reader
                pytest.fail(
                    f"no drawing in 60 s after {key} (position {at} -> {_position(page, label)}); "
                    f"drawings {page.evaluate('window.__draws')}, Plotly draws {page.evaluate('window.__plots')}; "
                    f"the chart and the first drawings' queue: {page.evaluate(_CHART_STATE, where)}"
                )
            page.wait_for_timeout(300)
            seen.append(_chart(page, where, ticks))
        assert seen[0] != seen[1], f"the ends' tick labels read the same ({seen[:2]}): the test proves nothing"
        plots, draws = page.evaluate("[window.__plots, window.__draws]")
        assert draws and all("=" in tag or tag == "server-ref" for tag, _, _ in draws), draws  # drawn from frames
        assert len({left for _, left, _ in draws}) == 1, f"the plot's left edge moved: {draws}"
        # at most one Plotly draw per drawing (a drawing shown from a ready shot takes none, so how
        # many there are depends on whether the shots were made yet: not an equality)
        counts = [0] + [n for _, _, n in draws]
        assert all(b - a <= 1 for a, b in zip(counts, counts[1:])), f"two Plotly draws for one frame: {draws}"
        assert plots <= len(draws), f"{plots} Plotly draws for {len(draws)} frames"
        overflow = _chart(
            page,
            where,
            "(gd) => [...gd.querySelectorAll('.xaxislayer-above, .yaxislayer-above')]"
            ".flatMap(g => [...g.querySelectorAll('.xtick, .ytick')]).filter(t => t.style.display === 'none').length",
        )
        assert overflow == 0  # no tick label hidden for running past the chart
    finally:
        page.close()


def _all_shots_made(page, fid: str, label: str) -> None:
    """Until the chart ``fid`` holds a shot (live_js/shots.js) of every position along ``label`` at its
    size, and no shot is being made."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    try:
        page.wait_for_function(
            """([fid, label]) => {
                const gd = document.querySelector(`.st-key-chart-${fid} .dpviz-chart`);
                const S = window.__dpvizShots;
                if (!gd || !gd.__dpvizShots || !S || S.busy || S.queue.length) return false;
                const has = (i) => gd.__dpvizShots.has(window.__dpvizShotKey(gd, label, i));
                return gd.__dpviz.sliders[label].options.every((_, i) => has(i)); }""",
            arg=[fid, label],
            timeout=240_000,
            polling=500,
        )
    except PlaywrightTimeout:
        # what the maker was doing, so that a failure says why and not only that it waited
        state = page.evaluate(
            """([fid, label]) => {
                const gd = document.querySelector(`.st-key-chart-${fid} .dpviz-chart`);
                const S = window.__dpvizShots || {};
                const keys = gd && gd.__dpviz
                    ? gd.__dpviz.sliders[label].options.map((_, i) => window.__dpvizShotKey(gd, label, i)) : [];
                const has = (k) => gd.__dpvizShots && gd.__dpvizShots.has(k);
                const r = gd ? gd.getBoundingClientRect() : null;
                return {busy: S.busy, queue: (S.queue || []).length, made: S.made, planned: S.planned,
                        dragging: !!S.dragging,
                        missing: keys.filter(k => !has(k)).map(k => [k, S.tried ? S.tried.get(k) || 0 : null]),
                        box: r && [r.top, r.bottom, innerHeight]}; }""",
            [fid, label],
        )
        state["run"] = page.evaluate(RUN_STATE)  # the page's run state
        raise AssertionError(f"not every shot of {fid} along {label} was made: {state}") from None


def _plot_clip(page, fid: str) -> dict:
    """The part of the chart ``fid`` below the sticky slider panel, in page pixels."""
    return page.evaluate(
        "(fid) => { const r = document.querySelector(`.st-key-chart-${fid} .dpviz-chart`).getBoundingClientRect();"
        " const p = document.querySelector('.st-key-live-panel').getBoundingClientRect();"
        " const top = Math.max(r.top, p.bottom) + 1;"
        " return {x: r.left, y: top, width: r.width, height: r.bottom - top}; }",
        fid,
    )


@pytest.mark.parametrize(
    "path, fid, label",
    [
        (f"HoHo_attack?{HOHO_FAST}", "hoho-live", "λ"),
        (f"Partial_sensitivity?{PS_FAST}", "partial-individuals", "Gaussian noise σ"),
    ],
)
def test_a_drag_shows_shots_that_are_the_frames_as_plotly_draws_them(frames_server, browser, path, fid, label):
    """While the mouse drags a slider, a chart shows its shot of each position (the frame drawn ahead
    by Plotly into a hidden chart, live_js/shots.js): on screen, pixel for pixel, what Plotly draws in
    the chart itself at that position once the mouse is let go; the shot's clip paths are its own
    (none points at another shot's, or the hidden chart's); the page mid-drag passes axe-core;
    after release no shot is left. A key press on the slider shows its position's shot at once,
    and Plotly then draws that position in the chart itself."""
    import io

    from PIL import Image, ImageChops

    page = browser.new_page(viewport={"width": 1280, "height": 800})
    page.set_default_timeout(120_000)
    errors = []  # the page's uncaught errors: Plotly drawing the chart under a shot threw, once
    page.on("pageerror", lambda e: errors.append(f"{e}\n{getattr(e, 'stack', '')}"))
    where = f".st-key-chart-{fid}"
    try:
        page.goto(f"{frames_server}/{path}")
        _wait_frames(page, label)
        look_at(page, where)
        _wait_drawn(page, fid)
        _all_shots_made(page, fid, label)
        slider = page.get_by_role("slider", name=label)
        x, y, left, width = slider_geometry(slider)
        for frac in (0.3, 0.75):
            page.mouse.move(x, y)
            page.mouse.down()
            target = left + width * frac
            for k in range(1, 7):
                page.mouse.move(x + (target - x) * k / 6, y)
                page.wait_for_timeout(40)
            page.wait_for_timeout(400)
            state = _chart(
                page,
                where,
                """(gd, label) => {
                    const shot = gd.querySelector('.dpviz-shot');
                    const clipped = shot ? [...shot.querySelectorAll('[clip-path]')] : [];
                    const refs = clipped.map(e => e.getAttribute('clip-path'));
                    const inside = (r) => {  // in this shot, and the page's only element with that id
                        const m = /#([^'")]+)/.exec(r);
                        const id = m && '#' + CSS.escape(m[1]);
                        return id && shot.querySelector(id) && document.querySelectorAll(id).length === 1; };
                    const at = +document.querySelector(`input[aria-label="${label}"]`).value;
                    const figure = shot && gd.__dpvizShot.figure;
                    window.__shotFigure = figure;
                    return {shot: !!shot, hidden: shot && shot.getAttribute('aria-hidden'), refs: refs.length,
                            own: refs.every(inside), tag: gd.__dpvizDrawn.tag, want: `${label}=${at}`,
                            shownBefore: !!shot && gd.__dpvizShown !== figure}; }""",
                label,
            )
            assert state["shot"] and state["hidden"] == "true", state  # the shot, hidden from screen readers
            assert _chart(page, where, "(gd) => gd.querySelectorAll('.dpviz-shot svg.main-svg [class]').length") == 0
            assert state["tag"] == state["want"], state  # of where the slider is
            assert state["refs"] and state["own"], state
            assert state["shownBefore"], state  # the chart itself not drawn again during the drag
            if frac == 0.3:  # axe-core on the page in the middle of a drag, a shot over the chart
                axe_check(page, f"{fid} during a drag")
            clip = _plot_clip(page, fid)
            during = Image.open(io.BytesIO(page.screenshot(clip=clip))).convert("RGB")
            page.mouse.up()
            page.wait_for_function(f"!document.querySelector('{where} .dpviz-shot')")
            wait_run_ended(page)
            page.wait_for_timeout(500)
            # the chart itself now draws the shot's frame
            assert _chart(page, where, "(gd) => gd.__dpvizShown === window.__shotFigure && !gd.__dpvizShot")
            after = Image.open(io.BytesIO(page.screenshot(clip=_plot_clip(page, fid)))).convert("RGB")
            assert during.size == after.size
            diff = np.asarray(ImageChops.difference(during, after)).max(axis=2)
            worst, changed = int(diff.max()), int((diff > 0).sum())
            # the same picture: at most an edge pixel's antialiasing differs, by a shade or two
            assert worst <= 16 and changed <= 0.002 * diff.size, (frac, worst, changed)
            x, y, left, width = slider_geometry(slider)
        assert page.locator(".dpviz-shot").count() == 0
        # a key press is shown from its shot at once, then drawn by Plotly in the chart itself
        _all_shots_made(page, fid, label)
        wait_run_ended(page)
        # the drawings from the key going down on (a server's answer to the drag's last run, drawn
        # while the shots were waited for, once came just before the press in a full run: run 123)
        page.evaluate(
            """(fid) => { const gd = document.querySelector(`.st-key-chart-${fid} .dpviz-chart`);
                window.__keyed = [];
                window.__keyDown = false;
                window.addEventListener('keydown', () => { window.__keyDown = true; }, {capture: true, once: true});
                gd.addEventListener('dpviz-drawn', (e) => window.__keyDown && window.__keyed.push({tag: e.detail,
                    shot: !!gd.__dpvizShot, plotted: !!gd.__dpvizShot && gd.__dpvizShown === gd.__dpvizShot.figure})
                    && (window.__keyFigure = window.__keyFigure || (gd.__dpvizShot && gd.__dpvizShot.figure))); }""",
            fid,
        )
        at = _position(page, label)
        key = "ArrowLeft" if at else "ArrowRight"
        _press(page, label, key)
        want = f"{label}={_position(page, label)}"
        assert want != f"{label}={at}", "the key press did not move the slider"
        page.wait_for_function("() => window.__keyed.length > 0")
        first = page.evaluate("window.__keyed[0]")
        assert first == {"tag": want, "shot": True, "plotted": False}, first  # the shot, the chart not yet drawn
        page.wait_for_function(f"() => !document.querySelector('{where} .dpviz-shot') && ({RUN_ENDED})()")
        page.wait_for_timeout(800)  # past the settling draw (live_js/sliders.js settleKeys)
        # the chart itself draws the shot's frame
        assert _chart(page, where, "(gd) => !gd.__dpvizShot && gd.__dpvizShown === window.__keyFigure")
        assert page.locator('[data-testid="stException"]').count() == 0
        # Plotly drew the chart under the key's shot (the settling draw) with no error: a shot's
        # elements carry no class for Plotly's selectors to find ("g.trace.scatter", with no data)
        assert not errors, errors
    finally:
        page.close()


def test_shots_planned_away_while_one_waits_to_begin_leave_the_maker_free(frames_server, browser):
    """A shot waits for idle time after it is queued; if the queue is planned again meanwhile and
    comes out empty (every shot made, or the charts gone from view), the maker finds nothing to
    make and is free again, so that later shots are made (it once stayed busy for good: a
    benchmark waited five minutes for shots that never came)."""
    page = browser.new_page(viewport={"width": 1280, "height": 800})
    page.set_default_timeout(120_000)
    fid, label = "partial-individuals", "Gaussian noise σ"
    try:
        page.goto(f"{frames_server}/Partial_sensitivity?{PS_FAST}")
        _wait_frames(page, label)
        look_at(page, f".st-key-chart-{fid}")
        _wait_drawn(page, fid)
        _all_shots_made(page, fid, label)
        planned = page.evaluate(
            """([fid, label]) => {
                const S = window.__dpvizShots, gd = document.querySelector(`.st-key-chart-${fid} .dpviz-chart`);
                gd.__dpvizShots.clear();  // shots to make again
                S.plannedAt = 0;
                window.dispatchEvent(new KeyboardEvent('keydown'));  // (a key: the maker waits a second)
                document.querySelector(`input[aria-label="${label}"]`)
                    .dispatchEvent(new PointerEvent('pointerover', {bubbles: true}));  // planned, queued
                const queued = S.busy && S.queue.length > 0;
                S.queue.length = 0;  // and planned away before the first one begins
                return queued; }""",
            [fid, label],
        )
        assert planned, "the pointer over the slider planned no shot"
        page.wait_for_function("() => !window.__dpvizShots.busy", timeout=15_000)
        # and the maker makes shots again when they are next planned
        x, y, _, _ = slider_geometry(page.get_by_role("slider", name=label))
        page.mouse.move(5, 5)
        page.mouse.move(x, y)
        _all_shots_made(page, fid, label)
    finally:
        page.close()


def test_charts_waiting_for_their_frames_ask_once_for_the_page(frames_server, browser):
    """After a key step of ε on the HoHo page every chart that follows λ waits for its λ-frames at
    the new ε. The page asks the server for them once at a time (a rerun of the live section every
    2 s): before, each waiting chart asked on its own, and as many reruns could come at once, each
    stopping the last. The frames' files are refused here, so that the charts keep waiting until
    an ask's run brings them (fetched as files, HoHo's λ-frames now come in under the 2 s an ask
    waits, and the page need not ask at all)."""
    from streamlit.proto.BackMsg_pb2 import BackMsg

    page = browser.new_page(viewport={"width": 1280, "height": 800})
    sent = []
    page.on("websocket", lambda ws: ws.on("framesent", lambda d: sent.append((time.monotonic(), d))))
    try:
        page.goto(f"{frames_server}/HoHo_attack?{HOHO_FAST}")
        _wait_frames(page, "λ")
        wait_run_ended(page, timeout=120_000, hold_ms=300)
        page.route("**/app/static/frames/**", lambda route: route.abort())  # only the asks bring frames now
        slider = page.get_by_role("slider", name="Claimed ε")
        slider.focus()
        before = len(sent)
        page.keyboard.press("ArrowRight")
        waiting = (
            "() => [...document.querySelectorAll('.dpviz-chart')].filter(gd => gd.__dpviz && gd.__dpviz.sliders['λ'])"
            ".some(gd => !window.__dpvizFrames || !window.__dpvizFrames.get(gd.__dpviz.sliders['λ'].frames))"
        )
        page.wait_for_function(waiting, timeout=60_000)  # the step's run drew charts whose λ-frames are missing
        page.wait_for_timeout(5000)
        runs = [
            at
            for at, d in sent[before:]
            if isinstance(d, bytes) and BackMsg.FromString(d).WhichOneof("type") == "rerun_script"
        ]
        asks = runs[1:]  # the first is the key step's own run
        # the charts wait (no file comes), so the page asks (each chart asking on its own could send
        # several asks at the same instant)
        assert asks, "no ask in 5 s of waiting"
        gaps = [b - a for a, b in zip(asks, asks[1:])]
        assert all(g >= 1.0 for g in gaps), f"asks {len(asks)} apart by {[round(g, 2) for g in gaps]} s"
        assert page.locator('[data-testid="stException"]').count() == 0
    finally:
        page.close()


def test_frames_computed_after_a_key_step_come_as_files_without_a_run(frames_server, browser):
    """After a key step of ε on the HoHo page the charts' λ-frames at the new ε are computed; the
    page fetches them as files once they are there (webui/frames_fetch.py), without a run of the
    page, told of them by its session's news file. The page's own asks (a run every 2 s) are
    held off here, so the frames can only come that way: every chart that follows λ ends up
    holding its whole set, each fetched as a file, and the page sends no run after the step's own.
    The tab's asks for files not computed yet find empty files, not 404s (a red line each in the
    browser's console: about four a key step before)."""
    from streamlit.proto.BackMsg_pb2 import BackMsg

    page = browser.new_page(viewport={"width": 1280, "height": 800})
    sent, missing = [], []
    page.on("websocket", lambda ws: ws.on("framesent", lambda d: sent.append(d)))
    page.on("response", lambda r: r.status >= 400 and "/app/static/frames/" in r.url and missing.append(r.url))
    try:
        page.goto(f"{frames_server}/HoHo_attack?{HOHO_FAST}")
        _wait_frames(page, "λ")
        wait_run_ended(page, timeout=120_000, hold_ms=300)
        page.evaluate("() => { window.__dpvizAskState.last = Infinity; }")  # the page's asks held off
        lam_keys = (
            "() => [...document.querySelectorAll('.dpviz-chart')].filter(gd => gd.__dpviz && gd.__dpviz.sliders['λ'])"
            ".map(gd => gd.__dpviz.sliders['λ'].frames.replace(/-near$/, ''))"
        )
        slider = page.get_by_role("slider", name="Claimed ε")
        slider.focus()
        for _ in range(6):  # to an ε whose λ-frames nobody computed yet (another test may have stepped)
            old = page.evaluate(lam_keys)
            before = len(sent)
            page.keyboard.press("ArrowLeft")
            page.wait_for_function(
                f"(old) => {{ const now = ({lam_keys})(); return now.length && now.every((k, i) => k !== old[i]); }}",
                arg=old,
                timeout=120_000,
            )
            keys = page.evaluate(lam_keys)
            if not page.evaluate("(keys) => keys.every(k => window.__dpvizFrames.has(k))", keys):
                break
        else:
            pytest.fail("six steps of ε down, and the λ-frames were always there already")
        _wait_frames(page, "λ")
        fetched = page.evaluate("() => window.__dpvizFetching.fetched")
        assert keys and all(k in fetched for k in keys), f"λ-frames {keys}, fetched as files {fetched}"
        runs = [
            d
            for d in sent[before:]
            if isinstance(d, bytes) and BackMsg.FromString(d).WhichOneof("type") == "rerun_script"
        ]
        assert len(runs) == 1, f"{len(runs)} runs sent after the key step (its own alone expected)"
        # the files' names are keyed hashes, not the frames' keys (which anyone could compute)
        names = page.evaluate(
            "() => [...performance.getEntriesByType('resource')].map(e => e.name)"
            ".filter(n => n.includes('/app/static/frames/'))"
        )
        assert names and not any(k in n for k in keys for n in names)
        # the tab learnt of them from its session's news file (one request a turn for every set)
        news, by_news = page.evaluate("() => [window.__dpvizFetching.news, window.__dpvizFetching.byNews]")
        assert news and any(n.endswith(news) for n in names), f"news {news!r} never read; fetched {names}"
        assert set(by_news) & set(fetched), f"no file fetched because the news named it: {by_news}, {fetched}"
        assert page.locator('[data-testid="stException"]').count() == 0
        # (whether the tab asks before a file is there depends on how soon the workers compute it:
        # 3 404s on the code before in one run here; a count of the early asks, from the page's
        # resource timing, which keeps 250 entries, found none in a clean-clone run. The
        # reservation itself is tests/web/test_frames_fetch.py's)
        assert missing == [], f"{len(missing)} asks for frames files were 404s"
    finally:
        page.close()


def _hoho_values() -> dict:
    """The HoHo page's values at its fast link (the link's over the defaults)."""
    from dpviz.params import parse_value

    params = registry.page_params("hoho")
    values = {p.name: p.default for p in params}
    values.update({k: parse_value(next(p for p in params if p.name == k), v) for k, v in _query(HOHO_FAST).items()})
    return values


def _hoho_sets_ahead(page, url: str, tmp, monkeypatch) -> tuple:
    """The HoHo page opened at its fast link, its live chart holding its frames along ε and λ and
    its run ended; the chart and the settings of its sets one key step away (frames_store.ahead_settings),
    as the page asks for them, this process reading the server's cache (``tmp``)."""
    from webui import frames_store

    page.goto(f"{url}/HoHo_attack?{HOHO_FAST}")
    _wait_frames(page, "Claimed ε", ("hoho-live",))
    _wait_frames(page, "λ", ("hoho-live",))
    wait_run_ended(page)
    monkeypatch.setenv("DPVIZ_CACHE_DIR", str(tmp / "cache"))
    monkeypatch.setenv("DPVIZ_FRAMES_AHEAD", "1")
    spec = registry.get("hoho-live")
    live = [p for p in registry.page_params("hoho") if p.slider]
    return spec, frames_store.ahead_settings(spec, _hoho_values(), live)


def test_a_step_after_a_pause_finds_the_other_sliders_frames_computed_ahead(
    tmp_path_factory, warm_cache, warm_frames, browser, monkeypatch
):
    """With DPVIZ_FRAMES_AHEAD on (a user's default): once the HoHo page holds its frames, the
    workers compute each two-slider chart's frames along each slider one key step of the other
    away (webui.live_frames.ask_ahead), into the disk cache; a reader who then steps ε finds the
    λ frames at the new ε with the run's answer, whole, with nothing left to wait for."""
    from webui import frames_store

    tmp = tmp_path_factory.mktemp("ahead")
    trace = tmp / "frames-trace.txt"
    env = {"DPVIZ_FRAMES": "1", "DPVIZ_WARMUP": "0", "DPVIZ_FRAMES_AHEAD": "1", "DPVIZ_FRAMES_TRACE": str(trace)}
    proc, url, log = start_server(tmp, env, cache_from=[warm_cache, warm_frames])
    page = browser.new_page(viewport={"width": 1280, "height": 800})
    page.set_default_timeout(120_000)
    try:
        step, other = "Claimed ε", "λ"
        spec, steps = _hoho_sets_ahead(page, url, tmp, monkeypatch)
        assert len(steps) == 4
        deadline = time.monotonic() + 600
        while not all(frames_store.on_disk(spec, moved, spec.param(s)) for s, moved, _ in steps):
            assert time.monotonic() < deadline, "the sets one step away were not computed ahead"
            page.wait_for_timeout(500)
        before = _chart(page, ".st-key-chart-hoho-live", "(gd, label) => gd.__dpviz.sliders[label].frames", other)
        right = next(moved for s, moved, name in steps if name.endswith(f"of {spec.param('epsilon').name} right"))
        want = frames_store.frames_key(spec, {p.name: right[p.name] for p in spec.params}, "lambda_")
        pressed = time.time()
        _press(page, step, "ArrowRight")
        page.wait_for_function(  # the step's answer: the chart's λ frames are the new ε's
            "([sel, label, before]) => { const gd = document.querySelector(sel);"
            " return gd && gd.__dpviz && gd.__dpviz.sliders[label].frames !== before; }",
            arg=[".st-key-chart-hoho-live .dpviz-chart", other, before],
        )
        wait_run_ended(page, hold_ms=1000)
        after = _chart(
            page,
            ".st-key-chart-hoho-live",
            "(gd, label) => [gd.__dpviz.sliders[label].frames, !!(window.__dpvizFrames"
            " && window.__dpvizFrames.get(gd.__dpviz.sliders[label].frames))]",
            other,
        )
        assert after == [want, True], after  # the new ε's λ frames, whole, in the browser
        # and nothing was computed for them after the step: the server asked for them only ahead
        lines = [line.split() for line in trace.read_text().splitlines()]
        after_step = [line for line in lines if float(line[0]) >= pressed and line[3] == want]
        assert not [line for line in after_step if line[2] in ("asked", "taken", "done")], after_step
        assert [line for line in lines if line[2] == "done" and line[3] == want and float(line[0]) < pressed]
    finally:
        page.close()
        stop_server(proc, log)


def test_a_step_draws_the_other_slider_from_its_set_ahead_before_the_run_answers(
    tmp_path_factory, warm_cache, warm_frames, browser, monkeypatch
):
    """The chart's element names the sets one key step ahead (webui.live_frames.ahead_for_browser)
    and the tab fetches the other slider's at the step (live_js sliders.js fetchStepped). With the
    page's messages to the server held from the step on, so that no run at the new ε can answer,
    the tab still holds the λ frames at the new ε, and a press of λ is drawn from them: the very
    figure of that set at the new λ. Once the messages go, the run's answer names the same set."""
    from webui import frames_store

    tmp = tmp_path_factory.mktemp("ahead-fetched")
    env = {"DPVIZ_FRAMES": "1", "DPVIZ_WARMUP": "0", "DPVIZ_FRAMES_AHEAD": "1"}
    proc, url, log = start_server(tmp, env, cache_from=[warm_cache, warm_frames])
    page = browser.new_page(viewport={"width": 1280, "height": 800})
    page.set_default_timeout(120_000)
    held = {"on": False, "queue": [], "server": None}

    def route(ws):  # the page's messages to the server go through here; the server's come as they are
        server = held["server"] = ws.connect_to_server()
        ws.on_message(lambda message: held["queue"].append(message) if held["on"] else server.send(message))

    page.route_web_socket(re.compile(r".*/_stcore/stream.*"), route)
    try:
        step, other = "Claimed ε", "λ"
        spec, steps = _hoho_sets_ahead(page, url, tmp, monkeypatch)
        values = _hoho_values()
        right = next(moved for s, moved, name in steps if name == "lambda_ ahead of epsilon right")
        want = frames_store.frames_key(spec, {p.name: right[p.name] for p in spec.params}, "lambda_")
        named = _chart(  # the λ set at ε one step right, as the chart's element names it
            page,
            ".st-key-chart-hoho-live",
            "(gd, [label, step]) => ((gd.__dpviz.sliders[label].ahead || {})[step] || []).map((s) => [s[1], s[2]])",
            [other, step],
        )
        address = dict(named).get(want)
        assert address, named
        deadline = time.monotonic() + 600  # computed ahead by the workers, then published as a file
        while page.evaluate("(a) => fetch(a, {cache: 'no-store'}).then((r) => r.status)", address) != 200:
            assert time.monotonic() < deadline, "the λ set one step of ε away was not published"
            page.wait_for_timeout(500)
        held["on"] = True
        slider = page.get_by_role("slider", name=step)
        slider.focus()
        page.keyboard.press("ArrowRight")
        page.wait_for_function(
            "([sel, label, want]) => { const gd = document.querySelector(sel);"
            " return window.__dpvizSetOf(gd, label) === want && !!window.__dpvizFrames.get(want); }",
            arg=[".st-key-chart-hoho-live .dpviz-chart", other, want],
            timeout=30_000,
        )
        assert held["queue"], "the step sent the server nothing"  # (held: no run at the new ε answered)
        lam = page.get_by_role("slider", name=other)
        lam.focus()
        at = _position(page, other)
        page.keyboard.press("ArrowRight")
        shown = page.wait_for_function(
            "([sel, label, want, i]) => { const gd = document.querySelector(sel);"
            " if (!gd.__dpvizDrawn || gd.__dpvizDrawn.tag !== `${label}=${i}`) return null;"
            " const s = gd.__dpviz.sliders[label], doc = window.__dpvizFrames.get(want);"
            " const f = doc.made && doc.made.get(doc.index.get(s.options[i]));"
            " const plain = (v) => (v && ArrayBuffer.isView(v)) ? Array.from(v) : v;"
            " const y = (d) => d.map((t) => [t.name, plain(t.y)]);"
            " return f ? [JSON.stringify(y(gd.data)) === JSON.stringify(y(f.data)), s.at] : null; }",
            arg=[".st-key-chart-hoho-live .dpviz-chart", other, want, at + 1],
            timeout=30_000,
        ).json_value()
        assert shown[0], "the press of λ did not draw the set's frame"
        assert shown[1] == values["lambda_"]  # (the chart's state is still the server's at the old ε)
        held["on"] = False
        for message in held["queue"]:
            held["server"].send(message)
        held["queue"].clear()
        page.wait_for_function(
            "([sel, label, want]) => { const gd = document.querySelector(sel);"
            " return gd && gd.__dpviz && gd.__dpviz.sliders[label].frames === want; }",
            arg=[".st-key-chart-hoho-live .dpviz-chart", other, want],
        )
    finally:
        held["on"] = False
        page.close()
        stop_server(proc, log)


def _frame_workers(pid: int) -> list[int]:
    """The server's frame workers (webui.frames_pool: processes started by ``spawn``), not its
    resource tracker nor a formula sandbox."""
    found = []
    for p in descendants(pid):
        try:
            with open(f"/proc/{p}/cmdline", "rb") as fh:
                if b"spawn_main" in fh.read():
                    found.append(p)
        except OSError:
            continue
    return found


def test_killed_frame_workers_leave_the_page_following_the_slider_with_no_error_box(
    tmp_path, warm_cache, warm_frames, browser
):
    """The issue's fault: the frames' process pool fails (its workers killed, as the kernel's
    out-of-memory killer or an operator would). The server logs it and computes the frames itself;
    the reader sees no error box, a key press on ε redraws the charts, and the other slider's
    frames at the new ε still come, equal to the server's figure."""
    import signal

    proc, url, log = start_server(
        tmp_path, {"DPVIZ_FRAMES": "1", "DPVIZ_WARMUP": "0"}, cache_from=[warm_cache, warm_frames]
    )
    page = browser.new_page(viewport={"width": 1280, "height": 800})
    page.set_default_timeout(120_000)
    try:
        page.goto(f"{url}/ADePT_sensitivity?{FAST}")
        wait_run_ended(page, timeout=120_000)
        deadline = time.monotonic() + 120
        while not (workers := _frame_workers(proc.pid)):  # started as the first page opens
            assert time.monotonic() < deadline, "the server started no frame worker"
            time.sleep(0.2)
        for pid in workers:  # processes of the server this test started
            os.kill(pid, signal.SIGKILL)
        _press(page, "Privacy budget ε (claimed)", "ArrowRight")
        wait_run_ended(page, timeout=120_000)
        # the other slider's frames at the new ε, computed although the pool broke
        label, charts = "Dimension n", ["adept-sensitivity", "adept-fixes"]
        _wait_frames(page, label, charts)
        start = _position(page, label)
        _press(page, label, "ArrowRight")
        at = _position(page, label)
        assert at == start + 1
        options = _options(page, charts[1], label)
        look_at(page, f".st-key-chart-{charts[1]}")
        _wait_drawn_by_plotly(page, f".st-key-chart-{charts[1]}", label, at, options[at])
        shown = _shown(page, f".st-key-chart-{charts[1]}")
        others = _other_sliders(page, charts[1], label)
        expected = _server_figure(charts[1], _query(FAST), "dim", options[at], others)
        _as_words(shown, expected)
        where = frames.difference(shown, expected, tol=1e-12, floor=1.0)
        assert where is None, f"{charts[1]} at n = {options[at]} after the workers died: {where}"
        wait_run_ended(page, timeout=120_000)
        assert page.locator('[data-testid="stException"]').count() == 0
    finally:
        page.close()
        stop_server(proc, log)
    text = next(tmp_path.glob("streamlit-*.log")).read_text(errors="replace")
    assert "process pool broke" in text, text[-3000:]
    assert "Traceback" not in text, text[-5000:]
