"""ADePT sensitivity page: wiring only (math in dpviz.adept, figures in dpviz.figures.adept)."""

import streamlit as st

from webui.nav import page_setup

from dpviz import figures
from webui.controls import controls, live_figures

page_setup("ADePT sensitivity")

PAGE = "adept"
st.title("ADePT's privacy guarantee does not hold")
st.markdown(
    "ADePT (Krishna et al., EACL 2021) rewrites text with an auto-encoder whose latent vector is "
    "clipped to L2 norm C and perturbed with Laplace noise of scale 2C/ε. Habernal (EMNLP 2021) "
    "proved that the sensitivity it must be calibrated to is **2C√n**, not 2C, so ADePT is "
    "**ε√n-DP**. Every chart below is computed live from the settings in the sidebar; the URL "
    "holds them, so a copied link reopens this exact view."
)

params = figures.page_params(PAGE)
st.sidebar.header("Settings")
values = controls(params, st.sidebar, state_key=PAGE)
st.sidebar.caption(f"Seed {values['seed']}: every random chart on this page is reproducible from it.")
if figures.hosted_mode():
    st.sidebar.info("Hosted demo: sample sizes are capped. Run dpviz locally for full-size runs.")

live_figures([spec for spec in figures.all_figures() if spec.page == PAGE], values, params,
             intro="**Live:** drag ε or n (or focus a slider and use the arrow keys); the charts below follow at once.")

st.markdown(
    "**Notes.** Sensitivities follow Theorem 5.1 of Habernal (2021); the violation simulation "
    "follows the paper's reference code (C = 10, 10,000 pairs per dimension), drawing each pair "
    "once in the largest dimension and using its first n coordinates for dimension n (the same "
    "distribution as a fresh draw; see `dpviz/adept.py`). The Gaussian fix (not in the paper) is "
    "calibrated with the analytic Gaussian mechanism of Balle & Wang (2018)."
)
