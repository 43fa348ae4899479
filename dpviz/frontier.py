"""The privacy-utility frontier of a page: every mechanism's privacy measure against its utility
measure as its setting (the page's slider) sweeps the slider's range, the sliders' setting
marked on each curve, a target as a line, and the band where one mechanism is beaten by another
shaded (issue "Choose the setting from what you need", part 3).

Each point is the very measure that the page's calibration solves for (:mod:`dpviz.targets`: the
``evaluate`` of the paper's ``TARGETS``), at a log-spaced grid of the slider, plus the slider's own
value. Each paper declares its frontier in its own folder (``dpviz/papers/<key>/targets.py``:
``FRONTIER``, an :class:`Axes`): its privacy and utility measures and which way each is better,
the slider that sweeps the curves, how a curve is labelled, the settings a mechanism does not
depend on, and, where the curves are not the page's mechanisms, its own curves; this module holds
no paper's name. The pages' axes are listed in docs/design.md ("Targets").

The *beaten band*: a curve's frontier at a privacy level is the best utility among its settings
that are at least that private: its Pareto points (no point at least as private beats them),
joined along the curve (linear in the axes' scales, as the curve is drawn) and held beyond the
last. At every level where two curves reach, the band runs from the best of the curves'
frontiers to the worst: a point inside it is beaten by the curve on its best edge.
"""

from __future__ import annotations

import functools
import json
import math
import os
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping, Sequence

import numpy as np
import pandas as pd

from dpviz import caches, tables
from dpviz.declarations import PerPaper
from dpviz.panels import Panel
from dpviz.params import Param
from dpviz.registry import FigureSpec
from dpviz.targets import PAGES, control_of
from dpviz.theme import DASHES, OKABE_ITO, go, log_axis, ref_line, style, two_line_title

COLUMNS = ("kind", "mechanism", "label", "setting", "privacy", "utility")
"""The frontier's table: ``kind`` is ``curve`` (a point of a mechanism's curve), ``current`` (the
sliders' setting), ``band_best``/``band_worst`` (the beaten band's edges) or ``target``."""
CURVE_POINTS = 25
"""Log-spaced slider values per curve (plus the slider's own value)."""
PRIVACY_WINDOW = (1e-4, 1e4)
"""On a log privacy axis, the curves' points outside this range are left out (σ's slider spans nine
decades, its ε twenty); the sliders' setting is drawn wherever it is."""


@dataclass(frozen=True)
class Axes:
    """What a page's frontier draws: its measures (columns of the page's tables), which way is
    better, and the slider that sweeps the curves."""

    privacy: str
    privacy_label: str
    privacy_better: str  # "lower" / "higher"
    utility: str
    utility_label: str
    utility_better: str
    setting: str
    setting_label: str
    shade: bool = True
    privacy_log: bool = True
    utility_log: bool = True
    note: str = ""
    default_target: float = 1.0
    """The target panel's value before one is typed."""
    label: Callable[[str, Mapping[str, Any]], str] | None = None
    """A curve's name in the legend, from its mechanism and the page's settings (else the mechanism)."""
    ignores: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    """Per mechanism, settings its curve does not depend on (kept once for all their values)."""
    title: str = "Privacy against utility: every mechanism's frontier"
    """The chart's title (the privacy-budget page's curves are accountants, not mechanisms)."""
    curves: tuple[tuple[str, ...], Callable] | None = None
    """Curves other than the page's mechanisms: their names and ``evaluate(state, values, name,
    x)`` (on the calibration's prepared state), e.g. whose loss is counted rather than which mechanism."""


AXES: Mapping[str, Axes] = PerPaper("targets", "FRONTIER")
"""Each paper's frontier, by its key (its ``FRONTIER``)."""


@functools.cache
def target_params(page: str) -> tuple[Param, Param]:
    """The page's target, as its link and its panel carry it: the measure (a column of the page's
    tables, or none) and the wanted value."""

    measures = PAGES[page].measures
    which = Param(
        "target_measure",
        "choice",
        "none",
        "Target measure",
        "The measure to reach (a column of this page's tables); none shows no target.",
        choices=("none",) + tuple(m.column for m in measures),
        choice_labels={"none": "none", **{m.column: f"{m.column}: {m.label} ({m.sense})" for m in measures}},
    )
    value = Param(
        "target_value",
        "float",
        _default_target(page),
        "Target value",
        "The value the target measure must reach (at most or at least, as its name says).",
        min=-1.0,
        max=1e9,
    )
    return which, value


