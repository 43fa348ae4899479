"""Frames (dpviz.frames): a live figure at every position of its slider, made by the very table
and drawing the page and the command line use. Every frame, once encoded, sent and decoded,
equals the figure drawn directly at that position, number for number; patches and typed arrays
lose nothing; the grids are the sliders' own."""

import json
import random

import numpy as np
import plotly.io as pio
import pytest

from dpviz import frames, registry
from dpviz.frames import Frames, apply, close, compute_frames, decode, patch, slider_grid, typed_arrays
from dpviz.params import int_grid, log_grid, validate


def _to_json(fig: dict) -> str:
    return pio.to_json(fig, validate=False)


def _live_cases():
    for spec in registry.all_figures():
        for name in sorted({*spec.live, *spec.along}):
            p = spec.param(name)
            if p.slider and not spec.on_demand:
                yield pytest.param(spec.id, name, id=f"{spec.id}-{name}")


@pytest.mark.parametrize("figure,slider", list(_live_cases()))
def test_every_frame_equals_the_figure_drawn_at_its_position(figure, slider):
    """At quick settings, on a random handful of the grid's positions (its ends among them):
    decode(encoded) gives exactly what figure_dict draws there."""
    spec = registry.get(figure)
    values, errors = validate(spec.params, dict(spec.quick))
    assert not errors
    grid = slider_grid(spec.param(slider))
    rng = random.Random(figure + slider)
    picked = sorted({grid[0], grid[-1], *rng.sample(grid, min(4, len(grid)))})
    made = compute_frames(spec, values, slider, _to_json, grid=picked)
    doc = decode(made.encoded())
    assert doc["grid"] == picked and doc["slider"] == slider and doc["label"] == spec.param(slider).label
    for v, frame in zip(picked, doc["frames"]):
        at = dict(values, **{slider: v})
        direct = json.loads(_to_json(spec.figure_dict(spec.table(at), at)))
        assert close(frame, direct, tol=0.0), f"{figure} at {slider} = {v}"


def test_a_figure_with_tables_along_a_slider_computes_them_once(monkeypatch):
    """adept-privacy-loss along ε: one computation for every position (FigureSpec.along), none
    position by position, and through the disk cache: a second round reads every table back."""
    spec = registry.get("adept-privacy-loss")
    values, _ = validate(spec.params, {"samples": "3000", "seed": "424242"})  # (kept by no other test)
    grid = slider_grid(spec.param("epsilon"))[::12]
    calls = {"along": 0, "table": 0}
    along, table = spec.along["epsilon"], type(spec).table

    def counted_along(v, positions):
        calls["along"] += 1
        return along(v, positions)

    def counted_table(self, v, progress=None):
        calls["table"] += 1
        return table(self, v, progress)

    monkeypatch.setitem(spec.along, "epsilon", counted_along)
    monkeypatch.setattr(type(spec), "table", counted_table)
    compute_frames(spec, values, "epsilon", _to_json, grid=grid)
    assert calls == {"along": 1, "table": 0}
    again = spec.tables_along(values, "epsilon", grid)
    assert calls == {"along": 1, "table": 0} and len(again) == len(grid)


def _along_cases():
    for spec in registry.all_figures():
        for name in sorted(spec.along):
            yield pytest.param(spec.id, name, id=f"{spec.id}-{name}")


@pytest.mark.parametrize("figure,slider", list(_along_cases()))
def test_tables_computed_along_a_slider_are_each_positions_own_table(figure, slider):
    """Every ``FigureSpec.along`` (one computation for many positions) gives, at quick settings and at
    each of a handful of positions (the grid's ends, a repeat, the slider's own value), the table
    ``table`` computes at that position alone, to the last bit."""
    from dpviz import caches

    spec = registry.get(figure)
    values, errors = validate(spec.params, dict(spec.quick))
    assert not errors
    grid = slider_grid(spec.param(slider))
    rng = random.Random(figure + slider + "along")
    positions = [grid[0], *rng.sample(grid, min(3, len(grid))), values[slider], grid[-1], grid[0]]
    together = spec.tables_along(values, slider, positions)
    assert len(together) == len(positions)
    for v, table in zip(positions, together):
        caches.empty_all()
        alone = spec.table(dict(values, **{slider: v}))
        assert table.equals(alone) and list(table.dtypes) == list(alone.dtypes), f"{figure} at {slider} = {v}"


