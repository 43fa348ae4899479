"""The live charts' frames on the page (:mod:`dpviz.frames`): which a chart has, where they are
kept, who computes them, and the element that carries them to the browser.

- **Kept** per (figure, slider, every other parameter's canonical value), as the compressed
  bytes the browser receives: in this process (``web.frames``, shared by every session) and on
  disk (:func:`dpviz.tables.cached_blob`, shared by the server processes, computed once).
- **Computed** off the visitor's path: a page that finds frames missing asks for them and draws
  its charts as before; a background thread per process computes them (:mod:`webui.frames_queue`:
  one set at a time, each request on behalf of an asker, :func:`asker`, whose newer request
  withdraws its older one); ``python -m dpviz build`` and the hosted warm-up compute the pages'
  defaults beforehand (:mod:`webui.warmup`).
  While frames are pending, their element asks the server again every 2 s (a trigger that reruns
  the live section), which then sends them with their charts.
- **Sent** by a frames element (``webui/live_js/``, under the component ``dpviz_frames``)
  placed beside its chart and hidden: the same bytes for every slider position, so that after a
  move Streamlit's message cache sends it as a reference, not again. The chart element is told
  the key of its frames per slider label; while the slider is dragged the browser draws the frame
  at the slider's position, and once the slider is let go the server sends, for a position on the
  grid, only a reference to that frame (:func:`frame_ref`).
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import zlib
from dataclasses import dataclass
from typing import Any, Sequence

import streamlit as st

from dpviz import caches, tables
from dpviz.frames import compute_frames, slider_grid
from dpviz.params import Param, format_value
from dpviz.progress import report
from dpviz.registry import FigureSpec, hosted_mode
from webui import frames_pool, frames_queue

FRAMES_COMPONENT = "dpviz_frames"
_FRAMES = caches.memo("web.frames")  # the same memo as frames_queue's (one per name and process)


def _top(spec: FigureSpec, slider: str) -> float:
    return _top_of(spec.param(slider))


def frames_key(spec: FigureSpec, values: dict[str, Any], slider: str) -> str:
    """The key of ``spec``'s frames along ``slider`` at ``values`` (the slider's own value left out)."""
    others = {p.name: format_value(p, values[p.name]) for p in spec.params if p.name != slider}
    blob = repr((spec.id, slider, sorted(others.items()), _top(spec, slider), hosted_mode()))
    return hashlib.sha256(blob.encode()).hexdigest()[:24]


def _canonical(spec: FigureSpec, values: dict[str, Any], slider: str) -> dict[str, str]:
    out = {p.name: format_value(p, values[p.name]) for p in spec.params if p.name != slider}
    return {**out, "_slider": slider, "_top": str(_top(spec, slider)), "_hosted": str(hosted_mode())}


def _compute(spec: FigureSpec, values: dict[str, Any], slider: str, progress=None) -> bytes:
    from webui.plotly_element import chart_json

    grid = slider_grid(spec.param(slider), _top(spec, slider))
    made = compute_frames(spec, values, slider, lambda fig: chart_json(fig).spec, progress, grid=grid)
    return made.encoded()


@dataclass(frozen=True)
class Held:
    """A set of frames as this process keeps them: the bytes the browser receives, the positions
    they hold, and the chart's height (what a reference to one of them needs)."""

    blob: bytes
    grid: frozenset
    height: int


def _held(blob: bytes) -> Held:
    doc = json.loads(zlib.decompress(blob))
    height = (doc.get("base") or {}).get("layout", {}).get("height")
    return Held(blob, frozenset(doc["grid"]), int(height or 450))


def _get(key: str, kind: str, canonical: dict[str, str], compute) -> Held:
    """Frames ``key``: from this process's memory, the disk, or ``compute()`` now (in this thread)."""
    return _FRAMES.get(key, lambda: _held(tables.cached_blob(kind, canonical, compute)))


def _lookup(
    key: str, kind: str, canonical: dict[str, str], compute, asker: tuple | None = None, task: tuple | None = None
) -> Held | None:
    """Frames ``key`` if this process holds them or the disk does; else None, and a request to
    the background worker on behalf of ``asker``, which has a worker process compute ``task``
    (:mod:`webui.frames_pool`) or, without one, computes them in its own thread."""
    if _FRAMES.contains(key) or tables.blob_cached(kind, canonical):
        return _get(key, kind, canonical, compute)

    def job(progress) -> None:
        if task is not None:
            frames_pool.compute(task, key, progress)  # into the disk cache; False: not done, done here
        _get(key, kind, canonical, lambda: compute(progress))

    frames_queue.request(key, job, asker)
    return None


