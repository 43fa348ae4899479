"""The notebook API: dpviz.figure(id, **params) -> (Plotly figure, table), over the same registry
and validator as the pages and the command line."""

import pandas as pd
import pytest
from cli_support import cli

import dpviz
from dpviz import caches
from dpviz.errors import InputError


def test_figure_returns_the_chart_and_the_table_the_command_line_writes(tmp_path):
    fig, table = dpviz.figure("adept-violations", dims=range(1, 9), pairs=400, seed=3)
    out = cli(
        "figure",
        "adept-violations",
        "--set",
        "dims=1-8",
        "--set",
        "pairs=400",
        "--set",
        "seed=3",
        "--quiet",
        "--out",
        str(tmp_path / "v.csv"),
    )
    assert out.returncode == 0, out.stderr
    pd.testing.assert_frame_equal(table, pd.read_csv(tmp_path / "v.csv"), check_dtype=False)
    assert fig.layout.title.text and len(fig.data) >= 4  # a drawn chart, one curve per distribution
    assert set(table.dim) == set(range(1, 9))


def test_strings_and_python_values_mean_the_same(tmp_path, monkeypatch):
    """Each computed from scratch: with the caches between them, the second call read the first's
    table back by its key and the comparison could not fail."""
    tables = []
    for k, kwargs in enumerate(({"epsilon": "0.5", "lambda_": "20"}, {"epsilon": 0.5, "lambda_": 20})):
        caches.empty_all()
        monkeypatch.setenv("DPVIZ_CACHE_DIR", str(tmp_path / str(k)))
        tables.append(dpviz.figure("hoho-bounds", **kwargs)[1])
    pd.testing.assert_frame_equal(*tables)


@pytest.mark.parametrize("kwargs, cli_set", [({"dims": "0-3"}, "dims=0-3"), ({"nonsense": 1}, "nonsense=1")])
def test_bad_values_raise_the_command_lines_sentence(kwargs, cli_set, tmp_path):
    with pytest.raises(InputError) as err:
        dpviz.figure("adept-violations", **kwargs)
    out = cli("figure", "adept-violations", "--set", cli_set, "--out", str(tmp_path / "v.csv"))
    assert out.returncode == 2 and out.stderr.strip() == f"dpviz: {err.value}"


def test_unknown_and_earlier_ids():
    with pytest.raises(InputError, match="Unknown figure 'nope'"):
        dpviz.figure("nope")
    assert dpviz.figure("ome-bounds")[1].equals(dpviz.figure("hoho-bounds")[1])  # an id of an earlier version
    assert dpviz.figure_ids()[0] == "adept-sensitivity" and "metric-live" in dpviz.figure_ids()
