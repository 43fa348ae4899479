"""dpviz's chart element in Chromium (webui/live_js/): a slider move redraws a chart in view
in place (the same element, not a new one), leaves a chart out of view as it was until the reader
scrolls to it, and then draws exactly what a fresh page at the new link draws; a chart takes its
container's width and its figure's height. With DPVIZ_STREAMLIT_CHARTS=1 Streamlit's own Plotly
element draws the charts (AppTest)."""

from __future__ import annotations

import re

from browser_support import (
    FAST,
    PS_FAST,
    ROOT,
    SETTLE_MS,
    look_at,
    wait_for_charts,
    wait_run_ended,
    watch_console,
)
from paper_pages import charts, charts_drawn, page_file
from streamlit.testing.v1 import AppTest

from dpviz import registry

PAGE, EPS = "ADePT_sensitivity", "Privacy budget ε (claimed)"
GD = "(id) => document.querySelector(`.st-key-chart-${id} .js-plotly-plot`)"
DATA = "(id) => { const gd = (" + GD + ")(id); return gd && gd.data ? JSON.stringify(gd.data) : ''; }"
N_CHARTS = sum(not s.on_demand for s in registry.paper_figures("adept"))


def _press(page) -> str:
    """One step right on the ε slider; the URL it leads to."""
    old = page.url
    slider = page.get_by_role("slider", name=EPS)
    slider.focus()
    page.keyboard.press("ArrowRight")
    page.wait_for_function("(u) => location.href !== u", arg=old)
    wait_run_ended(page, hold_ms=SETTLE_MS)
    return page.url


def _in_view(page, fid: str) -> bool:
    return page.evaluate(
        "(el) => { const r = el.getBoundingClientRect(); return r.bottom > 0 && r.top < innerHeight; }",
        page.locator(f".st-key-chart-{fid}").element_handle(),
    )


def test_a_move_redraws_in_place_and_a_chart_out_of_view_when_it_comes_into_view(server, browser, page):
    follow = [
        s.id for s in registry.paper_figures("adept") if "epsilon" in {p.name for p in s.params} and not s.on_demand
    ]
    near, far = follow[0], follow[-1]  # the slider's first chart, and its last, a screen or more below
    page.goto(f"{server}/{PAGE}?{FAST}")
    wait_for_charts(page, N_CHARTS)
    _press(page)  # the first move after a page's first answers draws its charts anew, once
    page.wait_for_timeout(1000)
    look_at(page, f".st-key-chart-{near}")
    assert _in_view(page, near) and not _in_view(page, far)
    page.evaluate("(ids) => ids.forEach(id => { (" + GD + ")(id).__probe = id; })", [near, far])
    before = {fid: page.evaluate(DATA, fid) for fid in (near, far)}

    url = _press(page)
    page.wait_for_function("([id, b]) => (" + DATA + ")(id) !== b", arg=[near, before[near]])
    assert page.evaluate("(id) => (" + GD + ")(id).__probe", near) == near, "the chart was replaced, not redrawn"
    page.wait_for_timeout(1500)  # the run is over: a chart out of view keeps what it showed
    assert page.evaluate(DATA, far) == before[far]

    look_at(page, f".st-key-chart-{far}")
    page.wait_for_function("([id, b]) => (" + DATA + ")(id) !== b", arg=[far, before[far]])
    assert page.evaluate("(id) => (" + GD + ")(id).__probe", far) == far
    redrawn = {fid: page.evaluate(DATA, fid) for fid in (near, far)}
    size = page.evaluate(
        "(id) => { const gd = (" + GD + ")(id); return [gd._fullLayout.width, gd.parentElement.clientWidth, "
        "gd._fullLayout.height, gd.layout.height]; }",
        far,
    )

    fresh = browser.new_page(viewport={"width": 1500, "height": 1100})  # the same link, drawn from scratch
    try:
        fresh.goto(url)
        wait_for_charts(fresh, N_CHARTS)
        assert re.search(r"epsilon=", url)
        for fid in (near, far):
            look_at(fresh, f".st-key-chart-{fid}")
            fresh.wait_for_function("([id, d]) => (" + DATA + ")(id) === d", arg=[fid, redrawn[fid]], timeout=30_000)
    finally:
        fresh.close()
    width, container, height, asked = size
    assert width == container and height == asked


def _partial_page():
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=300)
    at.switch_page(page_file("partial"))
    for k, v in (part.split("=") for part in PS_FAST.split("&")):
        at.query_params[k] = v
    return at.run()


def test_streamlit_s_own_element_on_request(monkeypatch):
    monkeypatch.setenv("DPVIZ_STREAMLIT_CHARTS", "1")
    at = _partial_page()
    assert not at.exception
    assert at.get("plotly_chart") and len(at.get("plotly_chart")) == len(charts(at))
    monkeypatch.delenv("DPVIZ_STREAMLIT_CHARTS")
    at = _partial_page()
    assert not at.exception
    assert not at.get("plotly_chart") and len(charts(at)) == charts_drawn("partial")


