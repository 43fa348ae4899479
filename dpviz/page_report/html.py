"""A report as HTML: the interactive, self-contained file (plotly.js inlined once, each chart's
table embedded as a CSV download) and the print version the PDF is made from (each chart an
inline vector SVG on half an A4 page, page numbers in the page margin).

Both are one document: a header (page, headline, dpviz version, date, the link, the paper),
the page's summary, the settings table (every parameter; a default is marked), the charts in
page order (title, chart, caption, paper figure, the command line, the data), the page's notes,
and how to get the view again (link, notebook, command lines). Nothing is loaded from elsewhere:
no script or stylesheet has a ``src``/``href``; the only links are the page's own address and
the data URIs of the tables.
"""

from __future__ import annotations

import base64
import html
import json
from typing import TYPE_CHECKING, Callable, Sequence

from dpviz.page_report.markup import inline_html, markdown_html

if TYPE_CHECKING:
    from dpviz.page_report import Chart, Report

_STYLE = """
body { font-family: "DejaVu Sans", "Helvetica Neue", Arial, sans-serif; color: #1f2933; margin: 0 auto;
       max-width: 1100px; padding: 1.5em 2em; line-height: 1.45; }
h1 { font-size: 1.7em; margin: 0 0 .2em; } h2 { font-size: 1.25em; margin: 1.2em 0 .3em; }
.headline { font-size: 1.15em; color: #3e4c59; margin: 0 0 .8em; }
.meta { font-size: .9em; color: #52606d; } .meta td { padding: 1px 10px 1px 0; vertical-align: top; }
a { color: #1f5fbf; word-break: break-all; }
table.settings { border-collapse: collapse; font-size: .88em; width: 100%; }
table.settings th, table.settings td { border-bottom: 1px solid #d9e2ec; padding: 3px 8px; text-align: left;
       vertical-align: top; }
table.settings tr.changed td.value { font-weight: bold; }
td.value, td.default-value { font-family: "DejaVu Sans Mono", monospace; word-break: break-all; }
span.mark { color: #7b8794; font-size: .85em; }
.caption { font-size: .92em; color: #323f4b; }
.caption p { margin: .3em 0; }
code, pre { font-family: "DejaVu Sans Mono", monospace; font-size: .85em; }
pre { background: #f5f7fa; padding: .5em .7em; white-space: pre-wrap; word-break: break-all; }
.chart { border-top: 1px solid #cbd2d9; margin-top: 1.5em; }
.small { font-size: .85em; color: #52606d; }
"""

_SCREEN = """
.plot { width: 100%; }
details { margin: .4em 0; } summary { cursor: pointer; color: #1f5fbf; }
"""

_PRINT = """
@page { size: A4; margin: 14mm 14mm 16mm 14mm;
        @bottom-right { content: "Page " counter(page) " of " counter(pages); font: 8pt FONT; color: #52606d;
                        white-space: nowrap; }
        @bottom-left { content: FOOTER; font: 8pt FONT; color: #52606d; } }
body { max-width: none; padding: 0; font-size: 9.5pt; }
h1 { font-size: 17pt; } h2 { font-size: 11.5pt; margin: 0 0 1.5mm; }
.chart { height: 128mm; box-sizing: border-box; overflow: hidden; break-inside: avoid; margin: 0;
         padding-top: 2mm; border-top: 0.3pt solid #cbd2d9; }
.chart:nth-of-type(odd) { break-before: page; border-top: none; }
.chart svg { display: block; width: 100%; height: 86mm; }
.chart .caption { font-size: 8pt; line-height: 1.3; }
.break { break-before: page; }
table.settings { font-size: 8pt; } pre { font-size: 7pt; }
"""


def _e(text: object) -> str:
    return html.escape(str(text), quote=True)


def _csv_link(chart: Chart) -> str:
    data = base64.b64encode(chart.table.to_csv(index=False).encode("utf-8")).decode("ascii")
    return (
        f'<a class="csv" download="{_e(chart.key)}.csv" href="data:text/csv;charset=utf-8;base64,{data}">'
        f"Download the data (CSV, {len(chart.table):,} rows)</a>"
    )


def _notebook_call(chart: Chart) -> str:
    args = ", ".join(f"{k}={v!r}" for k, v in chart.parameters.items())
    return f'fig, table = dpviz.figure("{chart.id}", {args})' if args else f'fig, table = dpviz.figure("{chart.id}")'


def header(rep: Report) -> str:
    """The title block: page, headline, version, date, the link and the paper."""
    mode = " (hosted demo: sample sizes capped)" if rep.hosted else ""
    return f"""<header>
<h1>dpviz report: {_e(rep.title)}</h1>
<p class="headline">{_e(rep.headline)}</p>
<table class="meta">
<tr><td>Paper</td><td>{_e(rep.citation)}</td></tr>
<tr><td>Made</td><td>{_e(rep.created)} with dpviz {_e(rep.version)}{_e(mode)}</td></tr>
<tr><td>Reopen</td><td><a class="page-link" href="{_e(rep.link)}">{_e(rep.link)}</a></td></tr>
<tr><td>Charts</td><td>{len(rep.charts)}, in page order</td></tr>
</table>
</header>"""