def asker(owner: str, slider: str) -> tuple:
    """Who asks for the frames of chart (or panel) ``owner`` along ``slider`` in this session (a
    token kept in the session's state)."""
    token = st.session_state.get("_dpviz_frames_asker")
    if token is None:
        token = st.session_state["_dpviz_frames_asker"] = os.urandom(8).hex()
    return (token, owner, slider)


def build(spec: FigureSpec, values: dict[str, Any], slider: str, progress=None) -> Held:
    """A chart's frames, from this process's memory, the disk, or computed now (in the caller's thread)."""
    own = {p.name: values[p.name] for p in spec.params}
    canonical = _canonical(spec, own, slider)
    return _get(
        frames_key(spec, own, slider), f"{spec.id}.frames", canonical, lambda: _compute(spec, own, slider, progress)
    )


def ready(key: str) -> bool:
    """Whether the frames ``key`` are in this process's memory."""
    return _FRAMES.contains(key)


def enabled() -> bool:
    """Frames are on unless ``DPVIZ_FRAMES=0`` (then every slider move is drawn by the server, as
    before frames; the benchmarks' baseline)."""
    return os.environ.get("DPVIZ_FRAMES", "1") != "0"


def frames_for(
    spec: FigureSpec, values: dict[str, Any], slider: str, by: tuple | None = None
) -> tuple[str, Held | None]:
    """The key and the frames of ``spec`` along ``slider``; None (and a request to the
    background worker on behalf of ``by``, :func:`asker`) while they are not computed. On disk
    already: read now."""
    own = {p.name: values[p.name] for p in spec.params}
    frames_pool.prestart(spec.page, values)
    key = frames_key(spec, own, slider)
    canonical = _canonical(spec, own, slider)
    compute = functools.partial(_compute, spec, own, slider)
    held = _lookup(key, f"{spec.id}.frames", canonical, compute, by, frames_pool.figure_task(spec, own, slider))
    return key, held


def covers(spec: FigureSpec, values: dict[str, Any], live: Sequence[Param]) -> bool:
    """Whether the chart at ``values`` is one of its frames along a live slider this process or the
    disk holds (then it is drawn from them, never as a first answer)."""
    if not enabled() or spec.on_demand:
        return False
    own = {q.name: values[q.name] for q in spec.params}
    for p in live:
        if p.name in own:
            key, canonical = frames_key(spec, own, p.name), _canonical(spec, own, p.name)
            if _FRAMES.contains(key) or tables.blob_cached(f"{spec.id}.frames", canonical):
                held = build(spec, own, p.name)
                if values[p.name] in held.grid:
                    return True
    return False


@functools.cache
def _element():
    from webui.plotly_element import live_script

    return st.components.v2.component(FRAMES_COMPONENT, js=live_script(), isolate_styles=False)


HIDE_CSS = "<style>[class*='st-key-dpviz-frames-']{display:none !important;}</style>"


def frames_element(where, owner: str, slider: str, key: str, blob: bytes) -> None:
    """The hidden element that hands the browser the frames ``key`` (``b"F"`` then the key and a
    newline, then the compressed frames), drawn last in its column, in every run that draws the
    chart (identical bytes each time; the browser inflates a key once). Sending it once per
    session was tried: a run interrupted by the next one (a slider's release during the answer
    to the last) can lose the element before it reaches the tab, and the tab never got them."""
    with where:
        _element()(
            key=f"dpviz-frames-{owner}-{slider}", data=b"F" + key.encode() + b"\n" + blob, on_check_change=_asked
        )


def pending_element(where, owner: str, slider: str, key: str) -> None:
    """In the frames element's place while they are computed: it asks the server again in 2 s
    (a trigger, which reruns the live section), once per run that draws it (``b"P"``, the key,
    and the run's count, so that each run's element is new to the browser). It is drawn only
    while frames are missing: a page whose frames are here asks nothing."""
    count = st.session_state.get("_frames_asked", 0) + 1
    st.session_state["_frames_asked"] = count
    with where:
        _element()(
            key=f"dpviz-frames-{owner}-{slider}",
            data=b"P" + key.encode() + b"\n" + str(count).encode(),
            on_check_change=_asked,
        )


