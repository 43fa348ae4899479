"""The figure registry: every chart is a pure function of named, validated parameters.

A :class:`FigureSpec` declares its parameters, ``compute(values, progress) -> DataFrame``
(the table the CLI writes and the page offers for download) and
``render(df, values) -> plotly Figure``. Widgets, URL query parameters and ``--set``
all go through :func:`dpviz.params.validate` against the same specs.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any, Callable, Mapping

import pandas as pd
import plotly.graph_objects as go

from dpviz import cache, hosted_mode  # noqa: F401  (hosted_mode re-exported for the pages)
from dpviz.params import Param, ParamError, format_value, validate

Progress = Callable[[float, str], None]


@dataclass(frozen=True)
class FigureSpec:
    id: str
    title: str
    page: str
    params: tuple[Param, ...]
    compute: Callable[[Mapping[str, Any], Progress | None], pd.DataFrame]
    render: Callable[[pd.DataFrame, Mapping[str, Any]], go.Figure]
    caption: str
    columns: tuple[str, ...]
    paper_figure: str = ""
    disk_cache: bool = False

    def param(self, name: str) -> Param:
        for p in self.params:
            if p.name == name:
                return p
        raise KeyError(name)

    def defaults(self) -> dict[str, Any]:
        return {p.name: p.default for p in self.params}

    def canonical(self, values: Mapping[str, Any]) -> dict[str, str]:
        return {p.name: format_value(p, values[p.name]) for p in self.params}

    def table(self, values: Mapping[str, Any], progress: Progress | None = None) -> pd.DataFrame:
        """compute(), through the disk cache when the spec asks for it."""
        values = {p.name: values[p.name] for p in self.params}
        if not self.disk_cache:
            return self.compute(values, progress)
        return cache.cached_table(self.id, self.canonical(values), lambda: self.compute(values, progress))


REGISTRY: dict[str, FigureSpec] = {}


def register(spec: FigureSpec) -> FigureSpec:
    if spec.id in REGISTRY:
        raise ValueError(f"figure id {spec.id!r} registered twice")
    REGISTRY[spec.id] = spec
    return spec


def get(figure_id: str) -> FigureSpec:
    _load_all()
    if figure_id not in REGISTRY:
        raise ParamError(
            f"Unknown figure {str(figure_id)[:60]!r}: the figures are {', '.join(sorted(REGISTRY))}."
        )
    return REGISTRY[figure_id]


def all_figures() -> list[FigureSpec]:
    _load_all()
    return list(REGISTRY.values())


def page_params(page: str) -> tuple[Param, ...]:
    """The union of a page's figure parameters; one name means one spec on a page."""
    seen: dict[str, Param] = {}
    for spec in all_figures():
        if spec.page != page:
            continue
        for p in spec.params:
            if p.name in seen and seen[p.name] != p:
                raise ValueError(f"parameter {p.name!r} has two different specs on page {page!r}")
            seen[p.name] = p
    return tuple(seen.values())


def run(
    figure_id: str, raw: Mapping[str, Any], progress: Progress | None = None
) -> tuple[dict[str, Any], pd.DataFrame, go.Figure]:
    """Validate strictly (any bad or unknown parameter raises ParamError), compute, render."""
    spec = get(figure_id)
    values, errors = validate(spec.params, raw, hosted=hosted_mode())
    if errors:
        raise ParamError(" ".join(errors))
    df = spec.table(values, progress)
    return values, df, spec.render(df, values)


def _load_all() -> None:
    from dpviz.figures import adept, hoho, metric, partial  # noqa: F401  (registers on import)
