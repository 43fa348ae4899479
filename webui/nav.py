"""Sidebar navigation with readable labels (the automatic one would call the home page "app")."""

import streamlit as st

from dpviz import sandbox
from dpviz.papers import all_papers
from dpviz.tools import all_tools
from webui import frames_pool, live_frames, streamlit_compat, warmup
from webui.page_start import PAGE_ICON, ensure_loader


def sidebar_nav() -> None:
    with st.sidebar:
        st.page_link("app.py", label="dpviz home", icon=":material/home:")
        for paper in all_papers():
            st.page_link(paper.page, label=paper.title, icon=":material/monitoring:")
        for tool in all_tools():
            st.page_link(tool.page, label=tool.title, icon=":material/fact_check:")
        st.divider()


@st.fragment(run_every=3600)
def _rerun_on_reconnect() -> None:
    """Nothing to draw: a fragment the browser reruns by itself (once an hour) makes Streamlit's
    frontend ask for a whole script run whenever its websocket reconnects. Without one, a browser
    whose server process died reconnects (through the proxy, to another process) and asks for
    nothing: the page stays as it was, served by no session, until the visitor touches a control.
    With it, the new process draws the page again at once from the URL and the browser's cookies."""


FOCUS_RING = "outline:3px solid #0b57d0 !important;outline-offset:2px;border-radius:4px"
CONTRAST_CSS = (
    "<style>[data-testid='stCaptionContainer'],[data-testid='stSliderTickBar']{color:#585858;opacity:1;}"
    f"a:focus-visible,summary:focus-visible{{{FOCUS_RING}}}"
    f"label:has(input[type=checkbox]:focus-visible),label:has(input[type=radio]:focus-visible){{{FOCUS_RING}}}"
    "section[data-testid=stSidebar][data-collapsed=true],"
    "section[data-testid=stSidebar][data-collapsed=true] *{visibility:hidden !important}"
    "</style>"
)
"""Captions, and a slider's end values (shown while it is focused), in a grey that reads (7:1 on
white; Streamlit draws them at 60% opacity, 3.9:1 and less, below WCAG AA's 4.5:1 for small text).
And a visible focus where Streamlit shows none to a keyboard user: the sidebar's page links, and
radio buttons and toggles (their input is hidden; the ring goes round the option's label), in a
blue 6.9:1 on white (WCAG 2.4.7, and 1.4.11's 3:1 for a focus indicator). A collapsed sidebar
(a phone's, or one closed by hand) is hidden, not only slid off the window: its links and inputs
would otherwise stay in the Tab order, forty invisible stops before the page."""


def page_setup(title: str) -> None:
    """Page config and the sidebar navigation, the same on every page."""
    st.set_page_config(page_title=f"dpviz · {title}" if title else "dpviz", page_icon=PAGE_ICON, layout="wide")
    streamlit_compat.install()
    warmup.start_once()  # hosted demo: the first visitor starts computing every page's defaults
    if live_frames.enabled():  # the frame workers start with the first page anyone opens
        frames_pool.start_soon()
    # the formula worker imports sympy for seconds: started with the first page anyone opens
    sandbox.start_soon("dpviz.papers.partial.sensitivity")
    st.html(CONTRAST_CSS)
    ensure_loader()  # (the page's file sent it first, as a rule: webui.page_start)
    sidebar_nav()
    with st.sidebar:
        _rerun_on_reconnect()
