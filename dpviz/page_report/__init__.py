"""A page as one report: every chart of a page at one set of settings, in page order, with its
caption, the settings that produced it (every parameter, defaults marked), the link that reopens
the view, the command line of each chart, the dpviz version, the date and the paper cited.

    python -m dpviz report PAGE [--set key=value ...] --out FILE      (.html .pdf .ipynb)
    dpviz.report("adept", "adept.html", epsilon=2)                       (a notebook)

:func:`build` computes the report (through the same caches as the page: what a visitor has seen
is not computed again) and :func:`write` writes it in the format the file's suffix names:

- ``.html`` (:mod:`.html`): one self-contained file, plotly.js inlined, interactive charts, each
  chart's table embedded as a CSV download; nothing is fetched from elsewhere;
- ``.pdf`` (:mod:`.pdf`): the charts as vector SVG (kaleido), one per half A4 page, printed by
  the system Chromium with page numbers;
- ``.ipynb`` (:mod:`.notebook`): a notebook that regenerates every chart through
  ``dpviz.figure(...)`` with the same settings, and collects the tables.

A page is a paper's page (its key: ``adept``, ``metric``, ``hoho``, ``partial``). A lesson
(:mod:`.lesson`: every step's text, question and computed answer, and its charts) and a
side-by-side comparison (:mod:`.comparison`: one chart of a page at two settings) are reports of
the same kind, in the same three formats. The audit has no report (its charts come from a
visitor's files), and :func:`build` says so in one sentence.
"""

from __future__ import annotations

import datetime as _dt
import os
import re
import time
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Mapping
from urllib.parse import urlencode

import pandas as pd

from dpviz import __version__, hosted_mode, papers, registry, targets
from dpviz.errors import InputError
from dpviz.export import ExportError
from dpviz.page_report import timing
from dpviz.page_report.html import interactive_html
from dpviz.page_report.notebook import notebook_json
from dpviz.page_report.pdf import check_can_print, pdf_bytes
from dpviz.params import ParamError, canonical_query, format_value, validate
from dpviz.progress import Progress, report
from dpviz.tools import all_tools

if TYPE_CHECKING:
    import plotly.graph_objects as go

FORMATS = (".html", ".pdf", ".ipynb")
DEFAULT_BASE_URL = "http://localhost:8501"


@dataclass(frozen=True)
class Setting:
    """One page parameter in the report's settings table: its canonical value and default."""

    name: str
    label: str
    value: str
    default: str
    help: str

    @property
    def is_default(self) -> bool:
        """True when the value is the parameter's default."""
        return self.value == self.default


@dataclass(frozen=True)
class Chart:
    """One chart of the report: the figure's declaration, its table and its Plotly figure."""

    id: str
    title: str
    caption: str
    paper_figure: str
    parameters: Mapping[str, str]
    """The figure's own parameters as canonical strings (what ``--set`` and ``dpviz.figure`` take)."""
    command: str
    table: pd.DataFrame
    figure: go.Figure
    seconds: float
    key: str = ""
    """The chart's name within its report (anchors, CSV names, the notebook's ``tables``): the
    figure id on a page's report; a lesson's or a comparison's report draws one figure more than
    once, so each drawing gets its own."""

    def __post_init__(self):
        if not self.key:
            object.__setattr__(self, "key", self.id)


@dataclass(frozen=True)
class Report:
    """A page at one set of settings, computed (see the module docstring)."""

    page: str
    title: str
    headline: str
    summary: str
    citation: str
    notes: str
    settings: tuple[Setting, ...]
    query: Mapping[str, str]
    """The link's query: the values that differ from the defaults, and the seed."""
    link: str
    charts: tuple[Chart, ...]
    version: str
    created: str
    hosted: bool
    remake: str = ""
    """The command line that makes this report again (without ``--out``)."""
    notes_first: bool = False
    """The notes before the charts (a lesson's text), not after them (a paper's notes)."""
    calibration: pd.DataFrame | None = None
    """The answer of the page's "Choose from a target" panel when the settings name a target
    (:func:`dpviz.targets.panel_answer`); None without one."""
    calibration_note: str = ""
    """The target in words, or the sentence that refuses it."""

    def __post_init__(self):
        if not self.remake:
            sets = "".join(f" --set {k}={v}" for k, v in self.query.items())
            object.__setattr__(self, "remake", f"python -m dpviz report {self.page}{sets}")

    def csv(self, chart_key: str) -> str:
        """A chart's table (by its key: on a page's report, the figure id) as the CSV the page and
        the command line offer."""
        return next(c for c in self.charts if c.key == chart_key).table.to_csv(index=False)


def page_keys() -> list[str]:
    """The pages a report can be made of (the papers' pages), in page order."""
    return [p.key for p in papers.all_papers()]


