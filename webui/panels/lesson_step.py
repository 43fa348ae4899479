"""What every seat sees of a lesson's step: its charts, live as on the paper pages (the sliders
the step allows, side by side where it compares two settings, each with its "open on its page"
link), the answer beside a prediction, and the explanation and charts shown with the answer."""

from __future__ import annotations

import dataclasses
from typing import Any
from urllib.parse import urlencode

import streamlit as st

from dpviz import hosted_mode, papers, registry
from dpviz.errors import InputError
from dpviz.lessons.answers import close_enough, shown
from dpviz.lessons.format import ChartRef, Question
from dpviz.page_report import url_path
from dpviz.params import format_value, validate
from webui.panels.lesson_seat import lessons_page
from webui.side_by_side import two_charts
from webui.url_state import app_base
from webui.widgets import widget_label, widget_state, widgets


def _settings(spec, raw: dict[str, str]) -> dict[str, Any]:
    values, errors = validate(spec.params, raw, hosted=hosted_mode())
    if errors:  # checked when the lesson was read; a hosted cap may differ from where it was written
        raise InputError(" ".join(errors))
    return values


def _page_link(spec, values: dict[str, Any]) -> str:
    paper = papers.get(spec.page)
    query = {p.name: format_value(p, values[p.name]) for p in spec.params if values[p.name] != p.default}
    return f"{app_base(lessons_page())}/{url_path(paper.page)}?{urlencode(query)}#{spec.id}"


def _labels_elsewhere(step, chart: ChartRef) -> set[str]:
    """The slider labels of the step's other charts: the browser follows a slider by its label,
    so a chart whose slider shares one with another chart of the step is drawn by the server."""
    out = set()
    for other in (*step.charts, *step.reveal_charts) if step is not None else ():
        if other is not chart:
            spec = registry.get(other.figure)
            out |= {widget_label(spec.param(n)) for n in other.live}
    return out


def draw_chart(lesson: str, number: int, k: int, chart: ChartRef, step=None) -> None:
    """One chart of step ``number``: its sliders (the ones the step allows, named for this chart),
    then the chart, or A and B side by side; while a slider moves, drawn in the browser from the
    chart's frames as on the paper pages."""
    spec = registry.get(chart.figure)
    try:
        base = _settings(spec, dict(chart.settings))
    except InputError as err:
        st.error(f"This chart cannot be drawn here: {err}")
        return
    if chart.live:
        renamed = []
        for name in chart.live:
            p = spec.param(name)
            q = dataclasses.replace(p, name=f"_lesson_{lesson}_{number}_{k}_{name}")
            if q.name not in st.session_state:
                st.session_state[q.name] = widget_state(p, base[name])
            renamed.append((name, q))
        moved = widgets([q for _, q in renamed], list(st.columns(len(renamed))))
        base.update({name: moved[q.name] for name, q in renamed})
    sides = [("", base)]
    if chart.compare is not None:
        sides = []
        for label, side in zip("AB", chart.compare):
            values = dict(base, **{k2: v for k2, v in _settings(spec, dict(side)).items() if k2 in side})
            own = [(spec.param(k2).label, v) for k2, v in side.items() if chart.settings.get(k2) != v]
            changed = ", ".join(f"{name} = {v}" for name, v in own)
            sides.append((f"{label}: {changed}", values))
    link = lambda values: f"{spec.title}. [Open on its page ↗]({_page_link(spec, values)})"  # noqa: E731
    shared = _labels_elsewhere(step, chart)
    live = [spec.param(n) for n in chart.live if widget_label(spec.param(n)) not in shared]
    two_charts(spec, sides, key=f"lesson-chart-{lesson}-{number}-{k}", caption=link, live=live)


def revealed(lesson: str, number: int, step) -> None:
    """The explanation and the charts shown with the answer."""
    if step.reveal:
        st.markdown(step.reveal)
    for k, chart in enumerate(step.reveal_charts):
        draw_chart(lesson, number, len(step.charts) + k, chart, step)


def answer(q: Question, truth, mine) -> None:
    title = registry.get(q.cell.figure).title
    where = f"Computed by dpviz from the table of the chart “{title}” (its CSV download): {q.cell.describe()}."
    if mine is None:
        st.info(f"**The answer: {truth.shown}.** {where}", icon=":material/lightbulb:")
        return
    right = close_enough(q, mine, truth.value)
    box = st.success if right else st.warning
    verdict = "Close: your prediction holds." if right else "Not what you predicted."
    box(
        f"**The answer: {truth.shown}.** Your prediction: {shown(q, mine)}. {verdict} {where}",
        icon=":material/lightbulb:",
    )
