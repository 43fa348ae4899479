"""The figure registry: every chart is a pure function of named, validated parameters.

A :class:`FigureSpec` declares its parameters, ``compute(values, progress) -> DataFrame``
(the table the CLI writes and the page offers for download) and
``render(df, values) -> plotly Figure``. Widgets, URL query parameters and ``--set``
all go through :func:`dpviz.params.validate` against the same specs.
"""

from __future__ import annotations

import re
import threading
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Callable, Iterator, Mapping, Sequence

import numpy as np
import pandas as pd

from dpviz import caches, hosted_mode, papers, tables  # noqa: F401  (hosted_mode re-exported for the pages)
from dpviz.papers import all_papers
from dpviz.papers import get as get_paper
from dpviz.params import Param, ParamError, format_value, validate
from dpviz.progress import Progress
from dpviz.theme import numeric_values

if TYPE_CHECKING:
    import plotly.graph_objects as go


@dataclass(frozen=True)
class FigureSpec:
    """One chart: its parameters, how its table is computed and how it is drawn.

    A plain figure has ``compute(values, progress) -> table``. A *live* figure, one whose
    parameters include a slider, splits it: ``prepare(fixed, progress) -> state`` takes every
    parameter except those named in ``live`` (heavy, computed once per fixed setting, kept in
    memory, and on disk when ``disk_cache`` is set and the state is a table), and
    ``evaluate(state, values) -> table`` answers for any slider position in milliseconds.
    ``on_demand`` marks a figure the page computes only when asked (a button), because it
    samples by nature and would hold up the sliders; the command line computes it directly.
    ``mark(fig, values)`` draws the live parameters' marks on a figure whose data do not depend
    on them (its ``render`` must not use them): the rest is drawn once per fixed setting and
    reused, since building a Plotly figure costs tens of milliseconds. Draw with :meth:`draw`.
    """

    id: str
    title: str
    page: str
    params: tuple[Param, ...]
    render: Callable[[pd.DataFrame, Mapping[str, Any]], go.Figure]
    caption: str
    columns: tuple[str, ...]
    compute: Callable[[Mapping[str, Any], Progress | None], pd.DataFrame] | None = None
    paper_figure: str = ""
    disk_cache: bool = False
    live: tuple[str, ...] = ()
    prepare: Callable[[Mapping[str, Any], Progress | None], Any] | None = None
    evaluate: Callable[[Any, Mapping[str, Any]], pd.DataFrame] | None = None
    on_demand: bool = False
    mark: Callable[[go.Figure, Mapping[str, Any]], None] | None = None
    along: Mapping[str, Callable[[Mapping[str, Any], Sequence[Any]], list[pd.DataFrame]]] = field(default_factory=dict)
    """Per slider, its tables at many positions from one computation, ``along[slider](values,
    positions)`` (the other parameters at ``values``): each the very table :meth:`table` gives at
    its position, to the last bit (tests/core/test_frames.py), for the cost of about one (a
    simulation whose draws every position shares). What :meth:`tables_along` uses."""
    quick: Mapping[str, str] = field(default_factory=dict)
    """Reduced settings (parameter -> value, as in a URL) with which the figure computes in seconds:
    what the registry-wide tests run it at."""

    def __post_init__(self) -> None:
        if (self.compute is None) == (self.prepare is None) or (self.prepare is None) != (self.evaluate is None):
            raise ValueError(f"figure {self.id!r}: give either compute, or prepare and evaluate")
        unknown = set(self.live) - {p.name for p in self.params}
        if unknown:
            raise ValueError(f"figure {self.id!r}: live parameters {sorted(unknown)} are not among its parameters")

    def param(self, name: str) -> Param:
        """The parameter spec named ``name``; KeyError if the figure has none."""
        for p in self.params:
            if p.name == name:
                return p
        raise KeyError(name)

    def defaults(self) -> dict[str, Any]:
        """Every parameter's default value."""
        return {p.name: p.default for p in self.params}

    def canonical(self, values: Mapping[str, Any]) -> dict[str, str]:
        """The values as canonical strings (what URLs, cache keys and ``--set`` carry)."""
        return {p.name: format_value(p, values[p.name]) for p in self.params}

    def command(self, values: Mapping[str, Any], suffix: str = "png") -> str:
        """The command line that computes this figure at these values (every parameter set)."""
        sets = " ".join(f"--set {p.name}={_shell_word(format_value(p, values[p.name]))}" for p in self.params)
        return f"python -m dpviz figure {self.id} {sets} --out {self.id}.{suffix}"

    def fixed(self, values: Mapping[str, Any]) -> dict[str, Any]:
        """The values ``prepare`` depends on: all but the live ones."""
        return {p.name: values[p.name] for p in self.params if p.name not in self.live}

    def table(self, values: Mapping[str, Any], progress: Progress | None = None) -> pd.DataFrame:
        """compute(), or evaluate(prepared state), through the caches the spec asks for."""
        values = {p.name: values[p.name] for p in self.params}
        if self.prepare is not None:
            return self.evaluate(self.state(values, progress), values)
        if not self.disk_cache:
            return self.compute(values, progress)
        return tables.cached_table(self.id, self.canonical(values), lambda: self.compute(values, progress))

    def tables_along(self, values: Mapping[str, Any], slider: str, positions: Sequence[Any]) -> list[pd.DataFrame]:
        """:meth:`table` at each position of ``slider``: by :attr:`along` where the figure has it
        (through the disk cache like :meth:`table`: positions kept there are read, the rest computed
        together), else position by position."""
        values = {p.name: values[p.name] for p in self.params}
        settings = [dict(values, **{slider: v}) for v in positions]
        if slider not in self.along:
            return [self.table(at) for at in settings]
        made: list[list[pd.DataFrame]] = []

        def together() -> list[pd.DataFrame]:
            if not made:
                made.append(self.along[slider](values, list(positions)))
            return made[0]

        if not self.disk_cache:
            return together()
        return [
            tables.cached_table(self.id, self.canonical(at), lambda i=i: together()[i]) for i, at in enumerate(settings)
        ]

    def _fixed_canonical(self, values: Mapping[str, Any]) -> dict[str, str]:
        return {k: format_value(self.param(k), v) for k, v in self.fixed(values).items()}

    def _state_key(self, canonical: Mapping[str, str]) -> tuple:
        # what may be opened (paths, sweep directories) depends on the hosting mode: part of the key
        return (self.id, hosted_mode(), tuple(sorted(canonical.items())))

    def state(self, values: Mapping[str, Any], progress: Progress | None = None) -> Any:
        """The prepared state for these values (only the non-live ones matter), shared by every
        caller in this process; a table state is also kept on disk when ``disk_cache`` is set."""
        fixed = self.fixed(values)
        canonical = self._fixed_canonical(values)

        def prepare() -> Any:
            if self.disk_cache:
                return tables.cached_table(f"{self.id}.prepared", canonical, lambda: self.prepare(fixed, progress))
            return self.prepare(fixed, progress)

        return _STATES.get(self._state_key(canonical), prepare)

    def draw(self, df: pd.DataFrame, values: Mapping[str, Any]) -> go.Figure:
        """The Plotly figure of a table: ``render``, or for a figure with live marks the cached
        drawing of its fixed part (rebuilt from a dict without validation) plus ``mark``."""
        values = {p.name: values[p.name] for p in self.params}
        if self.mark is None:
            return self.render(df, values)
        import plotly.graph_objects as go

        fig = go.Figure(self._base(df, values), _validate=False)
        self.mark(fig, values)
        return fig

    def figure_dict(self, df: pd.DataFrame, values: Mapping[str, Any]) -> dict:
        """``draw(df, values).to_dict()``, the figure as Plotly's JSON takes it, made without
        rebuilding the fixed part of a marked figure: ``mark`` runs on a stand-in that has the
        base's layout and, per trace, its type, axes and the smallest and largest positive x (all
        a mark reads: it appends traces and annotations and re-labels log axes over the data's
        range), and the result is the base's traces, the mark's new ones and the marked layout.
        Equal to the direct route (tests/core/test_figures.py checks every marked figure)."""
        values = {p.name: values[p.name] for p in self.params}
        if self.mark is None:
            return self.render(df, values).to_dict()
        from dpviz.theme import go  # (lazy: dpviz.theme imports this module) Plotly's, or the fast drawing's

        base = self._base(df, values)
        stand_in = _stand_in(base, go)
        self.mark(stand_in, values)
        marked = stand_in.to_dict()
        return {"data": list(base["data"]) + marked["data"][len(base["data"]) :], "layout": marked["layout"]}

    def _base(self, df: pd.DataFrame, values: Mapping[str, Any]) -> dict:
        """The fixed part of a marked figure as a Plotly dict, drawn once per fixed setting (kept
        unless this thread is in :func:`bases_not_kept`)."""
        key = (self.id, tuple(sorted(self._fixed_canonical(values).items())))
        if getattr(_UNKEPT, "on", False):
            held = _BASES.peek(key)
            return held if held is not None else self.render(df, values).to_dict()
        return _BASES.get(key, lambda: self.render(df, values).to_dict())

    def is_ready(self, values: Mapping[str, Any]) -> bool:
        """True when the table comes from a cache without heavy work (no progress bar needed)."""
        values = {p.name: values[p.name] for p in self.params}
        if self.prepare is not None:
            canonical = self._fixed_canonical(values)
            return _STATES.contains(self._state_key(canonical)) or (
                self.disk_cache and tables.is_cached(f"{self.id}.prepared", canonical)
            )
        return self.disk_cache and tables.is_cached(self.id, self.canonical(values))


