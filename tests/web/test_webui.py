"""The page wiring's shared figure cache (webui.views.cached_view)."""

import json
import re
from pathlib import Path

import pandas as pd
import plotly.graph_objects as go

from dpviz import memo, registry
from dpviz.params import Param
from dpviz.registry import FigureSpec
from webui import figure_card, live, views

N = Param("n", "int", 3, "n", "a count", min=1, max=10)


def _values(v) -> list:
    """A data array of a figure read back from its JSON (a list, or a typed array)."""
    from dpviz.theme import numeric_values

    return numeric_values(v).tolist()


def _spec(calls):
    def compute(v, progress=None):
        calls.append(("compute", dict(v)))
        return pd.DataFrame({"x": range(v["n"])})

    def render(df, v):
        calls.append(("render", dict(v)))
        return go.Figure(go.Scatter(x=df["x"], y=df["x"] ** 2))

    return FigureSpec(
        id="test-view",
        title="Test view",
        page="test",
        params=(N,),
        compute=compute,
        render=render,
        caption="caption",
        columns=("x",),
    )


def test_view_is_computed_once_per_setting_and_render_sees_only_its_own_parameters():
    calls = []
    spec = _spec(calls)
    df, fig, seconds = views.cached_view(spec, {"n": 4, "seed": 1, "other": "x"})
    again = views.cached_view(spec, {"n": 4, "seed": 2})  # another page setting, same figure settings
    assert again[1] is fig and again[0] is df and seconds >= 0
    assert calls == [("compute", {"n": 4}), ("render", {"n": 4})]
    assert _values(fig.figure().data[0].y) == [0, 1, 4, 9]
    views.cached_view(spec, {"n": 5})
    assert [c for c, _ in calls] == ["compute", "render", "compute", "render"]


def test_view_cache_is_bounded_and_drops_the_least_recently_used(monkeypatch):
    monkeypatch.setattr(views, "_VIEWS", memo.ProcessMemo(maxsize=3))
    calls = []
    spec = _spec(calls)
    for n in (1, 2, 3, 1, 4):  # 1 is used again, so 2 is the oldest when 4 arrives
        views.cached_view(spec, {"n": n})
    assert [dict(k[1])["n"] for k in views._VIEWS.keys()] == ["3", "1", "4"]
    views.cached_view(spec, {"n": 2})
    assert sum(c == "compute" for c, _ in calls) == 5  # 2 was dropped and computed again


def test_warmup_fills_the_shared_cache_with_each_pages_defaults_once(monkeypatch):
    from dpviz import registry
    from dpviz.papers.metric import params as metric
    from dpviz.papers.metric import pipeline
    from webui import warmup

    calls, tried = [], []
    good = _spec(calls)
    broken = FigureSpec(
        id="test-broken",
        title="Broken",
        page="test",
        params=(N,),
        compute=lambda v, p=None: 1 / 0,
        render=None,
        caption="c",
        columns=("x",),
    )
    monkeypatch.setattr(views, "_VIEWS", memo.ProcessMemo(maxsize=128))
    monkeypatch.setattr(registry, "all_figures", lambda: [broken, good])
    monkeypatch.setattr(registry, "page_params", lambda page: (N,) if page == "test" else (metric.EMBEDDING,))
    # every declared panel is warmed too: the metric page's try-it box (its compute keeps its own cache)
    monkeypatch.setattr(pipeline, "try_it_panel", lambda v, progress=None: tried.append(v["sentence"]))
    monkeypatch.setattr(warmup, "warm_lessons", lambda: 0)  # tested below
    assert warmup.warm_defaults() == 1  # the broken figure is logged and skipped
    assert calls == [("compute", {"n": 3}), ("render", {"n": 3})]  # the page default, n = 3
    assert (
        views.cached_view(good, {"n": 3})[0]["x"].tolist() == [0, 1, 2] and len(calls) == 2
    )  # a visitor: no recompute
    assert warmup.warm_defaults() == 0
    assert tried == [metric.SENTENCE.default] * 2


