"""Streamlit wiring shared by the pages: widgets <-> validated params <-> URL, figures.

The URL binding is done here rather than by Streamlit's own ``bind="query-params"``,
because that silently drops values it cannot read, while dpviz must say what was wrong
(the one validator of ``dpviz.params`` serves widgets, the URL and ``--set`` alike):

- whenever a widget's key is not in the session (first run of a deep link, or coming
  back to the page), its value is seeded from the URL if the URL value validates, and
  otherwise from the default, with a sentence saying why;
- after the widgets, the URL is rewritten to the canonical non-default values (the seed
  always), so a copied link reopens the same view, and unknown or bad keys disappear.
"""

from __future__ import annotations

import time
import traceback
from typing import Any, Callable, Sequence
from urllib.parse import urlencode

import pandas as pd
import streamlit as st

from dpviz import memo, registry, uploads
from dpviz.errors import InputError
from dpviz.export import find_chromium, html_page, image_bytes
from dpviz.params import MAX_RAW_LENGTH, Param, ParamError, check_hosted_cap, format_value, log_grid, parse_value
from dpviz.registry import FigureSpec
from webui.plotly_element import ChartJSON, chart_json, plotly_json_chart

ALWAYS_IN_URL = ("seed",)
# (figure id, canonical parameters) -> (table, the chart as Streamlit sends it, seconds), shared by all
# sessions; the charts are JSON strings, not Plotly object trees, so the heap stays small
_VIEWS = memo.ProcessMemo(maxsize=256, max_bytes=256 * 2**20, frozen=True)


# --- widgets and the URL ------------------------------------------------------------------


def _to_widget(p: Param, value: Any) -> Any:
    """The widget-state form of a validated value."""
    if p.kind in ("int_list", "float_list"):
        return format_value(p, value)
    if p.kind == "choices":
        return list(value)
    return value


def _url_raw(name: str) -> Any:
    values = st.query_params.get_all(name)
    if not values:
        return None
    return values if len(values) > 1 else values[0]


def _top(p: Param) -> float | None:
    if registry.hosted_mode() and p.hosted_max is not None and p.kind in ("int", "float"):
        return p.hosted_max
    return p.max


def _widget(p: Param, where) -> Any:
    label = p.label + (f" ({p.unit})" if p.unit else "")
    helptext = p.help + (f" Hosted demo: at most {_top(p):,.0f}." if _top(p) != p.max else "")
    key = p.name
    if p.slider and p.kind == "float" and p.log:
        return _log_slider(p, where, label, helptext)
    if p.kind == "int" and p.name != "seed" and (p.max - p.min) <= 2000:
        if p.max - p.min <= 3:
            return where.radio(label, list(range(int(p.min), int(p.max) + 1)), key=key, help=helptext, horizontal=True)
        return where.slider(label, int(p.min), int(_top(p)), key=key, help=helptext)
    if p.kind == "int":
        return where.number_input(label, int(p.min), int(_top(p)), step=1, key=key, help=helptext)
    if p.kind == "float":
        fmt = "%.1e" if p.log and p.max <= 1 else "%g"
        return where.number_input(label, float(p.min), float(_top(p)), key=key, help=helptext, format=fmt)
    if p.kind == "choice":
        return where.selectbox(
            label, list(p.choices), key=key, help=helptext, format_func=lambda c: p.choice_labels.get(c, c)
        )
    if p.kind == "choices":
        return where.multiselect(
            label, list(p.choices), key=key, help=helptext, format_func=lambda c: p.choice_labels.get(c, c)
        )
    if p.kind == "bool":
        return where.toggle(label, key=key, help=helptext)
    if p.kind == "text" and p.options:
        return _text_with_options(p, where, label, helptext)
    # max_items counts characters only for free text; a list's length is counted in values by
    # the validator, and its raw text is bounded like every other raw value.
    return where.text_input(
        label, key=key, help=helptext, max_chars=p.max_items if p.kind == "text" else MAX_RAW_LENGTH
    )


