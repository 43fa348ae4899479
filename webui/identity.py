"""Who a browser is, kept where a crash cannot take it: in the browser (cookies) and in the class
store, never only in one server process's memory.

A Streamlit session lives in one process. When that process dies, the browser reconnects (through
the proxy, to another process) and starts a new session: whatever the old one held in
``st.session_state`` is gone. So:

- a **student** is a random token (128 bits) in the cookie ``dpviz_student``: the first class page
  a browser opens makes it, and every later session of that browser, on any process, reads it
  from the cookies its websocket connection sent (``st.context.cookies``);
- a **teacher** holds the class's secret (:mod:`dpviz.classroom`) in the cookie
  ``dpviz_teacher_<CODE>``, set only in the browser that started the class: a reload, a second
  tab, a restarted process or server keep it; students and the projector link never see it;
- the cookies are written by a tiny script element (:func:`keep_in_browser`), with a lifetime of
  the class's (a day), ``SameSite=Strict`` and, over HTTPS, ``Secure``.

:func:`client_address` is the address a visitor's connection comes from, for the class store's
limits: behind the hosted start command's proxy (``DPVIZ_BEHIND_PROXY=1``, set by
``scripts/serve.sh``) the last address of ``X-Forwarded-For`` (the one HAProxy appended; earlier
ones are whatever the client wrote), else the connection's own.
"""

from __future__ import annotations

import functools
import json
import os
import re
import secrets

import streamlit as st

from dpviz.classroom import LIFETIME, normal_code

STUDENT_COOKIE = "dpviz_student"
TEACHER_COOKIE = "dpviz_teacher_"
_TOKEN = re.compile(r"[A-Za-z0-9_-]{16,64}")
_COOKIE_JS = """
export default function ({ data }) {
  const secure = location.protocol === "https:" ? "; Secure" : "";
  for (const [name, value, age] of data.cookies) {
    document.cookie = `${name}=${value}; path=/; max-age=${age}; SameSite=Strict${secure}`;
  }
}
"""


def _cookie(name: str) -> str | None:
    try:
        value = st.context.cookies.get(name)
    except Exception:  # noqa: BLE001 - no client context (AppTest, a bare script run)
        return None
    return value if isinstance(value, str) and _TOKEN.fullmatch(value) else None


def student() -> str:
    """This browser's student token: kept in the session, read from the browser's cookie by a new
    session, or made now (and written to the cookie by :func:`keep_in_browser`)."""
    token = st.session_state.get("_student")
    if token is None:
        token = _cookie(STUDENT_COOKIE) or secrets.token_urlsafe(16)
        st.session_state["_student"] = token
    return token


def teacher_secret(code: str) -> str | None:
    """The secret of class ``code`` this browser holds (started the class), if any."""
    code = normal_code(code)
    held = st.session_state.setdefault("_teacher", {})
    if code not in held:
        found = _cookie(TEACHER_COOKIE + code)
        if found is None:
            return None
        held[code] = found
    return held[code]


def remember_teacher(code: str, secret: str) -> None:
    """Keep the secret of a class this browser just started (session now, cookie by :func:`keep_in_browser`)."""
    st.session_state.setdefault("_teacher", {})[normal_code(code)] = secret


def forget_teacher(code: str) -> None:
    """Drop a secret the store does not recognise (the class expired, or a stale cookie)."""
    st.session_state.setdefault("_teacher", {}).pop(normal_code(code), None)
    st.session_state.setdefault("_teacher_gone", set()).add(normal_code(code))


@functools.cache
def _cookie_element():
    return st.components.v2.component("dpviz_identity", js=_COOKIE_JS, isolate_styles=False)


def keep_in_browser(code: str | None) -> None:
    """Write this browser's identity into its cookies (the student token; the teacher's secret of
    ``code`` if this browser holds it, or an expired cookie for a secret the store refused). Drawn
    in the sidebar on every run of a class page: idempotent, no visible element."""
    cookies = [(STUDENT_COOKIE, student(), LIFETIME)]
    if code:
        secret = teacher_secret(code)
        if secret:
            cookies.append((TEACHER_COOKIE + normal_code(code), secret, LIFETIME))
    for gone in sorted(st.session_state.get("_teacher_gone", ())):
        cookies.append((TEACHER_COOKIE + gone, "", 0))
    with st.sidebar:
        _cookie_element()(key="dpviz-identity", data={"cookies": cookies})


def client_address() -> str:
    """The visitor's address for the class store's limits (see the module's docstring)."""
    try:
        if os.environ.get("DPVIZ_BEHIND_PROXY") == "1":
            forwarded = ",".join(st.context.headers.get_all("X-Forwarded-For"))
            last = forwarded.split(",")[-1].strip()
            if last:
                return last[:64]
        return (st.context.ip_address or "local")[:64]
    except Exception:  # noqa: BLE001 - no client context (AppTest)
        return "local"


def describe(data: dict) -> str:
    """The cookie element's data as JSON (what the browser receives), for tests."""
    return json.dumps(data)
