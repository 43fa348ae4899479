"""A Plotly chart sent from its JSON, serialised once per view instead of once per script run.

``st.plotly_chart(fig)`` deep-copies the figure into a dict (``fig.to_dict()``, which also
base64-encodes every numpy array) and JSON-encodes it on every run of the script, for every
visitor, whether the chart changed or not: under a class's load that was a seventh of the
server's CPU per slider move. dpviz keeps each view's chart as the JSON string Streamlit would
have sent (:func:`chart_json`, made once when the view is computed, shared by every visitor)
and :func:`plotly_json_chart` puts it on the page with the very proto ``st.plotly_chart``
builds (same spec, config, element id and layout), for the non-selectable charts dpviz draws.

It uses Streamlit's element internals, through the door to them (:mod:`webui.streamlit_compat`); a test
(tests/web/test_webui.py) checks that the element equals ``st.plotly_chart``'s field by field, so a
Streamlit upgrade that changes them fails there rather than on a page.

Streamlit's Plotly element takes its identity from its figure: a figure that changed is a new
element, which the browser mounts and draws from scratch (``Plotly.newPlot``), every chart a
slider drives on every move, in view or not. So dpviz draws its charts with an element of its own
(:func:`live_chart`, ``webui/live_js/``, an ``st.components.v2`` component keyed by the
chart): it keeps its ``<div>`` from one run to the next, redraws it with ``Plotly.react`` (only
what changed), and redraws a chart out of view when it comes into view. It looks as Streamlit's
element does (container width; mode bar with a full-screen button), with dpviz's own plotly.js
(:mod:`webui.plotly_bundle`, a third of the size of Streamlit's copy, which stays the fallback).
"""

from __future__ import annotations

import contextlib
import functools
import json
import os
from dataclasses import dataclass
from typing import Any

from webui.live_script import ENTRY, bundle
from webui.plotly_bundle import sources

_DEFAULT_HEIGHT = 450  # plotly.js's default, as Streamlit resolves height="content"


@dataclass(frozen=True)
class ChartJSON:
    """A Plotly figure as Streamlit sends it: the JSON spec and the height the page gives it."""

    spec: str
    height: int

    def figure(self):
        """The Plotly figure again (for a download: built only when one is clicked)."""
        import plotly.io as pio

        return pio.from_json(self.spec, skip_invalid=True)


def chart_json(fig) -> ChartJSON:
    """The JSON ``st.plotly_chart`` sends for ``fig`` (``to_json(fig.to_dict(), validate=False)``);
    ``fig`` may also be that dict already (:meth:`dpviz.registry.FigureSpec.figure_dict`)."""
    import plotly.io as pio

    fig_dict = fig if isinstance(fig, dict) else fig.to_dict()
    height = (fig_dict.get("layout") or {}).get("height")
    return ChartJSON(pio.to_json(fig_dict, validate=False), int(height) if height else _DEFAULT_HEIGHT)


def plotly_json_chart(
    where, chart: ChartJSON, *, key: str, config: dict[str, Any], sliders: dict[str, dict] | None = None
) -> None:
    """Put ``chart`` in ``where`` (a Streamlit container) as ``st.plotly_chart(fig, theme=None,
    key=key, config=config)`` would: by dpviz's own chart element (:func:`live_chart`) where a
    plotly.js is found (dpviz's, else Streamlit's copy), else by Streamlit's Plotly element
    (:func:`streamlit_plotly_element`), as ``DPVIZ_STREAMLIT_CHARTS=1`` also asks."""
    if os.environ.get("DPVIZ_STREAMLIT_CHARTS") == "1" or not _live().plotly:
        streamlit_plotly_element(where, chart, key=key, config=config)
    else:
        live_chart(where, chart, key=key, config=config, sliders=sliders)


def streamlit_plotly_element(where, chart: ChartJSON, *, key: str, config: dict[str, Any]) -> None:
    """Streamlit's own Plotly element for ``chart``, the very proto ``st.plotly_chart(fig,
    theme=None, key=key, config=config)`` sends (:func:`webui.streamlit_compat.plotly.plotly_element`)."""
    from webui.streamlit_compat.plotly import plotly_element  # (lazy: frame workers use chart_json without Streamlit)

    plotly_element(where, chart.spec, chart.height, key=key, config=config)