def _shell_word(text: str) -> str:
    """A value as one shell word: quoted when it holds anything but plain characters."""
    import shlex

    return text if re.fullmatch(r"[\w.,:+@/%=-]+", text) else shlex.quote(text)


def _stand_in_trace(trace: Mapping[str, Any]) -> dict:
    """A trace reduced to what a mark reads (see :meth:`FigureSpec.figure_dict`): its type, its
    axes and, for numeric x, the smallest and largest positive finite value."""

    out = {k: trace[k] for k in ("type", "xaxis", "yaxis") if k in trace}
    if "x" not in trace:
        return out
    values = numeric_values(trace["x"])
    if values is None:
        out["x"] = trace["x"]  # text or categories: kept as they are
        return out
    values = values[np.isfinite(values) & (values > 0)]
    out["x"] = [float(values.min()), float(values.max())] if len(values) else []
    return out


_STAND_INS: dict[int, list] = {}
"""The stand-ins of the fixed parts marked last (:func:`_stand_in`), by the part's identity."""
STAND_INS_KEPT = 16
_STAND_INS_LOCK = threading.Lock()


def _stand_in(base: dict, go: Any) -> Any:
    """A new figure to mark, standing in for the fixed part ``base`` (:meth:`FigureSpec.figure_dict`).
    The stand-in's traces, and under the fast drawing the stand-in itself, are made once per fixed
    part and copied for each mark: along a marked slider every frame marks the same part, and its
    traces' x were decoded from their typed arrays and its layout read into a figure at every
    frame. Kept with the part itself (its identity is the key while it is held), the last
    :data:`STAND_INS_KEPT` parts."""
    held = _STAND_INS.get(id(base))
    if held is None or held[0] is not base:
        held = [base, [_stand_in_trace(t) for t in base["data"]], None]  # (the fast stand-in: when first asked for)
        with _STAND_INS_LOCK:
            while len(_STAND_INS) >= STAND_INS_KEPT:
                _STAND_INS.pop(next(iter(_STAND_INS)))
            _STAND_INS[id(base)] = held
    if not getattr(go.Figure, "fast", False):  # Plotly's: made for each mark
        return go.Figure({"data": held[1], "layout": base.get("layout", {})}, _validate=False)
    if held[2] is None:
        held[2] = go.Figure({"data": held[1], "layout": base.get("layout", {})}, _validate=False)
    return held[2].copy()


