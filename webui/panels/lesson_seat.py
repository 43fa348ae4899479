"""Who this browser is in a class (its seat), and what keeps it in the class: starting and
joining one (the class-mode popover), the line above the step that says who leads, and the poll
that follows the teacher's step. What each seat then shows is in its own module:
``lesson_teacher`` (moving the class, revealing, the class's answers), ``lesson_student`` (one
prediction per step, kept through a reload or a database restart) and ``lesson_projector`` (the
step without controls, the answers once revealed).

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
from dpviz.page_report import url_path
from webui import identity
from webui.panels.lesson_pending import save_pending
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


@st.fragment(run_every=POLL)
def follow(code: str, number: int) -> None:
    """Every page in a class asks where the class is, every few seconds, and follows the teacher's
    step; a student's unsaved prediction is saved here. A store that does not answer is asked
    again at the next poll, silently (the page keeps what it shows)."""
    saved = save_pending(code)
    try:
        info = classroom.store().get(code, patience=WAIT)
    except InputError:
        return
    revealed_now = st.session_state.get("_class_revealed") != info.revealed
    st.session_state["_class_revealed"] = info.revealed
    if info.step != number or saved or (revealed_now and st.session_state.get("present")):
        st.session_state["step"] = info.step
        st.rerun(scope="app")
