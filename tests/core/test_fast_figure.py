"""The fast drawing (dpviz.fast_figure): the figure Plotly's objects would give, as a dict, for
the calls dpviz's figures make; what it does not draw it says (Unsupported), and a chart's
frames are then drawn by Plotly. Every comparison here is with Plotly itself, to the last
character of the sorted JSON (numbers included, typed arrays bit for bit)."""

import json
import logging

import numpy as np
import pandas as pd
import plotly.graph_objects as plotly_go
import plotly.io as pio
import pytest
from plotly import subplots as plotly_subplots

from dpviz import fast_figure, registry, theme
from dpviz.fast_figure import GO, SUBPLOTS, Unsupported
from dpviz.frames import Drawer, slider_grid
from dpviz.params import validate

NOT_DRAWN = {"partial-query": "fig.add_hline", "partial-query-surface": "go.Scatter3d"}
"""The registered figures the fast drawing leaves to Plotly, and the call that says why (neither
has a slider: no frames are drawn of them)."""


def _text(fig) -> str:
    return json.dumps(json.loads(pio.to_json(fig.to_dict(), validate=False)), sort_keys=True)


def _both(draw):
    """``draw(go, subplots)`` with Plotly's modules and with the fast drawing's: both texts."""
    return _text(draw(plotly_go, plotly_subplots)), _text(draw(GO, SUBPLOTS))


def _styled(go, sub):
    fig = go.Figure(go.Scatter(x=pd.Series([0.5, 1.0, 2.0]), y=np.array([1, 2, 3]), name=np.float64(2.5)))
    fig.add_trace(
        go.Bar(x=["a", "b"], y=[3, 4], marker_color="#0072B2", marker_line_width=0, error_y=dict(array=[1, 2]))
    )
    fig.update_layout(legend=dict(orientation="h"), xaxis_title="n", margin_b=10, title="replaced")
    fig.update_xaxes(type="log", minor=dict(ticks="outside"))
    fig.update_yaxes(title=dict(text="y", font=dict(size=3)), range=[0, 1])
    fig.add_annotation(text="note", x=1, y=2, showarrow=False, font=dict(size=9))
    return theme.style(fig, "a title<br><sup>detail</sup>", height=420)


def _grid(go, sub):
    fig = sub.make_subplots(rows=1, cols=3, subplot_titles=("a", "b", "c"), horizontal_spacing=0.13)
    for c in (1, 2, 3):
        fig.add_trace(go.Scatter(x=[1, 2, 3, 4], y=np.arange(4.0) * c, line=dict(dash="dot")), row=1, col=c)
    fig.add_bar(x=[1, 2], y=[1, 2], row=1, col=2)
    theme.log_axis(fig, "y", title="log", row=1, col=2)
    fig.update_yaxes(title="c", range=[-0.05, 1.05], row=1, col=3)
    fig.update_xaxes(showgrid=False)
    return theme.style(fig, "grid")


def _heatmap(go, sub):
    z = np.arange(12.0).reshape(3, 4)
    fig = go.Figure(go.Heatmap(z=z, x=[1, 2, 3, 4], y=["a", "b", "c"], colorscale="Viridis", colorbar_title="c"))
    fig.add_trace(go.Contour(z=z, showscale=False, contours_coloring="lines"))
    return theme.style(fig, "heat")


def _secondary(go, sub):
    fig = sub.make_subplots(specs=[[{"secondary_y": True}]])
    fig.add_trace(go.Scatter(x=[1, 2, 3, 4], y=[0.1, 0.2, 0.3, 0.4]), secondary_y=False)
    fig.add_trace(go.Scatter(x=[1, 2, 3, 4], y=[10, 20, 30, 40], line_dash="dot"), secondary_y=True)
    theme.log_axis(fig, "x", title="ε (log scale)")
    fig.update_yaxes(title="left", range=[-0.05, 1.05], secondary_y=False)
    fig.update_yaxes({"showgrid": False}, title="right", secondary_y=True)
    return theme.style(fig, "two axes")


def _equal_again(go, sub):
    """A property set again to an equal value of another type: Plotly keeps the one it holds (the
    budget page's k ticks, [1, 10, ...] over a log axis's [1.0, 10.0, ...], drew "1.0" in Plotly
    and "1" in the fast drawing, which then left the chart to Plotly)."""
    fig = go.Figure(go.Scatter(x=[1, 10, 100], y=np.array([1.0, 2.0, 3.0])))
    fig.update_xaxes(tickvals=[1.0, 10.0, 100.0], range=[0.0, 2.0])
    fig.update_xaxes(type="log", tickvals=(1, 10, 100), range=(0, 2))
    return theme.style(fig, "equal again")


