"""dpviz home page: what dpviz is and one card per analysis (wiring only)."""

import streamlit as st

from webui.page_start import start

start()  # first: plotly.js starts loading while the page's code is imported

from dpviz import __version__  # noqa: E402
from dpviz.papers import all_papers  # noqa: E402
from dpviz.tools import all_tools  # noqa: E402
from webui.nav import page_setup  # noqa: E402

page_setup("")

st.title("dpviz: where published privacy guarantees break")
st.markdown(
    "An interactive dashboard for the privacy-utility trade-offs of differential privacy in NLP. "
    "Each page turns one paper that found a published guarantee does not hold, or showed how to "
    "calibrate one, into live figures: every figure is a pure function of named parameters, "
    "reachable from the widgets, the page URL and the command line "
    "(`python -m dpviz figure --list`), and downloadable as data (CSV) and images (PNG, SVG, PDF)."
)

cols = st.columns(2)
for i, paper in enumerate(all_papers()):
    with cols[i % 2].container(border=True):
        st.subheader(paper.title)
        st.markdown(f"**What it shows.** {paper.claim}")
        st.caption(paper.citation)
        st.page_link(paper.page, label=f"Open the {paper.title} page", icon=":material/arrow_forward:")

st.header("Check a claim of your own")
cols = st.columns(2)
for i, tool in enumerate(all_tools()):
    with cols[i % 2].container(border=True):
        st.subheader(tool.title)
        st.markdown(tool.claim)
        st.page_link(tool.page, label=f"Open {tool.title.lower()}", icon=":material/arrow_forward:")

st.caption(f"dpviz {__version__}. Runs offline; the data it needs ship with its Python packages.")