def solve_param(page: str, params: tuple[Param, ...]) -> Param | None:
    """The panel's choice of the setting to solve for, on a page that can be solved for more
    than its slider (:class:`dpviz.targets.OtherSetting`); None on the others."""
    names = PAGES[page].solvable()
    if len(names) < 2:
        return None
    by_name = {p.name: p for p in params}
    return Param(
        "target_solve",
        "choice",
        names[0],
        "Solve for",
        "The setting the answer finds, the others held at their values: the slider, or another setting.",
        choices=names,
        choice_labels={n: by_name[n].label for n in names},
    )


def _control(page: str, params: tuple[Param, ...] | None = None) -> str:
    """ "slider" or "box": what the page shows for the setting its curves sweep (:func:`control_of`).
    ``params``: the page's, where they are at hand (at registration, before the registry can give
    them)."""
    p = PAGES[page]
    return control_of(next(q for q in (params if params is not None else p.params()) if q.name == p.slider))


def _words(page: str, params: tuple[Param, ...] | None = None) -> tuple[str, str]:
    """How the frontier's text names what its curves sweep and where the page stands: ``("slider's
    range", "sliders' setting")``, or ``("box's range", "page's setting")`` for a number box."""
    control = _control(page, params)
    return f"{control}'s range", "sliders' setting" if control == "slider" else "page's setting"


def _default_target(page: str) -> float:
    return AXES[page].default_target


def _grid(p: Param, here: float) -> np.ndarray:
    """A curve's settings: :data:`CURVE_POINTS` log-spaced over the slider's range, and ``here``."""
    return np.unique(np.r_[_log_spaced(float(p.min), float(p.max)), here])


@functools.lru_cache(maxsize=64)
def _log_spaced(low: float, high: float) -> np.ndarray:
    """``np.geomspace(low, high, CURVE_POINTS)``, made once per range (it was computed again for
    every curve of every frame: a twentieth of a frontier's frames)."""
    xs = np.geomspace(low, high, CURVE_POINTS)
    xs.flags.writeable = False
    return xs


POINTS_KIND = "frontier-points"
"""The disk cache's kind (:func:`dpviz.tables.read_shared`) of a page's curves' points, per page and
setting (every mechanism's curve in one file: one write a table, where a file a curve was four
writes a frame of the budget frontier along σ, a tenth of its frames' time)."""


def _shared() -> bool:
    """Whether curves' points go through the disk cache (``DPVIZ_SHARED_POINTS=0``: an operator's
    switch, docs/hosting.md; the benchmark's baseline)."""
    return os.environ.get("DPVIZ_SHARED_POINTS", "").strip() != "0"


def _shared_key(page: str, values: Mapping[str, Any]) -> dict[str, str]:
    """The disk key of a setting's curves: every setting but the slider's and the target's."""
    return {"page": page, "state": repr(_setting(page, values))}


def _load_points(page: str, values: Mapping[str, Any]) -> dict[str, dict]:
    """The curves' points that any process sharing the disk cache has computed at this setting
    (the build, a frame worker, another server process), else none: ``{mechanism: {x: (privacy,
    utility)}}``."""
    if not _shared():
        return {}
    found = tables.read_shared(POINTS_KIND, _shared_key(page, values))
    if found is None:
        return {}
    try:
        return {
            str(mech): {float(x): (float(a), float(b)) for x, a, b in rows} for mech, rows in json.loads(found).items()
        }
    except (ValueError, TypeError, AttributeError):
        return {}


def _save_points(page: str, values: Mapping[str, Any], curves: dict[str, dict]) -> None:
    if not _shared():
        return
    rows = {mech: sorted([x, a, b] for x, (a, b) in points.items()) for mech, points in curves.items()}
    tables.write_shared(POINTS_KIND, _shared_key(page, values), json.dumps(rows).encode())


