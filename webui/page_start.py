"""A page's first lines, run before the page imports its code: the page's config and the loader
element (:func:`webui.plotly_element.mount_loader`), so that the browser has the charts' script
and starts loading plotly.js while the server still imports and computes the page.

On a fresh server process the page's imports (``webui.paper_page``: the papers' declarations,
pandas, the frames' machinery) take about a second before the page's first line used to run; the
loader, sent after them, started plotly.js's fetch that much later, and the first chart waited for
it (docs/performance.md, "A first chart sooner"). So a page file imports only
:mod:`webui.page_entry`, whose ``show_paper`` and ``show_tool`` call :func:`start`, then import the
page's code and draw the page; the home page calls :func:`start` before its imports. This module
imports nothing but Streamlit and :mod:`webui.plotly_element`. A page file that draws its page
from :mod:`webui.paper_page` directly still gets the loader, from :func:`webui.nav.page_setup`
(:func:`ensure_loader`), only later.
"""

from __future__ import annotations

import threading

import streamlit as st

from webui.plotly_element import mount_loader

PAGE_ICON = "🔐"

_RUN = threading.local()
"""Whether this run's page file sent the loader (a page runs in its session's own thread; the
flag is set by :func:`start` and taken by :func:`ensure_loader`, in the same run)."""


def start() -> None:
    """The page's config (wide; the title is set by :func:`webui.nav.page_setup` once the page's
    code is imported) and the loader element, first in the sidebar."""
    st.set_page_config(page_icon=PAGE_ICON, layout="wide")
    with st.sidebar:
        mount_loader()
    _RUN.loader_sent = True


def ensure_loader() -> None:
    """The loader element, unless :func:`start` sent it in this run (Streamlit takes one element
    per key in a run). Called once a run, by :func:`webui.nav.page_setup`."""
    if not getattr(_RUN, "loader_sent", False):
        with st.sidebar:
            mount_loader()
    _RUN.loader_sent = False
