"""The metric page's embedding panel (declared in dpviz/papers/metric/ as its section's lead):
what was loaded, or why it cannot be, with a download button for an absent gensim model."""

from __future__ import annotations

import streamlit as st

from dpviz import hosted_mode
from dpviz.data import gensim_models
from dpviz.data.embeddings import GENSIM, EmbeddingError


def show(loaded, values) -> None:
    """The loaded embedding's name, source and note."""
    st.info(f"**{loaded.name}**: {loaded.source}. {loaded.note}")
    if loaded.fasttext_local:
        st.caption(
            "fasttext-local is trained here once (about 15 s, cached): 100-d fastText on the ~0.5M English tokens "
            "gensim ships (a Wikipedia excerpt and the Lee corpora), not the paper's 300-d vectors trained on billions."
        )


def refused(err, values) -> None:
    """The sentence, what is allowed, and (an absent gensim model) its download button."""
    st.error(
        f"{err} Allowed: glove-6b-50d, fasttext-local, a gensim model name, an uploaded file, or (running "
        "locally) a file path."
    )
    offer_download(values["embedding"].strip())


def offer_download(name: str) -> None:
    """A gensim-downloader model that is not on this machine: download it here, with progress;
    clicking Cancel (any click) stops the run, and the partial file is removed."""

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
