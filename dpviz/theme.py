"""One print-friendly, colour-blind-safe Plotly template for every dpviz figure.

Colours are the Okabe-Ito palette (Okabe & Ito 2008), distinguishable under the common
colour-vision deficiencies; figures also vary dash patterns so they survive greyscale.
"""

from __future__ import annotations

import contextlib
import functools
import json
from types import ModuleType
from typing import Iterator

import numpy as np

from dpviz import plotly_paths
from dpviz.lazy import LazyModule

OKABE_ITO = ("#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#000000", "#F0E442")
DASHES = ("solid", "dash", "dot", "dashdot", "longdash", "longdashdot")
TEMPLATE_NAME = "dpviz"
WIDTH, HEIGHT = 900, 500


def _template(pio: ModuleType) -> "go.layout.Template":
    import plotly.graph_objects as go

    t = go.layout.Template(pio.templates["simple_white"])
    t.layout.colorway = list(OKABE_ITO)
    t.layout.font = dict(family="DejaVu Sans, Arial, sans-serif", size=14, color="#222")
    t.layout.title = dict(font=dict(size=17), x=0.01, xanchor="left")
    t.layout.legend = dict(bgcolor="rgba(255,255,255,0.85)", bordercolor="#ccc", borderwidth=1)
    t.layout.margin = dict(l=70, r=30, t=90, b=60)
    for axis in ("xaxis", "yaxis"):
        t.layout[axis].showgrid = True
        t.layout[axis].gridcolor = "#e5e5e5"
        t.layout[axis].ticks = "outside"
    return t


def _register(pio: ModuleType) -> None:
    plotly_paths.install()
    pio.templates[TEMPLATE_NAME] = _template(pio)


go = LazyModule("plotly.graph_objects", on_load=plotly_paths.install)
subplots = LazyModule("plotly.subplots")
"""Plotly, imported at the first figure drawn (the figure modules use these too)."""
pio = LazyModule("plotly.io", on_load=_register)


@contextlib.contextmanager
def fast_drawing() -> Iterator[None]:
    """In this thread, :data:`go` and :data:`subplots` are :mod:`dpviz.fast_figure`'s (the frames
    of a live chart, :class:`dpviz.frames.Drawer`); in every other thread, Plotly's."""
    from dpviz.fast_figure import GO, SUBPLOTS  # (lazy: Plotly's validators, which the frames alone need)

    with go.overridden(GO), subplots.overridden(SUBPLOTS):
        yield


def style(fig: go.Figure, title: str, height: int = HEIGHT) -> go.Figure:
    """Apply the dpviz template explicitly (so exports look like the page).

    The template is set as Plotly sets its default template on a new figure: the registered
    template object, already validated, assigned with the layout's validation off. By name
    (``update_layout(template="dpviz")``) Plotly deep-copies and validates the whole template for
    every figure: 13 ms of a frame's drawing, against 1.4 ms; the figure is the same
    (tests/core/test_theme.py)."""
    templates = pio.templates  # loads plotly.io, which registers the template
    if getattr(fig, "fast", False):  # a dpviz.fast_figure figure: the same template, as a dict
        fig.set_template(_template_json())
        return fig.update_layout(title=title, height=height)
    layout = fig.layout
    validate = layout._validate
    layout._validate = False
    try:
        layout.template = templates[TEMPLATE_NAME]
    finally:
        layout._validate = validate
    fig.update_layout(title=title, height=height)
    return fig


@functools.lru_cache(maxsize=1)
def _template_json_text() -> str:
    from dpviz.fast_figure import template_text  # (lazy: only the fast drawing needs it)

    return template_text(pio.templates[TEMPLATE_NAME])


@functools.lru_cache(maxsize=1)
def _template_json() -> dict:
    """The house template as the dict a Plotly figure's ``to_dict`` holds: one dict, shared by every
    fast figure and never changed (nothing writes into a figure's template; a fresh copy read from
    its text was a tenth of a frame, and the frames' drawer then compared each copy with the last
    key by key, :meth:`dpviz.frames.Drawer._plain`)."""
    return json.loads(_template_json_text())


