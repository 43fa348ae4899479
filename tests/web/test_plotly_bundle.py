"""dpviz's plotly.js (webui/plotly_bundle.py): the trace types it registers are every one dpviz's
code draws, the file is where the page's sources say, and it is offered before Streamlit's copy
only where Streamlit serves the static folder. (Its loading and drawing in Chromium:
tests/browser/test_chart_element.py.)"""

from __future__ import annotations

import gzip
import re
from pathlib import Path

import plotly.graph_objects as go
import pytest
from plotly.basedatatypes import BaseTraceType

from webui import plotly_bundle

ROOT = Path(__file__).resolve().parents[2]
ENTRY = ROOT / "scripts" / "plotly_bundle" / "entry.js"
DRAWN_BY = re.compile(r"\bgo\.([A-Z]\w*)\(")


def _trace_types_in_code() -> dict[str, set[str]]:
    """Every Plotly trace type dpviz's figures build (``go.<Trace>(`` in dpviz/ and webui/), with
    the files that build it."""
    found: dict[str, set[str]] = {}
    for path in [*(ROOT / "dpviz").rglob("*.py"), *(ROOT / "webui").rglob("*.py")]:
        for name in DRAWN_BY.findall(path.read_text(encoding="utf-8")):
            cls = getattr(go, name, None)
            if isinstance(cls, type) and issubclass(cls, BaseTraceType):
                found.setdefault(cls().type, set()).add(str(path.relative_to(ROOT)))
    return found


def test_every_trace_type_dpviz_draws_is_in_the_bundle():
    used = _trace_types_in_code()
    assert {"scatter", "bar", "scatter3d"} <= set(used)  # the scan finds what the papers draw
    missing = {t: sorted(files) for t, files in used.items() if t not in plotly_bundle.TRACES}
    assert not missing, f"add these to scripts/plotly_bundle/entry.js and build it again: {missing}"


def test_the_bundle_recipe_registers_what_the_module_says():
    registered = set(re.findall(r'require\("plotly\.js/lib/(\w+)"\)', ENTRY.read_text(encoding="utf-8")))
    assert registered - {"core"} == set(plotly_bundle.TRACES) - {"scatter"}  # scatter comes with the core
    assert "core" in registered


def test_the_bundle_is_in_the_static_folder_as_built():
    path = ROOT / "static" / plotly_bundle.BUNDLE
    assert path.is_file(), "build it: bash scripts/plotly_bundle/build.sh"
    text = path.read_text(encoding="utf-8")
    assert "window.Plotly=" in text.replace(" ", "")  # the module sets the page's Plotly
    version = re.search(r"plotly-dpviz-([\d.]+)\.min\.js", plotly_bundle.BUNDLE).group(1)
    assert f'"{version}"' in text or f"`{version}`" in text  # plotly.js's version inside is the name's
    # a third of Streamlit's copy, or the point is lost (a trace module pulled in by mistake)
    assert path.stat().st_size < 2_500_000
    # nothing else built beside it but the same bytes gzipped, as the page fetches them
    assert sorted(p.name for p in path.parent.iterdir()) == sorted([path.name, path.name + ".gz"])
    packed = ROOT / "static" / plotly_bundle.PACKED
    assert gzip.decompress(packed.read_bytes()) == path.read_bytes()
    assert packed.stat().st_size < path.stat().st_size / 2


@pytest.mark.parametrize("served", [True, False])
def test_the_page_tries_the_bundle_first_where_the_static_folder_is_served(monkeypatch, served):
    import streamlit as st

    real = st.get_option
    monkeypatch.setattr(st, "get_option", lambda k: served if k == "server.enableStaticServing" else real(k))
    monkeypatch.setattr("sys.argv", [str(ROOT / "app.py")])
    got = plotly_bundle.sources("static/js/PlotlyChart.x.js")
    expected = ["app/static/" + plotly_bundle.PACKED, "app/static/" + plotly_bundle.BUNDLE] if served else []
    assert got == [*expected, "static/js/PlotlyChart.x.js"]


def test_no_bundle_file_no_bundle_offered(monkeypatch, tmp_path):
    (tmp_path / "static").mkdir()
    monkeypatch.setattr("sys.argv", [str(tmp_path / "app.py")])
    assert plotly_bundle.sources(None) == []
