"""The lesson panel's view (declared in dpviz/tools/lessons/): the lesson chooser and class mode
above; then the step (back/next, the step in the URL), its prose, its charts live as on the paper
pages (the sliders the step allows, side by side where it compares two settings, each with its
"open on its page" link), the prediction box, and the answer beside the prediction with the
step's explanation. In a class (``webui/panels/lesson_class.py``) the teacher leads, students
follow, and the projector shows the class without controls. The projector view drops the
sidebar and enlarges the type."""

from __future__ import annotations

import dataclasses
import math
from typing import Any
from urllib.parse import urlencode

import streamlit as st

from dpviz import hosted_mode, lessons, papers, registry
from dpviz.errors import InputError
from dpviz.lessons.answers import close_enough, shown
from dpviz.lessons.format import ChartRef, Question
from dpviz.page_report import url_path
from dpviz.params import format_value, validate
from webui import identity
from webui.panels import lesson_class
from webui.panels.lesson_class import Seat, go, lessons_page
from webui.report_box import report_maker
from webui.side_by_side import two_charts
from webui.url_state import app_base
from webui.widgets import widget_state, widgets

PROJECTOR_CSS = """<style>
[data-testid="stSidebar"], [data-testid="stSidebarCollapsedControl"], [data-testid="stHeader"] {display: none;}
[data-testid="stMainBlockContainer"] {max-width: 100%; padding: 1rem 2.5rem;}
[data-testid="stMarkdownContainer"] p, [data-testid="stMarkdownContainer"] li {font-size: 1.45rem; line-height: 1.5;}
h1 {font-size: 2.6rem !important;} h2, h3 {font-size: 2rem !important;}
</style>"""


def chooser(panel) -> None:
    """Above the step: the lesson, the projector switch, and class mode (start, or join by code)."""
    available = list(lessons.available())
    current = st.session_state.get("lesson", "adept")
    code = st.session_state.get("code", "")
    if st.session_state.get("present"):
        if st.button("Leave the projector view", key="present-off", icon=":material/close_fullscreen:"):
            go(present=False)
        return
    left, mid, right = st.columns([3, 1.2, 1.2])
    if not code:
        titles = {}
        for name in available:
            try:
                from dpviz.tools.lessons.compute import lesson_named

                titles[name] = lesson_named(name).title
            except InputError:
                titles[name] = f"{name} (cannot be used: python -m dpviz lesson check)"
        index = available.index(current) if current in available else None
        picked = left.selectbox(
            "Lesson", available, index=index, format_func=lambda n: titles.get(n, n), key="_lesson_pick"
        )
        if picked is not None and picked != current:
            go(lesson=picked, step=1)
    if mid.button("Projector view", key="present-on", icon=":material/open_in_full:", use_container_width=True):
        go(present=True)
    with right.popover("Class mode", icon=":material/groups:", use_container_width=True):
        lesson_class.controls(current, code)


def show(result, values: dict[str, Any]) -> None:
    """The step of the lesson (``result``: :class:`dpviz.tools.lessons.compute.LessonStep`)."""
    lesson, number, step = result.lesson, result.number, result.step
    code, present = values["code"], values["present"]
    if present:
        st.markdown(PROJECTOR_CSS, unsafe_allow_html=True)
    place = lesson_class.seat(code, lesson.name, number, present)
    if place.info is not None:
        identity.keep_in_browser(place.code)
    total = len(lesson.steps)
    st.header(f"{lesson.title}", anchor="lesson")
    lesson_class.banner(place)
    if place.info is not None:
        lesson_class.follow(place.code, number)
    st.progress(number / total, text=f"Step {number} of {total}: {step.title}")
    if place.role in ("solo", "teacher"):
        _nav(number, total, place)
    elif place.role == "student":
        _nav(number, total, place, disabled=True)
    st.subheader(step.title, anchor=f"step-{number}")
    if step.text:
        st.markdown(step.text)
    for k, chart in enumerate(step.charts):
        _chart(lesson.name, number, k, chart)
    if step.question is not None:
        _question(lesson.name, number, step, result.answer, place)
    else:
        _revealed(lesson.name, number, step)
    if not present and place.role != "student":
        _report(lesson.name, number)


def _report(lesson: str, number: int) -> None:
    """The lesson (or this step) as one report: its text, the computed answers and every chart."""
    from dpviz.page_report.lesson import build_lesson

    with st.expander("This lesson as one report (HTML, PDF or notebook)", icon=":material/description:"):
        st.caption(
            "Every step's text, each question with the answer dpviz computes, and every chart at the lesson's "
            "settings: a handout, or the record of a class."
        )
        only = st.toggle(f"Only step {number}", key=f"report-step-only-{lesson}")
        step = number if only else None

        def build(progress, draw):
            base = app_base(lessons_page())
            return build_lesson(lesson, step, base_url=base, progress=progress, draw=draw)

        stem = f"dpviz-lesson-{lesson}" + (f"-step{number}" if only else "")
        report_maker(f"lesson-{lesson}", stem, (lesson, step), build)


