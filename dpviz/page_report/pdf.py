"""A report as a print-ready PDF: every chart rendered to SVG by kaleido (vectors: lines, marks
and text stay paths and text in the PDF), placed inline in the print version of the report
(:func:`dpviz.page_report.html.print_html`, two charts an A4 page) and printed by the system
Chromium (``--print-to-pdf``), whose CSS page-margin boxes put "Page k of n" on every page.
"""

from __future__ import annotations

import os
import re
import subprocess
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING

from dpviz.export import ExportError, find_chromium
from dpviz.page_report.html import print_html
from dpviz.progress import Progress, report
from dpviz.theme import HEIGHT, WIDTH

if TYPE_CHECKING:
    from dpviz.page_report import Report

PRINT_TIMEOUT = 180
"""Seconds Chromium gets to print a report (a few seconds are usual)."""
_ID = re.compile(r'\bid="([^"]+)"')


def check_can_print() -> str:
    """The Chromium that prints; ExportError saying how to get one when there is none."""
    browser = find_chromium()
    if browser is None:
        raise ExportError(
            "A PDF report needs Chromium: install it (Debian/Ubuntu: `apt-get install -y chromium`) or point "
            "BROWSER_PATH at a Chrome/Chromium binary; the .html and .ipynb reports work without it."
        )
    return browser


def own_ids(svg: str, prefix: str) -> str:
    """The SVG with every id (and every reference to it) prefixed, so that several charts' clip
    paths and gradients can sit in one document without taking each other's."""
    names = set(_ID.findall(svg))
    if not names:
        return svg
    alternatives = "|".join(re.escape(n) for n in sorted(names, key=len, reverse=True))
    svg = re.sub(rf'\bid="({alternatives})"', rf'id="{prefix}-\1"', svg)
    return re.sub(rf"#({alternatives})(?=[)'\"&])", rf"#{prefix}-\1", svg)


def inline_svg(svg: str, prefix: str) -> str:
    """Kaleido's SVG file as markup to place in HTML: no XML prolog, sized by the page's CSS
    (its viewBox keeps the proportions), ids made its own."""
    svg = svg[svg.index("<svg") :]
    head, rest = svg.split(">", 1)
    head = re.sub(r'\s(width|height)="[^"]*"', "", head)
    return own_ids(head + ">" + rest, prefix)


def chart_svgs(rep: Report, progress: Progress | None = None) -> dict[str, str]:
    """Every chart of the report as SVG markup (one kaleido batch), by figure id."""
    import plotly.io as pio

    os.environ["BROWSER_PATH"] = check_can_print()  # kaleido/choreographer read it
    report(progress, 0.05, f"drawing {len(rep.charts)} charts as vectors")
    with tempfile.TemporaryDirectory(prefix="dpviz-report-") as tmp:
        paths = [Path(tmp) / f"{k:03d}.svg" for k in range(len(rep.charts))]
        figs = [c.figure for c in rep.charts]
        if figs:
            pio.write_images(
                figs,
                paths,
                width=[f.layout.width or WIDTH for f in figs],
                height=[f.layout.height or HEIGHT for f in figs],
            )
        return {c.key: p.read_text(encoding="utf-8") for c, p in zip(rep.charts, paths)}


def print_to_pdf(page: str) -> bytes:
    """Chromium's PDF of an HTML document (no header or footer of its own: the document's CSS sets
    the page numbers)."""
    browser = check_can_print()
    with tempfile.TemporaryDirectory(prefix="dpviz-print-") as tmp:
        source, out = Path(tmp) / "report.html", Path(tmp) / "report.pdf"
        source.write_text(page, encoding="utf-8")
        command = [
            browser,
            "--headless",
            "--disable-gpu",
            "--no-first-run",
            "--no-pdf-header-footer",
            f"--user-data-dir={Path(tmp) / 'profile'}",
            f"--print-to-pdf={out}",
        ]
        if hasattr(os, "geteuid") and os.geteuid() == 0:
            command.append("--no-sandbox")  # Chromium refuses to start as root with its sandbox
        try:
            done = subprocess.run(command + [source.as_uri()], capture_output=True, timeout=PRINT_TIMEOUT, check=False)
        except subprocess.TimeoutExpired:
            raise ExportError(
                f"Chromium did not print the report within {PRINT_TIMEOUT} s; try the .html report."
            ) from None
        if not out.exists() or out.stat().st_size == 0:
            tail = done.stderr.decode("utf-8", "replace").strip().splitlines()[-1:] or ["no message"]
            raise ExportError(f"Chromium could not print the report (exit {done.returncode}: {tail[0][:200]}).")
        return out.read_bytes()


def pdf_bytes(rep: Report, progress: Progress | None = None) -> bytes:
    """The report as a PDF: vector charts, two a page, page numbers."""

    svgs = chart_svgs(rep, progress)
    report(progress, 0.7, "printing the PDF with Chromium")
    data = print_to_pdf(print_html(rep, lambda chart: inline_svg(svgs[chart.key], chart.key)))
    report(progress, 0.95, "PDF printed")
    return data
