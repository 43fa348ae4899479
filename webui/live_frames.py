"""The live charts' frames on the page (:mod:`dpviz.frames`): which a chart has, where they are
kept, who computes them, and the element that carries them to the browser.

- **Kept** per (figure, slider, every other parameter's canonical value), as the compressed
  bytes the browser receives: in this process (``web.frames``, shared by every session) and on
  disk (:func:`dpviz.tables.cached_blob`, shared by the server processes, computed once).
- **Computed** off the visitor's path: a page that finds frames missing asks for them and draws
  its charts as before; one background thread per process computes them, one set at a time, at a
  lower CPU priority than the visitors' work (the hosted warm-up asks for the pages' defaults).
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
import logging
import os
import threading
import time
import zlib
from dataclasses import dataclass
from typing import Any, Sequence

import streamlit as st

from dpviz import caches, tables
from dpviz.frames import compute_frames, slider_grid
from dpviz.params import Param, format_value
from dpviz.progress import report
from dpviz.registry import FigureSpec, hosted_mode

FRAMES_COMPONENT = "dpviz_frames"
_FRAMES = caches.memo("web.frames")
_PENDING: dict[str, tuple[float, Any]] = {}  # key -> (when last asked for, the job)
_LOCK = threading.Condition()
_WORKER: list[threading.Thread] = []
_WORKING: set[str] = set()
STALE = 30.0
"""Seconds after which frames nobody asked for again are not computed (a page that waits for
frames asks again every 2 s; a slider that moved on asks for others)."""
log = logging.getLogger("dpviz.frames")


def _top(spec: FigureSpec, slider: str) -> float:
    from webui.widgets import _top as widget_top  # the slider's own range: one rule for both

    return widget_top(spec.param(slider))


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


def _lookup(key: str, kind: str, canonical: dict[str, str], compute) -> Held | None:
    """Frames ``key`` if this process holds them or the disk does; else None, and a request to
    the background worker."""
    if _FRAMES.contains(key) or tables.blob_cached(kind, canonical):
        return _get(key, kind, canonical, compute)
    request(key, lambda progress: _get(key, kind, canonical, lambda: compute(progress)))
    return None


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


def frames_for(spec: FigureSpec, values: dict[str, Any], slider: str) -> tuple[str, Held | None]:
    """The key and the frames of ``spec`` along ``slider``; None (and a request to the
    background worker) while they are not computed. On disk already: read now."""
    own = {p.name: values[p.name] for p in spec.params}
    key = frames_key(spec, own, slider)
    held = _lookup(
        key, f"{spec.id}.frames", _canonical(spec, own, slider), lambda progress: _compute(spec, own, slider, progress)
    )
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


def request(key: str, job) -> None:
    """Ask the background worker for frames ``key``, made by ``job(progress)``; asking again only
    says they are still wanted. The worker takes the most recently asked for first, and drops what
    nobody asked for in :data:`STALE` seconds: a slider's intermediate positions (each asks for
    the other slider's frames there) do not hold up the frames a page waits for now."""
    with _LOCK:
        if _FRAMES.contains(key) or key in _WORKING:
            return
        _PENDING[key] = (time.monotonic(), job)
        if not _WORKER or not _WORKER[0].is_alive():
            _WORKER[:] = [threading.Thread(target=_work, name="dpviz-frames", daemon=True)]
            _WORKER[0].start()
        _LOCK.notify()


def pending(keys) -> bool:
    """Whether any of ``keys`` is still asked for or being computed."""
    with _LOCK:
        return any(k in _PENDING or k in _WORKING for k in keys)


def _next() -> tuple[str, Any]:
    """The most recently asked-for job still wanted (waiting for one); stale ones are dropped."""
    with _LOCK:
        while True:
            now = time.monotonic()
            for k in [k for k, (t, _) in _PENDING.items() if now - t > STALE]:
                del _PENDING[k]
            if _PENDING:
                key = max(_PENDING, key=lambda k: _PENDING[k][0])
                _, job = _PENDING.pop(key)
                _WORKING.add(key)
                return key, job
            _LOCK.wait(timeout=5.0)


def _work() -> None:
    """The background worker: one set of frames at a time, at a lower priority than the
    visitors' work (Linux: this thread's nice value), each logged if it fails."""
    try:
        os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), 10)
    except (AttributeError, OSError):
        pass
    while True:
        key, job = _next()
        try:
            from webui.views import wait_idle

            wait_idle()
            job(lambda *_: wait_idle())  # yields to visitors between positions
        except Exception:  # noqa: BLE001 - a chart without frames still works (the server draws it)
            log.exception("frames %s failed", key)
        finally:
            with _LOCK:
                _WORKING.discard(key)


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


def text_frames_for(panel, values: dict[str, Any], slider: Param, now: bool = False) -> tuple[str, Held | None]:
    """The key and the HTML frames of ``panel`` along ``slider`` (its HTML at every position);
    None (and a request to the background worker) while they are not computed, unless ``now``."""
    from dpviz.panels import resolve

    own = {p.name: values[p.name] for p in panel.params}
    others = sorted((p.name, format_value(p, own[p.name])) for p in panel.params if p.name != slider.name)
    from webui.widgets import _top as widget_top

    top = widget_top(slider)
    key = hashlib.sha256(repr((panel.id, slider.name, others, top, hosted_mode())).encode()).hexdigest()[:24]
    canonical = {**dict(others), "_slider": slider.name, "_top": str(top), "_hosted": str(hosted_mode())}

    def compute(progress=None) -> bytes:
        grid = slider_grid(slider, top)
        pages = []
        for k, v in enumerate(grid):
            report(progress, k / len(grid), f"{panel.title}: {k + 1} of {len(grid)}")
            at = dict(own, **{slider.name: v})
            pages.append(resolve(panel.html)(panel.run(at), at))
        doc = {"panel": panel.id, "slider": slider.name, "grid": list(grid), "html": pages}
        return zlib.compress(json.dumps(doc, separators=(",", ":")).encode(), 6)

    if now:
        return key, _get(key, f"panel-{panel.id}.frames", canonical, compute)
    return key, _lookup(key, f"panel-{panel.id}.frames", canonical, compute)


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
        key, held = text_frames_for(panel, values, p)
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