def log_ticks(low: float, high: float) -> dict:
    """Labelled ticks for a log axis spanning [low, high] (both > 0): 1-2-5 steps when the data
    span at most 2.5 decades (so a narrow range still has several labels), powers of ten when
    wider, every other power beyond 8 decades. Plain numbers from 0.001 to 100,000, powers of
    ten outside (never SI prefixes such as "100μ"). Made once per range (a chart's frames along a
    slider mostly keep their axes' ranges) and handed out as a new dict of new lists."""
    ticks = _log_ticks_kept(float(low), float(high))
    out = {k: list(v) if isinstance(v, list) else v for k, v in ticks.items()}
    if "minor" in out:
        out["minor"] = {k: list(v) if isinstance(v, list) else v for k, v in ticks["minor"].items()}
    return out


@functools.lru_cache(maxsize=1024)
def _log_ticks_kept(low: float, high: float) -> dict:
    """:func:`log_ticks`' answer, kept per range (never handed out itself: it is copied)."""
    if not (np.isfinite(low) and np.isfinite(high) and 0 < low <= high):
        return {}
    lo, hi = int(np.floor(np.log10(low))), int(np.ceil(np.log10(high)))
    decades = np.log10(high / low)
    steps = (1, 2, 5) if decades <= 2.5 else (1,)
    stride = 2 if decades > 8 else 1
    values = [m * 10.0**k for k in range(lo - 1, hi + 1) for m in steps if (k - lo) % stride == 0 or m != 1]
    values = [v for v in values if low / 1.6 <= v <= high * 1.6]
    minor = [m * 10.0**k for k in range(lo - 1, hi + 1) for m in range(1, 10) if low / 1.6 <= m * 10.0**k <= high * 1.6]
    texts = [_tick_text(v) for v in values]
    if sum(low <= v <= high for v in values) < 2:
        # a range too narrow for two 1-2-5 ticks (a loss from 0.705 to 0.644): evenly spaced ticks
        values, texts = _linear_ticks(low, high)
    return dict(
        tickmode="array",
        tickvals=values,
        ticktext=texts,
        minor=dict(tickmode="array", tickvals=minor, ticks="outside", showgrid=True, gridcolor="#f3f3f3"),
    )


def _linear_ticks(low: float, high: float) -> tuple[list[float], list[str]]:
    """Three to six ticks at a 1-2-5 step over [low, high] (a single value: itself), labelled with
    the step's decimals."""
    if high <= low:
        return [low], [f"{low:.3g}"]
    k0 = int(np.floor(np.log10(high - low)))
    for step in sorted(m * 10.0**k for k in range(k0 - 2, k0 + 2) for m in (1, 2, 5)):
        first = np.ceil(low / step - 1e-9) * step
        values = [first + i * step for i in range(int((high - first) / step + 1e-9) + 1)]
        if len(values) <= 6:
            break
    decimals = max(0, -int(np.floor(np.log10(step) + 1e-9)))
    values = [round(float(v), decimals + 3) for v in values]
    return values, [f"{v:,.{decimals}f}" for v in values]


def _tick_text(v: float) -> str:
    if 1e-3 <= v < 1e5:
        return f"{v:,.0f}" if v >= 1 else f"{v:g}"
    k = int(np.floor(np.log10(v) + 1e-9))
    m = round(v / 10.0**k)
    return (f"{m}×" if m != 1 else "") + f"10<sup>{k}</sup>"


def numeric_values(vals) -> np.ndarray | None:
    """A trace's data array as floats: a list, a numpy array or a typed array ({"dtype", "bdata"}:
    how ``to_dict()`` stores numpy data, so a figure rebuilt from a dict holds them); None for
    text or categories."""
    if vals is None or isinstance(vals, str):
        return None
    if isinstance(vals, dict) and "bdata" in vals:
        import base64

        arr = np.frombuffer(base64.b64decode(vals["bdata"]), dtype=vals["dtype"])
        return arr.astype(float).ravel()
    if isinstance(vals, np.ndarray) and vals.dtype.kind in "biuf":  # (as below, without a Python float an item)
        return vals.astype(float).ravel()
    try:
        return np.asarray(list(vals), dtype=float).ravel()
    except (TypeError, ValueError):
        return None  # categories


