"""A student's prediction: the box to lock one in, one per step, saved in the class store under
the browser's student token; one the store could not take (the database restarting) is kept in
the session and saved at the next poll, and a reload, or a new session on another server process,
shows the saved one again without a click. Solo and the teacher use the same box, kept in the
session only."""

from __future__ import annotations

import math

import streamlit as st

from dpviz import classroom
from dpviz.errors import InputError
from dpviz.lessons.answers import shown
from dpviz.lessons.format import Question
from webui import identity
from webui.panels.lesson_pending import pending_key, send_prediction
from webui.panels.lesson_seat import Seat, go


def prediction(q: Question, key: str, number: int, place: Seat):
    """This seat's prediction for step ``number``: the one locked in (shown), one waiting for the
    store (shown, with a line saying so), or the box to lock one in; None while there is none."""
    mine = saved_prediction(place, key, number)
    pending = st.session_state.get(pending_key(key))
    if pending is not None:
        mine = pending[1]
        st.markdown(f"Your prediction: **{shown(q, mine)}**")
        st.caption("Not saved yet: the class server is not answering (it may be restarting); retrying every 2 s.")
    elif mine is None:
        prediction_form(q, key, number, place)
    else:
        st.markdown(f"Your prediction: **{shown(q, mine)}**")
    return mine


def saved_prediction(place: Seat, key: str, number: int):
    """A student's prediction for step ``number``: this session's, else the store's (a reload, or a
    new session on another process after a crash), else None."""
    mine = st.session_state.get(f"_pred-{key}")
    if mine is None and place.role == "student":
        try:
            mine = classroom.store().prediction_of(place.code, identity.student(), number)
        except InputError:
            mine = None
        if mine is not None:
            st.session_state[f"_pred-{key}"] = mine
    return mine


def prediction_form(q: Question, key: str, number: int, place: Seat) -> None:
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
        refused = send_prediction(place.code, key, number, value)
        if refused:
            st.error(refused)
            return
        if pending_key(key) in st.session_state:
            st.rerun()
    go(**{f"_pred-{key}": value})
