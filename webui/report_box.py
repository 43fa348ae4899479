"""The page as one report (:mod:`dpviz.page_report`), from a box at the foot of a paper's page:
choose HTML, PDF or notebook, make it under a progress bar at the settings on screen (the live
sliders' included), then download it. The visitor's last report is kept in their session only."""

from __future__ import annotations

import threading
from typing import Any, Sequence

import streamlit as st

from dpviz import hosted_mode, page_report
from dpviz.errors import InputError
from dpviz.params import Param, canonical_query
from webui.url_state import app_base, current_values
from webui.views import progress_bar

FORMATS = {
    "HTML (interactive, works offline)": (".html", "text/html"),
    "PDF (print-ready, vector charts)": (".pdf", "application/pdf"),
    "Notebook (.ipynb, recomputes every chart)": (".ipynb", "application/x-ipynb+json"),
}
SLOTS = 2
"""Reports made at once by one server process; a visitor beyond waits (a hosted demo's cap)."""
_SLOTS = threading.BoundedSemaphore(SLOTS)


def _make(key: str, page_file: str, query: dict[str, str], fmt: str) -> bytes:
    with progress_bar("Making the report…") as progress:
        if not _SLOTS.acquire(blocking=False):
            progress(0.0, "Waiting for other visitors' reports to finish…")
            _SLOTS.acquire()
        try:
            rep = page_report.build(key, query, base_url=app_base(page_file), progress=progress, draw=fmt != ".ipynb")
            return page_report.render(rep, fmt, progress)
        finally:
            _SLOTS.release()


def report_box(key: str, page_file: str, params: Sequence[Param], values: dict[str, Any]) -> None:
    """The report box of paper page ``key`` (drawn at the foot of the page)."""
    st.header("This page as one report", anchor="report")
    st.markdown(
        "Every chart of this page at the settings on screen, in page order, with its caption, the settings "
        "table (defaults marked), the link that reopens this view and the command line of each chart. "
        "The notebook recomputes every chart through `dpviz.figure(...)`."
        + (" On this hosted demo the sample sizes are capped as on the page." if hosted_mode() else "")
    )
    query = canonical_query(params, current_values(params, values))
    left, right = st.columns([3, 2])
    label = left.radio("Format", list(FORMATS), key=f"report-format-{key}", horizontal=True)
    fmt = FORMATS[label][0]
    kept = st.session_state.get(f"report-{key}")
    if right.button("Make the report", key=f"report-make-{key}", type="primary", icon=":material/description:"):
        try:
            data = _make(key, page_file, query, fmt)
        except InputError as err:
            st.error(f"The report could not be made: {err}")
            return
        kept = st.session_state[f"report-{key}"] = (fmt, query, data)
    if kept is None:
        return
    made_fmt, made_query, data = kept
    name = f"dpviz-{key}-report{made_fmt}"
    if made_query != query:
        st.caption("The settings changed since this report was made: make it again to include them.")
    st.download_button(
        f"⬇ Download {name} ({len(data) / 1e6:.1f} MB)",
        data,
        file_name=name,
        mime=dict(FORMATS.values())[made_fmt],
        key=f"report-download-{key}",
        on_click="ignore",
    )
