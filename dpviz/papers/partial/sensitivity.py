"""Partial sensitivity of a database query (Mueller et al. 2022, Sec. 4 and 5.1).

For a per-individual query f(x) over attributes x = (x_1..x_d), averaged over N
individuals, one individual's sensitivity (the local Lipschitz quantity) is the gradient
norm g(x) = ||grad f(x)||_2 / N, and the *partial sensitivity* of attribute j is
dg/dx_j: how much that attribute moves the gradient norm (paper, Eq. 4-6). The global
sensitivity is max g over the box of allowed attribute values (paper: scipy's shgo;
default query a^2 + exp(2b - a), a in [1, 2], b in [0.5, 3], N = 5: 66.19446391885754 at
(1, 3)). An individual's Renyi-DP loss under the Gaussian mechanism with noise sigma at
order alpha is alpha * g(x_i)^2 / (2 sigma^2) (Feldman & Zrnic 2021; paper Sec. 5.1).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Callable

import numpy as np
import pandas as pd

from dpviz import caches, sandbox, tables
from dpviz.errors import InputError
from dpviz.papers.partial import analysis_store
from dpviz.papers.partial.expr_program import Program, ProgramError, compile_expressions, tree_size
from dpviz.papers.partial.safe_expr import FormulaError, parse_formula, parse_ranges

MAX_LATEX_TERMS = 400  # a derivative printed as a tree with more parts is not typeset


@dataclass(frozen=True)
class QueryAnalysis:
    """A query, its gradient, gradient norm g and partial sensitivities as one numpy
    :class:`~dpviz.papers.partial.expr_program.Program` (outputs: f, g, df/dx_j..., dg/dx_j...), their LaTeX,
    and the global sensitivity (or the sentence saying why it could not be found)."""

    attributes: tuple[str, ...]
    ranges: tuple[tuple[float, float], ...]
    individuals: int
    program: Program
    tex: tuple[tuple[str, str | None], ...]
    sensitivity: dict | None = None
    sensitivity_error: str | None = None

    @property
    def f_fn(self) -> Callable:
        """f(x) per individual, as a callable of the attribute columns."""
        return self.program.function(0)

    @property
    def norm_fn(self) -> Callable:
        """g(x) = ||grad f(x)|| / N, one individual's sensitivity."""
        return self.program.function(1)

    @property
    def gradient_fns(self) -> tuple[Callable, ...]:
        """The partial derivatives df/dx_j, one callable per attribute."""
        return tuple(self.program.function(2 + j) for j in range(len(self.attributes)))

    @property
    def partial_fns(self) -> tuple[Callable, ...]:
        """The partial sensitivities dg/dx_j, one callable per attribute."""
        d = len(self.attributes)
        return tuple(self.program.function(2 + d + j) for j in range(d))

    def latex(self) -> dict[str, str | None]:
        """LaTeX of f, the gradient norm g, each df/dx_j and dg/dx_j; None where the printed
        expression would have more than MAX_LATEX_TERMS parts."""
        return dict(self.tex)

    def evaluate(self, fn: Callable, points: np.ndarray) -> np.ndarray:
        """Evaluate a compiled function on points of shape (m, d); constants broadcast."""
        points = np.atleast_2d(np.asarray(points, dtype=float))
        with np.errstate(all="ignore"):
            out = fn(*points.T)
        return np.broadcast_to(np.asarray(out, dtype=float), (points.shape[0],)).copy()


def _latex(expr) -> str | None:
    """sympy's LaTeX, or None for an expression too large to typeset. sympy orders a sum's terms by
    evaluating them numerically, which never ends for a constant like exp(exp(exp(20))): an
    expression holding a composite constant is printed with its terms in their stored order."""
    import sympy as sp

    if tree_size(expr, MAX_LATEX_TERMS + 1) > MAX_LATEX_TERMS:
        return None
    constant_part = any(e.is_number and not e.is_Atom for e in sp.preorder_traversal(expr))
    return sp.latex(expr, order="none" if constant_part else None)


