"""Metric-DP page: drawn from its declaration (dpviz/papers/metric/), plus an upload box for
embeddings, the embedding's loading (and download of a gensim model) and the try-it box."""

import html

import streamlit as st

from dpviz import hosted_mode, uploads
from dpviz.data.embeddings import GENSIM, EmbeddingError, get, resolve
from dpviz.errors import InputError
from dpviz.papers.metric.figures import TRY_DRAWS, TRY_PARAMS, try_it
from webui.paper_page import show

UPLOAD_TYPES = ("vec", "txt", "bin")
_EMB = {}  # this run's embedding, for the try-it box


def upload_box() -> None:
    with st.sidebar.expander("Use your own embedding file", expanded=False):
        st.caption(
            "A word2vec/fastText .vec, a GloVe .txt or a fastText/word2vec .bin (at most 50 MB here). "
            "For the paper's vectors, run dpviz locally with --set embedding=/path/to/crawl-300d-2M.vec."
        )
        up = st.file_uploader("Embedding file", type=list(UPLOAD_TYPES), key="_upload")
        if up is not None:
            ref = uploads.save_upload(up.getvalue(), up.name)
            path = uploads.upload_path(ref)
            try:
                emb = get(str(path))  # loaded once, kept within the memory budget
            except EmbeddingError as err:
                st.error(f"{err}")
                path.unlink(missing_ok=True)
            else:
                st.success(
                    f"Read {emb.size:,} words × {emb.dim} dimensions. 'Use this file' draws every chart with it."
                )
                if st.button("Use this file", key="_use_upload"):
                    st.session_state["embedding"] = ref
                    st.rerun()


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
        _EMB["emb"] = emb = resolve(values["embedding"], lambda f, m: bar.progress(min(f, 1.0), text=m))
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


def try_it_box(values: dict) -> None:
    """The try-it box at the slider's ε (drawn inside the live section)."""
    st.subheader("Try it: privatise a sentence", anchor="try-it")
    try:
        with st.spinner("Privatising…"):
            tokens, rows, status, per_word = try_it(_EMB["emb"], values)
    except InputError as err:
        st.error(str(err))
        return
    st.markdown(f"Original: **{html.escape(' '.join(tokens))}** (ε = {values['epsilon']:g}, the slider's)")
    for r in rows:
        spans = [
            f"<span style='background:#F0E442;padding:0 3px;border-radius:3px'>{html.escape(o)}</span>"
            if o != t
            else html.escape(o)
            for o, t in zip(r, tokens)
        ]
        st.markdown("→ " + " ".join(spans), unsafe_allow_html=True)
    unknown = [t for t, s in zip(tokens, status) if s != "in vocabulary"]
    if unknown:
        st.caption(
            "Not in the vocabulary: "
            + ", ".join(f"{t} ({s})" for t, s in zip(tokens, status) if s != "in vocabulary")
            + ". 'unknown' words are kept as they are; fastText builds 'subword vector's for them."
        )
    if per_word is not None:
        st.caption(f"Each word's plausible deniability at ε = {values['epsilon']:g} ({TRY_DRAWS} draws):")
        st.dataframe(
            per_word[["word", "n_w", "s_w", "cosine"]].rename(
                columns={"n_w": f"N_w (of {TRY_DRAWS})", "s_w": f"S_w (of {TRY_DRAWS})", "cosine": "mean cosine"}
            ),
            hide_index=True,
        )
    st.divider()


show("metric", extra_params=TRY_PARAMS, sidebar_top=upload_box, after_sidebar=load_embedding, extra=try_it_box)