def _plain_lists(go, sub):
    """Lists and tuples of Python numbers and strings (taken as they are), beside ones with a bool,
    a numpy scalar, a nested list or nothing in them (left to Plotly's validator); NumPy arrays of
    colour names on a property that also takes numbers (marker.color) and on one that does not."""
    fig = go.Figure(go.Scatter(x=(1, 2.5, 3), y=[0.1, 2, 3e-9], text=["a", "é", ""], customdata=[[1, 2], [3, 4]]))
    fig.add_trace(go.Scatter(x=[np.float64(1.5), 2, 3], y=[True, False, 1], text=("x", np.str_("y"), "z")))
    fig.add_trace(go.Scatter(x=[], y=()))
    colours = np.where(np.arange(4) % 2 == 0, "#E69F00", "blue")  # (a NumPy array of text, as the bars' colours)
    fig.add_trace(go.Bar(x=[1, 2, 3, 4], y=[1, 2, 3, 4], marker=dict(color=colours), textfont=dict(color=colours)))
    fig.update_xaxes(tickvals=[1, 2.0, 3], ticktext=("1", "two", "3"))
    return theme.style(fig, "plain lists")


def _titles_that_move(go, sub):
    """Subplot titles that change from one drawing to the next (the text is not part of the kept
    layout's key), with an empty title and a missing one (no annotation for either), a title
    repeated, a title on two lines, and the grid's other arguments the same each time."""
    made = []
    for alpha in (2, 4.5, 2):
        titles = (f"ε at α = {alpha:g}<br>(label)", "", None, f"ε at α = {alpha:g}<br>(label)")
        fig = sub.make_subplots(rows=2, cols=2, subplot_titles=titles, horizontal_spacing=0.2)
        fig.add_trace(go.Scatter(x=[1, 2], y=[alpha, 1]), row=2, col=2)
        made.append(_text(theme.style(fig, f"α = {alpha:g}")))
    other = sub.make_subplots(rows=1, cols=2, subplot_titles=["only one"])
    return _Texts(made + [_text(theme.style(other, "one title"))])


def _text_series(go, sub):
    """Bars labelled by pandas Series of words: pandas' own text (Arrow's storage), Python's
    storage, plain objects, a Series with a missing word (left to Plotly's validator), an empty
    one, and NumPy arrays of words (kept as arrays, as Plotly keeps them)."""
    words = ["b", "é", "a", "10"]
    fig = go.Figure()
    for dtype in ("str", "string[python]", "string[pyarrow]", "object"):
        fig.add_trace(go.Bar(y=pd.Series(words, dtype=dtype), x=[1, 2, 3, 4], orientation="h", name=dtype))
    fig.add_trace(go.Bar(y=pd.Series(["a", None, "c", "d"], dtype="str"), x=[1, 2, 3, 4], orientation="h"))
    fig.add_trace(go.Bar(y=pd.Series([], dtype="str"), x=[], orientation="h"))
    fig.add_trace(go.Scatter(x=np.array(words, dtype=object), y=[1, 2, 3, 4], text=np.array(words)))
    return theme.style(fig, "words")


class _Texts:
    """Several figures' texts in one, as _text reads a figure (``to_dict``)."""

    def __init__(self, texts):
        self.texts = texts

    def to_dict(self):
        return {"data": [], "layout": {"meta": self.texts}}


@pytest.mark.parametrize(
    "draw",
    [_styled, _grid, _heatmap, _secondary, _equal_again, _plain_lists, _text_series, _titles_that_move],
    ids=lambda f: f.__name__.strip("_"),
)
def test_the_fast_drawing_equals_plotlys(draw):
    plotly, fast = _both(draw)
    assert plotly == fast


def test_what_is_not_drawn_says_so():
    fig = GO.Figure(GO.Scatter(x=[1], y=[2]))
    for call in (
        lambda: fig.add_vline(x=1),
        lambda: fig.layout,
        lambda: fig.add_trace(GO.Scatter(x=[1]), secondary_y=True),
        lambda: fig.update_xaxes(type="log", row=1, col=1),  # no subplots
        lambda: GO.Scatter3d(x=[1]),
        lambda: GO.Scatter(not_a_property=1),
        lambda: GO.Scatter(marker="red"),  # an object given as a string
    ):
        with pytest.raises(Unsupported):
            call()


def _live_cases():
    for spec in registry.all_figures():
        for name in spec.live:
            if spec.param(name).slider and not spec.on_demand:
                yield pytest.param(spec.id, name, id=f"{spec.id}-{name}")


def _json(fig: dict) -> str:
    return pio.to_json(fig, validate=False)


