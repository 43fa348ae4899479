"""A figure's card: title, chart with its explanation beside it, downloads (data and images, made
when clicked) and the reproducible link and command line."""

from __future__ import annotations

import time
import traceback
from typing import Any, Callable, Sequence

import pandas as pd
import streamlit as st

from dpviz import registry
from dpviz.errors import InputError
from dpviz.export import find_chromium, html_page, image_bytes
from dpviz.params import Param, applies
from dpviz.registry import FigureSpec
from webui import frames_store, live_frames, views
from webui.plotly_element import live_chart, plotly_json_chart
from webui.url_state import canonical_query, share_link
from webui.widgets import slider_options, widget_label

_CHROMIUM: list = [0.0, None]  # (when last looked, what was found)


def _chromium() -> str | None:
    """:func:`find_chromium`, looked up at most once a minute: every figure card asks on every
    run, and searching the PATH each time showed in the server's profile under a class's load."""
    now = time.monotonic()
    if now - _CHROMIUM[0] > 60:
        _CHROMIUM[:] = [now, find_chromium()]
    return _CHROMIUM[1]


def show_figure(
    spec: FigureSpec, values: dict[str, Any], page_params: Sequence[Param], live: Sequence[Param] = ()
) -> pd.DataFrame | None:
    """Title, chart with its explanation beside it, downloads and the reproducible link. ``live``:
    the page's live sliders; along those the chart has, its frames go with it (drawn by the
    browser while the slider moves), and at a position of their grid the chart is sent as a
    reference to its frame, not computed and sent again (:mod:`webui.live_frames`)."""
    st.subheader(spec.title, anchor=spec.id)
    chart_col, text_col = st.columns([4, 1.35], gap="medium")
    if spec.on_demand and not views.view_ready(spec, values):
        chart_col.info(
            "This chart samples by nature, so it runs when you ask for it, not on every slider move "
            "(the command line runs it directly).",
            icon=":material/play_circle:",
        )
        if not chart_col.button("▶ Run it at these settings", key=f"run-{spec.id}", type="primary"):
            text_col.markdown(spec.caption)  # (once it runs, the explanation comes with the chart's note)
            return None
    own = {p.name for p in spec.params}
    framed = not spec.on_demand and live_frames.enabled() and any(p.name in own for p in live)
    # frames are asked for once the chart itself is at hand: the worker that computes them would
    # otherwise prepare the same heavy state beside the visitor's own first computation of it
    early = framed and (views.view_ready(spec, values) or live_frames.covers(spec, values, live))
    sliders, ref, mounts = chart_frames(chart_col, spec, values, live) if early else ({}, None, [])
    try:
        if ref is None:
            df, chart, elapsed = views.cached_view(spec, values)
            if framed and not early:
                sliders, _, mounts = chart_frames(chart_col, spec, values, live)
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
    config = {"displaylogo": False}
    if ref is None:
        plotly_json_chart(chart_col, chart, key=f"chart-{spec.id}", config=config, sliders=sliders)
        note = f"Computed and drawn in {elapsed:.2f} s (kept for every visitor with these settings)."
    else:
        live_chart(chart_col, None, key=f"chart-{spec.id}", config=config, sliders=sliders, ref=ref[0], height=ref[1])
        note = "Drawn from this chart's frames: every slider position computed once, for every visitor."
    # the explanation and the note on its source in one element, the note in small type (a
    # slider's release sends the live section's cards again: one element fewer per card)
    source = f":small[Paper: {spec.paper_figure}.]  \n" if spec.paper_figure else ""
    text_col.markdown(f"{spec.caption}\n\n{source}:small[{note}]")
    view = lambda: views.cached_view(spec, values)  # noqa: E731 - at a frame's position: made when a download asks
    export_button(
        chart_col,
        spec.id,
        spec.title,
        lambda: view()[0].to_csv(index=False),
        lambda: view()[1].figure(),
        lambda: [
            (
                "Link to this view (all the page's settings, seed included):",
                share_link(canonical_query(page_params, values)),
                None,
            ),
            ("The same figure from the command line:", spec.command(values), "bash"),
        ],
    )
    for mount in mounts:  # the frames elements, last in the column (webui.live_frames.frames_element)
        mount()
    return df if ref is None else None