def settings_table(rep: Report) -> str:
    """Every page parameter: name, what it is, the value used, and its default (marked when equal)."""
    rows = []
    for s in rep.settings:
        mark = '<span class="mark">default</span>' if s.is_default else '<span class="mark">changed</span>'
        rows.append(
            f'<tr class="{"default" if s.is_default else "changed"}" data-name="{_e(s.name)}">'
            f'<td class="name"><code>{_e(s.name)}</code></td><td>{_e(s.label)}</td>'
            f'<td class="value">{_e(s.value)}</td><td class="default-value">{_e(s.default)} {mark}</td></tr>'
        )
    return (
        '<h2 id="settings">Settings</h2>\n<p class="small">Every parameter of the page (the seed included); a value '
        "that is not the default is in bold. The link above carries the changed ones and the seed.</p>\n"
        '<table class="settings"><thead><tr><th>Parameter</th><th>What it is</th><th>Value</th>'
        "<th>Default</th></tr></thead>\n<tbody>\n" + "\n".join(rows) + "\n</tbody></table>"
    )


def calibration_section(rep: Report) -> str:
    """The page's calibration, when the settings name a target: the target, and per mechanism the
    setting that reaches it with every measure there (the panel's table)."""
    if not rep.calibration_note:
        return ""
    table = ""
    if rep.calibration is not None:
        table = rep.calibration.to_html(index=False, escape=True, classes="settings calibration", border=0, na_rep="")
    return (
        '<h2 id="calibration">Calibration: the setting that reaches the target</h2>\n'
        f"<p>Target: {_e(rep.calibration_note)}. Solved for every mechanism over the page's slider (exact measures "
        "by root finding; simulated ones with a 95% interval from their draws).</p>\n" + table
    )


def chart_section(chart: Chart, drawing: str, *, details: bool) -> str:
    """One chart: title, the drawing, caption, paper figure, and (``details``) the data and the
    command line under it."""
    paper = f'<p class="small">Paper: {_e(chart.paper_figure)}.</p>' if chart.paper_figure else ""
    extra = ""
    if details:
        extra = (
            f"<p>{_csv_link(chart)}</p>\n<details><summary>Reproduce this chart</summary>\n"
            f"<p>Command line:</p><pre>{_e(chart.command)}</pre>\n"
            f"<p>Notebook:</p><pre>{_e(_notebook_call(chart))}</pre>\n</details>"
        )
    return (
        f'<section class="chart" id="{_e(chart.key)}" data-figure-id="{_e(chart.id)}">\n'
        f"<h2>{_e(chart.title)}</h2>\n{drawing}\n"
        f'<div class="caption">{markdown_html(chart.caption)}</div>\n{paper}\n{extra}\n</section>'
    )


def reproduce(rep: Report) -> str:
    """How to get this view again: the link, the notebook route and every chart's command line."""
    commands = "\n".join(f"# {c.title}\n{c.command}" for c in rep.charts)
    return (
        '<h2 id="reproduce">Get this view again</h2>\n'
        f'<p>Open <a href="{_e(rep.link)}">{_e(rep.link)}</a> in dpviz (run <code>streamlit run app.py</code>; the '
        "link's host is where your dpviz runs), or make this report again:</p>\n"
        f"<pre>{_e(rep.remake)} --out {_e(rep.page)}-report.html</pre>\n"
        "<p>Every chart on its own, from the command line (in a notebook, <code>dpviz.figure(id, key=value, "
        "...)</code> takes the same settings):</p>\n"
        f"<pre>{_e(commands)}</pre>"
    )


def document(rep: Report, charts: Sequence[str], *, style: str, script: str = "", print_layout: bool) -> str:
    """The whole page around the charts' sections."""
    footer = json.dumps(f"dpviz {rep.version} report · {rep.title}", ensure_ascii=False)
    style = style.replace("FOOTER", footer).replace("FONT", '"DejaVu Sans", Arial, sans-serif')
    after = '<div class="break"></div>' if print_layout else ""  # the charts break their own pages
    notes = f'<div class="notes">{markdown_html(rep.notes)}</div>'
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<meta name="generator" content="dpviz {_e(rep.version)}">
<title>dpviz report: {_e(rep.title)}</title>
<style>{_STYLE}{style}</style>
{script}
</head><body>
{header(rep)}
<div class="summary">{markdown_html(rep.summary)}</div>
{settings_table(rep)}
{calibration_section(rep)}
{notes if rep.notes_first else ""}
<main>
{chr(10).join(charts)}
</main>
{after}
{"" if rep.notes_first else notes}
{reproduce(rep)}
<h2 id="references">References</h2>
<p>{inline_html(rep.citation)}</p>
<p class="small">Made with dpviz {_e(rep.version)}: privacy-utility trade-offs of differential privacy in NLP, as
live figures.</p>
</body></html>
"""


def interactive_html(rep: Report) -> str:
    """The self-contained interactive report (plotly.js inlined once; works offline)."""
    import plotly.io as pio
    from plotly.offline import get_plotlyjs

    sections = []
    for chart in rep.charts:
        div = pio.to_html(
            chart.figure,
            full_html=False,
            include_plotlyjs=False,
            div_id=f"plot-{chart.key}",
            default_width="100%",
            config={"displaylogo": False, "responsive": True},
        )
        sections.append(chart_section(chart, f'<div class="plot">{div}</div>', details=True))
    script = f'<script type="text/javascript">{get_plotlyjs()}</script>'
    return document(rep, sections, style=_SCREEN, script=script, print_layout=False)


def print_html(rep: Report, svg: Callable[[Chart], str]) -> str:
    """The print version: each chart drawn by ``svg`` (inline SVG markup), two charts a page."""
    sections = [chart_section(chart, svg(chart), details=False) for chart in rep.charts]
    return document(rep, sections, style=_PRINT, print_layout=True)
