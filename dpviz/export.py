"""Write a figure's table or picture to a file; the format comes from the suffix.

.csv the tidy table, .json the Plotly figure, .html a self-contained page (plotly.js
inlined, works offline), .png/.svg/.pdf through kaleido (>= 1) driving the system
Chromium (``$BROWSER_PATH``, else ``chromium``/``google-chrome`` on the PATH).
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path
from typing import TYPE_CHECKING

import pandas as pd

from dpviz.errors import InputError
from dpviz.text_fit import fit_layout, fit_names
from dpviz.theme import HEIGHT, WIDTH

if TYPE_CHECKING:
    import plotly.graph_objects as go

IMAGE_FORMATS = (".png", ".svg", ".pdf")
FORMATS = (".csv", ".json", ".html") + IMAGE_FORMATS
CHROMIUM_NAMES = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")


class ExportError(InputError):
    """An export that cannot be done here; the message says what to do."""


def find_chromium() -> str | None:
    """The browser kaleido will use: $BROWSER_PATH if it exists, else one on the PATH."""
    env = os.environ.get("BROWSER_PATH")
    if env:
        return env if Path(env).exists() else None
    for name in CHROMIUM_NAMES:
        found = shutil.which(name)
        if found:
            return found
    return None


def image_bytes(fig: go.Figure, fmt: str, scale: float = 2.0) -> bytes:
    """PNG/SVG/PDF bytes of a figure, rendered by kaleido with the system Chromium."""
    fmt = fmt.lstrip(".").lower()
    if "." + fmt not in IMAGE_FORMATS:
        raise ExportError(f"image format must be one of png, svg, pdf, got {fmt!r}")
    browser = find_chromium()
    if browser is None:
        raise ExportError(
            "No Chromium found for image export: install it (Debian/Ubuntu: "
            "`apt-get install -y chromium`) or point BROWSER_PATH at a Chrome/Chromium binary. "
            "CSV, JSON and HTML exports work without it."
        )
    os.environ["BROWSER_PATH"] = browser  # kaleido/choreographer read it
    import plotly.io as pio

    width = fig.layout.width or WIDTH
    fig = fitted(fig, width)
    height = fig.layout.height or HEIGHT
    return pio.to_image(fig, format=fmt, width=width, height=height, scale=scale if fmt == "png" else 1)


def fitted(fig: go.Figure, width: int) -> go.Figure:
    """A copy of ``fig`` whose long titles are wrapped to ``width`` pixels (dpviz.text_fit), the
    chart taller by the lines added, as the page wraps them to the chart's width on screen; a
    legend under the plot given the room its rows take at this width, no more."""
    import plotly.graph_objects as go

    template = fig.layout.template.layout.to_plotly_json() if fig.layout.template else {}
    layout = fig.layout.to_plotly_json()
    layout.setdefault("height", HEIGHT)
    out = go.Figure(fig)
    traces = [t.to_plotly_json() for t in fig.data]
    out.update_layout(fit_layout(layout, width, template, traces), overwrite=True)
    px = ((layout.get("legend") or {}).get("font") or {}).get("size") or (template.get("font") or {}).get("size") or 14
    for trace, fitted_trace in zip(out.data, fit_names(traces, width, px)):
        if fitted_trace.get("name") != trace.name:
            trace.name = fitted_trace["name"]
    return out


def html_page(fig: go.Figure) -> str:
    """A self-contained HTML page of the figure: plotly.js inlined, so it opens offline."""
    return fig.to_html(include_plotlyjs=True, full_html=True)


def output_format(path: str | os.PathLike) -> str:
    """The format a path's suffix names (".csv", ".png", ...); ExportError for any other suffix."""
    suffix = Path(path).suffix.lower()
    if suffix not in FORMATS:
        raise ExportError(f"output format {suffix or '(none)'!r} is not supported: use one of {', '.join(FORMATS)}")
    return suffix


def write(df: pd.DataFrame, fig: go.Figure | None, path: str | os.PathLike) -> Path:
    """Write ``df`` (.csv) or ``fig`` (every other format) to ``path`` in the format its suffix
    names; returns the path. ExportError for an unknown suffix (or no Chromium for an image)."""
    path = Path(path)
    suffix = output_format(path)
    data: bytes | str
    if suffix == ".csv":
        data = df.to_csv(index=False)
    elif suffix == ".json":
        data = fig.to_json()
    elif suffix == ".html":
        data = html_page(fig)
    else:
        data = image_bytes(fig, suffix)
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(data, str):
        path.write_text(data, encoding="utf-8")
    else:
        path.write_bytes(data)
    return path
