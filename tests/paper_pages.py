"""The tests' view of the pages, read from the papers' declarations (not listed by hand)."""

from pathlib import Path

from dpviz import papers, registry


def page_file(key: str) -> str:
    """The Streamlit page file of a paper, e.g. pages/1_ADePT_sensitivity.py."""
    return papers.get(key).page


def url_path(key: str) -> str:
    """The page's URL path on a server, e.g. ADePT_sensitivity."""
    return Path(papers.get(key).page).stem.split("_", 1)[1]


def charts_drawn(key: str, section: int | None = None) -> int:
    """Charts a page draws without a click (on-demand figures wait for their button), on the whole
    page or in one section."""
    paper = papers.get(key)
    sections = paper.sections if section is None else (paper.sections[section],)
    return sum(not registry.get(fid).on_demand for s in sections for fid in s.figures)


def charts(node) -> list:
    """The charts an AppTest node (the app, a column) holds: dpviz's chart elements
    (:func:`webui.plotly_element.live_chart`) and Streamlit's Plotly elements."""
    from webui.plotly_element import CHART_COMPONENT

    mine = [e for e in node.get("bidi_component") if e.proto.component_name == CHART_COMPONENT]
    return [*node.get("plotly_chart"), *mine]
