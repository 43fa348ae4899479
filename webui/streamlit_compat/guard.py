"""The door's guard: the Streamlit versions dpviz's uses of its private names were reviewed
against (:data:`REVIEWED`), a warning logged once on any other (:func:`check_version`, at the
door's import), and :func:`target`, through which every private name is looked up, so that a name
a release removed or renamed is logged and its use left out (Streamlit's own behaviour stays)
rather than failing a page."""

from __future__ import annotations

import importlib
import logging

import streamlit

REVIEWED = ("1.67.0",)
"""The Streamlit versions every use of a private name in :mod:`webui.streamlit_compat` was written
for and checked against (requirements.txt pins one). A test fails on any other version until the
door is reviewed against it and the version is added here."""
log = logging.getLogger("dpviz.streamlit_compat")
_WARNED: list[str] = []


def check_version(version: str | None = None) -> bool:
    """Whether ``version`` (the installed Streamlit's) is one the door was reviewed for; on
    another, one warning (per process) that the door needs a review."""
    version = version or streamlit.__version__
    if version in REVIEWED:
        return True
    if version not in _WARNED:
        _WARNED.append(version)
        log.warning(
            "dpviz's uses of Streamlit's private names (webui/streamlit_compat/) were written for Streamlit %s, "
            "not %s: each goes in where its name is found, Streamlit's own behaviour elsewhere; review the door",
            ", ".join(REVIEWED),
            version,
        )
    return False


def target(module: str, name: str):
    """``module.name`` (a class, function or module Streamlit has), or None, logged, when this
    Streamlit has no such thing: the use of it is left out and Streamlit's own behaviour stays."""
    try:
        found = importlib.import_module(module)
        for part in name.split(".") if name else ():
            found = getattr(found, part)
        return found
    except (ImportError, AttributeError):
        log.warning("Streamlit %s has no %s.%s: dpviz leaves out its use of it", streamlit.__version__, module, name)
        return None
