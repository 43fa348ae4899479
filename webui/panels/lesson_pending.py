"""A student's prediction on its way to the class store: sent, or, when the store does not
answer (the database restarting), kept in the session and sent again at the next poll. Its own
module so that the class's poll (:mod:`webui.panels.lesson_seat`) and the prediction box
(:mod:`webui.panels.lesson_student`) both use it and neither imports the other."""

from __future__ import annotations

import streamlit as st

from dpviz import classroom
from dpviz.classroom import StoreUnavailable
from dpviz.errors import InputError
from webui import identity


def pending_key(key: str) -> str:
    """The session key of a student's prediction that is not saved yet."""
    return f"_pending-{key}"


def send_prediction(code: str, key: str, number: int, value) -> str | None:
    """Save a student's prediction; returns a sentence if it is not saved yet (kept and retried at
    every poll) or refused (a limit), None when saved."""
    try:
        classroom.store().predict(code, identity.student(), number, value, identity.client_address())
    except StoreUnavailable:
        st.session_state[pending_key(key)] = (number, value)
        return None
    except InputError as err:
        return str(err)
    st.session_state.pop(pending_key(key), None)
    return None


def save_pending(code: str) -> bool:
    """Save every prediction of this session that waits for the store; True if any was saved now."""
    saved = False
    for name in [k for k in st.session_state if str(k).startswith("_pending-")]:
        number, value = st.session_state[name]
        try:
            classroom.store().predict(code, identity.student(), number, value, identity.client_address())
        except StoreUnavailable:
            continue
        except InputError:
            pass
        del st.session_state[name]
        saved = True
    return saved
