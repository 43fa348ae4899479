"""The app's static folder: ``static/`` beside the app's entry script, which Streamlit serves at
``app/static/`` (``server.enableStaticServing``, ``.streamlit/config.toml``). It holds dpviz's
plotly.js (:mod:`webui.plotly_bundle`) and the frames the browser fetches (:mod:`webui.frames_fetch`)."""

from __future__ import annotations

import sys
from pathlib import Path

ROUTE = "app/static"
"""Where Streamlit serves the folder, relative to the app's address."""


def served() -> Path | None:
    """The folder, when this is a Streamlit server that serves it and it is there; else None."""
    try:
        import streamlit as st

        if not st.get_option("server.enableStaticServing"):
            return None
    except Exception:  # noqa: BLE001 - not in a Streamlit server (a test, a worker): nothing served
        return None
    static = Path(sys.argv[0]).resolve().parent / "static"  # Streamlit sets argv[0] to the app's script
    return static if static.is_dir() else None
