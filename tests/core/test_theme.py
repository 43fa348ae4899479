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