def test_warmup_computes_every_chart_of_a_lesson_and_its_answers(tmp_path, monkeypatch):
    """Each side of a comparison and the charts shown with an answer are in the shared views after
    the warm-up, so a class finds them ready; a lesson that cannot be used is skipped."""
    from dpviz import registry
    from dpviz.lessons.format import load
    from dpviz.params import validate
    from webui import warmup

    (tmp_path / "tiny.md").write_text(
        "title: T\npaper: adept\n\n## One\nText.\nchart: adept-sensitivity dim=7\ncompare: dim=3 | dim=5\n"
        "question: Q?\nanswer: adept-epsilon dim=9 epsilon=2 -> epsilon_actual where dim=9\n"
        "reveal:\nchart: adept-epsilon dim=11 epsilon=2\n"
    )
    (tmp_path / "broken.md").write_text("title: B\npaper: adept\n\n## S\nchart: no-such-figure\n")
    monkeypatch.setenv("DPVIZ_LESSONS_DIR", str(tmp_path))
    monkeypatch.setattr(views, "_VIEWS", memo.ProcessMemo(maxsize=128))
    wanted = [("adept-sensitivity", {"dim": "3"}), ("adept-sensitivity", {"dim": "5"})]
    wanted.append(("adept-epsilon", {"dim": "11", "epsilon": "2"}))
    assert load("tiny").chart_settings() == wanted
    assert warmup.warm_lessons(["broken", "tiny"]) == 3  # the broken lesson is logged and skipped
    for figure, raw in wanted:
        spec = registry.get(figure)
        values, errors = validate(spec.params, raw)
        assert not errors and views.view_ready(spec, values)
    assert warmup.warm_lessons(["tiny"]) == 0  # all there


def test_warmup_runs_once_and_only_when_enabled(monkeypatch):
    from webui import warmup

    ran = []
    monkeypatch.setattr(warmup, "warm_defaults", lambda: ran.append(1))
    monkeypatch.setattr(warmup, "_STARTED", False)
    monkeypatch.delenv("DPVIZ_HOSTED", raising=False)
    monkeypatch.delenv("DPVIZ_WARMUP", raising=False)
    assert warmup.start_once() is None  # locally: off
    monkeypatch.setenv("DPVIZ_HOSTED", "1")
    monkeypatch.setenv("DPVIZ_WARMUP", "0")
    assert warmup.start_once() is None  # switched off explicitly
    monkeypatch.setenv("DPVIZ_WARMUP", "1")
    warmup.start_once().join(5)
    assert warmup.start_once() is None and ran == [1]  # a second visitor does not start another


def test_every_default_fits_the_hosted_caps():
    from dpviz import registry
    from dpviz.params import check_hosted_cap

    for spec in registry.all_figures():
        for p in spec.params:
            check_hosted_cap(p, p.default, True)  # raises if a default is above its hosted cap


def _chart_app(fast: bool, height: int | None):
    """An app drawing one chart in a column, by st.plotly_chart or by the fast path (Streamlit's
    element built from the chart's JSON, what dpviz draws where its own element cannot be)."""
    if True:
        import numpy as np
        import plotly.graph_objects as go
        import streamlit as st

        from webui.plotly_element import chart_json, streamlit_plotly_element

        fig = go.Figure(go.Scatter(x=np.arange(6), y=np.arange(6) ** 2.5, name="a"))
        fig.add_bar(x=["u", "v"], y=[1, 2])
        fig.update_layout(title="A chart", template="simple_white", **({"height": height} if height else {}))
        col, _ = st.columns([4, 1])
        if fast:
            streamlit_plotly_element(col, chart_json(fig), key="chart-x", config={"displaylogo": False})
        else:
            col.plotly_chart(fig, theme=None, key="chart-x", config={"displaylogo": False})


def _chart_element(fast: bool, height: int | None, monkeypatch):
    """The chart element's proto and the layout (width, height) it was enqueued with."""
    from streamlit.delta_generator import DeltaGenerator
    from streamlit.testing.v1 import AppTest

    monkeypatch.undo()  # the previous call's recorder
    layouts, enqueue = [], DeltaGenerator._enqueue

    def recording(self, delta_type, proto, layout_config=None, *args, **kwargs):
        if delta_type == "plotly_chart":
            layouts.append((layout_config.width, layout_config.height))
        return enqueue(self, delta_type, proto, layout_config, *args, **kwargs)

    monkeypatch.setattr(DeltaGenerator, "_enqueue", recording)
    at = AppTest.from_function(_chart_app, args=(fast, height)).run()
    assert not at.exception
    return at.get("plotly_chart")[0].proto, layouts