def _log_slider(p: Param, where, label: str, helptext: str) -> float:
    """A log-scale slider: the positions of :func:`dpviz.params.log_grid` between the bounds
    (the hosted cap, if any), plus the current value when a link brought one off the grid, so
    it shows as typed. Arrow keys step along the grid."""
    grid = log_grid(float(p.min), float(_top(p)))
    current = st.session_state.get(p.name, p.default)
    if isinstance(current, (int, float)) and float(current) not in grid and p.min <= current <= _top(p):
        grid = sorted(grid + [float(current)])
        st.session_state[p.name] = float(current)
    unit = f" {p.unit}" if p.unit else ""
    return where.select_slider(label, options=grid, key=p.name, help=helptext, format_func=lambda x: f"{x:g}{unit}")


OTHER = "\x00other"
"""The select-box entry that opens a text box for a value outside a parameter's options."""


def _option_label(p: Param, value: str) -> str:
    if value == OTHER:
        return "a file on this machine (type its path)…"
    if value.startswith(uploads.UPLOAD_PREFIX):
        return f"your upload ({value[len(uploads.UPLOAD_PREFIX) :]})"
    return p.choice_labels.get(value, value)


def _text_with_options(p: Param, where, label: str, helptext: str) -> str:
    """A select box of a text parameter's suggested values, plus the current value when it is
    something else (an upload, a path from a link), plus, when running locally, an entry that
    opens a text box for a path. Returns the raw value for the validator."""
    current = st.session_state.get(p.name, p.default)
    options = list(p.options)
    if current not in options and current != OTHER:
        options.append(current)
    if not registry.hosted_mode():
        options.append(OTHER)
    choice = where.selectbox(label, options, key=p.name, help=helptext, format_func=lambda v: _option_label(p, v))
    if choice != OTHER:
        return choice
    return (
        where.text_input(
            f"{label}: file path",
            key=f"_{p.name}_path",
            help="A .vec/.txt/.bin file on the machine running dpviz.",
            max_chars=p.max_items,
            placeholder="/data/crawl-300d-2M.vec",
        )
        or p.default
    )


def seed_from_url(params: Sequence[Param], state_key: str = "page") -> None:
    """Seed every widget key missing from the session from the URL (or the default), and show
    one warning per bad or unknown URL parameter. Call once per page, with all its params."""
    hosted = registry.hosted_mode()
    notes_key = f"_dpviz_url_notes_{state_key}"
    seeded_now = False
    for p in params:
        if p.name in st.session_state:
            continue
        seeded_now = True
        raw, value = _url_raw(p.name), p.default
        if raw is not None:
            try:
                value = parse_value(p, raw)
                check_hosted_cap(p, value, hosted)
            except ParamError as err:
                st.session_state.setdefault(notes_key, []).append(
                    f"Link parameter ignored: {err} Showing the default, {format_value(p, p.default)}."
                )
                value = p.default
        st.session_state[p.name] = _to_widget(p, value)
    if seeded_now:
        names = {p.name for p in params}
        for key in st.query_params.keys():
            if key not in names:
                st.session_state.setdefault(notes_key, []).append(
                    f"Link parameter ignored: this page has no parameter {key[:40]!r}; "
                    f"its parameters are {', '.join(sorted(names))}."
                )
    for note in st.session_state.get(notes_key, []):
        st.warning(note, icon=":material/warning:")


def widgets(params: Sequence[Param], where=None) -> dict[str, Any]:
    """One widget per parameter; returns validated values (bad typed input: a sentence and the default).
    ``where`` is one container for all, or a list with one container per parameter."""
    where = where or st.sidebar
    places = list(where) if isinstance(where, (list, tuple)) else [where] * len(params)
    hosted = registry.hosted_mode()
    values: dict[str, Any] = {}
    for p, where in zip(params, places):
        raw = _widget(p, where)
        try:
            values[p.name] = parse_value(p, raw)
            check_hosted_cap(p, values[p.name], hosted)
        except ParamError as err:
            where.error(f"{err} Using the default, {format_value(p, p.default)}.")
            values[p.name] = p.default
    return values