def _curves(page: str, values: Mapping[str, Any], also: Sequence[float] = ()) -> list[tuple]:
    """The rows (:data:`COLUMNS`) of every mechanism's (privacy, utility) along the slider's grid, by the targets' own
    ``Page.evaluate``; the points are kept per mechanism and setting (the process cache
    ``frontier.curves``), so a slider's move or a new target computes only its own point.
    They are also kept in the disk cache, per setting (every mechanism's curve in one file), for
    every process sharing it, written once a table when a curve's grid grew (with whatever other
    points the process holds): after a step
    of the swept slider, the frames along another slider (one setting per position) compute each
    position's new point only, the curves' grid points coming from what the build or another
    process computed (issue "Live from the first second"). ``also``: more slider values whose
    points are computed now, together with the grid's (:func:`frontier_tables_along`), and kept
    with them (on the disk too when the grid's own points were new: these alone are no write)."""

    p = PAGES[page]
    axes = AXES[page]
    slider = next(q for q in p.params() if q.name == p.slider)
    mechanisms, evaluate = axes.curves or (p.mechanisms_for(values), p.evaluate)
    rows, on_disk, curves, added = [], None, {}, False
    for mech in mechanisms:
        state = _state_key(page, values, mech)

        def from_disk(mech=mech) -> dict:
            nonlocal on_disk
            if on_disk is None:
                on_disk = _load_points(page, values)
            return dict(on_disk.get(mech, {}))

        points = caches.memo("frontier.curves").get((page,) + state, from_disk)
        curves[mech] = points
        grid = [float(x) for x in _grid(slider, values[p.slider])]
        missing = [x for x in grid if x not in points]
        own = list(missing)  # (the grid's: what the disk is told of)
        missing += [x for x in dict.fromkeys(also) if x not in points and x not in missing]
        if missing:
            prepared = p.prepare(values, mech)
            many = p.evaluate_many if axes.curves is None else None
            found = many(prepared, values, mech, missing) if many is not None and len(missing) > 1 else None
            for i, x in enumerate(missing):
                m = found[i] if found is not None else evaluate(prepared, values, mech, x)
                points[x] = (float(m[axes.privacy]), float(m[axes.utility]))
            # the disk gets the curve's grid; a frame's own point alone is not worth a write
            # (one per frame was a quarter of ADePT's frontier frames along ε)
            added = added or own not in ([], [float(values[p.slider])])
        for x in grid:
            priv, util = points[x]
            kind = "current" if x == values[p.slider] else "curve"
            if kind == "curve" and axes.privacy_log and not PRIVACY_WINDOW[0] <= priv <= PRIVACY_WINDOW[1]:
                continue
            rows.append((kind, mech, _label(page, mech, values), x, priv, util))
            if kind == "current":
                rows.append(("curve", mech, _label(page, mech, values), x, priv, util))
    if added:
        _save_points(page, values, curves)
    return rows


def _setting(page: str, values: Mapping[str, Any], ignored: tuple[str, ...] = ()) -> tuple:
    """Every setting but the slider's, the target's and ``ignored``, as sorted (name, repr) pairs."""
    skip = {PAGES[page].slider, "target_measure", "target_value", *ignored}
    return tuple(sorted((k, repr(v)) for k, v in values.items() if k not in skip))


def _state_key(page: str, values: Mapping[str, Any], mech: str) -> tuple:
    """What a mechanism's curve depends on: every setting but the slider's, the target's and those
    the mechanism ignores."""
    return (mech,) + _setting(page, values, AXES[page].ignores.get(mech, ()))


def _label(page: str, mech: str, values: Mapping[str, Any]) -> str:
    label = AXES[page].label
    return label(mech, values) if label is not None else mech


def _pareto(privacy: np.ndarray, utility: np.ndarray, axes: Axes) -> tuple[np.ndarray, np.ndarray]:
    """A curve's Pareto points, most private first: those no point at least as private beats."""
    order = np.argsort(privacy if axes.privacy_better == "lower" else -privacy, kind="stable")
    x, y = privacy[order], utility[order]
    lower = axes.utility_better == "lower"
    best = np.minimum.accumulate(y) if lower else np.maximum.accumulate(y)
    keep = np.r_[True, (best[1:] < best[:-1]) if lower else (best[1:] > best[:-1])]
    return x[keep], best[keep]


def _front(privacy: np.ndarray, utility: np.ndarray, at: np.ndarray, axes: Axes) -> np.ndarray:
    """A curve's frontier at each privacy level ``at``: the best utility among its settings at least
    that private, between its Pareto points along the curve (linear in the axes' scales: the
    settings between two grid points), held beyond the last; NaN where it has no such setting."""
    px, py = _pareto(privacy, utility, axes)
    fx = np.log10 if axes.privacy_log else np.asarray
    fy = np.log10 if axes.utility_log else np.asarray
    lx, ly, la = fx(px), fy(py), fx(at)
    sign = 1.0 if axes.privacy_better == "lower" else -1.0  # np.interp wants increasing x
    out = np.interp(sign * la, sign * lx, ly)
    out = 10**out if axes.utility_log else out
    reach = at >= px[0] if axes.privacy_better == "lower" else at <= px[0]
    return np.where(reach, out, np.nan)