def plotly_module() -> str | None:
    """Where Streamlit ships plotly.js (:func:`webui.streamlit_compat.plotly.plotly_module`)."""
    from webui.streamlit_compat.plotly import plotly_module as found  # (lazy: as above)

    return found()


@dataclass(frozen=True)
class _LiveChart:
    plotly: list[str]  # where plotly.js is, as paths under the page's URL, tried in order
    mount: Any


@functools.cache
def full_script() -> str:
    """The page's chart script (``webui/live_js/``, put together by :func:`webui.live_script.bundle`)
    without its comment lines and indentation, its entry point kept as ``window.__dpvizLive``:
    what the page's one loader element (:func:`mount_loader`) carries."""

    body = "\n".join(line.strip() for line in bundle().splitlines() if not line.strip().startswith("//"))
    assert ENTRY in body, "live_js/chart.js must export its entry point"
    body = body.replace(ENTRY, "function dpvizLive(")
    return (
        body + "\nfunction dpvizReady() { window.__dpvizLive = dpvizLive;"
        " for (const run of (window.__dpvizWaiting || []).splice(0)) run(); }"
        "\ndpvizReady();\nexport default function (args) { dpvizReady();"
        ' if (args && typeof args.data === "string" && args.data) plotly(JSON.parse(args.data)); }'
    )


@functools.cache
def live_script() -> str:
    """What every chart, frames and text element carries: a stub that hands its data to the
    page's script (``window.__dpvizLive``, brought once by the loader element), or queues it until
    the loader has run (on lines of its own: Streamlit takes a one-line string for a file's path).
    The script itself (10 kB) used to ride in every element, again on every
    slider move: most of what a move received once charts came as references to their frames."""
    return (
        "export default function (args) {\n  if (window.__dpvizLive) return window.__dpvizLive(args);\n"
        "  (window.__dpvizWaiting = window.__dpvizWaiting || []).push(() => window.__dpvizLive(args));\n}\n"
    )


LOADER_COMPONENT = "dpviz_live"


@functools.cache
def _loader():
    import streamlit as st

    return st.components.v2.component(LOADER_COMPONENT, js=full_script(), isolate_styles=False)


def mount_loader() -> None:
    """The hidden element that brings ``webui/live_js/`` to the page, once per page view
    (outside every fragment: a slider's run does not send it again), and starts loading
    plotly.js. Every page mounts it first (:func:`webui.nav.page_setup`)."""
    import streamlit as st

    st.html("<style>.st-key-dpviz-live{display:none !important;}</style>")
    # its data is where plotly.js is: the browser starts loading it now, while the server still
    # computes the page (Streamlit's copy took 1.5-2.3 s to load and run in headless Chromium
    # here, and was loaded by the first chart, after it arrived)
    places = _live().plotly
    _loader()(key="dpviz-live", data=json.dumps(places) if places else "")


@functools.cache
def _live() -> _LiveChart:
    """The chart element, registered once per process."""
    import streamlit as st

    return _LiveChart(
        sources(plotly_module()), st.components.v2.component(CHART_COMPONENT, js=live_script(), isolate_styles=False)
    )


CHART_COMPONENT = "dpviz_chart"


def live_chart(
    where,
    chart: ChartJSON | None,
    *,
    key: str,
    config: dict[str, Any],
    sliders: dict[str, dict] | None = None,
    ref: dict | None = None,
    height: int | None = None,
) -> None:
    """``chart`` in dpviz's chart element under ``key`` (its identity: the same key in the next
    run is the same element, redrawn in place). Its data is one JSON document, the figure's JSON
    put in as it is (not escaped as a string inside another). ``sliders`` (label -> ``{"frames":
    key, "options": [...], "at": value}``) lets the browser redraw the chart from its frames while
    those sliders move; ``ref`` (``{"frames": key, "value": v}``) stands for ``chart``: the frame
    at ``v``, which the browser holds (``height`` is then the chart's height)."""
    live = _live()
    head = {"height": chart.height if chart is not None else height or _DEFAULT_HEIGHT, "config": config}
    head.update({"plotly": live.plotly, "sliders": sliders or {}})
    if chart is None:
        head["ref"] = ref
        data = json.dumps(head)
    else:
        text = json.dumps(head)
        data = f'{text[:-1]}, "figure": {chart.spec}}}'
    with where if hasattr(where, "__enter__") else contextlib.nullcontext():  # a container, or st itself
        live.mount(key=key, data=data.encode())