def test_a_chart_from_its_json_is_the_element_st_plotly_chart_sends(monkeypatch):
    """Spec, config, element id, theme, form and layout, with and without a height in the
    figure: the fast path is the same element Streamlit's own command builds."""
    for height in (380, None):
        fast, fast_layout = _chart_element(True, height, monkeypatch)
        slow, slow_layout = _chart_element(False, height, monkeypatch)
        assert fast.SerializeToString(deterministic=True) == slow.SerializeToString(deterministic=True)
        assert fast_layout == slow_layout == [("stretch", height or 450)]
        assert '"bdata"' in fast.spec  # numpy arrays travel as typed arrays, as Streamlit sends them


def _live_chart_app():
    import streamlit as st

    from webui.plotly_element import ChartJSON, plotly_json_chart

    n = st.slider("n", 1, 9, 2)
    plotly_json_chart(
        st,
        ChartJSON('{"data": [{"y": %s}], "layout": {"height": 321}}' % list(range(n)), 321),
        key="chart-a",
        config={"displaylogo": False},
    )


def test_dpviz_chart_element_keeps_its_identity_and_carries_the_figure_as_is():
    """dpviz's chart element: the figure's JSON inside one JSON document with the height, the config
    and the URL of Streamlit's plotly.js module (a file that sets window.Plotly); the element id
    follows the key, not the figure, so the browser keeps the element and redraws it in place."""
    import streamlit
    from paper_pages import charts
    from streamlit.testing.v1 import AppTest

    from webui.plotly_bundle import sources
    from webui.plotly_element import plotly_module

    module = plotly_module()
    assert module is not None, "this Streamlit has no single PlotlyChart module: dpviz falls back to st.plotly_chart"
    source = (Path(streamlit.__file__).parent / "static" / module).read_text(encoding="utf-8")
    assert "window.Plotly=" in source
    at = AppTest.from_function(_live_chart_app).run()
    (first,) = charts(at)
    sent = json.loads(first.proto.bytes)
    assert sent == {
        "height": 321,
        "config": {"displaylogo": False},
        "plotly": sources(module),  # dpviz's plotly.js where it is served, then Streamlit's
        "sliders": {},  # no slider drives it: no frames
        "figure": {"data": [{"y": [0, 1]}], "layout": {"height": 321}},
    }
    at.slider[0].set_value(5).run()
    (second,) = charts(at)
    assert json.loads(second.proto.bytes)["figure"]["data"] == [{"y": [0, 1, 2, 3, 4]}]
    assert second.proto.id == first.proto.id and "chart-a" in first.proto.id
    assert not first.proto.isolate_styles  # in the page's DOM: plotly.js's own styles apply


def test_a_chart_json_keeps_the_figure_and_its_height():
    import plotly.graph_objects as go

    from webui.plotly_element import chart_json

    fig = go.Figure(go.Scatter(x=[1, 2], y=[3, 4]))
    assert chart_json(fig).height == 450  # plotly.js's default, as Streamlit resolves it
    fig.update_layout(height=333)
    chart = chart_json(fig)
    assert chart.height == 333
    again = chart.figure()
    assert _values(again.data[0].y) == [3, 4] and again.layout.height == 333


def test_charts_not_computed_yet_get_their_first_answer_before_any_full_answer(monkeypatch):
    """cards(): every chart that needs a first answer is drawn at the cheaper values first, the
    charts at hand are drawn once, and then each first answer is replaced by its full chart."""
    calls = []
    specs = [_spec([]), _spec([]), _spec([])]
    specs = [FigureSpec(**{**s.__dict__, "id": f"test-{k}"}) for k, s in enumerate(specs)]
    ready = {"test-1"}  # computed before: no first answer
    monkeypatch.setattr(views, "view_ready", lambda spec, values: spec.id in ready)
    monkeypatch.setattr(
        figure_card, "show_figure", lambda spec, values, page, live=(): calls.append(("full", spec.id, values))
    )
    monkeypatch.setattr(live, "show_first_answer", lambda spec, first, values: calls.append(("first", spec.id, first)))
    live.cards(specs, {"n": 9}, (N,), first={"n": 2})
    assert calls == [
        ("first", "test-0", {"n": 2}),
        ("full", "test-1", {"n": 9}),
        ("first", "test-2", {"n": 2}),
        ("full", "test-0", {"n": 9}),
        ("full", "test-2", {"n": 9}),
    ]
    calls.clear()
    live.cards(specs, {"n": 9}, (N,), first=None)  # no cheaper values: each chart once, in order
    assert [c[:2] for c in calls] == [("full", "test-0"), ("full", "test-1"), ("full", "test-2")]
    calls.clear()
    live.cards(specs, {"n": 2}, (N,), first={"n": 2})  # the values asked for are the cheap ones
    assert [c[0] for c in calls] == ["full"] * 3