def test_patches_round_trip_changed_dropped_and_recounted_traces():
    base = {"data": [{"x": [1, 2], "name": "a", "hover": "h"}, {"y": [3]}], "layout": {"title": "t", "xaxis": {}}}
    same_shape = {"data": [{"x": [1, 5], "name": "a"}, {"y": [3]}], "layout": {"title": "u"}}
    more = {"data": [{"x": [1]}, {"y": [3]}, {"y": [4]}], "layout": {"title": "t", "xaxis": {}}}
    for fig in (base, same_shape, more):
        assert apply(base, patch(base, fig)) == fig
    p = patch(base, same_shape)
    assert p["traces"] == {"0": {"x": [1, 5]}} and p["drop"] == {"0": ["hover"]}
    assert p["layout"] == {"title": "u"} and p["layout_drop"] == ["xaxis"]
    assert patch(base, base) == {}
    assert "data" in patch(base, more)


def test_a_patch_compares_parts_as_json_not_as_python_values():
    """1, 1.0 and True are == in Python but three different JSON texts (a frame that changes one
    for another is a change); NaN != NaN in Python but the same text (no change); one base's
    texts, kept across patches, give what a fresh comparison gives."""
    from dpviz.frames import _BaseTexts

    base = {"data": [{"x": 1, "y": float("nan"), "z": [1.0, 2.0]}], "layout": {"w": True, "h": 1}}
    frames = [
        {"data": [{"x": 1.0, "y": float("nan"), "z": [1.0, 2.0]}], "layout": {"w": 1, "h": 1}},
        {"data": [{"x": True, "y": float("nan"), "z": [1, 2]}], "layout": {"w": True, "h": 1.0}},
        base,
    ]
    texts = _BaseTexts(base)
    kept = [patch(base, f, texts) for f in frames]
    assert kept == [patch(base, f) for f in frames]
    assert kept[0] == {"traces": {"0": {"x": 1.0}}, "layout": {"w": 1}}
    assert kept[1] == {"traces": {"0": {"x": True, "z": [1, 2]}}, "layout": {"h": 1.0}}
    assert kept[2] == {}


def test_typed_arrays_are_exact_and_leave_everything_else():
    values = [0.1, 1 / 3, 2.0**-1074, 1e308, -0.0, 7, np.nextafter(1.0, 2.0)]
    fig = {
        "data": [
            {"x": values, "y": [1, 2], "text": ["a", "b", "c", "d"], "error_y": {"array": values}, "mode": "lines"},
            {"x": [True, False, True, False], "marker": {"size": [1, 2, 3, 4], "symbol": "x"}},
        ],
        "layout": {"xaxis": {"range": [0, 1, 2, 3]}},
    }
    out = typed_arrays(fig)
    assert out["data"][0]["x"]["dtype"] == "f8" and out["data"][0]["error_y"]["array"]["dtype"] == "f8"
    assert out["data"][0]["y"] == [1, 2]  # too short to gain
    assert out["data"][0]["text"] == ["a", "b", "c", "d"] and out["data"][1]["x"] == [True, False, True, False]
    assert out["data"][1]["marker"]["symbol"] == "x" and out["data"][1]["marker"]["size"]["dtype"] == "f8"
    assert out["layout"] == fig["layout"]  # axis ranges are not data
    assert close(out, fig, tol=0.0)
    decoded = frames._plain(out["data"][0]["x"])
    assert [float(v).hex() for v in decoded] == [float(v).hex() for v in values]  # bit for bit


