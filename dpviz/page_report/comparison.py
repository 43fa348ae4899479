"""A side-by-side comparison as one report: one chart of a paper's page at two values of one of
its parameters (A and B), everything else at the page's settings, as the page's side-by-side
box draws it.

    python -m dpviz report adept --compare adept-fixes epsilon 1 10 --out fixes.html

The report is a page report (settings table, link, commands; .html .pdf .ipynb) whose charts are
the two sides, keyed ``<figure>-A`` and ``<figure>-B``.
"""

from __future__ import annotations

from typing import Any, Mapping

from dpviz import __version__, hosted_mode, papers, registry
from dpviz.page_report import DEFAULT_BASE_URL, Report, charts_of, created_now, page_link, settings_of, write_report
from dpviz.params import ParamError, canonical_query, check_hosted_cap, format_value, parse_value
from dpviz.progress import Progress


def sides(
    page: str, raw: Mapping[str, Any] | None, figure: str, param: str, a: str, b: str
) -> tuple[registry.FigureSpec, list[tuple[str, dict[str, Any]]]]:
    """The figure and its two sides' own values, checked (ParamError, one sentence a problem)."""
    values, _ = settings_of(page, raw or {})
    figures = {s.id: s for s in registry.paper_figures(page)}
    if figure not in figures:
        raise ParamError(f"The {page} page has no chart {str(figure)[:40]!r}; its charts are {', '.join(figures)}.")
    spec = figures[figure]
    names = [p.name for p in spec.params]
    if param not in names:
        raise ParamError(f"The chart {figure} has no parameter {str(param)[:30]!r}; it takes {', '.join(names)}.")
    p = spec.param(param)
    own = {n: values[n] for n in names}
    out, problems = [], []
    for label, text in (("A", a), ("B", b)):
        try:
            value = parse_value(p, str(text))
            check_hosted_cap(p, value, hosted_mode())
        except ParamError as err:
            problems.append(f"{label}: {err}")
            continue
        out.append((f"{label}: {p.label} = {format_value(p, value)}", {**own, param: value}))
    if problems:
        raise ParamError(" ".join(problems))
    return spec, out


def build_comparison(
    page: str,
    raw: Mapping[str, Any] | None,
    figure: str,
    param: str,
    a: str,
    b: str,
    *,
    base_url: str = DEFAULT_BASE_URL,
    progress: Progress | None = None,
    draw: bool = True,
) -> Report:
    """The report of ``figure`` of ``page`` at ``param`` = ``a`` and = ``b``, the rest at ``raw``
    (the page's settings; defaults for the others)."""
    spec, two = sides(page, raw, figure, param, a, b)
    items = [(spec, own, f"{spec.id}-{label[0]}", f"{label}. {spec.title}") for label, own in two]
    charts = charts_of(items, progress, draw=draw)
    values, settings = settings_of(page, raw or {})
    query = canonical_query(registry.page_params(page), values)
    paper, p = papers.get(page), spec.param(param)
    sets = "".join(f" --set {k}={v}" for k, v in query.items())
    return Report(
        page=page,
        title=f"{spec.title}: {p.label} = {a} and {b}",
        headline=f"One chart of the {paper.title} page at two settings: {two[0][0]}; {two[1][0]}.",
        summary=f"Everything but {p.label} is shared, at the page's settings below. {spec.caption}",
        citation=paper.citation,
        notes=paper.notes,
        settings=settings,
        query=query,
        link=f"{page_link(page, query, base_url)}#side-by-side",
        charts=charts,
        version=__version__,
        created=created_now(),
        hosted=hosted_mode(),
        remake=f"python -m dpviz report {page}{sets} --compare {spec.id} {param} {a} {b}",
    )


def write_comparison(
    page: str,
    raw: Mapping[str, Any] | None,
    figure: str,
    param: str,
    a: str,
    b: str,
    out,
    *,
    base_url: str = DEFAULT_BASE_URL,
    progress: Progress | None = None,
):
    """Build the comparison's report and write it to ``out`` (.html .pdf .ipynb); the page, the
    settings, the chart, its parameter, A and B, the format and the path are checked first."""

    def check() -> None:
        sides(page, raw, figure, param, a, b)

    def make(progress: Progress | None, draw: bool) -> Report:
        return build_comparison(page, raw, figure, param, a, b, base_url=base_url, progress=progress, draw=draw)

    return write_report(check, make, out, progress, part=f"comparison-{page}")
