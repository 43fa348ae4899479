"""What the teacher's seat does and sees beyond the step: Back and Next move the whole class,
Reveal shows the answer on the projector, and the class's predictions are counted live beside
the truth (also the projector's view once revealed)."""

from __future__ import annotations

import streamlit as st

from dpviz import classroom
from dpviz.classroom import StoreUnavailable
from dpviz.errors import InputError
from dpviz.lessons.class_chart import predictions_figure
from dpviz.lessons.format import Question
from webui import identity
from webui.panels.lesson_seat import POLL, WAIT, Seat


def move(place: Seat, new: int) -> bool:
    """The teacher moves the class to step ``new``; False (with a sentence) if the store refused."""
    try:
        classroom.store().move(place.code, identity.teacher_secret(place.code), new)
    except StoreUnavailable:
        st.warning("The class server is not answering right now; press again in a moment.")
        return False
    except InputError as err:
        st.error(str(err))
        return False
    return True


def reveal(place: Seat, number: int) -> None:
    """The teacher reveals step ``number``'s answer to the projector (best effort: a store that is
    restarting only delays the projector, the teacher's own page shows the answer)."""
    try:
        classroom.store().reveal(place.code, identity.teacher_secret(place.code), number)
    except InputError:
        pass


@st.fragment(run_every=POLL)
def answers(code: str, number: int, q: Question, truth) -> None:
    """The class's predictions beside the truth (the teacher's view; the projector's once revealed)."""

    got = st.session_state.get(f"_class-got-{code}-{number}")
    try:
        got = classroom.store().predictions(code, number, patience=WAIT)
        st.session_state[f"_class-got-{code}-{number}"] = got
    except StoreUnavailable:
        if got is None:
            st.caption("Counting the class's answers: the class server is not answering yet.")
            return
    except InputError as err:
        st.error(str(err))
        return
    st.markdown(f"**Your class:** {len(got)} answered.")
    fig = predictions_figure(q, got, truth)
    st.plotly_chart(fig, key=f"class-chart-{code}-{number}", config={"displaylogo": False})
