"""The HoHo page's link to the privacy-budget page (declared in dpviz/papers/hoho/), drawn as one
piece of HTML that follows the ε and λ sliders while they move (``webui/live_frames.py``)."""

from __future__ import annotations

import html

import streamlit as st


def as_html(link, values) -> str:
    """The link of ``link`` (a :class:`dpviz.papers.hoho.budget_link.BudgetLink`) as HTML."""
    what = f"OME at claimed ε = {link.epsilon:g}, λ = {link.lam:g}"
    if link.href is None:
        why = html.escape(link.why_not)
        return f"<p>HoHo's attack on {html.escape(what)} against the ε-DP promise: not drawn here, as {why}.</p>"
    return (
        f"<p><a href='{html.escape(link.href, quote=True)}' target='_self'>See HoHo's attack on {html.escape(what)} "
        "against the promise of ε-DP</a> on the privacy-budget page: the best any ε-DP mechanism can allow an "
        "attacker, with this attack's exact ROC curve on top.</p>"
    )


def show(link, values) -> None:
    """The panel outside a live section: the same HTML, drawn once."""
    st.html(as_html(link, values))
