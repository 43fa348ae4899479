"""The figures' shared view cache: each figure's table and chart (as the JSON Streamlit sends),
computed once per canonical parameters and served to every session of this process."""

from __future__ import annotations

import time
from contextlib import contextmanager
from typing import Any, Callable, Iterator

import pandas as pd
import streamlit as st

from dpviz import caches
from dpviz.params import format_value
from dpviz.registry import FigureSpec
from webui.plotly_element import ChartJSON, chart_json
from webui.visitor_busy import busy

_VIEWS = caches.memo("web.views")


def _key(spec: FigureSpec, values: dict[str, Any]) -> tuple[tuple, dict[str, Any]]:
    own = {p.name: values[p.name] for p in spec.params}  # render sees exactly what the CLI passes
    return (spec.id, tuple(sorted(spec.canonical(own).items()))), own


def compute_view(spec: FigureSpec, own: dict[str, Any], progress=None) -> tuple[pd.DataFrame, ChartJSON, float]:
    """Table, the chart as Streamlit sends it, and the seconds they took (no Streamlit calls: any thread)."""
    with busy():
        start = time.perf_counter()
        df = spec.table(own, progress)
        return df, chart_json(spec.figure_dict(df, own)), time.perf_counter() - start


def prefill(spec: FigureSpec, values: dict[str, Any]) -> bool:
    """Compute a view into the shared cache unless it is there (the hosted warm-up); True if computed."""
    key, own = _key(spec, values)
    computed = []

    def compute() -> tuple[pd.DataFrame, ChartJSON, float]:
        computed.append(True)
        return compute_view(spec, own)

    _VIEWS.get(key, compute)
    return bool(computed)


def view_ready(spec: FigureSpec, values: dict[str, Any]) -> bool:
    """Whether a chart is at hand without heavy work: in the shared views, or its table cached."""
    key, own = _key(spec, values)
    return _VIEWS.contains(key) or spec.is_ready(own)


def cached_view(spec: FigureSpec, values: dict[str, Any]) -> tuple[pd.DataFrame, ChartJSON, float]:
    """A figure's table, its chart (as JSON) and the seconds they took, shared across sessions (an
    LRU keyed by the figure and its canonical parameters), computed with a progress bar.

    Rendering a Plotly figure costs tens of milliseconds and a page has up to nine, and every
    control change reruns the whole page script, so charts whose parameters did not change are
    served from here. Sessions asking for the same missing view wait for one computation;
    different views compute in parallel (the numeric kernels release the GIL)."""
    key, own = _key(spec, values)

    def compute() -> tuple[pd.DataFrame, ChartJSON, float]:
        if spec.is_ready(own):  # cached on disk: no bar for a moment's work
            return compute_view(spec, own)
        with progress_bar(f"Computing {spec.title.lower()}…") as progress:
            return compute_view(spec, own, progress)

    return _VIEWS.get(key, compute)


@contextmanager
def progress_bar(text: str) -> Iterator[Callable[[float, str], None]]:
    """A Streamlit progress bar for the work inside, as a :data:`dpviz.progress.Progress`; gone after."""
    bar = st.progress(0.0, text=text)
    try:
        yield lambda frac, msg: bar.progress(min(max(frac, 0.0), 1.0), text=msg)
    finally:
        bar.empty()


# (panel id, its canonical parameters) -> the compute's result, shared by all sessions
_PANELS = caches.memo("web.panels")


def _panel_key(panel, values: dict[str, Any]) -> tuple:
    return (panel.id, tuple((p.name, format_value(p, values[p.name])) for p in panel.params))


def cached_panel(panel, values: dict[str, Any]) -> Any:
    """A declared panel's result for ``values`` (:meth:`dpviz.panels.Panel.run`), computed once per
    canonical parameters with a progress bar, and kept for every session of this process."""
    key = _panel_key(panel, values)

    def compute() -> Any:
        with busy(), progress_bar(panel.working or f"{panel.title}…") as progress:
            return panel.run(values, progress)

    return _PANELS.get(key, compute)


def prefill_panel(panel, values: dict[str, Any]) -> None:
    """Compute a panel's result on ``values`` into the cache it uses (the hosted warm-up)."""
    if panel.cached:
        key = _panel_key(panel, values)
        _PANELS.get(key, lambda: panel.run(values))
    else:
        panel.run(values)
