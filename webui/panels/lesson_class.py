"""Class mode on the Lessons page: who this browser is in the class (its seat), starting and
joining a class, following the teacher's step, and what each seat sees of the class's answers.

Seats:

- **teacher**: the browser holds the class's secret (:mod:`webui.identity`); Back and Next move
  the class, Reveal shows the answer on the projector, and the class's predictions are counted
  live beside the truth. A reload, a second tab and the projector view in the same browser keep it.
- **student**: joined by code or by the class link; follows the teacher's step; one prediction per
  step, kept in the class store under the browser's student token, so a reload or a reconnection
  to another server process shows it again without a click.
- **projector**: the class link with ``present=true`` in a browser without the secret: the step
  the teacher is on, no controls, the sidebar hidden; the class's answers once the teacher reveals.

Every page in a class asks the store where the class is every :data:`POLL` (one row), and a
student's prediction that could not be saved (the database restarting) is saved then. Nothing
here keeps state only in the server process: the URL carries the lesson, step and code.
"""

from __future__ import annotations

from dataclasses import dataclass
from urllib.parse import urlencode

import streamlit as st

from dpviz import classroom, tools
from dpviz.classroom import ClassInfo, StoreUnavailable
from dpviz.errors import InputError
from dpviz.lessons.format import Question
from dpviz.page_report import url_path
from webui import identity
from webui.url_state import app_base

POLL = "2s"
"""How often a page in a class asks where the class is, and the teacher's view counts answers."""
WAIT = 3.0
"""Seconds a polling read waits for a database that is restarting before trying at the next poll."""


@dataclass(frozen=True)
class Seat:
    """This browser's place in a class: ``role`` is "solo" (no class), "teacher", "student" or
    "projector"; ``info`` the class as stored (None when solo)."""

    role: str
    info: ClassInfo | None = None

    @property
    def code(self) -> str:
        """The class code ('' when solo)."""
        return self.info.code if self.info else ""


def go(**state) -> None:
    """Set session values (page parameters among them) and run the page again."""
    st.session_state.update(state)
    st.rerun()


def lessons_page() -> str:
    """The Lessons page's file."""
    return tools.get("lessons").page


def class_link(info: ClassInfo, present: bool = False) -> str:
    """The link a student (or, with ``present``, the projector) opens to be in the class."""
    query = {"lesson": info.lesson, "code": info.code, **({"present": "true"} if present else {})}
    return f"{app_base(lessons_page())}/{url_path(lessons_page())}?{urlencode(query)}"


def _is_teacher(code: str) -> bool:
    secret = identity.teacher_secret(code)
    if not secret:
        return False
    known = st.session_state.setdefault("_teacher_ok", {})
    if code not in known:
        known[code] = classroom.store().is_teacher(code, secret)
        if not known[code]:
            identity.forget_teacher(code)
    return known[code]


def seat(code: str, lesson: str, number: int, present: bool) -> Seat:
    """This browser's seat in class ``code`` (solo without one). Anyone whose lesson or step differs
    from the class's is moved there (a reload at an old link, a second tab, a student joining late).
    A class that cannot be read is a sentence, and the lesson works on its own."""
    if not code:
        return Seat("solo")
    try:
        info = classroom.store().get(code)
        teacher = _is_teacher(info.code)
        if not teacher and not present:
            joined = st.session_state.setdefault("_joined", set())
            if info.code not in joined:
                classroom.store().join(info.code, identity.student(), identity.client_address())
                joined.add(info.code)
    except StoreUnavailable:
        st.warning(
            "The class server is not answering right now (it may be restarting); this page tries again in a "
            "moment, and the lesson works on its own meanwhile.",
            icon=":material/sync_problem:",
        )
        _retry_soon()
        return Seat("solo")
    except InputError as err:
        st.error(f"{err} The lesson works on its own below.")
        return Seat("solo")
    if info.lesson != lesson or info.step != number:
        go(lesson=info.lesson, step=info.step)
    return Seat("teacher" if teacher else "projector" if present else "student", info)


