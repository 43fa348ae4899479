"""The house template (dpviz/theme.py): ``style`` sets it without Plotly's validation of the whole
template per figure, and the figure is the one the validated route gives, with a template of its
own (a change to one figure's template reaches neither the registered one nor another figure)."""

from __future__ import annotations

import plotly.graph_objects as go
import plotly.io as pio
import pytest

from dpviz import theme


def _validated(fig: go.Figure, title: str, height: int = theme.HEIGHT) -> go.Figure:
    theme.pio.templates  # noqa: B018 - registers the template
    return fig.update_layout(template=theme.TEMPLATE_NAME, title=title, height=height)


def _figures():
    yield go.Figure(go.Scatter(x=[1, 2, 3], y=[3, 1, 2], name="a"))
    yield go.Figure([go.Bar(x=["p", "q"], y=[1, 2]), go.Heatmap(z=[[1, 2], [3, 4]])])
    yield go.Figure(go.Scatter(x=[0.001, 1, 1000], y=[1, 2, 3])).update_layout(xaxis_type="log", legend_y=-0.3)


@pytest.mark.parametrize("k", range(3))
def test_style_gives_the_figure_the_validated_template_gives(k):
    fast = theme.style(list(_figures())[k], "A title", 420)
    slow = _validated(list(_figures())[k], "A title", 420)
    assert fast.to_dict() == slow.to_dict()
    assert pio.to_json(fast.to_dict(), validate=False) == pio.to_json(slow.to_dict(), validate=False)
    assert fast.layout.template.layout.colorway == theme.OKABE_ITO


def test_a_figures_template_is_its_own():
    a = theme.style(go.Figure(), "a")
    b = theme.style(go.Figure(), "b")
    a.update_layout(template_layout_font_size=31)
    assert a.layout.template.layout.font.size == 31
    assert b.layout.template.layout.font.size == 14
    assert pio.templates[theme.TEMPLATE_NAME].layout.font.size == 14


@pytest.mark.parametrize(
    "make",
    [
        lambda np: np.random.default_rng(1).standard_normal(300),
        lambda np: np.arange(-5, 60),
        lambda np: np.array([True, False, True]),
        lambda np: np.arange(2**62, 2**62 + 3, dtype="uint64"),
        lambda np: np.array([[1.5, 2.0], [3.0, 4.25]], dtype="float32"),
        lambda np: np.array([np.nan, np.inf, -0.0, 1e-320]),
        lambda np: np.array([], dtype=float),
    ],
    ids=["float64", "int64", "bool", "uint64-large", "float32-2d", "special", "empty"],
)
def test_a_numpy_arrays_values_are_read_as_its_items_would_be(make):
    """numeric_values reads a numpy array of numbers in one conversion: the same floats, in the
    same order and shape, as reading it item by item (its route for lists and tuples)."""
    import numpy as np

    value = make(np)
    got = theme.numeric_values(value)
    by_item = np.asarray(list(value), dtype=float).ravel()
    assert got.dtype == by_item.dtype and got.shape == by_item.shape
    assert np.array_equal(got, by_item, equal_nan=True)
    assert np.array_equal(np.signbit(got), np.signbit(by_item))


def test_text_and_categories_have_no_numeric_values():
    import numpy as np

    assert theme.numeric_values(np.array(["a", "b"])) is None
    assert theme.numeric_values(["a", 1.0]) is None
    assert theme.numeric_values("text") is None and theme.numeric_values(None) is None