def analyse_here(expr: str, ranges: str, individuals: int) -> QueryAnalysis:
    """Parse, differentiate, compile, typeset and find the global sensitivity, in this process.
    Unbounded work for a hostile formula: the server calls it through :func:`analyse`."""
    import sympy as sp

    box = parse_ranges(ranges)
    f, symbols = parse_formula(expr, tuple(box))
    xs = [symbols[a] for a in box]
    gradient = [sp.diff(f, x) for x in xs]
    norm = sp.sqrt(sum(d**2 for d in gradient)) / individuals
    partials = [sp.diff(norm, x) for x in xs]
    try:
        program = compile_expressions([f, norm, *gradient, *partials], xs)
    except ProgramError as err:
        raise FormulaError(str(err)) from None
    tex = [("f", _latex(f)), ("g", _latex(norm))]
    tex += [(f"df/d{a}", _latex(d)) for a, d in zip(box, gradient)]
    tex += [(f"dg/d{a}", _latex(p)) for a, p in zip(box, partials)]
    analysis = QueryAnalysis(tuple(box), tuple(box.values()), int(individuals), program, tuple(tex))
    try:
        found, error = find_global_sensitivity(analysis), None
    except FormulaError as err:
        found, error = None, str(err)
    return replace(analysis, sensitivity=found, sensitivity_error=error)


class _OverLimits(Exception):
    """A formula's analysis ran out of its worker's CPU-seconds or memory (the sentence saying so)."""


_ANALYSES = caches.memo("partial.analyses")  # (formula, ranges, N) -> its analysis, or the FormulaError refusing it


def analyse(expr: str, ranges: str, individuals: int) -> QueryAnalysis:
    """The analysis of a typed query, made in a limited worker process (:mod:`dpviz.sandbox`) and
    remembered per (formula, ranges, N), refusals included, so a formula that exhausted its limits
    is not tried again on every rerun (but not a run the wall clock ended while a busy machine had
    given it little CPU: :class:`dpviz.sandbox.Busy`), in the process and in the disk cache
    (:mod:`dpviz.papers.partial.analysis_store`). Raises FormulaError with a user-facing sentence."""
    if int(individuals) != individuals or individuals < 1:
        raise FormulaError(f"individuals must be a whole number >= 1, got {individuals}")
    key = (expr, ranges, int(individuals))

    def fresh() -> bytes:
        try:
            found = sandbox.run_limited(analyse_here, key, what="Analysing this formula", expected=(FormulaError,))
        except sandbox.WorkerError as err:
            found = FormulaError(str(err))
        except sandbox.Busy as err:  # the machine was busy, not the formula costly: said, not remembered
            raise FormulaError(str(err)) from err
        except sandbox.LimitExceeded as err:  # remembered by this process, not on disk: the limits are the operator's
            raise _OverLimits(f"{err} Write a simpler formula (fewer nested functions, no huge constants).") from err
        return analysis_store.dumps(found)

    def compute() -> QueryAnalysis | FormulaError:
        parse_ranges(ranges)  # a bad range is said at once, without a worker (and not remembered)
        # on disk too, shared by the server's processes and filled by `dpviz build` (analysis_store)
        try:
            found = analysis_store.loads(tables.cached_blob(analysis_store.KIND, analysis_store.key(*key), fresh))
        except _OverLimits as err:
            return FormulaError(str(err))
        return found if isinstance(found, FormulaError) else QueryAnalysis(**found)

    known = _ANALYSES.get(key, compute)
    if isinstance(known, FormulaError):
        raise FormulaError(str(known))
    return known


def grid(analysis: QueryAnalysis, points_per_axis: int) -> np.ndarray:
    """A regular grid over the box, shape (points_per_axis^d, d)."""
    axes = [np.linspace(lo, hi, points_per_axis) for lo, hi in analysis.ranges]
    return np.stack([m.ravel() for m in np.meshgrid(*axes, indexing="ij")], axis=1)


def global_sensitivity(analysis: QueryAnalysis) -> dict:
    """The global sensitivity found when the query was analysed; FormulaError if there is none."""
    if analysis.sensitivity is None:
        raise FormulaError(analysis.sensitivity_error or "The global sensitivity was not computed.")
    return analysis.sensitivity


