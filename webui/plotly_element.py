"""A Plotly chart sent from its JSON, serialised once per view instead of once per script run.

``st.plotly_chart(fig)`` deep-copies the figure into a dict (``fig.to_dict()``, which also
base64-encodes every numpy array) and JSON-encodes it on every run of the script, for every
visitor, whether the chart changed or not: under a class's load that was a seventh of the
server's CPU per slider move. dpviz keeps each view's chart as the JSON string Streamlit would
have sent (:func:`chart_json`, made once when the view is computed, shared by every visitor)
and :func:`plotly_json_chart` puts it on the page with the very proto ``st.plotly_chart``
builds (same spec, config, element id and layout), for the non-selectable charts dpviz draws.

It uses Streamlit's element internals (Streamlit is pinned in requirements.txt); a test
(tests/web/test_webui.py) checks that the element equals ``st.plotly_chart``'s field by field, so a
Streamlit upgrade that changes them fails there rather than on a page.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

# st.plotly_chart's defaults for a chart without selections, which are what dpviz draws
_WIDTH = "stretch"
_SELECTION_MODE = ("points", "box", "lasso")
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


def plotly_json_chart(where, chart: ChartJSON, *, key: str, config: dict[str, Any]) -> None:
    """Put ``chart`` in ``where`` (a Streamlit container) as ``st.plotly_chart(fig, theme=None,
    key=key, config=config)`` would."""
    from streamlit.elements.lib import agent_spec
    from streamlit.elements.lib.form_utils import current_form_id
    from streamlit.elements.lib.layout_utils import LayoutConfig
    from streamlit.elements.lib.utils import compute_and_register_element_id
    from streamlit.elements.plotly_chart import _plotly_data
    from streamlit.proto.PlotlyChart_pb2 import PlotlyChart as PlotlyChartProto

    dg = where  # a DeltaGenerator: a column, a container, st.sidebar
    proto = PlotlyChartProto()
    proto.theme = ""
    proto.form_id = current_form_id(dg)
    proto.spec = chart.spec
    proto.config = json.dumps(config)
    proto.id = compute_and_register_element_id(
        "plotly_chart",
        user_key=key,
        key_as_main_identity=False,
        dg=dg,
        plotly_spec=proto.spec,
        plotly_config=proto.config,
        selection_mode=_SELECTION_MODE,
        is_selection_activated=False,
        theme=None,
        width=_WIDTH,
        height="content",
        alt=None,
    )
    dg._enqueue(
        "plotly_chart",
        proto,
        layout_config=LayoutConfig(width=_WIDTH, height=chart.height),
        agent_props=agent_spec.element(
            "plotly_chart", key=key, data_builder=lambda: _plotly_data(proto.spec), alt=None
        ),
    )