def controls(params: Sequence[Param], where=None, state_key: str = "page") -> dict[str, Any]:
    """The binding for a page's settings: seed every widget from the URL, draw the widgets of
    all but the live sliders (those belong to :func:`live_figures`, which also keeps the URL in
    step), and return their validated values."""
    seed_from_url(params, state_key)
    return widgets(settings(params), where)


def settings(params: Sequence[Param]) -> list[Param]:
    """The parameters drawn with the page's other settings: all but the live sliders."""
    return [p for p in params if not p.slider]


def canonical_query(params: Sequence[Param], values: dict[str, Any]) -> dict[str, str]:
    return {
        p.name: format_value(p, values[p.name])
        for p in params
        if p.name in values and (p.name in ALWAYS_IN_URL or values[p.name] != p.default)
    }


def sync_url(params: Sequence[Param], values: dict[str, Any]) -> None:
    """Rewrite the URL to the canonical non-default values of all the page's parameters; a
    parameter not in ``values`` (a live slider drawn elsewhere on the page) keeps its widget's value."""
    values = dict(values)
    for p in params:
        if p.name not in values and p.name in st.session_state:
            try:
                values[p.name] = parse_value(p, st.session_state[p.name])
            except ParamError:
                pass
    wanted = canonical_query(params, values)
    current = {k: st.query_params.get(k) for k in st.query_params.keys()}
    if current != wanted:
        st.query_params.from_dict(wanted)


# --- figures ------------------------------------------------------------------------------------


def _key(spec: FigureSpec, values: dict[str, Any]) -> tuple[tuple, dict[str, Any]]:
    own = {p.name: values[p.name] for p in spec.params}  # render sees exactly what the CLI passes
    return (spec.id, tuple(sorted(spec.canonical(own).items()))), own


def compute_view(spec: FigureSpec, own: dict[str, Any], progress=None) -> tuple[pd.DataFrame, ChartJSON, float]:
    """Table, the chart as Streamlit sends it, and the seconds they took (no Streamlit calls: any thread)."""
    start = time.perf_counter()
    df = spec.table(own, progress)
    return df, chart_json(spec.figure_dict(df, own)), time.perf_counter() - start


def prefill(spec: FigureSpec, values: dict[str, Any]) -> bool:
    """Compute a view into the shared cache unless it is there (the hosted warm-up); True if computed."""
    key, own = _key(spec, values)
    computed = []

    def compute() -> tuple[pd.DataFrame, ChartJSON, float]:
        computed.append(True)
        return compute_view(spec, own)

    _VIEWS.get(key, compute)
    return bool(computed)


def _ready_view(spec: FigureSpec, values: dict[str, Any]) -> bool:
    """Whether a chart is at hand without heavy work: in the shared views, or its table cached."""
    key, own = _key(spec, values)
    return _VIEWS.contains(key) or spec.is_ready(own)


def _view(spec: FigureSpec, values: dict[str, Any]) -> tuple[pd.DataFrame, ChartJSON, float]:
    """A figure's table, its chart (as JSON) and the seconds they took, shared across sessions (an
    LRU keyed by the figure and its canonical parameters), computed with a progress bar.

    Rendering a Plotly figure costs tens of milliseconds and a page has up to nine, and every
    control change reruns the whole page script, so charts whose parameters did not change are
    served from here. Sessions asking for the same missing view wait for one computation;
    different views compute in parallel (the numeric kernels release the GIL)."""
    key, own = _key(spec, values)

    def compute() -> tuple[pd.DataFrame, ChartJSON, float]:
        bar = None
        if not spec.is_ready(own):
            bar = st.progress(0.0, text=f"Computing {spec.title.lower()}…")

        def progress(frac: float, msg: str) -> None:
            if bar is not None:
                bar.progress(min(max(frac, 0.0), 1.0), text=msg)

        try:
            return compute_view(spec, own, progress)
        finally:
            if bar is not None:
                bar.empty()

    return _VIEWS.get(key, compute)