def _nav(number: int, total: int, place: Seat, disabled: bool = False) -> None:
    left, _, right = st.columns([1, 4, 1])
    back = left.button("◀ Back", key="step-back", disabled=disabled or number <= 1, use_container_width=True)
    nxt = right.button("Next ▶", key="step-next", disabled=disabled or number >= total, use_container_width=True)
    if back or nxt:
        new = number - 1 if back else number + 1
        if place.role == "teacher" and not lesson_class.move(place, new):
            return
        go(step=new)


def _settings(spec, raw: dict[str, str]) -> dict[str, Any]:
    values, errors = validate(spec.params, raw, hosted=hosted_mode())
    if errors:  # checked when the lesson was read; a hosted cap may differ from where it was written
        raise InputError(" ".join(errors))
    return values


def _page_link(spec, values: dict[str, Any]) -> str:
    paper = papers.get(spec.page)
    query = {p.name: format_value(p, values[p.name]) for p in spec.params if values[p.name] != p.default}
    return f"{app_base(lessons_page())}/{url_path(paper.page)}?{urlencode(query)}#{spec.id}"


def _chart(lesson: str, number: int, k: int, chart: ChartRef) -> None:
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
    two_charts(spec, sides, key=f"lesson-chart-{lesson}-{number}-{k}", caption=link)


def _question(lesson: str, number: int, step, truth, place: Seat) -> None:
    q: Question = step.question
    key = f"{lesson}-{number}"
    st.markdown(f"#### Predict\n{q.ask}")
    if place.role == "projector":
        _projector_question(lesson, number, step, truth, place)
        return
    mine = lesson_class.saved_prediction(place, key, number)
    pending = st.session_state.get(lesson_class.pending_key(key))
    if pending is not None:
        mine = pending[1]
        st.markdown(f"Your prediction: **{shown(q, mine)}**")
        st.caption("Not saved yet: the class server is not answering (it may be restarting); retrying every 2 s.")
    elif mine is None:
        _prediction_form(q, key, number, place)
    else:
        st.markdown(f"Your prediction: **{shown(q, mine)}**")
    if place.role == "teacher":
        lesson_class.answers(place.code, number, q, truth.value)
    revealed = st.session_state.get(f"_shown-{key}", False)
    if not revealed:
        teacher = place.role == "teacher"
        if st.button("Reveal the answer", key=f"reveal-{key}", disabled=mine is None and not teacher):
            if teacher:
                lesson_class.reveal(place, number)
            go(**{f"_shown-{key}": True})
        if mine is None and not teacher:
            st.caption("Commit to a prediction first; then the answer can be revealed.")
        return
    _answer(q, truth, mine)
    _revealed(lesson, number, step)


def _prediction_form(q: Question, key: str, number: int, place: Seat) -> None:
    with st.form(f"_form-{key}", border=True):
        if q.choices:
            value = st.radio("Your prediction", list(q.choices), index=None, key=f"_in-{key}", horizontal=True)
        else:
            unit = f" ({q.unit})" if q.unit else ""
            value = st.number_input(
                f"Your prediction{unit}",
                min_value=q.low,
                max_value=q.high,
                value=None,
                step=10.0**-q.digits if q.digits else 1.0,
                format=f"%.{q.digits}f",
                key=f"_in-{key}",
            )
        sent = st.form_submit_button("Lock in my prediction", type="primary")
    if not sent:
        return
    if value is None or (isinstance(value, float) and not math.isfinite(value)):
        st.warning("Enter a prediction first: commit to a number (or a choice) before you see the answer.")
        return
    if q.choices and value not in q.choices:
        st.warning(f"Choose one of {', '.join(q.choices)}.")
        return
    value = value if q.choices else float(value)
    if place.role == "student":
        refused = lesson_class.send_prediction(place, key, number, value)
        if refused:
            st.error(refused)
            return
        if lesson_class.pending_key(key) in st.session_state:
            st.rerun()
    go(**{f"_pred-{key}": value})


def _projector_question(lesson: str, number: int, step, truth, place: Seat) -> None:
    """The projector: how many answered, and once the teacher reveals, the answer and the class."""
    q: Question = step.question
    if place.info.revealed < number:
        lesson_class.answered(place.code, number)
        return
    _answer(q, truth, None)
    lesson_class.answers(place.code, number, q, truth.value)
    _revealed(lesson, number, step)


def _revealed(lesson: str, number: int, step) -> None:
    """The explanation and the charts shown with the answer."""
    if step.reveal:
        st.markdown(step.reveal)
    for k, chart in enumerate(step.reveal_charts):
        _chart(lesson, number, len(step.charts) + k, chart)


def _answer(q: Question, truth, mine) -> None:
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
