"""Partial-sensitivity page: wiring only (math in dpviz.partial_sensitivity and
dpviz.bars_network, figures in dpviz.figures.partial)."""

import streamlit as st

from webui.nav import page_setup

from dpviz import figures
from dpviz.figures.partial import NET_PARAMS
from dpviz.figures.partial import query_analysis
from dpviz.safe_expr import FormulaError
from webui.controls import live_figures, seed_from_url, settings, widgets

page_setup("Partial sensitivity")

PAGE = "partial"
st.title("Which input attributes drive privacy loss?")
st.markdown(
    "Mueller et al. (2022) differentiate the *gradient norm*, the quantity that sets an individual's "
    "sensitivity and so their privacy loss, once more with respect to the inputs. The result, the "
    "**partial sensitivity** ∂g/∂xⱼ, says how much each input attribute moves that loss. Below: a "
    "database query you can type (derived symbolically with sympy), and a small network trained with "
    "SGD and with DP-SGD. Every setting is in the sidebar and in the URL."
)

all_params = figures.page_params(PAGE)
query_params = [p for p in all_params if p not in NET_PARAMS]
seed_from_url(all_params, state_key=PAGE)
st.sidebar.header("Database query")
values = widgets(settings(query_params), st.sidebar)
st.sidebar.header("Network training")
values.update(widgets(list(NET_PARAMS), st.sidebar))
st.sidebar.caption(f"Seed {values['seed']}: the training data, initialisation and DP-SGD noise all follow from it.")

st.header("1. A database query (paper, Sec. 5.1)")
try:
    latex = query_analysis(values).latex()
except FormulaError as err:
    st.error(f"{err} The network section below still works.")
else:
    def show(lhs: str, tex: str | None, plain: str) -> None:
        if tex is None:
            st.caption(f"{plain}: too long to typeset (more than a few hundred terms); the charts below still use it.")
        else:
            st.latex(lhs + " = " + tex)

    cols = st.columns(2)
    with cols[0]:
        st.markdown("Query per individual and one individual's sensitivity g = ‖∇f‖ / N:")
        show("f", latex["f"], "f")
        show("g", latex["g"], "g")
    with cols[1]:
        st.markdown("Partial sensitivities (the gradient of g):")
        for key, tex in latex.items():
            if key.startswith("dg/d"):
                show(r"\frac{\partial g}{\partial " + key[4:] + "}", tex, f"∂g/∂{key[4:]}")
    live_figures([figures.get(fid) for fid in ("ps-query", "ps-query-surface", "ps-individuals")], values, all_params,
                 intro="**Live:** the Gaussian mechanism's σ and the Rényi order α act in closed form on the sensitivities above: drag them.")

st.header("2. SGD vs. DP-SGD on 5×5 bar images (paper, Sec. 5.2)")
live_figures([figures.get(fid) for fid in ("ps-training", "ps-dpsgd", "ps-histograms")], values, all_params)

st.markdown(
    "**Notes.** The formula box is parsed, never executed: only numbers, the declared attributes, "
    "arithmetic and an allow-list of functions are accepted (see `dpviz/safe_expr.py`). The symbolic "
    "work runs in a separate process with CPU-time and memory limits (`dpviz/sandbox.py`); abs, min and "
    "max are differentiated where they are smooth (everywhere but their kinks). Global "
    "sensitivity: scipy's shgo, checked against a grid of 40,000 points. The network follows the paper "
    "(25-8-1, sigmoid after every layer, binary cross-entropy, full batch); the reference notebook "
    "adds the hidden bias after the sigmoid, has no output bias and includes input gradients in the "
    "norm, while dpviz uses the standard layer and the gradient with respect to the weights (what "
    "DP-SGD clips). Its second derivatives are exact (closed form) and tested against finite differences."
)