def _positive_range(fig: go.Figure, axis: str, row=None, col=None) -> tuple[float, float] | None:
    """The smallest and largest positive finite value the traces (those at ``row``/``col``) draw
    on ``axis``, or None: each trace's own, then theirs (the values were gathered into one array
    first, a twentieth of a log-scaled chart's frames)."""
    traces = fig.select_traces(row=row, col=col) if row is not None else fig.data
    low, high = np.inf, -np.inf
    for tr in traces:
        arr = numeric_values(getattr(tr, axis, None))
        if arr is not None:
            arr = arr[np.isfinite(arr) & (arr > 0)]
            if arr.size:
                low, high = min(low, float(arr.min())), max(high, float(arr.max()))
    return (low, high) if low <= high else None


def log_axis(fig: go.Figure, axis: str = "x", **kw) -> go.Figure:
    """A log axis with unlabelled minor gridlines and labelled ticks from :func:`log_ticks` over
    the data drawn on it (call it after adding the traces)."""
    update = fig.update_xaxes if axis == "x" else fig.update_yaxes
    span = _positive_range(fig, axis, kw.get("row"), kw.get("col"))
    ticks = log_ticks(*span) if span is not None else {}
    ticks.setdefault("minor", dict(ticks="outside", showgrid=True, gridcolor="#f3f3f3"))
    update(type="log", **ticks, **kw)
    return fig


def relabel_log_x(fig: go.Figure) -> go.Figure:
    """Label the log x axes again over everything drawn, e.g. after a mark outside the data."""
    span = _positive_range(fig, "x")
    if span is not None:
        fig.update_xaxes(**log_ticks(*span))
    return fig


def mark_x(fig: go.Figure, x: float, y0: float, y1: float, name: str, axes=(("x", "y"),)) -> go.Figure:
    """A slider's value as a dotted vertical line from y0 to y1 in each panel (named by its
    axes, so it also works on a figure rebuilt from a dict), then the log x axes re-labelled,
    as the value may lie outside the data."""
    for k, (xaxis, yaxis) in enumerate(axes):
        ref_line(
            fig,
            [x, x],
            [y0, y1],
            name,
            color="#000",
            dash="dot",
            width=1.5,
            showlegend=k == 0,
            xaxis=xaxis,
            yaxis=yaxis,
        )
    return relabel_log_x(fig)


def ref_line(
    fig: go.Figure,
    x,
    y,
    name: str,
    color: str = "#777",
    dash: str = "dot",
    width: float = 2,
    showlegend: bool = True,
    row: int | None = None,
    col: int | None = None,
    **kw,
) -> go.Figure:
    """A reference line (a claim, a target, a marked value) drawn as a data trace from
    (x[0], y[0]) to (x[1], y[1]).

    Plotly reads the coordinates of shapes and annotations on a log axis as log10 values (a
    horizontal line "at 6" lands at 10^6 and stretches the axis to a million), so every mark a
    caption promises is a trace instead: data coordinates on any axis, a name in the legend
    that says what it is, and something a test can find by that name."""
    trace = go.Scatter(
        x=list(x),
        y=list(y),
        mode=kw.pop("mode", "lines"),
        name=name,
        showlegend=showlegend,
        line=dict(color=color, dash=dash, width=width),
        hoverinfo="skip",
        **kw,
    )
    if row is not None:
        fig.add_trace(trace, row=row, col=col)
    else:
        fig.add_trace(trace)
    return fig


def two_line_title(main: str, detail: str) -> str:
    """A title that fits a narrow column: the claim, then the settings in small type."""
    return f"{main}<br><sup>{detail}</sup>"


def rgba(color: str, alpha: float) -> str:
    """'#0072B2', 0.2 -> 'rgba(0,114,178,0.2)': a palette colour made translucent (bands)."""
    r, g, b = (int(color[i : i + 2], 16) for i in (1, 3, 5))
    return f"rgba({r},{g},{b},{alpha})"
