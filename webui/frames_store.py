"""The live charts' frames as they are kept and computed (:mod:`dpviz.frames`), apart from the page:
what :mod:`webui.live_frames` sends, :mod:`webui.frames_worker` computes in a worker process, and
``python -m dpviz build`` and the hosted warm-up prepare (:mod:`webui.warmup`).

- **Kept** per (figure or panel, slider, every other parameter's canonical value, the slider's
  top, the hosted flag), as the compressed bytes the browser receives: in this process
  (``web.frames``, shared by every session) and on disk (:func:`dpviz.tables.cached_blob`, shared
  by the server processes and their workers, computed once).
- **Computed** position by position: a chart's figure (:func:`dpviz.frames.compute_frames`, the
  page's own chart JSON), whole or in parts put together (:func:`build` with ``figures``); a
  panel drawn as HTML, its HTML at every position (:func:`text_frames_now`).
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import zlib
from dataclasses import dataclass
from typing import Any

from dpviz import caches, frames, tables
from dpviz.frames import Frames, compute_frames, head, slider_grid
from dpviz.panels import resolve
from dpviz.params import Param, applies, format_value
from dpviz.progress import report
from dpviz.registry import FigureSpec, hosted_mode
from webui import frames_fetch
from webui.plotly_element import chart_json

_FRAMES = caches.memo("web.frames")  # the same memo as frames_queue's (one per name and process)


def _top(spec: FigureSpec, slider: str) -> float:
    return _top_of(spec.param(slider))


def frames_key(spec: FigureSpec, values: dict[str, Any], slider: str) -> str:
    """The key of ``spec``'s frames along ``slider`` at ``values`` (the slider's own value left out)."""
    others = {p.name: format_value(p, values[p.name]) for p in spec.params if p.name != slider}
    blob = repr((spec.id, slider, sorted(others.items()), _top(spec, slider), hosted_mode()))
    return hashlib.sha256(blob.encode()).hexdigest()[:24]


AHEAD_MOST_SLIDERS = 3
"""The most sliders a chart may follow and still have its sets one key step ahead: 2 x 3 x 2 = 12
sets for three (on the privacy-budget page, 4 charts: about 11 CPU-s, computed behind everything
else); 24 for four."""


def ahead_settings(spec: FigureSpec, values: dict[str, Any], live) -> list[tuple[str, dict, str]]:
    """For a chart that follows two or three of the live sliders ``live`` at ``values``: (the
    slider, the page's values one key step of another slider away, a name for that step) for each
    slider, each other slider and each side, the sets a reader's next key step would need
    (:func:`webui.live_frames.ask_ahead`, ``dpviz build``): 4 sets for two sliders, 12 for three
    (the privacy-budget page's σ, k and δ). None for a chart that follows one slider, or more than
    :data:`AHEAD_MOST_SLIDERS` (24 sets for four), or when ``DPVIZ_FRAMES_AHEAD=0``."""
    if spec.on_demand or os.environ.get("DPVIZ_FRAMES_AHEAD") == "0":
        return []
    own = {p.name for p in spec.params}
    moving = [p for p in live if p.name in own and applies(p, values)]
    if not 2 <= len(moving) <= AHEAD_MOST_SLIDERS:
        return []
    out = []
    for q in moving:
        options = grid(spec, q.name)
        if values[q.name] not in options:  # (a link's value off the grid: no step is known)
            continue
        at = options.index(values[q.name])
        for side, j in (("left", at - 1), ("right", at + 1)):
            if not 0 <= j < len(options):  # (a grid's end: no step that way)
                continue
            moved = dict(values, **{q.name: options[j]})
            out += [
                (p.name, moved, f"{p.name} ahead of {q.name} {side}")
                for p in moving
                if p is not q and applies(p, moved)
            ]
    return out


def canonical(spec: FigureSpec, values: dict[str, Any], slider: str) -> dict[str, str]:
    out = {p.name: format_value(p, values[p.name]) for p in spec.params if p.name != slider}
    return {**out, "_slider": slider, "_top": str(_top(spec, slider)), "_hosted": str(hosted_mode())}


def grid(spec: FigureSpec, slider: str) -> list:
    """The positions of ``spec``'s frames along ``slider`` (the page's slider's, to its top)."""
    return slider_grid(spec.param(slider), _top(spec, slider))


def frame_json(fig: dict) -> str:
    """A frame's JSON, as the page writes a chart (one function: a chart's drawing checked once is
    remembered by chart and writer, :func:`dpviz.frames.check_drawing`)."""
    return chart_json(fig).spec


def figures_at(spec: FigureSpec, values: dict[str, Any], slider: str, positions, progress=None) -> tuple[dict, ...]:
    """The chart's frames at ``positions`` of its grid (a part of a set, :mod:`webui.frames_pool`)."""

    return compute_frames(spec, values, slider, frame_json, progress, grid=positions).figures


def check_drawing(spec: FigureSpec, values: dict[str, Any]) -> bool:
    """:func:`dpviz.frames.check_drawing` with the frames' writer: the checks a chart's first set
    would make, made ahead."""
    return frames.check_drawing(spec, values, frame_json)


def _encoded(spec: FigureSpec, slider: str, positions, figures) -> bytes:
    """The bytes the browser receives for ``spec``'s frames at ``positions`` along ``slider``."""
    return Frames(spec.id, slider, spec.param(slider).label, tuple(positions), tuple(figures)).encoded()


def compute_bytes(spec: FigureSpec, values: dict[str, Any], slider: str, progress=None, figures=None) -> bytes:
    """The frames' bytes, from ``figures`` (every position, computed in parts) or computed now."""
    positions = grid(spec, slider)
    if figures is None:
        figures = figures_at(spec, values, slider, positions, progress)
    return _encoded(spec, slider, positions, figures)


@dataclass(frozen=True)
class Held:
    """A set of frames as this process keeps them: the bytes the browser receives, the positions
    they hold, and the chart's height (what a reference to one of them needs)."""

    blob: bytes
    grid: frozenset
    height: int


def held(blob: bytes) -> Held:
    """A set's bytes as this process keeps them: its grid and height read from the start of its
    document (:func:`dpviz.frames.head`), the rest left packed for the browser."""
    doc = head(blob)
    height = doc["height"] if "height" in doc else (doc.get("base") or {}).get("layout", {}).get("height")
    return Held(blob, frozenset(doc["grid"]), int(height or 450))


def get(key: str, kind: str, canonical: dict[str, str], compute) -> Held:
    """Frames ``key``: from this process's memory, the disk, or ``compute()`` now (in this thread)."""
    return _FRAMES.get(key, lambda: held(tables.cached_blob(kind, canonical, compute)))


def build(spec: FigureSpec, values: dict[str, Any], slider: str, progress=None, figures=None) -> Held:
    """A chart's frames, from this process's memory, the disk, or computed now (in the caller's
    thread), or from ``figures``, every position's (computed in parts)."""
    own = {p.name: values[p.name] for p in spec.params}
    compute = functools.partial(compute_bytes, spec, own, slider, progress, figures)
    return get(frames_key(spec, own, slider), f"{spec.id}.frames", canonical(spec, own, slider), compute)


def ready(key: str) -> bool:
    """Whether the frames ``key`` are in this process's memory."""
    return _FRAMES.contains(key)


NEAR_SUFFIX = "-near"
"""What a key of frames' nearest part ends with (the browser tests and benchmarks tell it by that)."""


def near_key(key: str) -> str:
    """The key of the first part of frames ``key``: the positions nearest to the slider's value,
    computed first (:func:`webui.frames_pool.compute`), which the page sends while the rest is computed."""
    return key + NEAR_SUFFIX


def put_near(spec: FigureSpec, values: dict[str, Any], slider: str, key: str, positions, figures) -> None:
    """Keep in this process the frames of ``spec`` at ``positions`` (the nearest part of frames
    ``key``), as a set of their own: the browser draws them as any frames, on that grid."""
    blob = _encoded(spec, slider, positions, figures)
    _FRAMES.get(near_key(key), lambda: held(blob))
    frames_fetch.publish(near_key(key), blob)  # for the page waiting for them, without a run


def near(key: str) -> Held | None:
    """The nearest part of frames ``key`` if this process holds it (:func:`put_near`), else None."""
    return _FRAMES.peek(near_key(key))


def _top_of(p: Param) -> float:
    from webui.widgets import _top as widget_top  # the slider's own range: one rule for both

    return widget_top(p)


def text_key(panel, own: dict[str, Any], slider: Param) -> tuple[str, dict[str, str]]:
    """The key and the canonical parameters of ``panel``'s HTML frames along ``slider``."""
    others = sorted((p.name, format_value(p, own[p.name])) for p in panel.params if p.name != slider.name)
    top = _top_of(slider)
    key = hashlib.sha256(repr((panel.id, slider.name, others, top, hosted_mode())).encode()).hexdigest()[:24]
    return key, {**dict(others), "_slider": slider.name, "_top": str(top), "_hosted": str(hosted_mode())}


def text_compute(panel, own: dict[str, Any], slider: Param, progress=None) -> bytes:
    """``panel``'s HTML at every position of ``slider``, the other parameters at ``own``: the bytes."""

    grid = slider_grid(slider, _top_of(slider))
    pages = []
    for k, v in enumerate(grid):
        report(progress, k / len(grid), f"{panel.title}: {k + 1} of {len(grid)}")
        at = dict(own, **{slider.name: v})
        pages.append(resolve(panel.html)(panel.run(at), at))
    doc = {"panel": panel.id, "slider": slider.name, "grid": list(grid), "html": pages}
    return zlib.compress(json.dumps(doc, separators=(",", ":")).encode(), 6)


def text_frames_now(panel, values: dict[str, Any], slider: Param, progress=None) -> Held:
    """A panel's HTML frames, from memory, the disk, or computed now in this thread (the hosted
    warm-up, a frame worker)."""
    own = {p.name: values[p.name] for p in panel.params}
    key, canonical = text_key(panel, own, slider)
    return get(key, f"panel-{panel.id}.frames", canonical, lambda: text_compute(panel, own, slider, progress))


def on_disk(what, values: dict[str, Any], slider: Param) -> bool:
    """Whether the frames of ``what`` (a figure's spec, or a panel drawn as HTML) along ``slider``
    at ``values`` are in the disk cache (what ``dpviz build`` leaves for the defaults)."""
    own = {p.name: values[p.name] for p in what.params}
    if isinstance(what, FigureSpec):
        return tables.blob_cached(f"{what.id}.frames", canonical(what, own, slider.name))
    return tables.blob_cached(f"panel-{what.id}.frames", text_key(what, own, slider)[1])
