"""Partial-sensitivity page: drawn from its declaration (dpviz/papers/partial/), plus the typed
query and its derivatives in LaTeX above the query's charts."""

import streamlit as st

from dpviz.papers.partial.figures import query_analysis
from dpviz.papers.partial.safe_expr import FormulaError
from webui.paper_page import show


def _typeset(lhs: str, tex: str | None, plain: str) -> None:
    if tex is None:
        st.caption(f"{plain}: too long to typeset (more than a few hundred terms); the charts below still use it.")
    else:
        st.latex(lhs + " = " + tex)


def formulas(section, values) -> bool:
    """Above the query's charts: f, g and the partial sensitivities; a formula that cannot be
    used is one sentence, and the network section below still works."""
    if "partial-query" not in section.figures:
        return True
    try:
        latex = query_analysis(values).latex()
    except FormulaError as err:
        st.error(f"{err} The network section below still works.")
        return False
    cols = st.columns(2)
    with cols[0]:
        st.markdown("Query per individual and one individual's sensitivity g = ‖∇f‖ / N:")
        _typeset("f", latex["f"], "f")
        _typeset("g", latex["g"], "g")
    with cols[1]:
        st.markdown("Partial sensitivities (the gradient of g):")
        for key, tex in latex.items():
            if key.startswith("dg/d"):
                _typeset(r"\frac{\partial g}{\partial " + key[4:] + "}", tex, f"∂g/∂{key[4:]}")
    return True


show("partial", section_top=formulas)
