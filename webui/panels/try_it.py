"""The metric page's try-it panel (declared in dpviz/papers/metric/): a sentence privatised at
the slider's ε, the changed words highlighted, and each known word's plausible deniability.

It is drawn as one piece of HTML (:func:`as_html`), which the live section computes at every
position of the ε slider too, so the sentence follows the slider while it moves
(``webui/live_frames.py``). Every word is escaped: a visitor's sentence is text, never markup.
"""

from __future__ import annotations

import html

import streamlit as st

MARK = "background:#F0E442;color:#000;padding:0 3px;border-radius:3px"
"""A changed word: the Okabe-Ito yellow, black text (contrast 14:1)."""


def as_html(answer, values) -> str:
    """The rewrites of ``answer`` (a :class:`dpviz.papers.metric.pipeline.TryAnswer`) as HTML."""
    tokens = answer.tokens
    out = [f"<p>Original: <b>{html.escape(' '.join(tokens))}</b> (ε = {answer.epsilon:g}, the slider's)</p>"]
    for r in answer.rewrites:
        words = [
            f"<span style='{MARK}'>{html.escape(o)}</span>" if o != t else html.escape(o) for o, t in zip(r, tokens)
        ]
        out.append("<p>→ " + " ".join(words) + "</p>")
    unknown = [f"{html.escape(t)} ({html.escape(s)})" for t, s in zip(tokens, answer.status) if s != "in vocabulary"]
    if unknown:
        out.append(
            "<p><small>Not in the vocabulary: " + ", ".join(unknown) + ". 'unknown' words are kept as they are; "
            "fastText builds 'subword vectors' for them.</small></p>"
        )
    if answer.per_word is not None:
        n = answer.draws
        out.append(f"<p><small>Each word's plausible deniability at ε = {answer.epsilon:g} ({n} draws):</small></p>")
        head = "".join(f"<th scope='col'>{h}</th>" for h in ("word", f"N_w (of {n})", f"S_w (of {n})", "mean cosine"))
        t = answer.per_word  # by its columns: DataFrame.itertuples showed in a page open's profile
        rows = "".join(
            f"<tr><th scope='row'>{html.escape(str(word))}</th><td>{int(n_w)}</td><td>{int(s_w)}</td>"
            f"<td>{cosine:.3f}</td></tr>"
            for word, n_w, s_w, cosine in zip(t["word"], t["n_w"], t["s_w"], t["cosine"])
        )
        out.append(
            "<table class='dpviz-table'><caption>Plausible deniability of each word at the slider's ε</caption>"
            f"<thead><tr>{head}</tr></thead><tbody>{rows}</tbody></table>"
        )
    return "".join(out)


def show(answer, values) -> None:
    """The panel outside a live section: the same HTML, drawn once."""
    st.html(as_html(answer, values))
    st.divider()