def test_close_tells_numbers_apart():
    assert close({"a": [1.0, 2.0]}, {"a": [1.0, 2.0 + 1e-13]}, tol=1e-12)
    assert not close({"a": [1.0, 2.0]}, {"a": [1.0, 2.0 + 1e-9]}, tol=1e-12)
    assert not close({"a": 1}, {"b": 1}) and not close([1, 2], [1, 2, 3]) and not close("x", "y")
    assert close(float("nan"), float("nan")) and not close(float("nan"), 1.0)


def test_difference_says_where():
    a = {"data": [{"y": [0.1, 0.2]}, {"y": [1.0, 2.0]}], "layout": {}}
    b = {"data": [{"y": [0.1, 0.2]}, {"y": [1.0, 2.5]}], "layout": {}}
    assert frames.difference(a, a) is None
    assert frames.difference(a, b) == "data[1].y[1]: 2.0 against 2.5"
    assert frames.difference({"a": 1}, {"b": 1}) == "top: keys ['a', 'b'] in one only"
    assert frames.difference([1], [1, 2], path="x") == "x: 1 against 2 items"
    # typed arrays are read out: the path is the same as for lists
    typed = frames.typed_arrays({"data": [{"y": [0.0, 1.0, 2.0, 3.0]}]})
    assert frames.difference(typed, {"data": [{"y": [0.0, 1.0, 2.0, 3.5]}]}) == "data[0].y[3]: 3.0 against 3.5"


def test_the_grids_are_the_sliders():
    eps = registry.get("adept-epsilon").param("epsilon")
    assert slider_grid(eps) == log_grid(eps.min, eps.max)
    dim = registry.get("adept-epsilon").param("dim")
    g = slider_grid(dim)
    assert g == int_grid(1, 1024) and g[:20] == list(range(1, 21)) and 64 in g and 300 in g and g[-1] == 1024
    assert all(a < b for a, b in zip(g, g[1:]))
    assert slider_grid(dim, top=100)[-1] == 100
    assert int_grid(3, 7) == [3, 4, 5, 6, 7]
    with pytest.raises(ValueError):
        slider_grid(registry.get("adept-epsilon").param("max_dim"))
    # worked out once per bounds: a caller that changes its list changes nobody else's
    mine = log_grid(0.1, 10.0)
    mine.append(99.0)
    mine[0] = -1.0
    again = log_grid(0.1, 10.0)
    assert again[0] == 0.1 and 99.0 not in again and again is not mine
    whole = int_grid(3, 7)
    whole.clear()
    assert int_grid(3, 7) == [3, 4, 5, 6, 7]
    with pytest.raises(ValueError):  # refused bounds are refused on every call, not remembered as an answer
        log_grid(0.0, 1.0)
    with pytest.raises(ValueError):
        log_grid(0.0, 1.0)


def test_a_frame_is_found_only_on_the_grid():
    made = Frames("f", "s", "S", (1.0, 2.0), ({"data": [], "layout": {"a": 1}}, {"data": [], "layout": {"a": 2}}))
    assert made.at(2.0) == {"data": [], "layout": {"a": 2}} and made.at(1.5) is None


def _strict(value) -> str:
    """JSON text with sorted keys: 1, 1.0 and True are three different texts."""
    return json.dumps(value, sort_keys=True)