def unchanged(state: Any, values: Mapping[str, Any]) -> Any:
    """``evaluate`` of a figure whose table does not depend on its live parameters (they are
    only marked on it): the prepared table as it is."""
    return state


_STATES = caches.memo("figures.states")
"""Prepared states of live figures, shared by every session of the process."""
_BASES = caches.memo("figures.bases")
"""The fixed part of figures with live marks, as Plotly dicts."""
_UNKEPT = threading.local()


@contextmanager
def bases_not_kept() -> Iterator[None]:
    """In this thread, a marked figure's fixed part drawn now is not kept (one already kept is
    used): for frames along a slider the fixed part depends on (ADePT's ε curves along ε), whose
    every position's part is drawn once. Kept, they pushed every other chart's part out of the
    memo (64 entries) and each was measured for its bytes: a fifth of that chart's frames."""
    before = getattr(_UNKEPT, "on", False)
    _UNKEPT.on = True
    try:
        yield
    finally:
        _UNKEPT.on = before


REGISTRY: dict[str, FigureSpec] = {}


def register(spec: FigureSpec) -> FigureSpec:
    """Add a figure to the registry (ValueError if its id is taken); returns the spec."""
    if spec.id in REGISTRY:
        raise ValueError(f"figure id {spec.id!r} registered twice")
    REGISTRY[spec.id] = spec
    return spec