def _curve_arrays(rows: list[tuple]) -> list[tuple[np.ndarray, np.ndarray]]:
    """Each mechanism's curve points (``kind`` ``curve``) as (privacy, utility) arrays, in the rows'
    order, the mechanisms in the order they first come."""
    by_mech: dict[str, tuple[list, list]] = {}
    for kind, mech, _, _, priv, util in rows:
        if kind == "curve":
            xs, ys = by_mech.setdefault(mech, ([], []))
            xs.append(priv)
            ys.append(util)
    return [(np.array(xs, dtype=float), np.array(ys, dtype=float)) for xs, ys in by_mech.values()]


def _band(curves: list[tuple[np.ndarray, np.ndarray]], axes: Axes) -> list[tuple]:
    """The beaten band's rows (see the module docstring) from each curve's (privacy, utility): at
    every privacy level where at least two curves have a setting at least as private, the best of
    the curves' frontiers (``band_best``) and the worst (``band_worst``); a curve's point inside is
    beaten by the curve on the best edge. The curves' non-finite points are left out, and on a log
    axis those not above zero."""
    kept = []
    for x, y in curves:
        ok = np.isfinite(x) & np.isfinite(y)
        if axes.privacy_log or axes.utility_log:
            ok &= (x > 0) & (y > 0)
        if ok.any():
            kept.append((x[ok], y[ok]))
    if len(kept) < 2:
        return []
    points = np.concatenate([x for x, _ in kept])
    lo, hi = points.min(), points.max()
    even = np.geomspace(lo, hi, 60) if axes.privacy_log else np.linspace(lo, hi, 60)
    at = np.unique(np.r_[points, even])
    fronts = np.array([_front(x, y, at, axes) for x, y in kept])
    ok = np.sum(np.isfinite(fronts), axis=0) >= 2
    if ok.sum() < 2:
        return []
    lower = axes.utility_better == "lower"
    best = np.nanmin(fronts[:, ok], axis=0) if lower else np.nanmax(fronts[:, ok], axis=0)
    worst = np.nanmax(fronts[:, ok], axis=0) if lower else np.nanmin(fronts[:, ok], axis=0)
    px = at[ok].tolist()
    rows = [("band_best", "", "", math.nan, a, b) for a, b in zip(px, best.tolist())]
    rows += [("band_worst", "", "", math.nan, a, b) for a, b in zip(px, worst.tolist())]
    return rows


def frontier_table(page: str, values: Mapping[str, Any]) -> pd.DataFrame:
    """The page's frontier at ``values`` (every page setting, the target's too): the curves, the
    sliders' setting on each, the beaten band and the target (:data:`COLUMNS`). Built as rows and
    made a table once (a table per part, grouped and concatenated, was most of a frame's cost)."""
    axes = AXES[page]
    rows = _curves(page, values)
    if axes.shade:
        rows += _band(_curve_arrays(rows), axes)
    target = values.get("target_measure", "none")
    if target in (axes.privacy, axes.utility):
        v = float(values["target_value"])
        on_x = target == axes.privacy
        rows.append(("target", "", target, math.nan, v if on_x else math.nan, math.nan if on_x else v))
    if not rows:
        return pd.DataFrame(rows, columns=list(COLUMNS))
    # by columns: pandas reads a list of tuples as a 2-D object array first (a tenth of HoHo's frames along λ)
    return pd.DataFrame({name: list(column) for name, column in zip(COLUMNS, zip(*rows))})


def frontier_tables_along(page: str, values: Mapping[str, Any], positions: Sequence[float]) -> list[pd.DataFrame]:
    """:func:`frontier_table` at each position of the page's swept slider (``FigureSpec.along``):
    the positions' own points (the rings) computed together first, by the page's
    ``Page.evaluate_many`` where it has one (HoHo: one compiled pass over every ε), then each table
    as :func:`frontier_table` makes it, the same to the last bit. One position at a time, each
    frame of HoHo's frontier along ε computed its own ring: three calls of the exact attack."""
    slider = PAGES[page].slider
    _curves(page, values, also=[float(x) for x in positions])
    return [frontier_table(page, dict(values, **{slider: x})) for x in positions]