def test_plain_json_is_what_plotlys_json_reads_back_as():
    """frames.plain_json of a figure-like dict equals json.loads(pio.to_json(...)), type for type:
    non-finite floats as None, numpy scalars and arrays of numbers, text or objects as Python's,
    tuples as lists, long lists of numbers with and without a NaN, ints apart from floats and bools."""
    nan, inf = float("nan"), float("inf")
    fig = {
        "data": [
            {
                "x": [1, 2, 3, 4, 5],
                "y": [0.1, -0.0, 1e-300, 2.5, 7.0],
                "z": [1.0, nan, 3.0, inf, -inf],
                "text": ("a", "b<c>", "é"),
                "customdata": np.array(["p", "q"]),
                "ids": np.array([1, "two", None], dtype=object),
                "marker": {"size": np.int64(7), "opacity": np.float32(0.3), "showscale": np.bool_(True)},
                "width": np.array([2**63 - 1, 3], dtype="int64"),
                "visible": True,
                "meta": [True, False, 1, 1.0, None, nan],
                "hovertext": ["a", None, True, 3],
                "labels": [],
                "selectedpoints": np.arange(4, dtype="uint8"),
                "error_y": {"array": np.array([0.5, nan])},
            }
        ],
        "layout": {"title": {"text": "ε = 1"}, "xaxis": {"range": [np.float64(0.5), 2]}, "height": 420},
    }
    want = json.loads(pio.to_json(fig, validate=False))
    assert _strict(frames.plain_json(fig)) == _strict(want)


@pytest.mark.parametrize(
    "value",
    [
        {1: "a number as a key"},
        {"dates": np.array(["2026-12-02"], dtype="datetime64[D]")},
        {"set": {1, 2}},
        {"complex": 1j},
        {"text subclass": np.str_("x")},
    ],
    ids=["int-key", "datetime", "set", "complex", "np-str"],
)
def test_plain_json_refuses_what_it_does_not_make(value):
    """Whatever plain_json does not make is refused, and the drawer takes the text route for it."""
    with pytest.raises(frames.NotPlain):
        frames.plain_json(value)