def get(figure_id: str) -> FigureSpec:
    """The spec of a figure id (or of an id an earlier version used); ParamError naming the ids otherwise."""
    _load_all()
    figure_id = _ALIASES.get(figure_id, figure_id)
    if figure_id not in REGISTRY:
        raise ParamError(f"Unknown figure {str(figure_id)[:60]!r}: the figures are {', '.join(sorted(REGISTRY))}.")
    return REGISTRY[figure_id]


def all_figures() -> list[FigureSpec]:
    """Every figure, paper by paper in page order."""
    _load_all()

    return [REGISTRY[fid] for paper in all_papers() for fid in paper.figures]


def paper_figures(key: str) -> list[FigureSpec]:
    """A paper's figures in page order."""

    _load_all()
    return [REGISTRY[fid] for fid in get_paper(key).figures]


def page_params(page: str) -> tuple[Param, ...]:
    """The union of a page's figure parameters, then its panels'; one name means one spec on a page."""

    seen: dict[str, Param] = {}
    _load_all()
    panels = papers.get(page).panels if page in {p.key for p in papers.all_papers()} else ()
    figure_params = [p for spec in REGISTRY.values() if spec.page == page for p in spec.params]
    # figures in the order the figures module defines them (the sidebar's order), then the panels'
    for p in figure_params + [p for panel in panels for p in panel.params]:
        if p.name in seen and seen[p.name] != p:
            raise ValueError(f"parameter {p.name!r} has two different specs on page {page!r}")
        seen[p.name] = p
    return tuple(seen.values())


def run(
    figure_id: str, raw: Mapping[str, Any], progress: Progress | None = None, draw: bool = True
) -> tuple[dict[str, Any], pd.DataFrame, go.Figure | None]:
    """Validate strictly (any bad or unknown parameter raises ParamError), compute, and render
    (unless ``draw`` is False: then the figure is None and Plotly is not imported).

    Returns the validated values, the table and the Plotly figure."""
    spec = get(figure_id)
    values, errors = validate(spec.params, raw, hosted=hosted_mode())
    if errors:
        raise ParamError(" ".join(errors))
    df = spec.table(values, progress)
    return values, df, spec.draw(df, values) if draw else None


_ALIASES: dict[str, str] = {}
"""Figure ids of earlier versions -> today's ids, from the declarations."""
_LOADED = False


def _load_all() -> None:
    """Import every paper's figure specs once, and check them against the papers' declarations:
    a figure the declaration does not place on its page, or a declared figure nobody registered,
    is an error here rather than a chart that silently does not appear."""
    global _LOADED
    if _LOADED:
        return

    aliases = {}
    for paper in all_papers():
        paper.load_figures()
        registered = [fid for fid, spec in REGISTRY.items() if spec.page == paper.key]
        declared = paper.figures
        if sorted(registered) != sorted(declared) or len(set(declared)) != len(declared):
            raise ValueError(
                f"paper {paper.key!r}: declared figures {sorted(declared)} differ from the registered "
                f"{sorted(registered)}"
            )
        wrong = [fid for fid in registered if not fid.startswith(paper.key + "-")]
        if wrong:
            raise ValueError(f"paper {paper.key!r}: figure ids {wrong} do not start with {paper.key + '-'!r}")
        aliases.update(paper.aliases)
    _ALIASES.update(aliases)
    _LOADED = True
