"""Texts fitted to a chart's width (dpviz.text_fit; the browser runs the same rules in
webui/live_js/, checked in tests/browser/test_accessibility.py at 1280 and 390 px)."""

import re

import plotly.graph_objects as go
import pytest

from dpviz import export, registry
from dpviz.text_fit import _decade, _thinned, fit_layout, fit_names, text_width, wrap


def _lines(text):
    return re.split(r"<br\s*/?>", text)


@pytest.mark.parametrize("room", [60, 150, 400])
def test_wrapped_lines_fit_their_room_and_keep_every_word(room):
    text = "At n = 64, ε = 1, one release exceeds the claim with probability 29.77%"
    lines = _lines(wrap(text, 17, room))
    assert " ".join(lines) == text  # nothing lost, nothing added
    for line in lines:  # each line fits, unless it is a single word longer than the room
        assert text_width(line, 17) <= room or " " not in line
    assert len(lines) == 1 if text_width(text, 17) <= room else len(lines) > 1


def test_a_small_type_line_is_wrapped_inside_its_tag_at_its_size():
    text = "Main<br><sup>settings: one two three four five six seven eight nine ten</sup>"
    lines = _lines(wrap(text, 20, 120))
    assert lines[0] == "Main" and len(lines) > 2
    assert all(line.startswith("<sup>") and line.endswith("</sup>") for line in lines[1:])
    assert all(text_width(line, 14) <= 120 or " " not in line[5:-6] for line in lines[1:])


def test_a_title_that_fits_keeps_its_text_and_the_margins_their_size():
    layout = {"title": {"text": "Short"}, "margin": {"t": 90, "b": 60, "l": 70, "r": 30}, "height": 500}
    out = fit_layout(layout, 900, {"font": {"size": 14}})
    assert out["title"]["text"] == "Short" and out["margin"]["t"] == 90 and out["height"] == 500
    assert out["title"]["yanchor"] == "top" and out["title"]["yref"] == "container"


def test_a_long_title_wraps_and_the_chart_grows_by_the_room_it_needs():
    text = "A title far too long for a phone's width, with its settings in small type<br><sup>seed 0</sup>"
    layout = {"title": {"text": text, "font": {"size": 17}}, "margin": {"t": 50, "b": 60, "l": 70, "r": 30}}
    out = fit_layout({**layout, "height": 500}, 390)
    lines = len(_lines(out["title"]["text"]))
    assert lines > 2
    assert out["margin"]["t"] >= lines * 17 * 1.3  # every line, at the title's size
    assert out["height"] == 500 + out["margin"]["t"] - 50


def test_a_legend_below_the_plot_is_anchored_to_the_bottom_with_room_for_its_rows():
    traces = [{"name": f"a fairly long legend entry number {k}"} for k in range(4)]
    layout = {"legend": {"orientation": "h", "y": -0.2}, "margin": {"t": 90, "b": 60, "l": 70, "r": 30}}
    wide, narrow = fit_layout(layout, 1200, None, traces), fit_layout(layout, 390, None, traces)
    for out in (wide, narrow):  # its top just under the x axis, in the plot's fractions
        plot = 450 - out["margin"]["t"] - out["margin"]["b"]
        assert out["legend"]["yanchor"] == "top" and -out["legend"]["y"] * plot == pytest.approx(14 * 1.3 + 8 + 6)
    assert narrow["margin"]["b"] > wide["margin"]["b"] > 60  # more rows at a phone's width


def test_a_legend_below_the_plot_gets_the_room_its_rows_need_and_no_more():
    """A figure that sized its bottom margin for one legend row an entry (a narrow column: the
    frontiers) gives back, at a known width, what its rows do not take: the chart shorter by as
    much, the plot's height the same (an image; on the page the element keeps its height and the
    plot grows); a legend that needs more than the figure's margin gets more. The room is the
    rows' as Plotly draws them: 14 x 1.3 + 13 px a row at 14-px type, 10 px of border."""
    traces = [{"name": f"curve {k}"} for k in range(5)]
    layout = {"legend": {"orientation": "h", "y": -0.22}, "margin": {"t": 90, "b": 230, "l": 70, "r": 30}}
    layout["height"] = 660
    axis = 14 * 1.3 + 8 + 12  # the x axis's tick labels, then the gap above the legend

    def rows(k, px=14):  # k rows of entries, the border's padding
        return k * (px * 1.3 + 13) + 10

    wide = fit_layout(layout, 900, None, traces)  # five short entries: one row at 900 px
    assert wide["margin"]["b"] == round(axis + rows(1) + 4) < 230
    assert wide["height"] == 660 - (230 - wide["margin"]["b"])  # the plot as tall as before
    one_row = fit_layout({**layout, "margin": {**layout["margin"], "b": 20}}, 900, None, traces)
    assert one_row["margin"]["b"] == wide["margin"]["b"]  # (what the rows need, whatever the figure set)
    phone = fit_layout(layout, 390, None, traces)  # 12-px legend type on a phone: two rows
    assert phone["margin"]["b"] == round(axis + rows(2, 12) + 4)
    many = [{"name": f"a long legend entry that takes a row of its own, number {k}"} for k in range(8)]
    assert fit_layout(layout, 900, None, many)["margin"]["b"] == round(axis + rows(8) + 4) > 230


