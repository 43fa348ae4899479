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
- **Sent** by a frames element (``webui/live_chart.js``, under the component ``dpviz_frames``)
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
import queue
import threading
import zlib
from dataclasses import dataclass
from typing import Any

import streamlit as st

from dpviz import caches, tables
from dpviz.frames import compute_frames, slider_grid
from dpviz.params import format_value
from dpviz.registry import FigureSpec, hosted_mode

FRAMES_COMPONENT = "dpviz_frames"
_FRAMES = caches.memo("web.frames")
_PENDING: set[str] = set()
_LOCK = threading.Lock()
_JOBS: queue.Queue = queue.Queue()
_WORKER: list[threading.Thread] = []
log = logging.getLogger("dpviz.frames")


def _top(spec: FigureSpec, slider: str) -> float:
    p = spec.param(slider)
    return p.hosted_max if hosted_mode() and p.hosted_max is not None else p.max


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


def build(spec: FigureSpec, values: dict[str, Any], slider: str, progress=None) -> Held:
    """The frames, from this process's memory, the disk, or computed now (in the caller's thread)."""
    key = frames_key(spec, values, slider)
    own = {p.name: values[p.name] for p in spec.params}

    def held() -> Held:
        blob = tables.cached_blob(
            f"{spec.id}.frames", _canonical(spec, own, slider), lambda: _compute(spec, own, slider, progress)
        )
        doc = json.loads(zlib.decompress(blob))
        return Held(blob, frozenset(doc["grid"]), int(doc["base"].get("layout", {}).get("height") or 450))

    return _FRAMES.get(key, held)


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
    key = frames_key(spec, values, slider)
    if _FRAMES.contains(key):
        return key, build(spec, values, slider)
    own = {p.name: values[p.name] for p in spec.params}
    if tables.blob_cached(f"{spec.id}.frames", _canonical(spec, own, slider)):
        return key, build(spec, values, slider)
    request(spec, own, slider)
    return key, None


def request(spec: FigureSpec, values: dict[str, Any], slider: str) -> None:
    """Ask the background worker for these frames (once, however often asked)."""
    key = frames_key(spec, values, slider)
    with _LOCK:
        if key in _PENDING or _FRAMES.contains(key):
            return
        _PENDING.add(key)
        if not _WORKER or not _WORKER[0].is_alive():
            _WORKER[:] = [threading.Thread(target=_work, name="dpviz-frames", daemon=True)]
            _WORKER[0].start()
    _JOBS.put((key, spec, dict(values), slider))


def pending(keys) -> bool:
    """Whether any of ``keys`` is still being computed."""
    with _LOCK:
        return any(k in _PENDING for k in keys)


def _work() -> None:
    """The background worker: one set of frames at a time, at a lower priority than the
    visitors' work (Linux: this thread's nice value), each logged if it fails."""
    try:
        os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), 10)
    except (AttributeError, OSError):
        pass
    while True:
        key, spec, values, slider = _JOBS.get()
        try:
            from webui.views import wait_idle

            wait_idle()
            build(spec, values, slider, progress=lambda *_: wait_idle())  # yields between positions
        except Exception:  # noqa: BLE001 - a chart without frames still works (the server draws it)
            log.exception("frames of %s along %s failed", spec.id, slider)
        finally:
            with _LOCK:
                _PENDING.discard(key)


@functools.cache
def _element():
    from webui.plotly_element import live_script

    return st.components.v2.component(FRAMES_COMPONENT, js=live_script(), isolate_styles=False)


HIDE_CSS = "<style>[class*='st-key-dpviz-frames-']{display:none !important;}</style>"


def frames_element(where, spec: FigureSpec, slider: str, key: str, blob: bytes) -> None:
    """The hidden element that hands the browser the frames ``key`` (``b"F"`` then the key and a
    newline, then the compressed frames): identical bytes on every run with these settings."""
    with where:
        _element()(
            key=f"dpviz-frames-{spec.id}-{slider}", data=b"F" + key.encode() + b"\n" + blob, on_check_change=_asked
        )


def pending_element(where, spec: FigureSpec, slider: str, key: str) -> None:
    """In the frames element's place while they are computed: it asks the server again in 2 s
    (a trigger, which reruns the live section), once per run that draws it (``b"P"``, the key,
    and the run's count, so that each run's element is new to the browser). It is drawn only
    while frames are missing: a page whose frames are here asks nothing."""
    count = st.session_state.get("_frames_asked", 0) + 1
    st.session_state["_frames_asked"] = count
    with where:
        _element()(
            key=f"dpviz-frames-{spec.id}-{slider}",
            data=b"P" + key.encode() + b"\n" + str(count).encode(),
            on_check_change=_asked,
        )


def _asked() -> None:
    """The browser asked again whether frames are ready: the rerun it causes is the answer."""