def _asked() -> None:
    """The browser asked again whether frames are ready: the rerun it causes is the answer."""


# a panel drawn as HTML (Panel.html) follows its sliders too -------------------------------------


def _top_of(p: Param) -> float:
    from webui.widgets import _top as widget_top  # the slider's own range: one rule for both

    return widget_top(p)


def _text_key(panel, own: dict[str, Any], slider: Param) -> tuple[str, dict[str, str]]:
    """The key and the canonical parameters of ``panel``'s HTML frames along ``slider``."""
    others = sorted((p.name, format_value(p, own[p.name])) for p in panel.params if p.name != slider.name)
    top = _top_of(slider)
    key = hashlib.sha256(repr((panel.id, slider.name, others, top, hosted_mode())).encode()).hexdigest()[:24]
    return key, {**dict(others), "_slider": slider.name, "_top": str(top), "_hosted": str(hosted_mode())}


def on_disk(what, values: dict[str, Any], slider: Param) -> bool:
    """Whether the frames of ``what`` (a figure's spec, or a panel drawn as HTML) along ``slider``
    at ``values`` are in the disk cache (what ``dpviz build`` leaves for the defaults)."""
    own = {p.name: values[p.name] for p in what.params}
    if isinstance(what, FigureSpec):
        return tables.blob_cached(f"{what.id}.frames", _canonical(what, own, slider.name))
    return tables.blob_cached(f"panel-{what.id}.frames", _text_key(what, own, slider)[1])


def text_frames_for(
    panel, values: dict[str, Any], slider: Param, now: bool = False, by: tuple | None = None, progress=None
) -> tuple[str, Held | None]:
    """The key and the HTML frames of ``panel`` along ``slider`` (its HTML at every position);
    None (and a request to the background worker on behalf of ``by``) while they are not
    computed, unless ``now`` (then computed in this thread, telling ``progress``)."""
    from dpviz.panels import resolve

    own = {p.name: values[p.name] for p in panel.params}
    key, canonical = _text_key(panel, own, slider)

    def compute(progress=None) -> bytes:
        grid = slider_grid(slider, _top_of(slider))
        pages = []
        for k, v in enumerate(grid):
            report(progress, k / len(grid), f"{panel.title}: {k + 1} of {len(grid)}")
            at = dict(own, **{slider.name: v})
            pages.append(resolve(panel.html)(panel.run(at), at))
        doc = {"panel": panel.id, "slider": slider.name, "grid": list(grid), "html": pages}
        return zlib.compress(json.dumps(doc, separators=(",", ":")).encode(), 6)

    if now:
        return key, _get(key, f"panel-{panel.id}.frames", canonical, lambda: compute(progress))
    task = frames_pool.panel_task(panel, own, slider.name)
    return key, _lookup(key, f"panel-{panel.id}.frames", canonical, compute, by, task)


def text_frames_now(panel, values: dict[str, Any], slider: Param) -> Held:
    """A panel's HTML frames, computed now in this thread if need be (the hosted warm-up)."""
    return text_frames_for(panel, values, slider, now=True)[1]


def live_html(where, panel, result, values: dict[str, Any], live: Sequence[Param]) -> None:
    """``panel`` drawn as its HTML for ``result``, with its frames along each live slider it takes
    (the browser swaps in the HTML of the slider's position while the slider moves)."""
    from dpviz.panels import resolve
    from webui.widgets import slider_options, widget_label

    own = {p.name for p in panel.params}
    followers, later = {}, []
    for p in live:
        if p.name not in own:
            continue
        key, held = text_frames_for(panel, values, p, by=asker(panel.id, p.name))
        if held is None:
            later.append(lambda p=p, key=key: pending_element(where, panel.id, p.name, key))
        else:
            later.append(lambda p=p, key=key, held=held: frames_element(where, panel.id, p.name, key, held.blob))
        followers[widget_label(p)] = {"frames": key, "options": slider_options(p, values[p.name]), "at": values[p.name]}
    doc = {"sliders": followers, "html": resolve(panel.html)(result, values)}
    with where:
        _element()(key=f"dpviz-text-{panel.id}", data=b"T" + json.dumps(doc).encode(), on_check_change=_asked)
    for mount in later:  # last in their container (see frames_element)
        mount()