@st.fragment(run_every=POLL)
def _retry_soon() -> None:
    """While the store is unavailable: run the page again at the next poll that reaches it."""
    try:
        classroom.store().get(st.session_state.get("code", ""), patience=WAIT)
    except StoreUnavailable:
        return
    except InputError:
        pass
    st.rerun(scope="app")


def banner(place: Seat) -> None:
    """What the seat is told above the step: the code and links (teacher), who leads (student)."""
    info = place.info
    if place.role == "teacher":
        st.info(
            f"Class code **{info.code}**: students open the Lessons page and join with it, or open "
            f"{class_link(info)}. You lead: Back and Next move the whole class, and Reveal shows the answer on "
            f"the projector. Projector link (no controls, no sidebar): {class_link(info, present=True)}",
            icon=":material/co_present:",
        )
    elif place.role == "student":
        st.info(f"Class **{info.code}**: your teacher leads; this page follows their step.", icon=":material/groups:")
    elif place.role == "projector":
        st.caption(f"Class {info.code}, projector view: this page follows the teacher's step.")


def controls(lesson: str, code: str) -> None:
    """The class-mode popover: in a class, who you are and Leave; else Start, and Join by code."""
    if code:
        role = "the teacher" if _is_teacher(code) else "a student"
        st.markdown(f"In class **{code}** as {role}.")
        if st.button("Leave the class", key="class-leave"):
            go(code="", step=1)
        return
    st.markdown("**Teach it to a class**: students join with a code; no accounts, no names.")
    if st.button("Start a class with this lesson", key="class-start", type="primary"):
        try:
            new, secret = classroom.store().start(lesson, identity.client_address())
        except InputError as err:
            st.error(str(err))
            return
        identity.remember_teacher(new, secret)
        st.session_state.setdefault("_teacher_ok", {})[new] = True
        go(code=new, step=1)
    st.divider()
    typed = st.text_input("Join a class: its code", key="_join_code", max_chars=12, placeholder="K7P2QX")
    if st.button("Join", key="class-join") and typed:
        try:
            info = classroom.store().join(typed[:40], identity.student(), identity.client_address())
        except InputError as err:
            st.error(str(err))
            return
        st.session_state.setdefault("_joined", set()).add(info.code)
        go(code=info.code, lesson=info.lesson, step=info.step)


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


def pending_key(key: str) -> str:
    """The session key of a student's prediction that is not saved yet."""
    return f"_pending-{key}"


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


def send_prediction(place: Seat, key: str, number: int, value) -> str | None:
    """Save a student's prediction; returns a sentence if it is not saved yet (kept and retried at
    every poll) or refused (a limit), None when saved."""
    try:
        classroom.store().predict(place.code, identity.student(), number, value, identity.client_address())
    except StoreUnavailable:
        st.session_state[pending_key(key)] = (number, value)
        return None
    except InputError as err:
        return str(err)
    st.session_state.pop(pending_key(key), None)
    return None


def _save_pending(code: str) -> bool:
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


@st.fragment(run_every=POLL)
def follow(code: str, number: int) -> None:
    """Every page in a class asks where the class is, every few seconds, and follows the teacher's
    step; a student's unsaved prediction is saved here. A store that does not answer is asked
    again at the next poll, silently (the page keeps what it shows)."""
    saved = _save_pending(code)
    try:
        info = classroom.store().get(code, patience=WAIT)
    except InputError:
        return
    revealed_now = st.session_state.get("_class_revealed") != info.revealed
    st.session_state["_class_revealed"] = info.revealed
    if info.step != number or saved or (revealed_now and st.session_state.get("present")):
        st.session_state["step"] = info.step
        st.rerun(scope="app")


@st.fragment(run_every=POLL)
def answers(code: str, number: int, q: Question, truth) -> None:
    """The class's predictions beside the truth (the teacher's view; the projector's once revealed)."""
    from dpviz.lessons.class_chart import predictions_figure

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


@st.fragment(run_every=POLL)
def answered(code: str, number: int) -> None:
    """The projector before the reveal: how many have answered (no values, no truth)."""
    try:
        got = classroom.store().predictions(code, number, patience=WAIT)
    except InputError:
        return
    st.markdown(f"**{len(got)} answered.** The answer is shown when your teacher reveals it.")