def _paper(page: str) -> papers.Paper:
    keys = page_keys()
    if page not in keys:
        if page in {t.key for t in all_tools()}:
            raise ParamError(
                f"The page {page!r} has no report yet (its charts come from your own files); "
                f"reports cover the papers' pages: {', '.join(keys)}."
            )
        raise ParamError(f"Unknown page {str(page)[:40]!r}: the pages with a report are {', '.join(keys)}.")
    return papers.get(page)


def url_path(page_file: str) -> str:
    """The page's address under the app's base URL, as Streamlit names a file under pages/
    (``pages/1_ADePT_sensitivity.py`` -> ``ADePT_sensitivity``)."""
    return re.sub(r"^\d+_", "", Path(page_file).stem)


def page_link(page: str, query: Mapping[str, str], base_url: str = DEFAULT_BASE_URL) -> str:
    """The link that reopens the page at these settings."""
    base = f"{base_url.rstrip('/')}/{url_path(_paper(page).page)}"
    return f"{base}?{urlencode(query)}" if query else base


def report_format(path: str | os.PathLike) -> str:
    """The report format a file's suffix names (``.html``, ``.pdf``, ``.ipynb``); ExportError otherwise."""
    suffix = Path(path).suffix.lower()
    if suffix not in FORMATS:
        raise ExportError(
            f"A report is written as .html, .pdf or .ipynb; {str(path)[-60:]!r} names {suffix or 'no format'}."
        )
    return suffix


def settings_of(page: str, raw: Mapping[str, Any]) -> tuple[dict[str, Any], tuple[Setting, ...]]:
    """Validate ``raw`` (URL or ``--set`` values) strictly against the page's parameters (hosted
    caps on a hosted demo): the values, and the settings table. ParamError naming every problem."""
    _paper(page)
    params = registry.page_params(page)
    values, errors = validate(params, raw, hosted=hosted_mode())
    if errors:
        raise ParamError(" ".join(errors))
    table = tuple(
        Setting(p.name, p.label, format_value(p, values[p.name]), format_value(p, p.default), p.help) for p in params
    )
    return values, table


def chart_of(
    spec: registry.FigureSpec,
    own: Mapping[str, Any],
    progress: Progress | None = None,
    *,
    draw: bool = True,
    key: str = "",
    title: str = "",
    caption: str = "",
) -> Chart:
    """One chart of a report: ``spec`` at its own validated values ``own``, computed through the
    figure caches; ``key``, ``title`` and ``caption`` default to the figure's."""
    start = time.perf_counter()
    try:
        table = spec.table(dict(own), progress)
    except InputError as err:  # a chart that refuses these settings (a formula it cannot read)
        raise ParamError(f"The chart {spec.title!r} cannot be drawn with these settings: {err}") from None
    return Chart(
        id=spec.id,
        title=title or spec.title,
        caption=caption or spec.caption,
        paper_figure=spec.paper_figure,
        parameters=spec.canonical(dict(own)),
        command=spec.command(dict(own)),
        table=table,
        figure=spec.draw(table, dict(own)) if draw else None,
        seconds=time.perf_counter() - start,
        key=key or spec.id,
    )


def charts_of(
    items: list[tuple[registry.FigureSpec, Mapping[str, Any], str, str]],
    progress: Progress | None = None,
    *,
    draw: bool = True,
) -> tuple[Chart, ...]:
    """The charts ``items`` names, each (figure, its own values, key, title), in order; ``progress``
    hears each chart's own progress within its share, the share its seconds the last time it was
    made (:mod:`dpviz.page_report.timing`), so the bar moves with the time spent."""
    charts = []
    spans = timing.shares(spec.id for spec, *_ in items)
    for k, ((spec, own, key, title), (start, size, expected)) in enumerate(zip(items, spans)):
        report(progress, start, f"chart {k + 1} of {len(items)}: {title}")
        part = timing.within(progress, start, size, expected)
        charts.append(chart_of(spec, own, part, draw=draw, key=key, title=title))
    timing.record({c.id: c.seconds for c in charts})
    report(progress, 1.0, "report computed")
    return tuple(charts)


def created_now() -> str:
    """The report's date and time, in the local zone."""
    return _dt.datetime.now().astimezone().strftime("%Y-%m-%d %H:%M %Z").strip()


