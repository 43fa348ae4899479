"""Metric-DP page: wiring only (math in dpviz.metric_dp, data in dpviz.data, figures in
dpviz.figures.metric)."""

import html

import streamlit as st

from webui.nav import page_setup

from dpviz import cache, figures, hosted_mode
from dpviz.data.embeddings import GENSIM, EmbeddingError, get, resolve
from dpviz.figures.metric import TRY_DRAWS, TRY_PARAMS, try_it
from webui.controls import live_figures, seed_from_url, settings, sync_url, widgets

page_setup("Metric DP on word embeddings")
PAGE = "metric"
UPLOAD_TYPES = ("vec", "txt", "bin")

st.title("Metric DP over word embeddings: how much does ε hide?")
st.markdown(
    "The multivariate Laplace mechanism releases the word nearest to φ(w) + z, with noise density "
    "∝ exp(−ε‖z‖). Feyisetan et al. (2020) measure what that hides with two plausible-deniability "
    "statistics over N releases of each word: **N_w**, how often the word comes back unchanged, and "
    "**S_w**, how many distinct words it becomes. The same ε hides very differently on different "
    "embeddings, so ε must be calibrated per embedding. Nearest-word search here is exact over the "
    "whole vocabulary (400,000 words for GloVe)."
)

all_params = figures.page_params(PAGE) + TRY_PARAMS
seed_from_url(all_params, state_key=PAGE)

with st.sidebar.expander("Use your own embedding file", expanded=False):
    st.caption("A word2vec/fastText .vec, a GloVe .txt or a fastText/word2vec .bin (at most 50 MB here). "
               "For the paper's vectors, run dpviz locally with --set embedding=/path/to/crawl-300d-2M.vec.")
    up = st.file_uploader("Embedding file", type=list(UPLOAD_TYPES), key="_upload")
    if up is not None:
        ref = cache.save_upload(up.getvalue(), up.name)
        path = cache.upload_path(ref)
        try:
            emb = get(str(path))  # loaded once, kept within the memory budget
        except EmbeddingError as err:
            st.error(f"{err}")
            path.unlink(missing_ok=True)
        else:
            st.success(f"Read {emb.size:,} words × {emb.dim} dimensions. 'Use this file' draws every chart with it.")
            if st.button("Use this file", key="_use_upload"):
                st.session_state["embedding"] = ref
                st.rerun()

st.sidebar.header("Words and ε")
values = widgets(settings([p for p in all_params if p not in TRY_PARAMS]), st.sidebar)
st.sidebar.header("Try it")
values.update(widgets(list(TRY_PARAMS), st.sidebar))
st.sidebar.caption(f"Seed {values['seed']}: each word's draws follow from (seed, word), so results do not depend on which other words run.")

def offer_download(name: str) -> None:
    """A gensim-downloader model that is not on this machine: download it here, with progress;
    clicking Cancel (any click) stops the run, and the partial file is removed."""
    from dpviz.data import gensim_models

    if name not in GENSIM or gensim_models.is_present(name) or hosted_mode():
        return
    size = gensim_models.MODELS[name].size_mb
    if st.button(f"⬇ Download {name} ({size:,} MB)", key=f"_download_{name}", type="primary"):
        st.button("Cancel the download", key="_cancel_download")
        bar = st.progress(0.0, text=f"Downloading {name}…")
        try:
            gensim_models.download(name, lambda f, m: bar.progress(min(f, 1.0), text=m))
        except EmbeddingError as err:
            st.error(str(err))
        else:
            st.rerun()


try:
    bar = st.progress(0.0, text="Loading the embedding…")
    emb = resolve(values["embedding"], lambda f, m: bar.progress(min(f, 1.0), text=m))
    bar.empty()
    st.info(f"**{emb.name}**: {emb.source}. {emb.note}")
except (EmbeddingError, ValueError) as err:
    bar.empty()
    st.error(f"{err} Allowed: glove-6b-50d, fasttext-local, a gensim model name, an uploaded file, or (running locally) a file path.")
    offer_download(values["embedding"].strip())
    emb = None

if values["compare"].strip() == "fasttext-local" or values["embedding"].strip() == "fasttext-local":
    st.caption("fasttext-local is trained here once (about 15 s, cached): 100-d fastText on the ~0.5M English tokens "
               "gensim ships (a Wikipedia excerpt and the Lee corpora), not the paper's 300-d vectors trained on billions.")



def try_it_box(values: dict) -> None:
    """The try-it box at the slider's ε (drawn inside the live section)."""
    st.subheader("Try it: privatise a sentence", anchor="try-it")
    try:
        with st.spinner("Privatising…"):
            tokens, rows, status, per_word = try_it(emb, values)
    except ValueError as err:
        st.error(str(err))
        return
    st.markdown(f"Original: **{html.escape(' '.join(tokens))}** (ε = {values['epsilon']:g}, the slider's)")
    for r in rows:
        spans = [
            f"<span style='background:#F0E442;padding:0 3px;border-radius:3px'>{html.escape(o)}</span>" if o != t
            else html.escape(o) for o, t in zip(r, tokens)
        ]
        st.markdown("→ " + " ".join(spans), unsafe_allow_html=True)
    unknown = [t for t, s in zip(tokens, status) if s != "in vocabulary"]
    if unknown:
        st.caption("Not in the vocabulary: " + ", ".join(f"{t} ({s})" for t, s in zip(tokens, status) if s != "in vocabulary")
                   + ". 'unknown' words are kept as they are; fastText builds 'subword vector's for them.")
    if per_word is not None:
        st.caption(f"Each word's plausible deniability at ε = {values['epsilon']:g} ({TRY_DRAWS} draws):")
        st.dataframe(per_word[["word", "n_w", "s_w", "cosine"]].rename(columns={"n_w": f"N_w (of {TRY_DRAWS})", "s_w": f"S_w (of {TRY_DRAWS})", "cosine": "mean cosine"}),
                     hide_index=True)
    st.divider()


if emb is None:
    sync_url(all_params, values)
else:
    order = ("mdp-live", "mdp-figure3", "mdp-stats", "mdp-histograms", "mdp-calibrate", "mdp-utility", "mdp-entropy", "mdp-knn-distances", "mdp-knn-histogram")
    live_figures([figures.get(fid) for fid in order], values, all_params, extra=try_it_box,
                 intro="**Live:** drag ε (or focus the slider and use the arrow keys): each word's draws were made once and are "
                       "answered exactly at any ε, so every chart below and the try-it box follow at once.")

st.markdown(
    "**Notes.** Sampling as in the public implementations: direction uniform on the sphere, radius "
    "Gamma(d, 1/ε). One draw's radius is G/ε with G ~ Gamma(d, 1) shared across ε, so every ε of a draw is "
    "answered by one exact search (see `dpviz/metric_dp.py`): results equal brute-force faiss search on the same "
    "draws. The paper used 300-d GloVe and fastText over 319,000 words; this page defaults to GloVe 6B 50d."
)
