"""The page as one report (:mod:`dpviz.page_report`), from a box at the foot of a paper's page:
choose HTML, PDF or notebook, make it under a progress bar at the settings on screen (the live
sliders' included), then download it. The visitor's last report is kept in their session only.
:func:`report_maker` does the same for a lesson and a side-by-side comparison."""

from __future__ import annotations

import threading
from typing import Any, Callable, Sequence

import streamlit as st

from dpviz import hosted_mode, page_report
from dpviz.errors import InputError
from dpviz.params import Param, canonical_query
from dpviz.progress import Progress
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


def _make(build: Callable[[Progress | None, bool], page_report.Report], fmt: str) -> bytes:
    with progress_bar("Making the report…") as progress:
        if not _SLOTS.acquire(blocking=False):
            progress(0.0, "Waiting for other visitors' reports to finish…")
            _SLOTS.acquire()
        try:
            return page_report.render(build(progress, fmt != ".ipynb"), fmt, progress)
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

    def build(progress, draw):
        return page_report.build(key, query, base_url=app_base(page_file), progress=progress, draw=draw)

    report_maker(key, f"dpviz-{key}-report", query, build)


def report_maker(key: str, stem: str, state: Any, build: Callable[[Progress | None, bool], page_report.Report]) -> None:
    """The format choice, the button that makes the report ``build(progress, draw)`` under a
    progress bar, and its download. ``state`` is what the report is of (the settings): a
    report made for another state is said to be out of date. The last report is kept in the
    visitor's session only."""
    left, right = st.columns([3, 2])
    label = left.radio("Format", list(FORMATS), key=f"report-format-{key}", horizontal=True)
    fmt = FORMATS[label][0]
    kept = st.session_state.get(f"report-{key}")
    if right.button("Make the report", key=f"report-make-{key}", type="primary", icon=":material/description:"):
        try:
            data = _make(build, fmt)
        except InputError as err:
            st.error(f"The report could not be made: {err}")
            return
        kept = st.session_state[f"report-{key}"] = (fmt, state, data)
    if kept is None:
        return
    made_fmt, made_state, data = kept
    name = f"{stem}{made_fmt}"
    if made_state != state:
        st.caption("The settings changed since this report was made: make it again to include them.")
    st.download_button(
        f"⬇ Download {name} ({len(data) / 1e6:.1f} MB)",
        data,
        file_name=name,
        mime=dict(FORMATS.values())[made_fmt],
        key=f"report-download-{key}",
        on_click="ignore",
    )
