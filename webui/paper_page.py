"""A paper's page, drawn from its declaration (:class:`dpviz.papers.Paper`): title and summary,
the sidebar groups, each section's figures with their live sliders, and the notes. A page file
calls :func:`show` with its key; a section's declared panels (the metric page's try-it box) are
drawn after its figures, a lead panel (the metric page's embedding, the partial page's formulas)
above them, a parameter's declared upload box beside its widget: no page passes hooks."""

from __future__ import annotations

from typing import Any, Sequence

import streamlit as st

from dpviz import hosted_mode, papers, registry
from dpviz.params import Param, parse_value
from webui import frames_pool, live_frames
from webui.live import live_figures
from webui.nav import page_setup
from webui.panel_view import show_panel
from webui.report_box import report_box
from webui.side_by_side import side_by_side_box
from webui.url_state import seed_from_url, sync_url
from webui.widgets import settings, widgets

Values = dict[str, Any]


def sidebar(paper: papers.Paper, params: Sequence[Param]) -> Values:
    """The sidebar's widgets, group by group as the paper declares them (live sliders excepted:
    they sit above the charts they drive), and the seed's line; returns the validated values."""
    named = {name for group in paper.sidebar for name in group.params}
    by_name = {p.name: p for p in params}
    values: Values = {}
    for group in paper.sidebar:
        members = (
            [by_name[n] for n in group.params if n in by_name]
            if group.params
            else [p for p in params if p.name not in named]
        )
        st.sidebar.header(group.title)
        values.update(widgets(settings(members), st.sidebar))
    if "seed" in values:
        st.sidebar.caption(f"Seed {values['seed']}: {paper.seed_note}")
    st.sidebar.markdown("[:material/description: This page as one report](#report) (HTML, PDF or notebook)", help=None)
    if hosted_mode():
        st.sidebar.info("Hosted demo: sample sizes are capped. Run dpviz locally for full-size runs.")
    return values


def first_answer(paper: papers.Paper, params: Sequence[Param], values: Values) -> Values:
    """The paper's ``first_answer`` values that are cheaper than what is asked for (name -> value)."""
    by_name = {p.name: p for p in params}
    cheaper = {}
    for name, raw in paper.first_answer.items():
        p = by_name[name]
        value = parse_value(p, raw)
        if name in values and value < values[name]:
            cheaper[name] = value
    return cheaper


def show(
    key: str,
) -> None:
    """Draw the page of paper ``key``: its sections' figures and panels, as declared."""
    paper = papers.get(key)
    page_setup(paper.title)
    st.title(paper.headline)
    st.markdown(paper.summary)
    params = registry.page_params(key)
    seed_from_url(params, state_key=key)
    values = sidebar(paper, params)
    if live_frames.enabled():  # the workers load this page's state before its charts are drawn
        frames_pool.prestart(key, values)
    first = first_answer(paper, params, values)
    for section in paper.sections:
        if section.title:
            st.header(section.title)
        if section.lead is not None and not show_panel(section.lead, values):
            sync_url(params, values)  # the section is not drawn; its settings stay in the link
            continue
        specs = [registry.get(fid) for fid in section.figures]
        live_figures(specs, values, params, intro=section.intro, panels=section.panels, first=first)
    st.markdown(paper.notes)
    side_by_side_box(key, params, values)
    report_box(key, paper.page, params, values)
