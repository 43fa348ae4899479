"""The live charts' frames on the page (:mod:`dpviz.frames`; kept and computed by
:mod:`webui.frames_store`): which a chart has, who computes missing ones, and the element that
carries them to the browser.

- **Computed** off the visitor's path: a page that finds frames missing asks for them and draws
  its charts as before; the background queue (:mod:`webui.frames_queue`: each request on behalf
  of an asker, :func:`asker`, whose newer request withdraws its older one) has the frame worker
  processes compute them (:mod:`webui.frames_pool`) or, without them, computes them itself;
  ``python -m dpviz build`` and the hosted warm-up compute the pages' defaults beforehand
  (:mod:`webui.warmup`). While frames are pending, their element asks the server again every 2 s
  (a trigger that reruns the live section), which then sends them with their charts.
- **Sent** by a frames element (``webui/live_js/``, under the component ``dpviz_frames``)
  placed beside its chart and hidden: the same bytes for every slider position, so that after a
  move Streamlit's message cache sends it as a reference, not again. The chart element is told
  the key of its frames per slider label; while the slider is dragged the browser draws the frame
  at the slider's position, and once the slider is let go the server sends, for a position on the
  grid, only a reference to that frame (the chart element's ``ref``).
"""

from __future__ import annotations

import functools
import json
import os
from typing import Any, Sequence

import streamlit as st

from dpviz import tables
from dpviz.panels import resolve
from dpviz.params import Param, applies
from dpviz.registry import FigureSpec
from webui import frames_fetch, frames_pool, frames_queue, frames_store
from webui.frames_store import Held
from webui.plotly_element import live_script
from webui.widgets import slider_options, widget_label

FRAMES_COMPONENT = "dpviz_frames"


def _lookup(
    key: str,
    kind: str,
    canonical: dict[str, str],
    compute,
    asker: tuple | None = None,
    task: tuple | None = None,
    near=None,
    ahead: bool = False,
) -> Held | None:
    """Frames ``key`` if this process holds them or the disk does; else None, and a request to
    the background worker on behalf of ``asker``, which has a worker process compute ``task``
    (:mod:`webui.frames_pool`, nearest positions first, told to ``near``) or, without one,
    computes them in its own thread. ``ahead`` (:func:`ask_ahead`): frames on the disk are not
    read, and missing ones are asked for behind every other set and only from the workers, into
    the disk cache, where the page that needs them will find them."""

    def publish_ahead() -> None:  # a set ahead on the disk: where the tab fetches it at the reader's step
        frames_fetch.publish_soon(key, lambda: tables.read_shared(kind, canonical))

    if frames_store.ready(key) or tables.blob_cached(kind, canonical):
        if ahead:  # (if its file is not there yet)
            publish_ahead()
            return None
        return frames_store.get(key, kind, canonical, compute)

    def told(positions, figures) -> None:  # the nearest part, published: the sessions waiting told
        near(positions, figures)
        frames_fetch.tell(frames_queue.sessions(key), frames_store.near_key(key))

    def job(progress) -> None:
        done = task is not None and frames_pool.compute(
            task, key, progress, told if near is not None else None, ahead=ahead
        )  # into the disk cache; False: not done, done here
        if ahead:  # (on the disk, or not at all when the pool is gone: never in the server's thread)
            if done:
                publish_ahead()
            return
        held = frames_store.get(key, kind, canonical, lambda: compute(progress))
        if frames_fetch.publish(key, held.blob):  # for the page waiting for them, without a run
            frames_fetch.tell(frames_queue.sessions(key), key)

    frames_queue.request(key, job, asker, ahead=ahead)
    return None


def asker(owner: str, slider: str) -> tuple:
    """Who asks for the frames of chart (or panel) ``owner`` along ``slider`` in this session (a
    token kept in the session's state)."""
    token = st.session_state.get("_dpviz_frames_asker")
    if token is None:
        token = st.session_state["_dpviz_frames_asker"] = os.urandom(8).hex()
    return (token, owner, slider)


def enabled() -> bool:
    """Frames are on unless ``DPVIZ_FRAMES=0`` (then every slider move is drawn by the server, as
    before frames; the benchmarks' baseline)."""
    return os.environ.get("DPVIZ_FRAMES", "1") != "0"


def frames_for(
    spec: FigureSpec, values: dict[str, Any], slider: str, by: tuple | None = None, ahead: bool = False
) -> tuple[str, Held | None]:
    """The key and the frames of ``spec`` along ``slider``; None (and a request to the
    background worker on behalf of ``by``, :func:`asker`) while they are not computed. On disk
    already: read now (``ahead``: see :func:`_lookup`)."""
    own = {p.name: values[p.name] for p in spec.params}
    frames_pool.prestart(spec.page, values)
    key = frames_store.frames_key(spec, own, slider)
    canonical = frames_store.canonical(spec, own, slider)
    compute = functools.partial(frames_store.compute_bytes, spec, own, slider)
    task = frames_pool.figure_task(spec, own, slider)
    near = None if ahead else functools.partial(frames_store.put_near, spec, own, slider, key)
    return key, _lookup(key, f"{spec.id}.frames", canonical, compute, by, task, near, ahead)


def ask_ahead(spec: FigureSpec, values: dict[str, Any], live: Sequence[Param]) -> int:
    """Once the chart holds its frames along every live slider: ask the frame workers, behind
    every other set (:func:`webui.frames_queue.request`), for its frames along each slider at the
    settings one key step of the other slider away, both sides
    (:func:`webui.frames_store.ahead_settings`): a reader who steps that slider and pauses finds
    the chart's frames along the first one there, rather than a second or more of computing after
    the step. Each (chart, slider, stepped slider, side) asks on behalf of its own asker, so a
    reader's next setting withdraws the last setting's. Only with frame worker processes (never in
    the server's thread). Returns how many sets were looked up."""
    return len(_asked_ahead(spec, values, live))


