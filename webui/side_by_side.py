"""One chart at two settings, next to each other (A and B, each with its own values; the rest
shared): the box at the foot of every paper page, and a lesson step's ``compare:`` line."""

from __future__ import annotations

import html
import json
import re
from typing import Any, Sequence

import streamlit as st

from dpviz import hosted_mode, papers, registry
from dpviz.errors import InputError
from dpviz.page_report.comparison import build_comparison
from dpviz.params import MAX_RAW_LENGTH, Param, canonical_query, check_hosted_cap, format_value, parse_value
from dpviz.registry import FigureSpec
from webui import live_frames, views
from webui.figure_card import chart_frames
from webui.plotly_element import ChartJSON, plotly_json_chart
from webui.report_box import report_maker
from webui.url_state import app_base, current_values


def two_charts(
    spec: FigureSpec, sides: Sequence[tuple[str, dict[str, Any]]], key: str, caption=None, live: Sequence = ()
) -> None:
    """The figure drawn once per side, next to each other, or one above the other when it does not
    read at half the width (:func:`fits_half_width`); ``sides`` holds
    (label, values) pairs; ``caption(values)`` (optional) is written under each chart. ``live``:
    sliders (Params) the charts follow while they move, drawn in the browser from their frames
    (:func:`webui.figure_card.chart_frames`)."""
    charts = []
    for label, values in sides:
        try:
            charts.append(views.cached_view(spec, values)[1])
        except InputError as err:
            charts.append(f"{label + ': ' if label else ''}this chart cannot be drawn with these settings: {err}")
    stacked = any(not isinstance(c, str) and not fits_half_width(c) for c in charts)
    if not stacked:
        charts = [c if isinstance(c, str) else legend_below(c) for c in charts]
    places = [st.container() for _ in sides] if stacked else st.columns(len(sides))
    for where, (label, values), chart in zip(places, sides, charts):
        with where:
            if isinstance(chart, str):
                st.error(chart[:1].upper() + chart[1:])
                continue
            if label:
                st.markdown(f"**{label}**")
            sliders, mounts = {}, []
            if live and live_frames.enabled():
                sliders, _, mounts = chart_frames(where, spec, values, live)
            plotly_json_chart(
                where, chart, key=f"{key}-{label[:1] or 'chart'}", config={"displaylogo": False}, sliders=sliders
            )
            if caption is not None:
                st.caption(caption(values))
            for mount in mounts:  # the frames elements, hidden, last under the chart
                mount()


def legend_below(chart: ChartJSON) -> ChartJSON:
    """The chart with its legend in rows under the plot: at half width a legend inside the plot
    covers the lines (the sensitivity chart's legend hid the line and its mark at n = 256)."""
    spec = json.loads(chart.spec)
    layout = spec.setdefault("layout", {})
    layout["legend"] = {
        **layout.get("legend", {}),
        "orientation": "h",
        "x": 0,
        "xanchor": "left",
        "y": -0.2,
        "yanchor": "top",
    }
    return ChartJSON(json.dumps(spec, separators=(",", ":")), chart.height + 60)


HALF_WIDTH_TITLE = 60
"""Characters of a title line that fit a half-width chart (about 460 pixels) unclipped; a
subtitle line in small type may be about half as long again."""


def fits_half_width(chart: ChartJSON) -> bool:
    """Whether the chart reads at half the page's width: one panel (subplots, a second x axis,
    would run their axes into each other) and a title whose lines are not clipped."""
    if '"xaxis2"' in chart.spec:
        return False
    layout = json.loads(chart.spec).get("layout", {})
    title = layout.get("title", {})
    text = title.get("text", "") if isinstance(title, dict) else str(title)
    main, _, detail = text.partition("<br>")
    plain = lambda t: html.unescape(re.sub(r"<[^>]+>", "", t))  # noqa: E731
    return len(plain(main)) <= HALF_WIDTH_TITLE and len(plain(detail)) <= 1.5 * HALF_WIDTH_TITLE


def _value(p: Param, text: str) -> Any:
    value = parse_value(p, text)
    check_hosted_cap(p, value, hosted_mode())
    return value


def side_by_side_box(page: str, params: Sequence[Param], values: dict[str, Any]) -> None:
    """The paper page's side-by-side box: a chart of the page, one of its parameters, A and B."""
    st.header("Side by side", anchor="side-by-side")
    st.markdown(
        "Any chart of this page at two settings next to each other: choose the chart and the parameter that "
        "differs; everything else is shared with the page's settings above."
    )
    if not st.toggle("Compare two settings", key=f"sbs-on-{page}"):
        return
    specs = registry.paper_figures(page)
    left, mid, a_col, b_col = st.columns([2.2, 1.4, 1, 1])
    titles = {s.id: s.title for s in specs}
    spec = registry.get(left.selectbox("Chart", list(titles), format_func=titles.get, key=f"sbs-chart-{page}", index=0))
    choices = [p for p in spec.params if p.name != "seed"] or list(spec.params)
    p = mid.selectbox("Parameter", choices, format_func=lambda q: q.label, key=f"sbs-param-{page}-{spec.id}")
    current = current_values(list(params), values).get(p.name, p.default)
    texts = (
        a_col.text_input(
            "A", format_value(p, current), key=f"sbs-a-{page}-{spec.id}-{p.name}", max_chars=MAX_RAW_LENGTH
        ),
        b_col.text_input(
            "B", format_value(p, current), key=f"sbs-b-{page}-{spec.id}-{p.name}", max_chars=MAX_RAW_LENGTH
        ),
    )
    values = current_values(list(params), values)
    own = {q.name: values.get(q.name, q.default) for q in spec.params}
    sides = []
    for label, text in zip("AB", texts):
        try:
            sides.append((f"{label}: {p.label} = {text}", dict(own, **{p.name: _value(p, text)})))
        except InputError as err:
            st.error(f"{label}: {err}")
            return
    if texts[0] == texts[1]:
        st.caption(f"Give B another {p.label.lower()} than A to see the difference.")
    two_charts(spec, sides, key=f"sbs-{page}-{spec.id}")
    query = canonical_query(list(params), values)
    with st.expander("These two charts as one report (HTML, PDF or notebook)", icon=":material/description:"):

        def build(progress, draw):
            base = app_base(papers.get(page).page)
            return build_comparison(page, query, spec.id, p.name, *texts, base_url=base, progress=progress, draw=draw)

        state = (spec.id, p.name, texts, tuple(query.items()))
        report_maker(f"sbs-{page}", f"dpviz-{spec.id}-{p.name}-side-by-side", state, build)