def live_figures(
    specs: Sequence[FigureSpec],
    values: dict[str, Any],
    page_params: Sequence[Param],
    intro: str = "",
    extra: Callable[[dict[str, Any]], None] | None = None,
    first: dict[str, Any] | None = None,
) -> None:
    """Show a page's figures with its live sliders (``Param.slider``) above them, in a Streamlit
    fragment: moving a slider reruns only the sliders and the figures from the first one that
    depends on a slider onwards (page order kept; the later ones come from the shared view
    cache), not the whole page. ``values`` holds the other parameters' validated values; the
    URL is kept in step from inside the fragment. ``extra(values)`` draws more live content (not
    a figure) at the end of the fragment, after every chart. ``first`` holds cheaper values of
    some parameters (the paper's ``first_answer``, name -> value): a chart not yet computed at ``values`` is
    first drawn at those, marked as a first answer, and replaced in place when its full answer
    is ready (:func:`cards`)."""
    live = [p for p in page_params if p.slider]
    uses = [i for i, spec in enumerate(specs) if {p.name for p in spec.params} & {p.name for p in live}]
    if not live or not uses:
        sync_url(page_params, values)
        cards(specs, values, page_params, first)
        return
    first_live, last = uses[0], (len(specs) - 1 if extra is not None else uses[-1])
    cards(specs[:first_live], values, page_params, first)

    # the sliders stay in view while the reader scrolls to the charts they drive
    st.markdown(
        "<style>.st-key-live-panel{position:sticky;top:3.75rem;z-index:990;background:#fff;}</style>",
        unsafe_allow_html=True,
    )

    @st.fragment
    def section() -> None:
        with st.container(border=True, key="live-panel"):
            if intro:
                st.markdown(intro)
            both = dict(values, **widgets(live, list(st.columns(len(live)))))
        sync_url(page_params, both)
        cards(specs[first_live : last + 1], both, page_params, first)
        if extra is not None:
            extra(both)

    section()
    cards(specs[last + 1 :], values, page_params, first)


def first_answer_needed(spec: FigureSpec, values: dict[str, Any], first: dict[str, Any] | None) -> bool:
    """Whether ``spec`` gets a first answer: cheaper values change its parameters and its view at
    ``values`` is not at hand (neither shown before nor its table cached)."""
    if not first or spec.on_demand:
        return False
    changes = any(p.name in first and first[p.name] != values[p.name] for p in spec.params)
    return changes and not _ready_view(spec, values)


def cards(
    specs: Sequence[FigureSpec], values: dict[str, Any], page_params: Sequence[Param], first: dict | None = None
) -> None:
    """The figure cards of ``specs`` in page order. Those that need a first answer
    (:func:`first_answer_needed`) are drawn at the cheaper values first, all of them, each in a
    slot of its own; then each slot is filled with the full card as its answer is computed."""
    early = [first_answer_needed(spec, values, first) for spec in specs]
    if not any(early):
        for spec in specs:
            show_figure(spec, values, page_params)
            st.divider()
        return
    slots = [st.empty() for _ in specs]
    for slot, spec, quick in zip(slots, specs, early):
        with slot.container():
            if quick:
                show_first_answer(spec, first, values)
            else:
                show_figure(spec, values, page_params)
            st.divider()
    for slot, spec, quick in zip(slots, specs, early):
        if quick:
            with slot.container():
                show_figure(spec, values, page_params)
                st.divider()


def show_first_answer(spec: FigureSpec, first: dict[str, Any], values: dict[str, Any]) -> None:
    """A figure's first answer: its chart at the cheaper values, under its title, with a note
    saying which values it used and that the full answer follows (no downloads: it is replaced)."""
    st.subheader(spec.title, anchor=False)
    chart_col, text_col = st.columns([4, 1.35], gap="medium")
    cheaper = {p.name: first[p.name] for p in spec.params if p.name in first}
    try:
        df, chart, elapsed = _view(spec, dict(values, **cheaper))
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


_CHROMIUM: list = [0.0, None]  # (when last looked, what was found)