def test_a_legend_inside_the_plot_wider_than_its_room_moves_below_on_a_phone():
    traces = [{"name": "true L1 sensitivity 2C√n (what Laplace needs)"}, {"name": "claimed sensitivity 2C"}]
    layout = {"legend": {"x": 0.01, "y": 0.99}, "margin": {"l": 70, "r": 30}}
    assert fit_layout(layout, 1200, None, traces)["legend"]["y"] == 0.99  # fits: stays
    moved = fit_layout(layout, 390, None, traces)["legend"]
    assert moved["y"] < 0 and moved["orientation"] == "h"


def test_thinned_log_ticks_keep_the_powers_of_ten():
    labels = ["0.1", "0.2", "0.5", "1", "2", "5", "10", "20", "50", "100"]
    axis = {"tickvals": [float(t) for t in labels], "ticktext": labels}
    out = _thinned(axis, 30, 100)  # room for 3 of the 10
    assert out["ticktext"] == ["0.1", "1", "10", "100"]
    assert out["tickvals"] == [0.1, 1.0, 10.0, 100.0]
    assert _thinned(axis, 10, 1000) is axis  # room enough: untouched
    assert [_decade(t) for t in ("1,000", "0.001", "10<sup>-5</sup>", "2×10<sup>5</sup>", "20")] == [1, 1, 1, 0, 0]


def test_a_legend_name_longer_than_the_chart_is_wrapped():
    traces = [{"name": "beaten: another curve gives more utility at this privacy"}, {"name": "short"}]
    out = fit_names(traces, 390, 12)
    assert "<br>" in out[0]["name"] and out[1] is traces[1]


def test_an_exported_image_is_fitted_to_its_width():
    _, _, fig = registry.run("adept-privacy-loss", {"samples": "2000"})
    narrow = export.fitted(fig, 390)
    assert narrow.layout.height > (fig.layout.height or 500)
    assert all(text_width(line, 17) <= 390 for line in _lines(narrow.layout.title.text)[:2])
    assert export.fitted(go.Figure(), 900).layout.title.text is None  # a figure without a title


def test_a_points_label_goes_under_its_point_on_a_phone_and_stays_beside_it_on_a_screen():
    """ADePT's marked point: its label (no arrow, named "mark") is beside the ring on a wide chart
    and straight under it, in smaller type, on a phone; next to other panels it is left out."""
    _, _, fig = registry.run("adept-sensitivity", {})
    layout = fig.to_plotly_json()["layout"]
    template = layout["template"]["layout"]

    def mark(out):
        return next(a for a in out["annotations"] if a.get("name") == "mark")

    wide, narrow = mark(fit_layout(layout, 1200, template)), mark(fit_layout(layout, 390, template))
    assert wide["xanchor"] == "right" and wide["xshift"] < 0 and wide["yanchor"] == "bottom"
    assert narrow["xanchor"] == "center" and narrow["xshift"] == 0
    assert narrow["yanchor"] == "top" and narrow["yshift"] < 0  # under the point
    assert narrow["font"]["size"] < 14 and narrow.get("visible", True)
    _, _, two = registry.run("adept-epsilon", {})  # two panels side by side
    out = two.to_plotly_json()["layout"]
    assert mark(fit_layout(out, 390, out["template"]["layout"])).get("visible") is False


def test_no_live_chart_labels_a_point_with_an_annotation_arrow():
    """Plotly measures an annotation arrow's path on every draw (getTotalLength forces the page's
    layout: 6 ms of ADePT's 16 ms redraw of its sensitivity chart), so a chart redrawn at every
    step of a drag labels its points without one."""
    arrows = {}
    for spec in registry.all_figures():
        if not spec.live or spec.on_demand:
            continue
        _, _, fig = registry.run(spec.id, spec.quick or {})
        found = [a.text for a in fig.layout.annotations if a.showarrow is not False]
        if found:
            arrows[spec.id] = found
    assert not arrows, arrows


def test_a_legend_beside_the_plot_taking_much_of_a_columns_width_moves_under_it():
    """A legend beside the plot whose widest entry takes more than BESIDE_SHARE of the chart's
    width goes under the plot at any width (the budget page's 597-px column left its plot a third
    of the chart); at a width where it takes less it stays beside."""
    traces = [{"name": "Advanced, optimal (Kairouz et al.)"}, {"name": "Basic composition (kε)"}]
    layout = {"margin": {"t": 90, "b": 60, "l": 70, "r": 30}, "height": 500}
    column, wide = fit_layout(layout, 597, None, traces), fit_layout(layout, 1200, None, traces)
    assert text_width(traces[0]["name"], 14) + 60 > 0.4 * 597  # (the case: more than the share at 597)
    assert column["legend"]["orientation"] == "h" and column["legend"]["y"] < 0
    assert column["margin"]["b"] > 60
    assert "legend" not in wide or wide["legend"].get("y") is None  # beside the plot, as the figure had it
