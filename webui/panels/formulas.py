"""The partial-sensitivity page's formulas panel (declared in dpviz/papers/partial/): the typed
query f, one individual's sensitivity g = ‖∇f‖ / N and the partial sensitivities, in LaTeX."""

from __future__ import annotations

import streamlit as st


def _typeset(lhs: str, tex: str | None, plain: str) -> None:
    if tex is None:
        st.caption(f"{plain}: too long to typeset (more than a few hundred terms); the charts below still use it.")
    else:
        st.latex(lhs + " = " + tex)


def show(latex: dict[str, str | None], values) -> None:
    """f and g in the left column, each ∂g/∂x in the right."""
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
