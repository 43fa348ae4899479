"""Streamlit's Plotly element sent from a chart's JSON (:func:`plotly_element`), and where
Streamlit ships plotly.js (:func:`plotly_module`): both private to Streamlit.

:func:`plotly_element` builds the very proto ``st.plotly_chart(fig, theme=None, key=key,
config=config)`` sends (same spec, config, element id and layout) from JSON made once per view
(:mod:`webui.plotly_element`); tests/web/test_webui.py holds it to ``st.plotly_chart``'s field by
field. Where a Streamlit release lacks one of the names it needs, the chart goes through
``st.plotly_chart`` itself (the same chart, its JSON parsed again on every run).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from webui.streamlit_compat.guard import target

# st.plotly_chart's defaults for a chart without selections, which are what dpviz draws
WIDTH = "stretch"
SELECTION_MODE = ("points", "box", "lasso")

_NAMES = (
    ("streamlit.elements.lib", "agent_spec"),
    ("streamlit.elements.lib.form_utils", "current_form_id"),
    ("streamlit.elements.lib.layout_utils", "LayoutConfig"),
    ("streamlit.elements.lib.utils", "compute_and_register_element_id"),
    ("streamlit.elements.plotly_chart", "_plotly_data"),
    ("streamlit.proto.PlotlyChart_pb2", "PlotlyChart"),
)
_FOUND: list = []


def _names():
    """The private names the element needs, or None if this Streamlit lacks one (looked up once)."""
    if not _FOUND:
        found = [target(module, name) for module, name in _NAMES]
        _FOUND.append(None if any(f is None for f in found) else found)
    return _FOUND[0]


def plotly_element(where, spec: str, height: int, *, key: str, config: dict[str, Any]) -> None:
    """Streamlit's own Plotly element for the chart JSON ``spec`` drawn ``height`` pixels high, in
    ``where`` (a DeltaGenerator: a column, a container, st.sidebar)."""
    names = _names()
    if names is None:  # a Streamlit without them: its public call, the same chart
        where.plotly_chart(json.loads(spec), theme=None, key=key, config=config, width=WIDTH)
        return
    agent_spec, current_form_id, layout_config, element_id, plotly_data, proto_class = names
    proto = proto_class()
    proto.theme = ""
    proto.form_id = current_form_id(where)
    proto.spec = spec
    proto.config = json.dumps(config)
    proto.id = element_id(
        "plotly_chart",
        user_key=key,
        key_as_main_identity=False,
        dg=where,
        plotly_spec=proto.spec,
        plotly_config=proto.config,
        selection_mode=SELECTION_MODE,
        is_selection_activated=False,
        theme=None,
        width=WIDTH,
        height="content",
        alt=None,
    )
    where._enqueue(
        "plotly_chart",
        proto,
        layout_config=layout_config(width=WIDTH, height=height),
        agent_props=agent_spec.element("plotly_chart", key=key, data_builder=lambda: plotly_data(proto.spec), alt=None),
    )


def plotly_module() -> str | None:
    """The URL path (relative to the page) of the JavaScript module in which Streamlit ships
    plotly.js, or None if this Streamlit has no single such file (dpviz then draws its charts
    with Streamlit's element)."""
    import streamlit

    found = sorted((Path(streamlit.__file__).parent / "static" / "static" / "js").glob("PlotlyChart.*.js"))
    return f"static/js/{found[0].name}" if len(found) == 1 else None
