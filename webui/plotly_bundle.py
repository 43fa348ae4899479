"""dpviz's own plotly.js: the core and the five trace types its figures draw, a third of the size
of the copy Streamlit ships (issue: live from the first second, a first chart within 5 s).

Streamlit's copy is plotly.js's whole bundle (4.7 MB: maps, geo, WebGL 2-D, finance, sankey ...),
and a tab must load and run it before it draws a chart: 1.1-1.9 s in headless Chromium on an idle
page here, 2-3.5 s inside a page being drawn, most of the 3.2-5.2 s a second visitor waited for a
first chart (docs/performance.md). dpviz draws scatter, bar, heatmap, contour and scatter3d, so it
ships plotly.js's core with those registered (:data:`BUNDLE`, 1.76 MB, 0.4-0.6 s on the idle page),
built by ``scripts/plotly_bundle/build.sh`` from npm's plotly.js and committed, so that the app
needs no Node.js and works offline.

Streamlit serves it from the app's static folder (:mod:`webui.static_folder`), as it does the
frames of :mod:`webui.frames_fetch`. Gzipped (:data:`PACKED`, 582 kB): Streamlit's server
compresses a script it serves from that folder on every request, 90-97 ms of its CPU each (a
class of 100 opening the page: 10 CPU-s in its event loop), and sends an archive as it is (4 ms a
request); the browser unpacks it (``DecompressionStream``) and imports it.

:func:`sources` is where the page looks for plotly.js, in order, each tried if the one before
fails (``webui/live_js/chart.js`` ``plotly``): the bundle gzipped, the plain bundle (a browser
without ``DecompressionStream``), then Streamlit's copy (an installation whose static folder is
not served, or a file removed). The chart element asks once per process (``webui.plotly_element``).
tests/web/test_plotly_bundle.py checks that every trace type dpviz's code draws is registered here.
"""

from __future__ import annotations

import os

from webui.static_folder import ROUTE, served

BUNDLE = "plotly/plotly-dpviz-4.1.1.min.js"
"""The bundle's path under the app's static folder."""
PACKED = BUNDLE + ".gz"
"""The bundle gzipped (``gzip -9 -n``), what the page fetches first."""
TRACES = ("scatter", "bar", "heatmap", "contour", "scatter3d")
"""The trace types it draws (``scripts/plotly_bundle/entry.js``; scatter is plotly.js's core)."""


def addresses() -> tuple[str, ...]:
    """The bundle's URL paths relative to the page, gzipped first, or none where it is not
    served (the static folder not served, the files not there, or not in a Streamlit server) or
    not wanted (``DPVIZ_PLOTLY_BUNDLE=0``: Streamlit's copy, an operator's switch and the
    benchmarks' baseline)."""
    if os.environ.get("DPVIZ_PLOTLY_BUNDLE", "1").strip() == "0":
        return ()
    static = served()
    if static is None:
        return ()
    return tuple(f"{ROUTE}/{name}" for name in (PACKED, BUNDLE) if (static / name).is_file())


def sources(streamlit_copy: str | None) -> list[str]:
    """The URLs the page tries for plotly.js, in order: this bundle gzipped, as it is, then
    Streamlit's copy."""
    return [*addresses(), *([streamlit_copy] if streamlit_copy else [])]