POLISHED = 8
"""The grid's best points each polished by L-BFGS-B (:func:`find_global_sensitivity`)."""
ZOOMS = (1e-2, 1e-4, 1e-6)
"""The half-widths, as shares of each range, of the boxes searched around the best point found."""
UNCHECKED = 10.0
"""A maximum found this many times above the grid's is not reported: the grid cannot confirm it, and
such a gap is what a singularity between grid points gives (100 before 2026-12-04 let 1/max(b/a,
e^a) near the origin report 1,083, the grid's best being 61, for a norm without bound)."""
ZOOM_POINTS = 2000
"""Random points in each of those boxes (seeded: the same formula always gives the same answer)."""


def _distinct_best(vals: np.ndarray, count: int) -> list[int]:
    """The indices of the ``count`` largest of ``vals`` whose values differ by more than 1e-9 of
    themselves: a flat ridge's many equal points (a branch of max() where g is constant along one
    attribute) would otherwise take every place, and another branch's basin, a little lower on the
    grid but higher between its points, none."""
    chosen: list[int] = []
    for i in np.argsort(-vals, kind="stable"):
        if all(abs(vals[i] - vals[j]) > 1e-9 * abs(vals[j]) for j in chosen):
            chosen.append(int(i))
            if len(chosen) == count:
                break
    return chosen


def _point(analysis: QueryAnalysis, x) -> str:
    """A point of the box as a refusal names it: "a = 1.7, b = 0.000682"."""
    return ", ".join(f"{a} = {v:.3g}" for a, v in zip(analysis.attributes, x))


def _zoomed(analysis: QueryAnalysis, x: np.ndarray, value: float, undefined: list) -> tuple[np.ndarray, float]:
    """The best point and value after searching boxes of :data:`ZOOMS` around ``x`` (each box
    centred on the best point so far, clipped to the ranges). A point where g is not finite is
    put in ``undefined`` (the caller refuses) and ends the search."""
    lo, hi = (np.array([r[i] for r in analysis.ranges]) for i in (0, 1))
    rng = np.random.default_rng(0)
    for width in ZOOMS:
        a, b = np.maximum(lo, x - width * (hi - lo)), np.minimum(hi, x + width * (hi - lo))
        local = a + (b - a) * rng.random((ZOOM_POINTS, len(lo)))
        vals = analysis.evaluate(analysis.norm_fn, local)
        if not np.all(np.isfinite(vals)):
            undefined.append(local[np.flatnonzero(~np.isfinite(vals))[0]])
            break
        k = int(np.argmax(vals))
        if vals[k] > value:
            x, value = local[k], float(vals[k])
    return x, value


