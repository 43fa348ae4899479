"""dpviz.plotly_paths: Plotly's property-path parse, remembered, gives what Plotly's own gives for
every path the figures use and for odd ones, a fresh copy of the mutable part each time, and the
very same figures."""

from __future__ import annotations

import plotly.io as pio
import pytest
from plotly import basedatatypes

from dpviz import caches, plotly_paths, registry
from dpviz.params import validate

ODD = [
    "", "x", "marker_color", "marker.line.width", "xaxis2.title.text", "annotations[3].text", "error_y",
    "error_y_array", "error_x.arrayminus", "a__b_", "_x", "x_", "__", "a.b[0]_c", "layout.xaxis.range[1]",
    "legend_title_font_size", "hoverlabel_namelength", "template.layout.colorway",
]  # fmt: skip
FIGURES = ("adept-fixes", "adept-sensitivity", "hoho-bounds", "adept-frontier")


def _own():
    """Plotly's own parse (the function under the remembering one, if installed)."""
    parse = basedatatypes._str_to_dict_path_full
    return getattr(parse, "__wrapped__", parse)


def _paths_seen(monkeypatch) -> set[str]:
    """Every path string Plotly parses while the figures of :data:`FIGURES` are drawn."""
    own, seen = _own(), set()

    def recording(path):
        if isinstance(path, str):
            seen.add(path)
        return own(path)

    monkeypatch.setattr(basedatatypes, "_str_to_dict_path_full", recording)
    caches.empty_all()
    for fid in FIGURES:
        registry.run(fid, dict(registry.get(fid).quick))
    return seen


def test_the_remembered_parse_is_plotlys_on_every_path_the_figures_use_and_odd_ones(monkeypatch):
    paths = _paths_seen(monkeypatch)
    assert len(paths) > 50 and any("_" in p for p in paths)  # the figures' own, underscores among them
    own = _own()
    remembered = plotly_paths.remembering(own)
    for path in sorted(paths) + ODD:
        for _ in range(2):  # computed, then remembered
            assert remembered(path) == own(path), path
    assert remembered.cache_info().hits >= len(paths)
    calls = []
    passed_on = plotly_paths.remembering(lambda path: calls.append(path) or ((), []))
    passed_on(3), passed_on(3)  # not a string: to Plotly's own each time, never remembered
    assert calls == [3, 3]


def test_each_caller_gets_its_own_list():
    remembered = plotly_paths.remembering(_own())
    first = remembered("xaxis.title.text")
    first[1].append(99)
    assert remembered("xaxis.title.text") == _own()("xaxis.title.text")


def test_install_is_idempotent_and_leaves_a_plotly_without_the_function_alone(monkeypatch):
    assert plotly_paths.install()
    installed = basedatatypes._str_to_dict_path_full
    assert installed.dpviz_memo and plotly_paths.install()
    assert basedatatypes._str_to_dict_path_full is installed  # not wrapped twice
    monkeypatch.delattr(basedatatypes, "_str_to_dict_path_full")
    assert plotly_paths.install() is False


@pytest.mark.parametrize("fid", FIGURES)
def test_the_figures_are_the_same_json_with_and_without(fid, monkeypatch):
    spec = registry.get(fid)
    values, errors = validate(spec.params, dict(spec.quick))
    assert not errors
    drawn = []
    for parse in (_own(), plotly_paths.remembering(_own())):
        monkeypatch.setattr(basedatatypes, "_str_to_dict_path_full", parse)
        caches.empty_all()  # (the fixed part of a marked figure is drawn again too)
        df = spec.table(values)
        drawn.append(pio.to_json(spec.figure_dict(df, values), validate=False))
    assert drawn[0] == drawn[1]
