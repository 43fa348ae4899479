"""HoHo page: wiring only (math in dpviz.ome, data in dpviz.data.corpora, figures in dpviz.figures.hoho)."""

import streamlit as st

from webui.nav import page_setup

from dpviz import cache, figures
from dpviz.data import corpora
from webui.controls import controls, live_figures

page_setup("HoHo attack on OME")
PAGE = "hoho"
st.title("OME's even bits give the sentence away")
st.markdown(
    "Optimized Multiple Encoding (OME; Lyu et al., SIGIR 2020) writes each value of a sentence vector as "
    "11 bits and flips bits at random, claiming ε-local DP. Salem & Zanella-Béguelin (2021) noticed that "
    "the even 1-bits are kept with probability λ/(1+λ) whatever ε is: for the λ that made OME accurate, "
    "an encoding almost copies half of its plaintext's bits. Their **HoHo** attack links encodings to "
    "sentences and reads the bits back. Sentences: the 200 labelled movie-review sentences gensim ships "
    "(the paper used 800 Yelp reviews), as max-pooled GloVe 6B 50d vectors (r = 50, 550 bits)."
)
params = figures.page_params(PAGE)
with st.sidebar.expander("Use your own sentences", expanded=False):
    st.caption("A .txt (one sentence per line) or a .csv with a 'sentence' column and optionally 'label' (0/1); at most 5 MB.")
    up = st.file_uploader("Sentences", type=["txt", "csv"], key="_corpus_upload")
    if up is not None:
        data = up.getvalue()
        try:
            sents, labels = corpora.parse_upload(data, up.name)
        except corpora.CorpusError as err:
            st.error(str(err))
        else:
            ref = cache.save_upload(data, up.name)
            st.success(f"{len(sents):,} sentences" + (" with labels." if labels is not None else " (no labels: the utility chart needs them)."))
            if st.button("Use these sentences", key="_use_corpus"):
                st.session_state["corpus"] = ref
                st.rerun()
st.sidebar.header("Settings")
values = controls(params, st.sidebar, state_key=PAGE)
st.sidebar.caption(f"Seed {values['seed']}: every encoding on this page follows from it.")

live_figures([figures.get(fid) for fid in ("hoho-live", "hoho-example", "hoho-linking", "hoho-reconstruction", "ome-bounds", "hoho-utility", "ome-audit")],
             values, params, intro="**Live:** drag ε and λ (or focus a slider and use the arrow keys); every chart below follows, computed exactly.")

st.markdown(
    "**Notes.** Encoding exactly as the reference code's `float_to_binary` (m = 6, n = 5; the minus sign "
    "written as a leading 1, so values from 32 up read back as negative), perturbation by global bit parity. "
    "SUE (basic RAPPOR) and OUE use a unary encoding: each value cut into 16 equal bins over the corpus "
    "range, one one-hot block per value, the budget split as ε/r per block. The auditor (`dpviz/auditor.py`) "
    "follows DP-Sniper (Bichsel et al., S&P 2021) with logistic regression; the ADePT page uses it too."
)
