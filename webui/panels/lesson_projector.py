"""The projector's seat: the class link with ``present=true`` in a browser without the teacher's
secret. The step the teacher is on, in large type, without the sidebar or any control; before
the reveal only how many have answered, after it the answer and the class's predictions."""

from __future__ import annotations

import streamlit as st

from dpviz import classroom
from dpviz.errors import InputError
from dpviz.lessons.format import Question
from webui.panels import lesson_step, lesson_teacher
from webui.panels.lesson_seat import POLL, WAIT, Seat

PROJECTOR_CSS = """<style>
[data-testid="stSidebar"], [data-testid="stSidebarCollapsedControl"], [data-testid="stHeader"] {display: none;}
[data-testid="stMainBlockContainer"] {max-width: 100%; padding: 1rem 2.5rem;}
[data-testid="stMarkdownContainer"] p, [data-testid="stMarkdownContainer"] li {font-size: 1.45rem; line-height: 1.5;}
h1 {font-size: 2.6rem !important;} h2, h3 {font-size: 2rem !important;}
</style>"""


def question(lesson: str, number: int, step, truth, place: Seat) -> None:
    """The projector: how many answered, and once the teacher reveals, the answer and the class."""
    q: Question = step.question
    if place.info.revealed < number:
        answered(place.code, number)
        return
    lesson_step.answer(q, truth, None)
    lesson_teacher.answers(place.code, number, q, truth.value)
    lesson_step.revealed(lesson, number, step)


@st.fragment(run_every=POLL)
def answered(code: str, number: int) -> None:
    """The projector before the reveal: how many have answered (no values, no truth)."""
    try:
        got = classroom.store().predictions(code, number, patience=WAIT)
    except InputError:
        return
    st.markdown(f"**{len(got)} answered.** The answer is shown when your teacher reveals it.")