def find_global_sensitivity(analysis: QueryAnalysis, grid_budget: int = 40_000) -> dict:
    """max g over the box: scipy.optimize.shgo, checked against a dense grid.

    The grid has about ``grid_budget`` points. Its :data:`POLISHED` best points are polished with
    L-BFGS-B (a basin shgo missed, or a kink or ridge the grid straddles), and the best of these
    and shgo's answer is then searched again in boxes around it :data:`ZOOMS` of the ranges wide
    (:data:`ZOOM_POINTS` seeded random points each, the centre moving to any better point): a
    singularity between grid points shows there as a value that keeps growing. Returns value,
    argmax, shgo_value, grid_value, grid_argmax.

    Refused (FormulaError) where g is infinite or undefined at any point evaluated, on the grid
    or by the optimisers: g is then unbounded on the box, or not defined on all of it, and no
    finite number is its maximum. (Before, a point where g overflowed only steered the search
    away, so cosh(log(0.582)/b) on b in [-0.0307, 1.43] reported 1.4e179, the largest value a
    grid point happened to reach, for a norm that grows without bound as b -> 0.)
    """
    from scipy import optimize

    d = len(analysis.attributes)
    bounds = list(analysis.ranges)
    undefined: list[np.ndarray] = []  # the first point where g was not a finite number

    def neg(x):
        v = analysis.evaluate(analysis.norm_fn, np.asarray(x)[None, :])[0]
        if np.isfinite(v):
            return -v
        if not undefined:
            undefined.append(np.array(x, dtype=float))
        return 1e300

    res = optimize.shgo(neg, bounds, n=64, iters=3, sampling_method="sobol")
    shgo_x, shgo_v = np.asarray(res.x, dtype=float), -float(res.fun)
    per_axis = max(3, int(round(grid_budget ** (1 / d))))
    pts = grid(analysis, per_axis)
    vals = analysis.evaluate(analysis.norm_fn, pts)
    if not np.any(np.isfinite(vals)):
        raise FormulaError("The gradient norm is not finite anywhere on the box: check the formula and ranges.")
    if not (np.all(np.isfinite(vals)) and np.all(np.isfinite(analysis.evaluate(analysis.f_fn, pts)))):
        raise FormulaError(
            "The query or its gradient is infinite or undefined somewhere on the box (e.g. log or sqrt "
            "of a negative number, division by zero, or an overflow): narrow the ranges or change the formula."
        )
    k = int(np.argmax(vals))
    grid_x, grid_v = pts[k], float(vals[k])
    found = [(shgo_x, shgo_v), (grid_x, grid_v)]
    for i in _distinct_best(vals, POLISHED):
        polish = optimize.minimize(neg, pts[i], bounds=bounds, method="L-BFGS-B", options={"maxiter": 200})
        found.append((np.asarray(polish.x, dtype=float), -float(polish.fun)))
    best_x, best_v = max(found, key=lambda xv: xv[1])
    best_x, best_v = _zoomed(analysis, best_x, best_v, undefined)
    if undefined:
        raise FormulaError(
            f"The gradient norm is unbounded or undefined near {_point(analysis, undefined[0])} (it overflows "
            "there, or meets a division by zero or the log or sqrt of a negative number): no number is its maximum "
            "on this box. Narrow the ranges to exclude that point, or change the formula."
        )
    if best_v > UNCHECKED * max(grid_v, np.finfo(float).tiny) and best_v > grid_v + 1e-6:
        raise FormulaError(
            f"The gradient norm looks unbounded on this box, or peaks more sharply than a {len(pts):,}-point grid "
            f"can check: near {_point(analysis, best_x)} it reaches {best_v:.3g}, while the grid finds at most "
            f"{grid_v:.3g}. Narrow the ranges to exclude the singularity (or the peak)."
        )
    return {
        "value": float(best_v),
        "argmax": dict(zip(analysis.attributes, map(float, best_x))),
        "shgo_value": shgo_v,
        "grid_value": grid_v,
        "grid_argmax": dict(zip(analysis.attributes, map(float, grid_x))),
        "grid_points": int(len(pts)),
    }


def query_table(analysis: QueryAnalysis, gs: dict) -> pd.DataFrame:
    """One row per attribute: its range, the maximiser's coordinate, the global sensitivity,
    the grid check, and the partial sensitivity at the maximiser."""
    x = np.array([[gs["argmax"][a] for a in analysis.attributes]])
    rows = []
    for j, a in enumerate(analysis.attributes):
        rows.append(
            {
                "attribute": a,
                "low": analysis.ranges[j][0],
                "high": analysis.ranges[j][1],
                "argmax": gs["argmax"][a],
                "global_sensitivity": gs["value"],
                "grid_max": gs["grid_value"],
                "partial_sensitivity_at_argmax": float(analysis.evaluate(analysis.partial_fns[j], x)[0]),
            }
        )
    return pd.DataFrame(rows)


def surface_table(analysis: QueryAnalysis, points_per_axis: int, fixed: dict[str, float]) -> pd.DataFrame:
    """g and the partial sensitivities on a grid over the first two attributes (others fixed
    at ``fixed``, e.g. the maximiser). Tidy columns: x, y, gradient_norm, partial_x, partial_y."""
    names = analysis.attributes
    xa = np.linspace(*analysis.ranges[0], points_per_axis)
    ya = np.linspace(*analysis.ranges[1], points_per_axis) if len(names) > 1 else np.array([0.0])
    X, Y = np.meshgrid(xa, ya, indexing="ij")
    cols = []
    for j, a in enumerate(names):
        cols.append(X.ravel() if j == 0 else Y.ravel() if j == 1 else np.full(X.size, fixed[a]))
    pts = np.stack(cols, axis=1)
    out = pd.DataFrame({"x": X.ravel(), "y": Y.ravel()})
    out["gradient_norm"] = analysis.evaluate(analysis.norm_fn, pts)
    out["partial_x"] = analysis.evaluate(analysis.partial_fns[0], pts)
    out["partial_y"] = analysis.evaluate(analysis.partial_fns[1], pts) if len(names) > 1 else 0.0
    return out