def frontier_figure(page: str, df: pd.DataFrame, values: Mapping[str, Any]):
    """The frontier drawn: a curve per mechanism (hover: the setting behind each point), the
    sliders' setting as a ring on each, the beaten band shaded, the target as a dashed line."""

    axes = AXES[page]
    swept, setting = _words(page)
    fig = go.Figure()
    # the table's columns read once as arrays, each kind of row picked by a mask over them (pandas'
    # grouping and sorting per mechanism were most of a frame)
    kind = df["kind"].to_numpy()
    mechs = df["mechanism"].to_numpy()
    privacy = df["privacy"].to_numpy(dtype=float)
    utility = df["utility"].to_numpy(dtype=float)
    settings = df["setting"].to_numpy(dtype=float)
    labels = df["label"].to_numpy()

    def rows(which: str, by: np.ndarray, mech: str | None = None) -> np.ndarray:
        at = np.flatnonzero((kind == which) if mech is None else (kind == which) & (mechs == mech))
        return at[np.argsort(by[at], kind="stable")]

    worst, best = rows("band_worst", privacy), rows("band_best", privacy)
    if len(best):
        fig.add_trace(
            go.Scatter(
                x=privacy[worst], y=utility[worst], mode="lines",
                line=dict(width=0, color="#999"), showlegend=False, hoverinfo="skip",
            )
        )  # fmt: skip
        fig.add_trace(
            go.Scatter(
                x=privacy[best], y=utility[best], mode="lines", fill="tonexty",
                fillcolor="rgba(120,120,120,0.18)", line=dict(width=0, color="#999"),
                name="beaten: another curve gives more utility at this privacy", hoverinfo="skip",
            )
        )  # fmt: skip
    is_curve = kind == "curve"
    for k, mech in enumerate(dict.fromkeys(mechs[is_curve])):
        part = rows("curve", settings, mech)
        color = OKABE_ITO[k % len(OKABE_ITO)]
        label = labels[part[0]]
        fig.add_trace(
            go.Scatter(
                x=privacy[part], y=utility[part], mode="lines+markers", name=label, legendgroup=mech,
                line=dict(color=color, width=5 if k == 0 else 2.5, dash=DASHES[k % len(DASHES)]),
                marker=dict(size=5, color=color),
                customdata=settings[part],
                hovertemplate=(
                    f"{label}<br>{axes.setting_label} = %{{customdata:.4g}}<br>{axes.privacy_label} %{{x:.4g}}"
                    f"<br>{axes.utility_label} %{{y:.4g}}<extra></extra>"
                ),
            )
        )  # fmt: skip
        here = np.flatnonzero((kind == "current") & (mechs == mech))
        fig.add_trace(
            go.Scatter(
                x=privacy[here], y=utility[here], mode="markers", legendgroup=mech, showlegend=False,
                name=f"{label} at the {setting}",
                marker=dict(size=15, symbol="circle-open", color=color, line=dict(width=3)),
                customdata=settings[here],
                hovertemplate=(
                    f"{label}, the {setting}<br>{axes.setting_label} = %{{customdata:.4g}}"
                    f"<br>{axes.privacy_label} %{{x:.4g}}<br>{axes.utility_label} %{{y:.4g}}<extra></extra>"
                ),
            )
        )  # fmt: skip
    fig.add_trace(
        go.Scatter(
            x=[None], y=[None], mode="markers", name=f"the {setting} ({axes.setting_label} = "
            f"{values[axes.setting]:g})", marker=dict(size=13, symbol="circle-open", color="#000", line=dict(width=2)),
        )
    )  # fmt: skip
    target = np.flatnonzero(kind == "target")
    note = ""
    if len(target):
        t = target[0]
        t_privacy, t_utility, t_label = privacy[t], utility[t], labels[t]
        shown = is_curve & np.isfinite(privacy) & np.isfinite(utility)
        if np.isfinite(t_privacy):
            y0, y1 = float(utility[shown].min()), float(utility[shown].max())
            ref_line(
                fig, [t_privacy, t_privacy], [y0, y1], f"target {t_label} = {t_privacy:g}", color="#000", dash="dash"
            )
        else:
            x0, x1 = float(privacy[shown].min()), float(privacy[shown].max())
            ref_line(
                fig, [x0, x1], [t_utility, t_utility], f"target {t_label} = {t_utility:g}", color="#000", dash="dash"
            )
        note = f"; target {t_label} as a dashed line"
    elif values.get("target_measure", "none") != "none":
        note = f"; the target {values['target_measure']} is not an axis here (see the panel's answer)"
    xt = axes.privacy_label + (" (log scale)" if axes.privacy_log else "")
    yt = axes.utility_label + (" (log)" if axes.utility_log else "")
    way = f"better is {'left' if axes.privacy_better == 'lower' else 'right'} and "
    way += "down" if axes.utility_better == "lower" else "up"
    if axes.privacy_log:
        log_axis(fig, "x", title=xt)
    else:
        fig.update_xaxes(title=xt)
    if axes.utility_log:
        log_axis(fig, "y", title=yt)
    else:
        fig.update_yaxes(title=yt)
    # the legend under the plot, anchored by its top: it grows downwards into the bottom margin, one
    # row per curve at the page's column width, clear of the x axis's title
    entries = sum(1 for t in fig.data if t.showlegend is not False)
    # room for one legend row per entry (a narrow column): a row is 31 px at the house's font, and the
    # legend's top sits 0.22 of the plot's 330 px below it (at 30 px a row, six rows lost their last);
    # at a known width the page and an image give back what the rows do not take (dpviz/text_fit.py)
    bottom = 100 + 34 * entries
    fig.update_layout(legend=dict(orientation="h", y=-0.22, yanchor="top", x=0), margin=dict(b=bottom))
    return style(
        fig,
        two_line_title(
            axes.title,
            f"each curve sweeps {axes.setting_label} over the {swept}; {way}{note}",
        ),
        height=430 + bottom,
    )