def _draw_at_positions(draw, spec, values, slider, count):
    grid = slider_grid(spec.param(slider))
    out = []
    for v in grid[:: max(1, len(grid) // count)][:count]:
        at = dict(values, **{slider: v})
        df = spec.table(at)
        out.append((draw.frame(df, at), json.loads(_to_json(spec.figure_dict(df, at)))))
    return out


@pytest.mark.parametrize("figure,slider", [("hoho-live", "lambda_"), ("adept-violations", "dim")])
def test_the_drawer_makes_frames_without_their_text_once_checked(figure, slider):
    """Drawer.frame: the first frame by Plotly, the second by the fast drawing's text (and the plain
    dict checked against it), the rest as plain dicts; every one is Plotly's figure, type for type."""
    spec = registry.get(figure)
    values, _ = validate(spec.params, dict(spec.quick))
    draw = frames.Drawer(spec, _to_json)
    made = _draw_at_positions(draw, spec, values, slider, 5)
    assert draw.fast and draw.plain, draw.why
    for got, want in made:
        assert _strict(got) == _strict(want)


def test_a_drawer_whose_plain_dict_differs_keeps_the_text(monkeypatch):
    """A plain dict that is not the text's (a bug to mend) is not used: every frame comes from the text."""
    spec = registry.get("hoho-live")
    values, _ = validate(spec.params, dict(spec.quick))
    real = frames.Drawer._plain

    def off_by_a_bit(self, fig):
        out = real(self, fig)
        out["layout"]["height"] += 1
        return out

    monkeypatch.setattr(frames.Drawer, "_plain", off_by_a_bit)
    draw = frames.Drawer(spec, _to_json)
    made = _draw_at_positions(draw, spec, values, "lambda_", 4)
    assert draw.fast and draw.plain is False
    for got, want in made:
        assert _strict(got) == _strict(want)


def _plotly_draws(monkeypatch) -> list[str]:
    """Every figure_dict call drawn by Plotly (outside the fast drawing), by chart: a list that grows."""
    from dpviz import fast_figure, theme

    seen: list[str] = []
    real = registry.FigureSpec.figure_dict

    def counted(self, df, values):
        if theme.go.Figure is not fast_figure.Figure:
            seen.append(self.id)
        return real(self, df, values)

    monkeypatch.setattr(registry.FigureSpec, "figure_dict", counted)
    return seen


def test_a_chart_checked_once_is_not_checked_again_by_the_next_part_or_set(monkeypatch):
    """compute_frames remembers a chart whose first frame was Plotly's and whose second's plain dict
    was the text's: the next call (another part of the set, another slider) draws no frame by Plotly
    and its frames are still each position's figure; after forget_checks the chart is checked again."""
    frames.forget_checks()
    spec = registry.get("hoho-live")
    values, _ = validate(spec.params, dict(spec.quick))
    grid = slider_grid(spec.param("lambda_"))
    plotly = _plotly_draws(monkeypatch)
    compute_frames(spec, values, "lambda_", _to_json, grid=grid[:3])
    assert plotly == ["hoho-live"]  # the first part: its first frame drawn by Plotly as well
    second = compute_frames(spec, values, "lambda_", _to_json, grid=grid[3:6])
    other = compute_frames(spec, values, "epsilon", _to_json, grid=slider_grid(spec.param("epsilon"))[:3])
    assert plotly == ["hoho-live"]  # neither the next part nor the other slider drew one
    for made, slider in ((second, "lambda_"), (other, "epsilon")):
        for v, frame in zip(made.grid, made.figures):
            at = dict(values, **{slider: v})
            direct = typed_arrays(json.loads(_to_json(registry.FigureSpec.figure_dict(spec, spec.table(at), at))))
            assert close(frame, direct, tol=0.0), f"{slider} = {v}"
    assert plotly[1:] and set(plotly) == {"hoho-live"}  # (the direct drawings above: the count sees Plotly)
    frames.forget_checks()
    del plotly[:]
    compute_frames(spec, values, "lambda_", _to_json, grid=grid[:3])
    assert plotly == ["hoho-live"]


def test_a_chart_checked_ahead_draws_its_first_set_without_plotly(monkeypatch):
    """check_drawing (a worker warming a page) draws the chart once by Plotly and once fast, at the
    page's setting; the chart's first set then draws no frame by Plotly, and its frames are still
    each position's figure. A second check draws nothing; a chart drawn otherwise by the fast
    drawing is not remembered (its set checks it, and is Plotly's)."""
    from dpviz import fast_figure

    frames.forget_checks()
    spec = registry.get("metric-live")
    values, _ = validate(spec.params, dict(spec.quick))
    plotly = _plotly_draws(monkeypatch)
    assert frames.check_drawing(spec, values, _to_json) is True
    assert plotly == ["metric-live"]
    assert frames.check_drawing(spec, values, _to_json) is True and plotly == ["metric-live"]
    grid = slider_grid(spec.param("epsilon"))[::16]
    made = compute_frames(spec, values, "epsilon", _to_json, grid=grid)
    assert plotly == ["metric-live"]  # (the set drew none)
    for v, frame in zip(made.grid, made.figures):
        at = dict(values, epsilon=v)
        assert close(frame, typed_arrays(json.loads(_to_json(spec.figure_dict(spec.table(at), at)))), tol=0.0)
    frames.forget_checks()
    real = fast_figure.Figure.to_dict
    monkeypatch.setattr(fast_figure.Figure, "to_dict", lambda self: {**real(self), "layout": {}})
    assert frames.check_drawing(spec, values, _to_json) is False
    assert frames.Drawer(spec, _to_json, remember=True).fast is None
    frames.forget_checks()


def test_a_remembered_chart_still_falls_back_to_plotly_for_a_frame_the_fast_drawing_refuses(monkeypatch):
    """Remembered or not, a frame the fast drawing does not draw (Unsupported) is Plotly's."""
    from dpviz import fast_figure

    frames.forget_checks()
    spec = registry.get("adept-violations")
    values, _ = validate(spec.params, dict(spec.quick))
    grid = slider_grid(spec.param("dim"))
    compute_frames(spec, values, "dim", _to_json, grid=grid[:3])
    assert frames.Drawer(spec, _to_json, remember=True).fast is True
    assert frames.Drawer(spec, _to_json).fast is None  # (a drawer that is not told to remember checks)

    def refuse(self):
        raise fast_figure.Unsupported("a refusal for the test")

    monkeypatch.setattr(fast_figure.Figure, "to_dict", refuse)
    made = compute_frames(spec, values, "dim", _to_json, grid=grid[3:6])
    for v, frame in zip(made.grid, made.figures):
        at = dict(values, **{"dim": v})
        assert close(frame, typed_arrays(json.loads(_to_json(spec.figure_dict(spec.table(at), at)))), tol=0.0)
    frames.forget_checks()


def test_frames_along_a_slider_a_marked_figures_fixed_part_depends_on_keep_no_part():
    """ADePT's ε curves: their fixed part (the curves at ε) is new at every position of ε, and its
    mark is n's. Its frames along ε keep none of their parts in the process's memo of fixed parts,
    which another chart's part stays in; a part kept already is used; and another thread, a
    visitor's run, keeps its parts meanwhile."""
    import threading

    spec, other = registry.get("adept-epsilon"), registry.get("adept-sensitivity")
    assert spec.mark is not None and "epsilon" not in spec.live
    values, _ = validate(spec.params, dict(spec.quick))
    others, _ = validate(other.params, dict(other.quick))
    for key in registry._BASES.keys():
        registry._BASES.discard(key)
    other.figure_dict(other.table(others), others)
    spec.figure_dict(spec.table(values), values)  # its part at the setting's own ε, kept
    kept = set(registry._BASES.keys())
    grid = slider_grid(spec.param("epsilon"))
    picked = [grid[0], values["epsilon"], grid[-1]]
    made = compute_frames(spec, values, "epsilon", _to_json, grid=picked)
    assert set(registry._BASES.keys()) == kept  # nothing added, nothing pushed out
    for v, fig in zip(picked, made.figures):  # and the frames are the figures drawn there
        at = dict(values, epsilon=v)
        assert close(fig, typed_arrays(json.loads(_to_json(spec.figure_dict(spec.table(at), at)))))
    assert len(registry._BASES.keys()) == len(kept) + 2  # (drawn directly: kept, as before)
    elsewhere = dict(values, epsilon=grid[len(grid) // 4])  # a part nothing drew yet

    def visitor():
        spec.figure_dict(spec.table(elsewhere), elsewhere)

    with registry.bases_not_kept():
        beside = threading.Thread(target=visitor)
        beside.start()
        beside.join()
    assert len(registry._BASES.keys()) == len(kept) + 3  # the other thread kept its part
    assert not getattr(registry._UNKEPT, "on", False)


def test_a_list_is_typed_when_every_item_is_a_number_and_only_then():
    """``frames._numbers`` (the items' types read as a set first) against its definition, item by
    item: at least MIN_TYPED items, each an int or a float (numpy's float64, a float subclass, too)
    and none a bool, a None or text."""
    import enum

    class Level(enum.IntEnum):
        LOW = 1

    def by_definition(value):
        return (
            isinstance(value, list)
            and len(value) >= frames.MIN_TYPED
            and all(isinstance(x, (int, float)) and not isinstance(x, bool) for x in value)
        )

    cases = [
        [1, 2, 3, 4],
        [1.5, 2, -0.0, float("nan"), float("inf")],
        [1, 2, 3],  # too short
        [1, 2, 3, True],
        [True, False, True, False],
        [1, 2, None, 4],
        [1, 2, "3", 4],
        [np.float64(1.0), 2.0, 3.0, 4.0],
        [np.int64(1), 2, 3, 4],  # numpy's int64 is not an int
        [Level.LOW, 2, 3, 4],
        [[1, 2], [3, 4], [5, 6], [7, 8]],
        (1, 2, 3, 4),  # a tuple is not a list
        [],
    ]
    for value in cases:
        assert frames._numbers(value) == by_definition(value), value
    typed = typed_arrays({"data": [{"x": [np.float64(0.1), 0.2, 0.3, 0.4], "y": [1, 2, 3, True]}]})["data"][0]
    assert list(frames._plain(typed["x"])) == [0.1, 0.2, 0.3, 0.4] and typed["y"] == [1, 2, 3, True]