def _asked_ahead(spec: FigureSpec, values: dict[str, Any], live: Sequence[Param]) -> list[tuple[str, str, Any, str]]:
    """:func:`ask_ahead`'s requests, each as (the slider, the stepped slider, its value there, the key)."""
    if not enabled() or not frames_pool.active():
        return []
    out = []
    for slider, moved, name in frames_store.ahead_settings(spec, values, live):
        key, _ = frames_for(spec, moved, slider, by=asker(spec.id, name), ahead=True)
        stepped = next(n for n, v in moved.items() if v != values.get(n))
        out.append((slider, stepped, moved[stepped], key))
    return out


def ahead_for_browser(spec: FigureSpec, values: dict[str, Any], live: Sequence[Param]) -> dict[str, dict]:
    """:func:`ask_ahead`, and where the tab fetches each of those sets, for the chart's sliders: the
    label of the slider the set follows -> the label of the slider one key step away -> [[that
    slider's value there, the set's key, its file's address], ...] (``webui/live_js/positions.js``
    ``setOf``). At that key step the tab fetches the file (written once the set is on the disk:
    :func:`webui.frames_fetch.publish_soon`) and draws the other slider's moves from it before the
    step's own run has answered (0.6-1.0 s on the 2-core machine). Empty when frames are not
    published as files."""
    out: dict[str, dict] = {}
    labels = {p.name: widget_label(p) for p in live}
    for slider, stepped, value, key in _asked_ahead(spec, values, live):
        where = frames_fetch.addresses(key, None)
        if where is None:
            return {}
        out.setdefault(labels[slider], {}).setdefault(labels[stepped], []).append([value, key, where["whole"]])
    return out


def covers(spec: FigureSpec, values: dict[str, Any], live: Sequence[Param]) -> bool:
    """Whether the chart at ``values`` is one of its frames along a live slider this process or the
    disk holds (then it is drawn from them, never as a first answer)."""
    if not enabled() or spec.on_demand:
        return False
    own = {q.name: values[q.name] for q in spec.params}
    for p in live:
        if p.name in own and applies(p, values):
            key, canonical = frames_store.frames_key(spec, own, p.name), frames_store.canonical(spec, own, p.name)
            if frames_store.ready(key) or tables.blob_cached(f"{spec.id}.frames", canonical):
                held = frames_store.build(spec, own, p.name)
                if values[p.name] in held.grid:
                    return True
    return False


@functools.cache
def _element():
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


def pending_element(where, owner: str, slider: str, key: str, near: bool = True) -> None:
    """In the frames element's place while they are computed: it asks the server again in 2 s (a
    trigger, which reruns the live section; the page asks once for all its waiting charts,
    ``webui/live_js/chart.js``), once per run that draws it (``b"P"``, the key, the run's count,
    so that each run's element is new to the browser, and where the browser fetches the frames,
    and their nearest part with ``near``, once they are computed: :mod:`webui.frames_fetch`, as
    JSON). It is drawn only while frames are missing: a page whose frames are here asks nothing."""
    count = st.session_state.get("_frames_asked", 0) + 1
    st.session_state["_frames_asked"] = count
    token = st.session_state.get("_dpviz_frames_asker")
    where_to = frames_fetch.addresses(key, frames_store.near_key(key) if near else None, token)
    with where:
        _element()(
            key=f"dpviz-frames-{owner}-{slider}",
            data=b"P" + key.encode() + b"\n" + str(count).encode() + b"\n" + json.dumps(where_to).encode(),
            on_check_change=_asked,
        )


def _asked() -> None:
    """The browser asked again whether frames are ready: the rerun it causes is the answer."""


# a panel drawn as HTML (Panel.html) follows its sliders too -------------------------------------


def text_frames_for(panel, values: dict[str, Any], slider: Param, by: tuple | None = None) -> tuple[str, Held | None]:
    """The key and the HTML frames of ``panel`` along ``slider`` (its HTML at every position);
    None (and a request to the background worker on behalf of ``by``) while they are not computed."""
    own = {p.name: values[p.name] for p in panel.params}
    key, canonical = frames_store.text_key(panel, own, slider)
    task = frames_pool.panel_task(panel, own, slider.name)
    compute = functools.partial(frames_store.text_compute, panel, own, slider)
    return key, _lookup(key, f"panel-{panel.id}.frames", canonical, compute, by, task)


def live_html(where, panel, result, values: dict[str, Any], live: Sequence[Param]) -> None:
    """``panel`` drawn as its HTML for ``result``, with its frames along each live slider it takes
    (the browser swaps in the HTML of the slider's position while the slider moves)."""

    own = {p.name for p in panel.params}
    followers, later = {}, []
    for p in live:
        if p.name not in own or not applies(p, values):
            continue
        key, held = text_frames_for(panel, values, p, by=asker(panel.id, p.name))
        if held is None:
            later.append(lambda p=p, key=key: pending_element(where, panel.id, p.name, key, near=False))
        else:
            later.append(lambda p=p, key=key, held=held: frames_element(where, panel.id, p.name, key, held.blob))
        followers[widget_label(p)] = {"frames": key, "options": slider_options(p, values[p.name]), "at": values[p.name]}
    doc = {"sliders": followers, "html": resolve(panel.html)(result, values)}
    with where:
        _element()(key=f"dpviz-text-{panel.id}", data=b"T" + json.dumps(doc).encode(), on_check_change=_asked)
    for mount in later:  # last in their container (see frames_element)
        mount()