def frontier_spec(page: str, params: tuple[Param, ...], paper_figure: str = "", quick: Mapping[str, str] | None = None):
    """The page's frontier as a live figure (:class:`dpviz.registry.FigureSpec`): ``params`` are the
    page's settings it depends on (its sliders among them); the target's two are added."""

    axes = AXES[page]
    swept, setting = _words(page, params)
    sliders = tuple(p.name for p in params if p.slider)
    which, value = target_params(page)
    beaten = (
        " The grey band is where a curve is beaten: at the same privacy another curve gives more utility."
        if axes.shade
        else ""
    )
    return FigureSpec(
        id=f"{page}-frontier",
        title="Privacy against utility: the frontier",
        page=page,
        params=params + (which, value),
        prepare=lambda v, progress=None: None,
        evaluate=lambda state, v: frontier_table(page, v),
        live=sliders,
        along={PAGES[page].slider: lambda v, positions: frontier_tables_along(page, v, positions)},
        render=lambda df, v: frontier_figure(page, df, v),
        caption=(
            f"Each curve is one {'mechanism' if axes.shade else 'way of counting'} as {axes.setting_label} sweeps the "
            f"{swept}: {axes.privacy_label} across, {axes.utility_label} up; hover a point for the setting "
            f"behind it. Rings mark the {setting}.{beaten} A target set in the panel “Choose from a target” "
            f"is the dashed line. {axes.note}"
        ).strip(),
        columns=COLUMNS,
        paper_figure=paper_figure,
        quick=dict(quick or {}),
    )


def target_panel(page: str, params: tuple[Param, ...]):
    """The page's "Choose from a target" panel (:class:`dpviz.panels.Panel`): its settings are
    the frontier's but the solved slider (a move of that slider does not change the answer); on a
    page that can also be solved for other settings, the slider too, and the choice of what to solve."""

    which, value = target_params(page)
    solve = solve_param(page, params)
    own = tuple(p for p in params if p.name != PAGES[page].slider or solve is not None)
    control = _control(page, params)
    return Panel(
        id="targets",
        title="Choose from a target",
        params=own + (which, value) + ((solve,) if solve is not None else ()),
        compute=f"dpviz.papers.{page}.targets:answer",
        view="webui.panels.targets:show",
        intro=(
            "Set a **target measure** and its **value** in the sidebar (“Choose from a target”): the answer is "
            "the setting that reaches it for every curve of the frontier above, with what the other measures cost "
            f"there, and a button that moves the {control} there."
            + (
                f" **Solve for** picks what is solved: the {control}, or another setting at the "
                f"{control}'s value (the button then moves that setting)."
                if solve is not None
                else ""
            )
        ),
        working="Solving for the target…",
        on_refusal=f"The {'sliders' if control == 'slider' else 'boxes'} keep their values.",
    )
