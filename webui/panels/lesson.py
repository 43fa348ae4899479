"""The lesson panel's view (declared in dpviz/tools/lessons/): the lesson chooser, the projector
switch and class mode above; then the step (back/next, the step in the URL), its prose, its
charts, the prediction box and the answer. The view is split by what it shows: this module lays
out the step for every seat; ``lesson_step`` draws its charts and answer; ``lesson_seat`` says
who this browser is in a class and follows the teacher; ``lesson_teacher``, ``lesson_student``
and ``lesson_projector`` hold what only that seat does or sees."""

from __future__ import annotations

from typing import Any

import streamlit as st

from dpviz import lessons
from dpviz.errors import InputError
from dpviz.lessons.format import Question
from dpviz.page_report.lesson import build_lesson
from dpviz.tools.lessons.compute import lesson_named
from webui import identity
from webui.panels import lesson_projector, lesson_seat, lesson_student, lesson_teacher
from webui.panels.lesson_seat import Seat, go, lessons_page
from webui.panels.lesson_step import answer, draw_chart, revealed
from webui.report_box import report_maker
from webui.url_state import app_base


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
        lesson_seat.controls(current, code)


def show(result, values: dict[str, Any]) -> None:
    """The step of the lesson (``result``: :class:`dpviz.tools.lessons.compute.LessonStep`)."""
    lesson, number, step = result.lesson, result.number, result.step
    code, present = values["code"], values["present"]
    if present:
        st.markdown(lesson_projector.PROJECTOR_CSS, unsafe_allow_html=True)
    place = lesson_seat.seat(code, lesson.name, number, present)
    if place.info is not None:
        identity.keep_in_browser(place.code)
    total = len(lesson.steps)
    st.header(f"{lesson.title}", anchor="lesson")
    lesson_seat.banner(place)
    if place.info is not None:
        lesson_seat.follow(place.code, number)
    st.progress(number / total, text=f"Step {number} of {total}: {step.title}")
    if place.role in ("solo", "teacher"):
        _nav(number, total, place)
    elif place.role == "student":
        _nav(number, total, place, disabled=True)
    st.subheader(step.title, anchor=f"step-{number}")
    if step.text:
        st.markdown(step.text)
    for k, chart in enumerate(step.charts):
        draw_chart(lesson.name, number, k, chart, step)
    if step.question is not None:
        _question(lesson.name, number, step, result.answer, place)
    else:
        revealed(lesson.name, number, step)
    if not present and place.role != "student":
        _report(lesson.name, number)


def _report(lesson: str, number: int) -> None:
    """The lesson (or this step) as one report: its text, the computed answers and every chart."""

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
        if place.role == "teacher" and not lesson_teacher.move(place, new):
            return
        go(step=new)


def _question(lesson: str, number: int, step, truth, place: Seat) -> None:
    q: Question = step.question
    key = f"{lesson}-{number}"
    st.markdown(f"#### Predict\n{q.ask}")
    if place.role == "projector":
        lesson_projector.question(lesson, number, step, truth, place)
        return
    mine = lesson_student.prediction(q, key, number, place)
    if place.role == "teacher":
        lesson_teacher.answers(place.code, number, q, truth.value)
    revealed_here = st.session_state.get(f"_shown-{key}", False)
    if not revealed_here:
        teacher = place.role == "teacher"
        if st.button("Reveal the answer", key=f"reveal-{key}", disabled=mine is None and not teacher):
            if teacher:
                lesson_teacher.reveal(place, number)
            go(**{f"_shown-{key}": True})
        if mine is None and not teacher:
            st.caption("Commit to a prediction first; then the answer can be revealed.")
        return
    answer(q, truth, mine)
    revealed(lesson, number, step)
