"""Metric-DP page: drawn from its declaration (dpviz/papers/metric/: the try-it box and the upload
box for embeddings included), plus the embedding's loading (and download of a gensim model)."""

import streamlit as st

from dpviz import hosted_mode
from dpviz.data.embeddings import GENSIM, EmbeddingError, resolve
from dpviz.errors import InputError
from webui.paper_page import show


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


def load_embedding(values: dict) -> bool:
    """Load the chosen embedding (with progress); a name that cannot be used is one sentence
    (and, for an absent gensim model, its download button) and no figure is drawn."""
    try:
        bar = st.progress(0.0, text="Loading the embedding…")
        emb = resolve(values["embedding"], lambda f, m: bar.progress(min(f, 1.0), text=m))
        bar.empty()
        st.info(f"**{emb.name}**: {emb.source}. {emb.note}")
    except InputError as err:  # EmbeddingError and every other input dpviz refuses
        bar.empty()
        st.error(
            f"{err} Allowed: glove-6b-50d, fasttext-local, a gensim model name, an uploaded file, or (running "
            "locally) a file path."
        )
        offer_download(values["embedding"].strip())
        return False

    if values["compare"].strip() == "fasttext-local" or values["embedding"].strip() == "fasttext-local":
        st.caption(
            "fasttext-local is trained here once (about 15 s, cached): 100-d fastText on the ~0.5M English tokens "
            "gensim ships (a Wikipedia excerpt and the Lee corpora), not the paper's 300-d vectors trained on billions."
        )
    return True


show("metric", after_sidebar=load_embedding)
