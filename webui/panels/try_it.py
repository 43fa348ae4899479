"""The metric page's try-it panel (declared in dpviz/papers/metric/): a sentence privatised at
the slider's ε, the changed words highlighted, and each known word's plausible deniability."""

from __future__ import annotations

import html

import streamlit as st


def show(answer, values) -> None:
    """The rewrites of ``answer`` (a :class:`dpviz.papers.metric.pipeline.TryAnswer`)."""
    tokens = answer.tokens
    st.markdown(f"Original: **{html.escape(' '.join(tokens))}** (ε = {answer.epsilon:g}, the slider's)")
    for r in answer.rewrites:
        spans = [
            f"<span style='background:#F0E442;padding:0 3px;border-radius:3px'>{html.escape(o)}</span>"
            if o != t
            else html.escape(o)
            for o, t in zip(r, tokens)
        ]
        st.markdown("→ " + " ".join(spans), unsafe_allow_html=True)
    unknown = [t for t, s in zip(tokens, answer.status) if s != "in vocabulary"]
    if unknown:
        st.caption(
            "Not in the vocabulary: "
            + ", ".join(f"{t} ({s})" for t, s in zip(tokens, answer.status) if s != "in vocabulary")
            + ". 'unknown' words are kept as they are; fastText builds 'subword vector's for them."
        )
    if answer.per_word is not None:
        n = answer.draws
        st.caption(f"Each word's plausible deniability at ε = {answer.epsilon:g} ({n} draws):")
        st.dataframe(
            answer.per_word[["word", "n_w", "s_w", "cosine"]].rename(
                columns={"n_w": f"N_w (of {n})", "s_w": f"S_w (of {n})", "cosine": "mean cosine"}
            ),
            hide_index=True,
        )
    st.divider()
