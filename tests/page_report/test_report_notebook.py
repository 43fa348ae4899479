"""The notebook report runs top to bottom in a real Jupyter kernel (nbclient) and gives the same
tables as the report's CSVs; it is a valid nbformat 4 notebook."""

import json
import os

import pandas as pd
import pytest
from report_support import ReportReader, run_notebook

from dpviz import page_report

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SETTINGS = {
    "adept": {"epsilon": "3", "pairs": "400", "dims": "1-32", "seed": "7"},
    "hoho": {"lambda_": "100", "epsilon": "0.001"},
    "partial": {"expr": "a*b + log(a)", "ranges": "a=1:3,b=0:2", "people": "1,1; 2,0.5", "sgd_steps": "100"},
    "metric": {"words": "4", "samples": "200", "epsilon": "5"},
}


@pytest.mark.kernel
@pytest.mark.parametrize("page", list(SETTINGS))
def test_notebook_runs_and_gives_the_reports_tables(tmp_path, monkeypatch, page):
    raw = SETTINGS[page]
    _, html_path = page_report.write(page, raw, tmp_path / "r.html")
    _, nb_path = page_report.write(page, raw, tmp_path / "r.ipynb")
    read = ReportReader(html_path.read_text(encoding="utf-8"))
    tables = run_notebook(nb_path, monkeypatch)
    assert list(tables) == read.figure_ids  # every chart, in page order
    for fid, table in tables.items():
        pd.testing.assert_frame_equal(table, read.table(fid), check_exact=False, rtol=1e-12)


def test_notebook_cells_name_the_settings(tmp_path):
    rep, path = page_report.write("adept", SETTINGS["adept"], tmp_path / "r.ipynb")
    nb = json.loads(path.read_text(encoding="utf-8"))
    code = ["".join(c["source"]) for c in nb["cells"] if c["cell_type"] == "code"]
    assert len(code) == 1 + len(rep.charts)
    for chart, cell in zip(rep.charts, code[1:]):
        assert f'"{chart.id}"' in cell
        for name, value in chart.parameters.items():
            assert f"{name}={value!r}" in cell
    assert nb["metadata"]["dpviz"]["query"] == dict(rep.query)