def _chromium() -> str | None:
    """:func:`find_chromium`, looked up at most once a minute: every figure card asks on every
    run, and searching the PATH each time showed in the server's profile under a class's load."""
    now = time.monotonic()
    if now - _CHROMIUM[0] > 60:
        _CHROMIUM[:] = [now, find_chromium()]
    return _CHROMIUM[1]


def cli_command(spec: FigureSpec, values: dict[str, Any], suffix: str = "png") -> str:
    sets = " ".join(f"--set {p.name}={format_value(p, values[p.name])}" for p in spec.params)
    return f"python -m dpviz figure {spec.id} {sets} --out {spec.id}.{suffix}"


def share_link(query: dict[str, str]) -> str:
    base = (st.context.url or "").split("?")[0]
    return f"{base}?{urlencode(query)}" if query else base


def show_figure(spec: FigureSpec, values: dict[str, Any], page_params: Sequence[Param]) -> pd.DataFrame | None:
    """Title, chart with its explanation beside it, downloads and the reproducible link."""
    st.subheader(spec.title, anchor=spec.id)
    chart_col, text_col = st.columns([4, 1.35], gap="medium")
    if spec.on_demand and not _ready_view(spec, values):
        with text_col:
            st.markdown(spec.caption)
        chart_col.info(
            "This chart samples by nature, so it runs when you ask for it, not on every slider move "
            "(the command line runs it directly).",
            icon=":material/play_circle:",
        )
        if not chart_col.button("▶ Run it at these settings", key=f"run-{spec.id}", type="primary"):
            return None
    try:
        df, chart, elapsed = _view(spec, values)
    except InputError as err:  # input dpviz refuses; anything else is a bug (below)
        chart_col.error(f"This chart cannot be drawn with these settings: {err}")
        return None
    except Exception as err:  # noqa: BLE001 - a bug: logged whole, shown whole only off a hosted demo
        traceback.print_exc()
        if not registry.hosted_mode():
            raise
        chart_col.error(
            f"This chart failed with an internal error ({type(err).__name__}); it is logged on the server. "
            "The rest of the page works."
        )
        return None
    plotly_json_chart(chart_col, chart, key=f"chart-{spec.id}", config={"displaylogo": False})
    with text_col:
        st.markdown(spec.caption)
        if spec.paper_figure:
            st.caption(f"Paper: {spec.paper_figure}.")
        st.caption(f"Computed and drawn in {elapsed:.2f} s (kept for every visitor with these settings).")
    cols = chart_col.columns(5)
    # every file is made when its button is clicked, not on each rerun of the page
    cols[0].download_button(
        "⬇ CSV",
        lambda: df.to_csv(index=False),
        file_name=f"{spec.id}.csv",
        mime="text/csv",
        key=f"dl-csv-{spec.id}",
        on_click="ignore",
    )
    if _chromium() is None:
        cols[1].caption("PNG/SVG/PDF need Chromium on the server: `apt-get install -y chromium` or set BROWSER_PATH.")
    else:
        for col, fmt, mime in (
            (cols[1], "png", "image/png"),
            (cols[2], "svg", "image/svg+xml"),
            (cols[3], "pdf", "application/pdf"),
        ):
            col.download_button(
                f"⬇ {fmt.upper()}",
                lambda fmt=fmt: image_bytes(chart.figure(), fmt),
                file_name=f"{spec.id}.{fmt}",
                mime=mime,
                key=f"dl-{fmt}-{spec.id}",
                on_click="ignore",
            )
    cols[4].download_button(
        "⬇ HTML",
        lambda: html_page(chart.figure()),
        file_name=f"{spec.id}.html",
        mime="text/html",
        key=f"dl-html-{spec.id}",
        on_click="ignore",
    )
    with chart_col.expander("Reproduce this figure"):
        st.markdown("Link to this view (all the page's settings, seed included):")
        st.code(share_link(canonical_query(page_params, values)), language=None)
        st.markdown("The same figure from the command line:")
        st.code(cli_command(spec, values), language="bash")
    return df