def test_a_chart_drawn_again_unchanged_is_left_as_it_is(server, page):
    """The chart's data reach Plotly as typed arrays decoded once, not as base64 specs that Plotly
    decoded anew on every draw (each draw then took every trace as new and drew the whole chart
    again: ADePT's fixes chart 32 ms for a figure that had not changed). Drawn again with the same
    data and layout, a chart keeps its SVG: its tick labels are the same nodes."""
    page.goto(f"{server}/ADePT_sensitivity?{FAST}")
    wait_for_charts(page, charts_drawn("adept"))
    for fid in ("adept-fixes", "adept-epsilon", "adept-frontier"):
        look_at(page, f".st-key-chart-{fid}")
        gd = f".st-key-chart-{fid} .dpviz-chart"
        page.wait_for_function("(s) => document.querySelector(s).__dpvizDrawn", arg=gd)
        specs = page.evaluate(
            """(s) => document.querySelector(s).data.flatMap((t, i) => Object.entries(t)
                .filter(([k, v]) => v && typeof v === 'object' && 'bdata' in v).map(([k]) => `${i}.${k}`))""",
            gd,
        )
        assert specs == [], f"{fid}: data left as base64 specs: {specs}"
        kept = page.evaluate(
            """(s) => { const gd = document.querySelector(s); const tick = gd.querySelector('.xtick text');
                tick.__mark = 1; window.Plotly.react(gd, gd.data, gd.layout);
                return [gd.querySelectorAll('.xtick text').length > 0, !!gd.querySelector('.xtick text').__mark]; }""",
            gd,
        )
        assert kept == [True, True], f"{fid}: drawn again from scratch"


def test_plotly_js_starts_loading_with_the_page_not_with_its_first_chart(server, page):
    """The loader element, first in every page's sidebar, starts loading plotly.js
    (webui/plotly_element.py): on the Audit page, which draws no chart until samples are given,
    Plotly is loaded all the same (before, it was loaded by a page's first chart, once that came).
    It is dpviz's own bundle (webui/plotly_bundle.py), fetched gzipped from the static folder, with
    every trace type dpviz draws; neither the plain file nor Streamlit's copy is loaded."""
    from webui.plotly_bundle import BUNDLE, PACKED, TRACES

    page.goto(f"{server}/Audit_a_mechanism")
    wait_run_ended(page)
    page.wait_for_function("() => typeof window.Plotly === 'object' && !!window.Plotly.react", timeout=60_000)
    assert page.locator(".js-plotly-plot").count() == 0  # no chart asked for it
    loaded = page.evaluate("() => performance.getEntriesByType('resource').map((e) => e.name)")
    assert any(name.endswith(PACKED) for name in loaded), loaded  # gzipped, unpacked in the page
    assert not any(name.endswith(BUNDLE) or "/PlotlyChart." in name for name in loaded)
    traces = page.evaluate("() => Object.keys(window.Plotly.PlotSchema.get().traces)")
    assert set(TRACES) <= set(traces)


def test_a_chart_hidden_or_taken_off_the_page_is_not_drawn_at_no_width(server, page):
    """A chart whose container has no width (hidden, or taken off the page: Streamlit removes the
    quick first answer's element when the whole answer comes) keeps the width it was drawn at, and
    is not drawn again at the least width: at 100 px the Partial page's DP-SGD chart put its legend
    under the plot in rows taller than the chart, and Plotly threw "Something went wrong with axis scaling" from the
    size watcher (an uncaught error, now and then on opening the page). Shown again, each chart is
    drawn at its container's width with the data it had."""
    seen = watch_console(page)
    page.goto(f"{server}/Partial_sensitivity?{PS_FAST}")
    wait_for_charts(page, charts_drawn("partial"))
    wait_run_ended(page, hold_ms=SETTLE_MS)
    ALL = "() => [...document.querySelectorAll('.dpviz-chart')].filter((gd) => gd._fullLayout)"
    SHOWN = "() => (" + ALL + ")().map((gd) => [gd.parentElement.clientWidth, JSON.stringify(gd.data)])"
    before = page.evaluate(SHOWN)
    assert before and all(w > 100 for w, _ in before)
    page.evaluate("() => (" + ALL + ")().forEach((gd) => { gd.parentElement.style.display = 'none'; })")
    page.wait_for_timeout(500)
    assert [line for line in seen if "HTTP" not in line] == []
    page.evaluate("() => (" + ALL + ")().forEach((gd) => { gd.parentElement.style.display = ''; })")
    page.wait_for_function(
        "(n) => { const all = (" + ALL + ")(); return all.length === n && "
        "all.every((gd) => gd._fullLayout.width === gd.parentElement.clientWidth); }",
        arg=len(before),
    )
    after = page.evaluate(SHOWN)
    assert [w for w, _ in after] == [w for w, _ in before]
    assert [d for _, d in after] == [d for _, d in before]
    assert [line for line in seen if "HTTP" not in line] == []
