"""What a frame worker process runs (:mod:`webui.frames_pool` starts them and hands them work):
its setting, the loading of a page's state ahead of its first set, a set whole or a part of it,
and a set put together from its parts; each looks between two positions for the marker that says
nobody wants the set any more."""

from __future__ import annotations

import os
from typing import Any

from dpviz import papers, registry, theme
from dpviz.processes import exit_with_parent_process, freeze_loaded, keep_freed_memory, one_thread_everywhere
from webui import frames_signals, frames_store


class Withdrawn(Exception):
    """Frames nobody wants any more, stopped between two positions (in a worker, or in the
    server's own thread: :mod:`webui.frames_queue`)."""


def start() -> None:
    """A worker's setting: nice 19, one BLAS thread, freed memory kept for its next arrays, and
    ended with its server process."""
    try:
        os.nice(19 - os.nice(0))
    except OSError:
        pass
    exit_with_parent_process()
    one_thread_everywhere()
    keep_freed_memory()


def _trace(event: str, what: Any) -> None:
    frames_signals.trace(event, str(what))


def ready() -> None:
    """In a worker, as it starts: what every set of frames needs, whatever the page (every
    paper's figures registered, Plotly's figure objects and their validators, which the first frame
    of a chart is checked against, and the fast drawing)."""
    _trace("ready-start", os.getpid())
    from dpviz import fast_figure  # noqa: F401 - (lazy: the server's own process never needs it)

    registry.all_figures()  # every paper's figures registered
    theme.style(theme.go.Figure(theme.go.Scatter(x=[1.0], y=[1.0])), "ready")  # Plotly's validators, the template
    freeze_loaded()  # (what it loaded, out of the collector's full passes: dpviz.processes)
    _trace("ready-end", os.getpid())


def warm(page: str, values: dict[str, Any], asked: str = "") -> None:
    """In a worker: Plotly, which a set of frames needs, the page's compiled loops
    (:meth:`dpviz.papers.Paper.compile_kernels`), ``page``'s prepared state at ``values``, then
    each live chart's fast drawing checked against Plotly's on its table at ``values``
    (:func:`webui.frames_store.check_drawing`: a frame drawn by Plotly, 20-40 ms a chart, that the
    chart's first set would otherwise draw). What is missing is the worker's first set's to
    compute; nothing here fails a set. It stops between two charts once the marker file ``asked``
    is newer than its start: a set is waiting (whose part computes what it needs itself)."""
    import time

    started = time.time()
    _trace("warm-start", page)
    theme.go.Figure  # noqa: B018 - loads Plotly
    try:  # the page's compiled loops, loaded from numba's cache (a set's first part waited a second for them)
        papers.get(page).compile_kernels()
        _trace("compiled", page)
    except Exception:  # noqa: BLE001 - what fails here, the first set that needs it meets and reports
        _trace("compile-failed", page)
    for spec in registry.paper_figures(page):
        if spec.on_demand:
            continue
        if asked and frames_signals.newer(asked, started):
            _trace("warm-stopped", page)
            return
        try:
            spec.state({p.name: values.get(p.name, p.default) for p in spec.params})
        except Exception:  # noqa: BLE001, S112 - a state the first set computes instead
            continue
        _trace("warmed", spec.id)
    for spec in registry.paper_figures(page):
        if spec.on_demand or not spec.live:
            continue
        if asked and frames_signals.newer(asked, started):
            _trace("warm-stopped", page)
            return
        try:
            frames_store.check_drawing(spec, values)
        except Exception:  # noqa: BLE001, S112 - the chart's first set checks it instead
            continue
        _trace("checked", spec.id)
    freeze_loaded()
    _trace("warm-end", page)


def stopper(stop: str):
    """A set's progress callback in a worker: it raises :class:`Withdrawn` once
    the marker file ``stop`` exists (the server's sign that nobody wants the set any more)."""

    def between(*_) -> None:
        if os.path.exists(stop):
            raise Withdrawn(stop)

    return between


def part(task: tuple, positions: list, stop: str) -> list[tuple]:
    """In a worker: a chart's frames at ``positions`` of its grid, as (position, frame) pairs."""
    _, ident, values, slider = task
    _trace("part-start", (ident, slider, len(positions)))
    figures = frames_store.figures_at(registry.get(ident), values, slider, positions, stopper(stop))
    _trace("part-end", (ident, slider, len(positions)))
    return list(zip(positions, figures))


def put_together(task: tuple, figures: list) -> None:
    """In a worker: a chart's frames from every position's frame, into the disk cache."""
    _, ident, values, slider = task
    frames_store.build(registry.get(ident), values, slider, figures=figures)


def whole_set(task: tuple, stop: str) -> None:
    """Compute frames ``task`` into the disk cache, stopping at the first position after ``stop``
    exists (:class:`Withdrawn`)."""
    between = stopper(stop)
    kind, ident, values, slider = task
    if kind == "figure":
        spec = registry.get(ident)
        frames_store.build(spec, values, slider, between)
        return
    page, panel = next((p.key, x) for p in papers.all_papers() for x in p.panels if x.html and x.id == ident)
    param = next(p for p in registry.page_params(page) if p.name == slider)  # the page's slider, as live_html
    frames_store.text_frames_now(panel, values, param, progress=between)