@pytest.mark.parametrize("figure,slider", list(_live_cases()))
def test_every_live_chart_is_drawn_fast_and_the_same(figure, slider):
    """At quick settings, the grid's ends and middle: the frames' drawer takes the fast drawing
    (its first frame equalled Plotly's), and every frame it then draws equals Plotly's."""
    spec = registry.get(figure)
    values, errors = validate(spec.params, dict(spec.quick))
    assert not errors
    grid = slider_grid(spec.param(slider))
    draw = Drawer(spec, _json)
    for v in (grid[0], grid[len(grid) // 2], grid[-1]):
        at = dict(values, **{slider: v})
        df = spec.table(at)
        got = draw(df, at)
        assert draw.fast, draw.why
        assert json.loads(got) == json.loads(_json(spec.figure_dict(df, at))), f"{figure} at {slider} = {v}"


@pytest.mark.parametrize("figure", [s.id for s in registry.all_figures()])
def test_every_figure_is_drawn_the_same_or_left_to_plotly(figure):
    """Every registered figure, at quick settings: the fast drawing gives Plotly's figure, or
    says it does not draw it (only those of NOT_DRAWN, for the reason named there)."""
    spec = registry.get(figure)
    values, errors = validate(spec.params, dict(spec.quick))
    assert not errors
    df = spec.table(values)
    try:
        with theme.fast_drawing():
            fast = _json(spec.figure_dict(df, values))
    except Unsupported as e:
        assert figure in NOT_DRAWN and NOT_DRAWN[figure] in str(e), str(e)
        return
    assert figure not in NOT_DRAWN
    assert json.loads(fast) == json.loads(_json(spec.figure_dict(df, values)))


def test_a_chart_drawn_otherwise_is_drawn_by_plotly_and_logged(monkeypatch, caplog):
    spec = registry.get("adept-sensitivity")
    values, _ = validate(spec.params, dict(spec.quick))
    df = spec.table(values)
    plotly = _json(spec.figure_dict(df, values))
    real = fast_figure.Figure.to_dict

    def off_by_a_bit(self):  # a fast drawing with a bug: one number changed
        out = real(self)
        out["layout"]["height"] += 1
        return out

    monkeypatch.setattr(fast_figure.Figure, "to_dict", off_by_a_bit)
    draw = Drawer(spec, _json)
    with caplog.at_level(logging.WARNING, logger="dpviz.frames"):
        assert draw(df, values) == plotly
    assert draw.fast is False and "differs" in caplog.text
    assert draw(df, values) == plotly  # and the next frames too


def test_a_chart_the_fast_drawing_does_not_draw_is_drawn_by_plotly():
    spec = registry.get("partial-query")
    values, _ = validate(spec.params, dict(spec.quick))
    df = spec.table(values)
    draw = Drawer(spec, _json)
    assert draw(df, values) == _json(spec.figure_dict(df, values))
    assert draw.fast is False and "add_hline" in draw.why


def test_the_drawing_is_the_fast_one_in_its_own_thread_only():
    import threading

    seen = {}

    def other():
        seen["other"] = theme.go.Figure

    with theme.fast_drawing():
        thread = threading.Thread(target=other)
        thread.start()
        thread.join()
        seen["here"] = theme.go.Figure
    assert seen["here"] is fast_figure.Figure and seen["other"] is plotly_go.Figure
    assert theme.go.Figure is plotly_go.Figure


def test_an_operator_can_turn_the_fast_drawing_off(monkeypatch):
    monkeypatch.setenv("DPVIZ_FAST_DRAWING", "0")
    spec = registry.get("adept-sensitivity")
    values, _ = validate(spec.params, dict(spec.quick))
    df = spec.table(values)
    draw = Drawer(spec, _json)
    assert draw.fast is False and "DPVIZ_FAST_DRAWING" in draw.why
    assert draw(df, values) == _json(spec.figure_dict(df, values))


def test_typed_arrays_are_plotlys_own_specs():
    """fast_figure.typed_arrays turns numeric arrays into typed-array specs itself: the same dict
    as Plotly's convert_to_base64 for float64 and float32, 64-bit integers narrowed to 8, 16 or
    32 bits (signed and unsigned) or left as they are beyond, 2-D arrays with their shape, pandas
    Series, and Plotly's own route for text arrays, empty arrays and skipped keys."""
    import copy

    import numpy as np
    import pandas as pd
    from _plotly_utils.utils import convert_to_base64

    from dpviz.fast_figure import typed_arrays

    rng = np.random.default_rng(3)
    values = [
        rng.standard_normal(17),
        rng.standard_normal(5).astype("float32"),
        np.arange(-3, 100),
        np.arange(0, 40_000, 7),
        np.array([-(2**40), 5]),
        np.arange(3, dtype="uint64") * 2**20,
        np.array([2**63], dtype="uint64"),
        rng.standard_normal((3, 4)),
        np.array([], dtype=float),
        np.array(["a", "b", "c", "d"], dtype=object),
        pd.Series(rng.standard_normal(9)),
        pd.Series([1, 2, 3, 4]),
        pd.Series(["x", "y", "z", "w"]),
        np.arange(5) == 2,
    ]
    for value in values:
        doc = {
            "data": [{"x": value, "marker": {"color": value}, "range": value}],
            "layout": {"xaxis": {"range": value}},
        }
        mine, theirs = copy.deepcopy(doc), copy.deepcopy(doc)
        typed_arrays(mine, convert_to_base64)
        convert_to_base64(theirs)
        pairs = [
            (mine["data"][0]["x"], theirs["data"][0]["x"]),
            (mine["data"][0]["marker"]["color"], theirs["data"][0]["marker"]["color"]),
            (mine["layout"]["xaxis"]["range"], theirs["layout"]["xaxis"]["range"]),
        ]
        for a, b in pairs:
            if isinstance(b, dict):
                assert a == b, value
            else:
                assert type(a) is type(b) and np.array_equal(np.asarray(a), np.asarray(b)), value


def test_subplot_titles_are_not_part_of_the_kept_layouts_key():
    """A grid drawn with other titles reuses the layout Plotly drew for the first (a title that
    moves along a slider had Plotly's make_subplots at every frame); other arguments do not."""
    fast_figure._subplots.cache_clear()
    for alpha in (1, 2, 3, 4):
        SUBPLOTS.make_subplots(rows=1, cols=2, subplot_titles=(f"α = {alpha}", "share"))
    assert fast_figure._subplots.cache_info().misses == 1
    SUBPLOTS.make_subplots(rows=1, cols=2, subplot_titles=("α = 1", ""))  # (no annotation for the empty one)
    SUBPLOTS.make_subplots(rows=1, cols=2, subplot_titles=("α = 1", "share"), horizontal_spacing=0.3)
    assert fast_figure._subplots.cache_info().misses == 3


@pytest.mark.parametrize("order", ["forward", "backward"])
def test_a_dict_of_scalars_is_made_once_and_each_use_is_its_own_and_plotlys(order):
    """A compound property given as a dict of scalars is checked once and cloned for each use
    (fast_figure._compound): each use gives Plotly's JSON for its own values, types and signs
    included (1 and 1.0, 0.0 and -0.0 are told apart), in either order, and changing one use
    leaves the next untouched."""
    cases = [
        dict(color="#000", width=2.5, dash="dot"),
        dict(color="#000", width=2.5, dash="dash"),
        dict(width=1),
        dict(width=1.0),
        dict(width=0.0),
        dict(width=-0.0),
        dict(color="red", width=2, dash=None),
    ]
    if order == "backward":
        cases = cases[::-1]
    for line in cases + cases:
        fast = fast_figure.Trace("scatter", line=line, marker=dict(size=5, line=dict(width=3))).json()
        slow = plotly_go.Scatter(line=line, marker=dict(size=5, line=dict(width=3))).to_plotly_json()
        # (keys sorted: Plotly orders an object's keys by its schema, the frames compare sorted JSON)
        assert json.dumps(fast["line"], sort_keys=True) == json.dumps(slow["line"], sort_keys=True), line
        assert json.dumps(fast["marker"], sort_keys=True) == json.dumps(slow["marker"], sort_keys=True)
    first = fast_figure.Trace("scatter", line=dict(color="#000", width=2.5))
    first.props["line"].set("width", 9)
    again = fast_figure.Trace("scatter", line=dict(color="#000", width=2.5)).json()
    assert again["line"] == {"color": "#000", "width": 2.5}


def test_an_array_of_colours_is_what_plotlys_copy_makes_of_it():
    """A NumPy array of colour names, coerced one by one and made an array as Plotly's
    ``copy_to_readonly_numpy_array`` makes the list of them: of objects where the property also
    takes numbers (marker.color), of text where it does not (textfont.color), read-only; the same
    type, values and flags as Plotly's own route."""
    from _plotly_utils.basevalidators import copy_to_readonly_numpy_array

    from dpviz import fast_figure

    colours = np.array(["#E69F00", "blue", "rgb(1, 2, 3)", "#E69F00"])
    for path, prop, kind in (("bar.marker", "color", "O"), ("bar.textfont", "color", "U")):
        fast = fast_figure._colors(path, prop, colours)
        validator = fast_figure._validator(path, prop)
        plotly = copy_to_readonly_numpy_array([validator.validate_coerce(c) for c in colours.tolist()], kind=kind)
        assert fast.dtype == plotly.dtype and fast.tolist() == plotly.tolist(), kind
        assert not fast.flags.writeable and fast.flags.c_contiguous