def build(
    page: str,
    raw: Mapping[str, Any] | None = None,
    *,
    base_url: str = DEFAULT_BASE_URL,
    progress: Progress | None = None,
    draw: bool = True,
) -> Report:
    """Compute every chart of ``page`` at the settings ``raw`` (the rest at their defaults), in
    page order, through the page's caches. ``progress`` hears the fraction of charts done (and
    each chart's own progress within its share). ``draw=False`` skips the Plotly figures (a
    notebook needs only the settings)."""
    paper = _paper(page)
    values, settings = settings_of(page, raw or {})
    query = canonical_query(registry.page_params(page), values)
    specs = registry.paper_figures(page)
    items = [(spec, {p.name: values[p.name] for p in spec.params}, spec.id, spec.title) for spec in specs]
    charts = charts_of(items, progress, draw=draw)
    calibration, calibration_note = calibration_of(page, values)
    return Report(
        page=page,
        title=paper.title,
        headline=paper.headline,
        summary=paper.summary,
        citation=paper.citation,
        notes=paper.notes,
        settings=settings,
        query=query,
        link=page_link(page, query, base_url),
        charts=charts,
        version=__version__,
        created=created_now(),
        hosted=hosted_mode(),
        calibration=calibration,
        calibration_note=calibration_note,
    )


def calibration_of(page: str, values: Mapping[str, Any]) -> tuple[pd.DataFrame | None, str]:
    """The page's calibration at ``values`` when they name a target (the panel's answer, and the
    target in words), else ``(None, "")``; a target the solver refuses is its sentence."""
    target = values.get("target_measure", "none")
    if page not in targets.PAGES or target in (None, "none"):
        return None, ""
    measure = targets.PAGES[page].measure(target)
    said = f"{target} {measure.sense} {values['target_value']:g} ({measure.label})"
    try:
        return targets.panel_answer(page, values), said
    except InputError as err:
        return None, f"{said}: {err}"


def render(rep: Report, fmt: str, progress: Progress | None = None) -> bytes:
    """The report as the bytes of a ``.html``, ``.pdf`` or ``.ipynb`` file."""
    fmt = "." + fmt.lstrip(".").lower()
    if fmt == ".html":
        return interactive_html(rep).encode("utf-8")
    if fmt == ".ipynb":
        return notebook_json(rep).encode("utf-8")
    if fmt == ".pdf":
        return pdf_bytes(rep, progress)
    raise ExportError(f"A report is written as .html, .pdf or .ipynb, not {fmt!r}.")


def check_writable(out: Path) -> None:
    """Refuse, before any work, a report path that cannot be written: a folder, a path under a
    file, a folder without write permission (ExportError, one sentence)."""
    where = f"cannot write the report {str(out)[-80:]!r}"
    if out.is_dir():
        raise ExportError(f"{where}: it is a folder; name a file such as report.html.")
    parent = out.parent
    while not parent.exists() and parent != parent.parent:
        parent = parent.parent
    if not parent.is_dir():
        raise ExportError(f"{where}: {parent.name!r} is a file, not a folder.")
    if not os.access(parent, os.W_OK) or (out.exists() and not os.access(out, os.W_OK)):
        raise ExportError(f"{where}: no permission to write in {str(parent)[-60:]!r}.")


def write(
    page: str,
    raw: Mapping[str, Any] | None,
    out: str | os.PathLike,
    *,
    base_url: str = DEFAULT_BASE_URL,
    progress: Progress | None = None,
) -> tuple[Report, Path]:
    """Build the report of ``page`` and write it to ``out`` (its suffix names the format). The
    format and the settings are checked before any work; a path that cannot be written is one
    sentence (ExportError)."""

    def check() -> None:
        settings_of(page, raw or {})  # a bad page or setting is refused before anything is computed

    def make(progress: Progress | None, draw: bool) -> Report:
        return build(page, raw, base_url=base_url, progress=progress, draw=draw)

    return write_report(check, make, out, progress, part=page)


def write_report(
    check, make, out: str | os.PathLike, progress: Progress | None = None, part: str = "report"
) -> tuple[Report, Path]:
    """Write the report ``make(progress, draw)`` builds to ``out`` (its suffix names the format),
    after checking the format, the input (``check()``, which raises InputError) and the path,
    before any work. ``part`` names the report in the timings its progress bar is cut by
    (computing and writing, per format: :mod:`dpviz.page_report.timing`)."""
    fmt = report_format(out)
    if fmt == ".pdf":
        check_can_print()
    check()
    out = Path(out)
    check_writable(out)
    keys = [f"compute:{part}{fmt}", f"write:{part}{fmt}"]
    (_, computing_share, _), (_, writing_share, writing_time) = timing.shares(keys, prior=(0.8, 0.2))
    start = time.perf_counter()
    rep = make(timing.within(progress, 0.0, computing_share), fmt != ".ipynb")
    computed = time.perf_counter()
    finishing = timing.within(progress, computing_share, writing_share, writing_time)
    report(finishing, 0.0, f"writing the {fmt[1:].upper()} file")
    data = render(rep, fmt, finishing)
    timing.record(dict(zip(keys, (computed - start, time.perf_counter() - computed))))
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_bytes(data)
    except OSError as err:
        raise ExportError(f"cannot write the report {str(out)!r}: {err.strerror or err}.") from None
    report(progress, 1.0, "done")
    return rep, out
