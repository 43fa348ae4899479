"""A declared panel (:class:`dpviz.panels.Panel`) on a page: its compute (cached for every
visitor with a progress bar, or computed under a spinner when the compute keeps its own cache),
then its view; input the compute refuses is a sentence in place of the view, a bug is logged."""

from __future__ import annotations

import traceback
from typing import Any, Sequence

import streamlit as st

from dpviz import hosted_mode
from dpviz.errors import InputError
from dpviz.panels import Panel, resolve
from dpviz.params import Param
from webui import live_frames, views


def result_of(panel: Panel, values: dict[str, Any]) -> Any:
    """The panel's result for ``values``."""
    if panel.cached:
        return views.cached_panel(panel, values)
    with views.progress_bar(panel.working or f"{panel.title}…") as progress:
        return panel.run(values, progress)


def show_panel(panel: Panel, values: dict[str, Any], live: Sequence[Param] = ()) -> bool:
    """The panel's result drawn by its view (True); input it refuses is a sentence, a bug is
    logged (False). A panel drawn as HTML (``Panel.html``) among ``live`` sliders follows them
    while they move (:func:`webui.live_frames.live_html`)."""
    try:
        result = result_of(panel, values)
    except InputError as err:
        if panel.refusal:
            resolve(panel.refusal)(err, values)
        else:
            st.error(f"{err} {panel.on_refusal}".strip())
        return False
    except Exception as err:  # noqa: BLE001 - a bug: logged whole, shown whole only off a hosted demo
        traceback.print_exc()
        if not hosted_mode():
            raise
        st.error(f"This part failed with an internal error ({type(err).__name__}); it is logged on the server.")
        return False
    if panel.html and live_frames.enabled() and {p.name for p in live} & {p.name for p in panel.params}:
        live_frames.live_html(st.container(), panel, result, values, live)
        st.divider()
    else:
        resolve(panel.view)(result, values)
    return True
