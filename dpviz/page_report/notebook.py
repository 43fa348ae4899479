"""A report as a Jupyter notebook (nbformat 4.5, written as JSON): run top to bottom, it
recomputes every chart of the page through ``dpviz.figure(...)`` with the report's settings
(the seed included), shows each figure and keeps each table in ``tables[figure_id]``, the same
tables the report's CSVs hold.
"""

from __future__ import annotations

import json
import keyword
from typing import TYPE_CHECKING, Mapping

from dpviz import targets
from dpviz.page_report.markup import plain_text

if TYPE_CHECKING:
    from dpviz.page_report import Chart, Report


def _cell(kind: str, source: str, number: int) -> dict:
    cell = {"cell_type": kind, "id": f"cell-{number:02d}", "metadata": {}, "source": source.splitlines(keepends=True)}
    if kind == "code":
        cell.update(execution_count=None, outputs=[])
    return cell


def _arguments(parameters: Mapping[str, str]) -> str:
    """The parameters as keyword arguments, or as one ``**{...}`` when a name cannot be a keyword."""
    if all(name.isidentifier() and not keyword.iskeyword(name) for name in parameters):
        return "".join(f",\n    {name}={value!r}" for name, value in parameters.items())
    return f",\n    **{dict(parameters)!r}"


def figure_call(chart: Chart) -> str:
    """The code cell that recomputes one chart and keeps its table."""
    return (
        f'fig, table = dpviz.figure(\n    "{chart.id}"{_arguments(chart.parameters)},\n)\n'
        f'tables["{chart.key}"] = table\nfig.show()'
    )


def _md_cell(text: str) -> str:
    return text.replace("|", "\\|")


def calibration_call(rep: Report) -> str:
    """The notebook line that solves the report's target again."""
    target = rep.query.get("target_measure")
    page = targets.PAGES[rep.page]
    solve = rep.query.get("target_solve")
    solve = solve if solve and solve != page.slider else None  # another setting than the slider (at its value)
    own = {q.name for q in page.params()} - ({solve} if solve else {page.slider})
    settings = {k: v for k, v in rep.query.items() if k in own}
    args = [f"{target}={rep.query.get('target_value', '')}"] + [f"{k}={v!r}" for k, v in settings.items()]
    if solve:
        args.append(f"solve={solve!r}")
    return f"dpviz.calibrate({rep.page!r}, {', '.join(args)})"


def notebook_json(rep: Report) -> str:
    """The notebook as the text of an ``.ipynb`` file."""
    settings = "\n".join(
        f"| `{s.name}` | {_md_cell(s.label)} | `{_md_cell(s.value)}` | "
        f"{'default' if s.is_default else 'changed (default `' + _md_cell(s.default) + '`)'} |"
        for s in rep.settings
    )
    intro = (
        f"# dpviz report: {rep.title}\n\n{rep.headline}\n\n"
        f"- Paper: {rep.citation}\n- Made: {rep.created} with dpviz {rep.version}\n"
        f"- Reopen the page at these settings: <{rep.link}>\n\n"
        "Run every cell, top to bottom: each chart is computed again through `dpviz.figure(...)` with the "
        "report's settings (the seed included), shown, and its table kept in `tables[chart]` (the figure id, "
        "or on a lesson's or a comparison's report the chart's own name) "
        "(`tables[id].to_csv(path, index=False)` writes the CSV the page offers)."
    )
    cells = [
        _cell("markdown", intro, 0),
        _cell(
            "code",
            "import dpviz\n\n"
            f'print("dpviz", dpviz.__version__, "- this report was made with dpviz {rep.version}")\n'
            "tables = {}",
            1,
        ),
        _cell(
            "markdown",
            "## Settings\n\nEvery parameter of the page; each chart below takes its own.\n\n"
            "| Parameter | What it is | Value | |\n|---|---|---|---|\n" + settings,
            2,
        ),
    ]
    if rep.calibration_note:
        cells.append(_cell("markdown", f"## Calibration\n\nTarget: {_md_cell(rep.calibration_note)}.", len(cells)))
        if rep.calibration is not None:
            cells.append(_cell("code", f"calibration = {calibration_call(rep)}\ncalibration", len(cells)))
    if rep.notes:
        cells.append(_cell("markdown", plain_text(rep.notes), len(cells)))
    for chart in rep.charts:
        paper = f"\n\nPaper: {chart.paper_figure}." if chart.paper_figure else ""
        cells.append(_cell("markdown", f"## {chart.title}\n\n{plain_text(chart.caption)}{paper}", len(cells)))
        cells.append(_cell("code", figure_call(chart), len(cells)))
    notebook = {
        "cells": cells,
        "metadata": {
            "kernelspec": {"display_name": "Python 3", "language": "python", "name": "python3"},
            "language_info": {"name": "python"},
            "dpviz": {"page": rep.page, "version": rep.version, "created": rep.created, "query": dict(rep.query)},
        },
        "nbformat": 4,
        "nbformat_minor": 5,
    }
    return json.dumps(notebook, indent=1, ensure_ascii=False) + "\n"
