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


# The gallery's views (scripts/screens.py gallery: every chart alone, docs/gallery/): each page on
# its defaults and after one changed setting per page. tests/web/test_app.py draws each of them.
GALLERY_VIEWS = [
    ("adept", "default", ""),
    ("adept", "changed", "dim=9&clip=7&epsilon=1.3&sweep=dim&geometry_dim=3&distributions=uniform,normal,normal_tight"),
    ("metric", "default", ""),
    (
        "metric",
        "changed",
        "words=12&epsilons=1,2,5,10,20,40&hist_epsilons=5,9,12&target_stat=s_w&target=500&compare=fasttext-local",
    ),
    ("hoho", "default", ""),
    ("hoho", "changed", "epsilons=0.001,1&lambdas=1,10,50&r=50&lambda_=2&sentence_index=3"),
    ("partial", "default", ""),
    ("partial", "changed", "view=contours&sigma=3&alpha=8"),
    ("budget", "default", ""),
    ("budget", "changed", "mechanism=subsampled&q=0.004&sigma=1.1&k=1000&delta=1e-06"),
    # the HoHo page's link: its attack on OME at ε = 1, λ = 10 over the ε-DP promise
    ("budget", "hoho", "mechanism=rr&epsilon0=1&k=1&hoho_epsilon=1&hoho_lambda=10"),
]
AUDIT_EXAMPLES = ("laplace", "adept", "metric")
"""The audit page's examples the gallery shows: a numeric one (histograms and a threshold) and
categorical ones (bars of words)."""