def test_every_papers_first_answer_is_cheaper_than_its_defaults_and_within_the_hosted_caps():
    from dpviz import papers, registry
    from dpviz.params import parse_value
    from webui.paper_page import first_answer

    for paper in papers.all_papers():
        params = registry.page_params(paper.key)
        by_name = {p.name: p for p in params}
        defaults = {p.name: p.default for p in params}
        assert set(paper.first_answer) <= set(by_name), paper.key
        cheaper = first_answer(paper, params, defaults)
        assert set(cheaper) == set(paper.first_answer)  # on the defaults every first answer applies
        for name, value in cheaper.items():
            p = by_name[name]
            assert value == parse_value(p, paper.first_answer[name]) < p.default
            assert p.hosted_max is None or value <= p.hosted_max
        smaller = {name: value for name, value in cheaper.items()}
        assert first_answer(paper, params, dict(defaults, **smaller)) == {}  # never more than asked for


def test_a_live_panel_follows_the_last_live_chart_and_the_charts_without_a_slider_leave_the_fragment(monkeypatch):
    """live_figures(): the fragment a slider's release reruns holds the charts from the first that
    follows a slider to the last that does, then the panels that take a slider's value; the charts
    after them that follow no slider, and the other panels, are drawn outside it (before, a live
    panel pulled every chart up to the section's end into the fragment: on the metric page two
    cards that no slider changes, 34 elements sent again on every release)."""
    import contextlib
    import types

    eps = Param("eps", "float", 1.0, "ε", "", min=0.1, max=10.0, slider=True)
    specs = [
        FigureSpec(**{**_spec([]).__dict__, "id": fid, "params": params})
        for fid, params in (("a", (N,)), ("b", (N, eps)), ("c", (eps,)), ("d", (N,)), ("e", (N,)))
    ]
    panels = [
        types.SimpleNamespace(id="follows", params=(eps,), title="", intro=""),
        types.SimpleNamespace(id="still", params=(N,), title="", intro=""),
    ]
    inside, drawn = [False], []

    def fragment(body):
        def run():
            inside[0] = True
            try:
                body()
            finally:
                inside[0] = False

        return run

    fake = types.SimpleNamespace(
        fragment=fragment,
        container=lambda **kw: contextlib.nullcontext(),
        columns=lambda n: [None] * n,
        markdown=lambda *a, **kw: None,
    )
    monkeypatch.setattr(live, "st", fake)
    monkeypatch.setattr(live, "widgets", lambda params, cols, context=None: {"eps": 2.0})
    monkeypatch.setattr(live, "sync_url", lambda params, values: None)
    monkeypatch.setattr(live, "cards", lambda specs, *a, **kw: drawn.extend(("chart", s.id, inside[0]) for s in specs))
    monkeypatch.setattr(
        live, "show_panels", lambda panels, *a, **kw: drawn.extend(("panel", p.id, inside[0]) for p in panels)
    )
    live.live_figures(specs, {"n": 3, "eps": 1.0}, (N, eps), panels=panels)
    assert drawn == [
        ("chart", "a", False),
        ("chart", "b", True),
        ("chart", "c", True),
        ("panel", "follows", True),
        ("chart", "d", False),
        ("chart", "e", False),
        ("panel", "still", False),
    ]


