"""HoHo page: drawn from its declaration (dpviz/papers/hoho/), plus an upload box for sentences."""

import streamlit as st

from dpviz import uploads
from dpviz.data import corpora
from webui.paper_page import show


def upload_box() -> None:
    with st.sidebar.expander("Use your own sentences", expanded=False):
        st.caption(
            "A .txt (one sentence per line) or a .csv with a 'sentence' column and optionally 'label' (0/1); at most "
            "5 MB."
        )
        up = st.file_uploader("Sentences", type=["txt", "csv"], key="_corpus_upload")
        if up is not None:
            data = up.getvalue()
            try:
                sents, labels = corpora.parse_upload(data, up.name)
            except corpora.CorpusError as err:
                st.error(str(err))
            else:
                ref = uploads.save_upload(data, up.name)
                st.success(
                    f"{len(sents):,} sentences"
                    + (" with labels." if labels is not None else " (no labels: the utility chart needs them).")
                )
                if st.button("Use these sentences", key="_use_corpus"):
                    st.session_state["corpus"] = ref
                    st.rerun()


show("hoho", sidebar_top=upload_box)