def parse_people(text: str, analysis: QueryAnalysis, max_rows: int = 20) -> np.ndarray:
    """'1,3; 1.5,0.5' -> array (rows, d) in attribute order; each value inside its range."""
    rows = [r for r in (text or "").split(";") if r.strip()]
    if not rows:
        raise FormulaError("List at least one individual, e.g. 1,3; 1.5,0.5 (values in attribute order).")
    if len(rows) > max_rows:
        raise FormulaError(f"At most {max_rows} individuals can be listed, got {len(rows)}.")
    d = len(analysis.attributes)
    out = np.empty((len(rows), d))
    for i, row in enumerate(rows):
        vals = row.split(",")
        if len(vals) != d:
            raise FormulaError(
                f"Individual {i + 1} ({row.strip()[:30]!r}) needs {d} values: {', '.join(analysis.attributes)}."
            )
        for j, v in enumerate(vals):
            try:
                x = float(v)
            except ValueError:
                raise FormulaError(f"Individual {i + 1}: {v.strip()[:20]!r} is not a number.") from None
            lo, hi = analysis.ranges[j]
            if not lo <= x <= hi:
                raise FormulaError(
                    f"Individual {i + 1}: {analysis.attributes[j]} = {x:g} is outside its range [{lo:g}, {hi:g}]."
                )
            out[i, j] = x
    return out


def rdp_loss(g, sigma: float, alpha: float):
    """Individual Renyi-DP of the Gaussian mechanism: alpha * g^2 / (2 sigma^2).

    Takes sensitivities ``g`` (number or array), sigma > 0 and alpha > 1; InputError otherwise.

    >>> float(rdp_loss(1.0, sigma=1.0, alpha=2.0)), float(rdp_loss(3.0, sigma=3.0, alpha=2.0))
    (1.0, 1.0)
    """
    if not sigma > 0 or not alpha > 1:
        raise InputError(f"need sigma > 0 and alpha > 1, got sigma={sigma}, alpha={alpha}")
    return alpha * np.square(g) / (2 * sigma**2)


def individuals_table(analysis: QueryAnalysis, people: np.ndarray, sigma: float, alpha: float) -> pd.DataFrame:
    """Per individual: attributes, g, the RDP loss, each attribute's partial sensitivity and
    its share of g^2 (g^2 = sum_j (df/dx_j)^2 / N^2, so the shares add up to 1), and the
    attribute with the largest |partial sensitivity|."""
    g = analysis.evaluate(analysis.norm_fn, people)
    out = pd.DataFrame(people, columns=list(analysis.attributes))
    out.insert(0, "individual", np.arange(1, len(people) + 1))
    out["gradient_norm"] = g
    out["rdp_epsilon"] = rdp_loss(g, sigma, alpha)
    grads = np.stack([analysis.evaluate(fn, people) for fn in analysis.gradient_fns], axis=1)
    total = np.maximum((grads**2).sum(1), np.finfo(float).tiny)
    partials = np.stack([analysis.evaluate(fn, people) for fn in analysis.partial_fns], axis=1)
    for j, a in enumerate(analysis.attributes):
        out[f"partial_{a}"] = partials[:, j]
        out[f"share_{a}"] = grads[:, j] ** 2 / total
    out["most_sensitive_attribute"] = [analysis.attributes[k] for k in np.argmax(np.abs(partials), axis=1)]
    return out


def formulas_panel(values, progress=None) -> dict[str, str | None]:
    """The formulas panel's compute (declared in the paper): f, g and each ∂g/∂x in LaTeX (None
    where too long to typeset), from the query's analysis; FormulaError for a formula it refuses."""
    return analyse(values["expr"], values["ranges"], int(values["individuals"])).latex()