def test_the_try_it_table_has_one_row_per_word_with_its_numbers():
    """webui.panels.try_it.as_html: each word's row holds its own N_w, S_w and mean cosine, in the
    table's order (read by columns, not DataFrame.itertuples), and words are escaped."""
    from types import SimpleNamespace

    from webui.panels.try_it import as_html

    per_word = pd.DataFrame(
        {"word": ["a<b", "cat", "sat"], "n_w": [90, 3, 0], "s_w": [7, 100, 12], "cosine": [0.5, 0.12345, 1.0]}
    )
    answer = SimpleNamespace(
        tokens=["a<b", "cat", "sat"],
        epsilon=2.0,
        rewrites=[["a<b", "dog", "sat"]],
        status=["in vocabulary"] * 3,
        per_word=per_word,
        draws=100,
    )
    out = as_html(answer, {})
    rows = re.findall(r"<tr><th scope='row'>(.*?)</th><td>(\d+)</td><td>(\d+)</td><td>([\d.]+)</td></tr>", out)
    assert rows == [("a&lt;b", "90", "7", "0.500"), ("cat", "3", "100", "0.123"), ("sat", "0", "12", "1.000")]
    assert "N_w (of 100)" in out and "dog" in out


def test_a_chart_whose_frames_are_being_computed_sends_their_nearest_part_meanwhile(monkeypatch):
    """While a chart's set along a slider is computed, the chart points the browser at the set's
    nearest part once this process holds it (webui.frames_pool computes it first), and still asks
    for the whole set; the part holds exactly the nearest positions, on their own grid."""
    from dpviz.frames import decode
    from webui import frames_pool, frames_queue, frames_schedule, frames_store, live_frames
    from webui.widgets import widget_label

    monkeypatch.setenv("DPVIZ_FRAME_WORKERS", "0")
    asked = []
    monkeypatch.setattr(frames_queue, "request", lambda key, job, by=None, ahead=False: asked.append(key))
    monkeypatch.setattr(live_frames, "asker", lambda owner, slider: ("session", owner, slider))
    spec = registry.get("adept-sensitivity")
    values = dict(spec.defaults(), clip=7.25)  # a setting no other test computes
    dim = spec.param("dim")
    key = frames_store.frames_key(spec, values, "dim")
    sliders, ref, mounts = figure_card.chart_frames(None, spec, values, [dim])
    assert sliders[widget_label(dim)]["frames"] == key and ref is None and len(mounts) == 1  # asks, sends nothing
    assert asked == [key] and frames_store.near(key) is None

    positions = frames_pool.nearest(frames_store.grid(spec, "dim"), values["dim"])
    frames_store.put_near(spec, values, "dim", key, positions, frames_store.figures_at(spec, values, "dim", positions))
    sliders, ref, mounts = figure_card.chart_frames(None, spec, values, [dim])
    assert sliders[widget_label(dim)]["frames"] == frames_store.near_key(key)
    assert len(mounts) == 2 and asked == [key, key]  # the part sent, and the whole set still asked for
    doc = decode(frames_store.near(key).blob)
    assert doc["grid"] == positions and len(positions) == frames_schedule.NEAR and values["dim"] in positions


def test_a_chart_asks_for_no_frames_along_a_slider_that_plays_no_part(monkeypatch):
    """figure_card.chart_frames: frames are asked for along each live slider a chart takes, but
    not along one that plays no part at the page's values (the privacy budget's ε₀ and q beside
    the Gaussian: dpviz.params.applies), whose slider is disabled."""
    from dpviz import registry
    from dpviz.params import applies
    from webui import figure_card, frames_store, live_frames

    asked = []
    monkeypatch.setattr(
        live_frames, "frames_for", lambda spec, values, slider, by=None: (asked.append(slider), ("k", None))[1]
    )
    monkeypatch.setattr(live_frames, "asker", lambda owner, slider: None)
    monkeypatch.setattr(frames_store, "near", lambda key: None)
    spec = registry.get("budget-composition")
    page = registry.page_params("budget")
    live = [p for p in page if p.slider]
    for mechanism, wanted in (("gaussian", ["k", "delta", "sigma"]), ("laplace", ["k", "delta", "epsilon0"]),
                              ("subsampled", ["k", "delta", "sigma", "q"])):  # fmt: skip
        values = {p.name: p.default for p in page} | {"mechanism": mechanism}
        asked.clear()
        sliders, _, _ = figure_card.chart_frames(None, spec, values, live)
        assert sorted(asked) == sorted(wanted), mechanism
        assert sorted(sliders) == sorted(figure_card.widget_label(p) for p in live if p.name in wanted)
        assert all(applies(p, values) == (p.name in wanted) for p in live if p.name in {"sigma", "epsilon0", "q"})
