"""Reading a written report back as its readers do (an HTML parser), for the report tests."""

from __future__ import annotations

import base64
import io
from html.parser import HTMLParser

import pandas as pd


class ReportReader(HTMLParser):
    """What an HTML report holds: its chart sections (figure ids, in order), the settings table,
    the CSV data links, the page link, and every resource it would load from elsewhere."""

    def __init__(self, text: str):
        super().__init__()
        self.figure_ids: list[str] = []
        self.keys: list[str] = []  # each chart section's own name (its anchor): the figure id on a page's report
        self.settings: dict[str, dict] = {}
        self.csv: dict[str, str] = {}
        self.links: list[str] = []
        self.external: list[str] = []
        self.scripts = 0
        self.styles: list[str] = []
        self._row: dict | None = None
        self._cell: str | None = None
        self._in_style = False
        self.feed(text)

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if "data-figure-id" in a:
            self.figure_ids.append(a["data-figure-id"])
            self.keys.append(a.get("id", ""))
        if tag == "script":
            self.scripts += 1
            if a.get("src"):
                self.external.append(f"script {a['src']}")
        if tag == "link" and a.get("href"):
            self.external.append(f"link {a.get('rel')} {a['href']}")
        if tag in ("img", "iframe", "embed", "object", "audio", "video", "source") and (a.get("src") or a.get("data")):
            self.external.append(f"{tag} {a.get('src') or a.get('data')}")
        if tag == "style":
            self._in_style = True
        if tag == "tr" and "data-name" in a:
            self._row = {"name": a["data-name"], "class": a.get("class", ""), "cells": []}
        if tag == "td" and self._row is not None:
            self._cell = ""
        if tag == "a" and a.get("href"):
            href = a["href"]
            if href.startswith("data:text/csv"):
                self.csv[a["download"].removesuffix(".csv")] = base64.b64decode(href.split(",", 1)[1]).decode()
            else:
                self.links.append(href)

    def handle_endtag(self, tag):
        if tag == "td" and self._row is not None and self._cell is not None:
            self._row["cells"].append(self._cell.strip())
            self._cell = None
        if tag == "tr" and self._row is not None:
            self.settings[self._row["name"]] = self._row
            self._row = None
        if tag == "style":
            self._in_style = False

    def handle_data(self, data):
        if self._cell is not None:
            self._cell += data
        if self._in_style:
            self.styles.append(data)

    def setting_values(self) -> dict[str, str]:
        """The settings table as parameter -> the value shown."""
        return {name: row["cells"][2] for name, row in self.settings.items()}

    def table(self, figure_id: str) -> pd.DataFrame:
        return pd.read_csv(io.StringIO(self.csv[figure_id]))


def run_notebook(path, monkeypatch) -> dict[str, pd.DataFrame]:
    """Execute a notebook report in a fresh Jupyter kernel (this checkout importable, the tests'
    cache) and read every table it kept."""
    import json
    import os

    import nbformat
    from nbclient import NotebookClient

    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    nb = nbformat.read(path, as_version=4)
    nbformat.validate(nb)
    nb.cells.append(
        nbformat.v4.new_code_cell(
            "import json\nprint(json.dumps({k: t.to_csv(index=False) for k, t in tables.items()}))"
        )
    )
    monkeypatch.setenv("PYTHONPATH", root + os.pathsep + os.environ.get("PYTHONPATH", ""))
    NotebookClient(nb, timeout=600, kernel_name="python3").execute()
    out = "".join(o.get("text", "") for o in nb.cells[-1].outputs if o.output_type == "stream")
    return {k: pd.read_csv(io.StringIO(v)) for k, v in json.loads(out).items()}
