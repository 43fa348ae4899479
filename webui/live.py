"""A page's figures with their live sliders: the sticky slider panel, the Streamlit fragment that
reruns only what a slider drives, and first answers on a cold start."""

from __future__ import annotations

from typing import Any, Sequence

import streamlit as st

from dpviz.errors import InputError
from dpviz.params import Param, format_value
from dpviz.registry import FigureSpec
from webui import figure_card, live_frames, views
from webui.panel_view import show_panel
from webui.plotly_element import plotly_json_chart
from webui.url_state import sync_url
from webui.widgets import widgets

STICKY_CSS = (
    "<style>[data-testid='stLayoutWrapper']:has(> .st-key-live-panel)"
    "{position:sticky;top:3.75rem;z-index:990;background:#fff;}"
    # a chart brought into view (focus, a link, scrollIntoView) stops under the panel: its lower edge,
    # which webui/live_js/sliders.js keeps in --dpviz-panel-pad
    "[data-testid='stMain']{scroll-padding-top:var(--dpviz-panel-pad,0px);}"
    # a phone: the sliders alone (the line that introduces them would take a third of the screen)
    "@media (max-width: 640px){.st-key-live-panel [data-testid='stElementContainer']:has(> [data-testid='stMarkdown'])"
    "{display:none;}}"
    # a slider that plays no part with the page's other settings is disabled (dpviz.params.applies):
    # Streamlit greys its texts out to 2.3:1, under the 4.5:1 text needs; this grey is 5.7:1
    ".st-key-live-panel [data-testid='stSlider']:has([data-disabled='true']) p{color:#666;}</style>"
)


def live_figures(
    specs: Sequence[FigureSpec],
    values: dict[str, Any],
    page_params: Sequence[Param],
    intro: str = "",
    panels: Sequence = (),
    first: dict[str, Any] | None = None,
) -> None:
    """Show a page's figures with its live sliders (``Param.slider``) above them, in a Streamlit
    fragment: moving a slider reruns only the sliders and the figures from the first one that
    depends on a slider onwards (page order kept; the later ones come from the shared view
    cache), not the whole page. ``values`` holds the other parameters' validated values; the
    URL is kept in step from inside the fragment. ``panels`` (declared in the section) are drawn
    after the charts: one that takes a live slider's value right after the last chart that
    follows a slider, inside the fragment, and the charts that follow no slider after it (a
    slider's release sends the fragment's elements again, and on the metric page two such cards
    were 34 of them); the others after every chart. ``first`` holds cheaper values of
    some parameters (the paper's ``first_answer``, name -> value): a chart not yet computed at ``values`` is
    first drawn at those, marked as a first answer, and replaced in place when its full answer
    is ready (:func:`cards`)."""
    live = [p for p in page_params if p.slider]
    uses = [i for i, spec in enumerate(specs) if {p.name for p in spec.params} & {p.name for p in live}]
    live_names = {p.name for p in live}
    live_panels = [panel for panel in panels if {p.name for p in panel.params} & live_names]
    if not live or not uses:
        sync_url(page_params, values)
        cards(specs, values, page_params, first)
        show_panels(panels, values)
        return
    first_live, last = uses[0], uses[-1]
    cards(specs[:first_live], values, page_params, first)

    # the sliders stay in view while the reader scrolls through the charts they drive: the sticky
    # box is the panel's wrapper inside the fragment's block, which holds those charts (the panel
    # itself sits in a wrapper of its own height, where it has no room to stick); frames are hidden
    st.markdown(STICKY_CSS + live_frames.HIDE_CSS, unsafe_allow_html=True)

    @st.fragment
    def section() -> None:
        with st.container(border=True, key="live-panel"):
            if intro:
                st.markdown(intro)
            both = dict(values, **widgets(live, list(st.columns(len(live))), context=values))
        sync_url(page_params, both)
        cards(specs[first_live : last + 1], both, page_params, first, live)
        show_panels(live_panels, both, live)

    section()
    cards(specs[last + 1 :], values, page_params, first)
    show_panels([panel for panel in panels if panel not in live_panels], values)


def show_panels(panels: Sequence, values: dict[str, Any], live: Sequence[Param] = ()) -> None:
    """Each declared panel of a section under its title (:func:`webui.panel_view.show_panel`);
    ``live``: the sliders a panel drawn as HTML follows."""
    for panel in panels:
        if panel.title:
            st.subheader(panel.title, anchor=panel.id)
        if panel.intro:
            st.markdown(panel.intro)
        show_panel(panel, values, live)


def first_answer_needed(
    spec: FigureSpec, values: dict[str, Any], first: dict[str, Any] | None, live: Sequence[Param] = ()
) -> bool:
    """Whether ``spec`` gets a first answer: cheaper values change its parameters and its view at
    ``values`` is not at hand (neither shown before, nor its table cached, nor one of its frames)."""
    if not first or spec.on_demand:
        return False
    changes = any(p.name in first and first[p.name] != values[p.name] for p in spec.params)
    return changes and not views.view_ready(spec, values) and not live_frames.covers(spec, values, live)


def cards(
    specs: Sequence[FigureSpec],
    values: dict[str, Any],
    page_params: Sequence[Param],
    first: dict | None = None,
    live: Sequence[Param] = (),
) -> None:
    """The figure cards of ``specs`` in page order. Those that need a first answer
    (:func:`first_answer_needed`) are drawn at the cheaper values first, all of them, each in a
    slot of its own; then each slot is filled with the full card as its answer is computed.
    ``live``: the sliders whose frames go with the charts (:func:`figure_card.show_figure`)."""
    early = [first_answer_needed(spec, values, first, live) for spec in specs]
    if not any(early):
        for spec in specs:
            # each card in a container of its own, as in a run with first answers (below): the page
            # keeps the same shape from run to run, so the browser keeps its charts and redraws
            # them in place rather than mounting them anew
            with st.container():
                figure_card.show_figure(spec, values, page_params, live)
                st.divider()
        return
    slots = [st.empty() for _ in specs]
    for slot, spec, quick in zip(slots, specs, early):
        with slot.container():
            if quick:
                show_first_answer(spec, first, values)
            else:
                figure_card.show_figure(spec, values, page_params, live)
            st.divider()
    for slot, spec, quick in zip(slots, specs, early):
        if quick:
            with slot.container():
                figure_card.show_figure(spec, values, page_params, live)
                st.divider()


def show_first_answer(spec: FigureSpec, first: dict[str, Any], values: dict[str, Any]) -> None:
    """A figure's first answer: its chart at the cheaper values, under its title, with a note
    saying which values it used and that the full answer follows (no downloads: it is replaced)."""
    st.subheader(spec.title, anchor=False)
    chart_col, text_col = st.columns([4, 1.35], gap="medium")
    cheaper = {p.name: first[p.name] for p in spec.params if p.name in first}
    try:
        df, chart, elapsed = views.cached_view(spec, dict(values, **cheaper))
    except InputError as err:
        chart_col.error(f"This chart cannot be drawn with these settings: {err}")
        return
    plotly_json_chart(chart_col, chart, key=f"chart-{spec.id}-first", config={"displaylogo": False})
    changed = "; ".join(
        f"{p.label}: {format_value(p, cheaper[p.name])} instead of {format_value(p, values[p.name])}"
        for p in spec.params
        if p.name in cheaper and cheaper[p.name] != values[p.name]
    )
    text_col.info(f"**First answer** ({changed}). The full answer replaces it here when it is ready.")
