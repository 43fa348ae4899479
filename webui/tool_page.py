"""A page that is not a paper, drawn from its declaration (:class:`dpviz.tools.Tool`): title and
text, then each panel: its inputs (if declared), its parameters' widgets, its compute (cached,
with a progress bar) and its view; the URL carries every parameter. A page file calls
:func:`show` with the tool's key."""

from __future__ import annotations

from typing import Any

import streamlit as st

from dpviz import tools
from dpviz.panels import Panel, resolve
from dpviz.params import ParamError, parse_value
from webui.nav import page_setup
from webui.panel_view import show_panel
from webui.url_state import seed_from_url, sync_url
from webui.widgets import widgets

Values = dict[str, Any]
ROW = 5
"""At most this many widgets side by side."""


def _hidden_values(panel: Panel) -> Values:
    """The hidden parameters' values, as the session (seeded from the URL, set by buttons) holds them."""
    out = {}
    for p in panel.params:
        if p.name in panel.hidden:
            try:
                out[p.name] = parse_value(p, st.session_state.get(p.name, p.default))
            except ParamError as err:
                st.warning(f"{err} Using the default.")
                out[p.name] = p.default
    return out


def panel_widgets(panel: Panel) -> Values:
    """The panel's widgets in rows: file boxes first, then the other parameters, at most ROW a row."""
    files = [p for p in panel.widget_params if p.upload is not None]
    rest = [p for p in panel.widget_params if p.upload is None]
    values: Values = {}
    if not files and not rest:
        return values
    with st.container(border=True):
        for group in [files] + [rest[i : i + ROW] for i in range(0, len(rest), ROW)]:
            if group:
                values.update(widgets(group, list(st.columns(len(group)))))
    return values


def show(key: str) -> None:
    """Draw the page of tool ``key``."""
    tool = tools.get(key)
    page_setup(tool.title)
    st.title(tool.headline)
    st.markdown(tool.summary)
    params = tool.params
    seed_from_url(params, state_key=key)
    values: Values = {}
    for panel in tool.panels:
        if panel.title:
            st.header(panel.title, anchor=panel.id)
        if panel.intro:
            st.markdown(panel.intro)
        if panel.inputs:
            resolve(panel.inputs)(panel)
        values.update(_hidden_values(panel))
        values.update(panel_widgets(panel))
        sync_url(params, values)
        show_panel(panel, values)
    if tool.notes:
        st.divider()
        st.markdown(tool.notes)