def chart_frames(
    where, spec: FigureSpec, values: dict[str, Any], live: Sequence[Param]
) -> tuple[dict, tuple | None, list]:
    """The chart's sliders for the browser (label -> its frames' key, the slider's options, the
    value shown); a reference to the frame at the current value when one holds it (``({"frames":
    key, "value": v}, height)``), else None; and what puts each slider's frames element in
    ``where`` (or one that asks again while they are computed:
    :func:`webui.live_frames.pending_element`), to be called last in the column."""
    sliders, ref, mounts, waiting = {}, None, [], False
    own = {p.name for p in spec.params}
    for p in live:
        if p.name not in own or not applies(p, values):  # (a slider that plays no part here is disabled)
            continue
        key, held = live_frames.frames_for(spec, values, p.name, by=live_frames.asker(spec.id, p.name))
        sliders[widget_label(p)] = {"frames": key, "options": slider_options(p, values[p.name]), "at": values[p.name]}
        if held is None:
            near = frames_store.near(key)
            if near is not None:  # the positions nearest the slider's value, while the rest is computed
                sliders[widget_label(p)]["frames"] = near_key = frames_store.near_key(key)
                mounts.append(
                    lambda p=p, k=near_key, b=near.blob: live_frames.frames_element(
                        where, spec.id, f"{p.name}-near", k, b
                    )
                )
            mounts.append(lambda p=p, key=key: live_frames.pending_element(where, spec.id, p.name, key))
            waiting = True
            continue
        mounts.append(
            lambda p=p, key=key, held=held: live_frames.frames_element(where, spec.id, p.name, key, held.blob)
        )
        if ref is None and values[p.name] in held.grid:
            ref = ({"frames": key, "value": values[p.name]}, held.height)
    if sliders and not waiting:  # every slider followed: the frames one key step away, behind all else
        idle = not registry.hosted_mode()  # (fetched before any step in the tab's quiet moments: locally)
        for label, steps in live_frames.ahead_for_browser(spec, values, live).items():
            sliders[label].update(ahead=steps, aheadIdle=idle)  # (else fetched by the tab at that step)
    return sliders, ref, mounts


EXPORT_LABEL = "⬇ Download · Reproduce"


def export_button(
    where,
    stem: str,
    title: str,
    csv: Callable[[], str],
    figure: Callable[[], Any],
    reproduce: Callable[[], list[tuple[str, str, str | None]]],
    extra=(),
) -> None:
    """One button under a chart that opens a dialog with its downloads (:func:`download_row`) and
    how to reproduce it: ``reproduce()`` gives (sentence, code, language) triples, the link to the
    view and the command line, made when the dialog opens; the code is wrapped, not scrolled
    sideways, so that all of it is in view and no region needs the keyboard to scroll.

    One element per card on every run, not eight: a slider's release sends the live section's
    cards again, and the five download buttons (each a widget and a file registered under a lock
    every session shares) and the Reproduce box were 44% of a metric move's server CPU (120
    students, 2 processes: 0.075 CPU-s a move with them, 0.042 without; moves p95 3.3 s against
    0.46 s)."""
    if where.button(
        EXPORT_LABEL,
        key=f"export-{stem}",
        help="This chart's data (CSV) and picture (PNG, SVG, PDF, interactive HTML), its link and its command line.",
    ):
        _export_dialog(title, stem, csv, figure, reproduce, extra)


def _export_dialog(title, stem, csv, figure, reproduce, extra) -> None:
    @st.dialog(f"Download or reproduce: {title}", width="medium")
    def body() -> None:
        st.markdown(
            "**Download** the chart's table (CSV) or the chart (PNG, SVG, PDF, or HTML that stays "
            "interactive and works offline). Each file is made when you click it."
        )
        download_row(st, stem, csv, figure, extra)
        for i, (sentence, code, language) in enumerate(reproduce()):
            st.markdown(("**Reproduce.** " if i == 0 else "") + sentence)
            st.code(code, language=language, wrap_lines=True)

    body()


def download_row(where, stem: str, csv: Callable[[], str], figure: Callable[[], Any], extra=()) -> None:
    """CSV, PNG, SVG, PDF and HTML download buttons in a row (plus ``extra``: (label, data, file
    name, mime) tuples); every file is made when its button is clicked, not on each rerun. The row
    is one horizontal container, not columns: a slider's release sends the live section's cards
    again, and five columns were five more blocks per card (a sixth of a metric move's server time)."""
    row = where.container(horizontal=True, gap="small")
    row.download_button("⬇ CSV", csv, file_name=f"{stem}.csv", mime="text/csv", key=f"dl-csv-{stem}", on_click="ignore")
    if _chromium() is None:
        row.caption("PNG/SVG/PDF need Chromium on the server: `apt-get install -y chromium` or set BROWSER_PATH.")
    else:
        for fmt, mime in (("png", "image/png"), ("svg", "image/svg+xml"), ("pdf", "application/pdf")):
            row.download_button(
                f"⬇ {fmt.upper()}",
                lambda fmt=fmt: image_bytes(figure(), fmt),
                file_name=f"{stem}.{fmt}",
                mime=mime,
                key=f"dl-{fmt}-{stem}",
                on_click="ignore",
            )
    row.download_button(
        "⬇ HTML",
        lambda: html_page(figure()),
        file_name=f"{stem}.html",
        mime="text/html",
        key=f"dl-html-{stem}",
        on_click="ignore",
    )
    for label, data, name, mime in extra:
        row.download_button(label, data, file_name=name, mime=mime, key=f"dl-{name}", on_click="ignore")
