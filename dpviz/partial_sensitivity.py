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

from dataclasses import dataclass
from functools import lru_cache
from typing import Callable

import numpy as np
import pandas as pd
import sympy as sp
from scipy import optimize

from dpviz.safe_expr import FormulaError, parse_formula, parse_ranges


@dataclass(frozen=True)
class QueryAnalysis:
    """Symbolic pieces of a query and their compiled numpy versions."""

    attributes: tuple[str, ...]
    ranges: tuple[tuple[float, float], ...]
    individuals: int
    f: sp.Expr
    gradient: tuple[sp.Expr, ...]
    norm: sp.Expr
    partials: tuple[sp.Expr, ...]
    f_fn: Callable
    norm_fn: Callable
    partial_fns: tuple[Callable, ...]
    gradient_fns: tuple[Callable, ...]

    def latex(self) -> dict[str, str]:
        """LaTeX of f, the gradient, the gradient norm g and each partial sensitivity."""
        out = {"f": sp.latex(self.f), "g": sp.latex(self.norm)}
        for a, d, p in zip(self.attributes, self.gradient, self.partials):
            out[f"df/d{a}"] = sp.latex(d)
            out[f"dg/d{a}"] = sp.latex(p)
        return out

    def evaluate(self, fn: Callable, points: np.ndarray) -> np.ndarray:
        """Evaluate a compiled function on points of shape (m, d); constants broadcast."""
        points = np.atleast_2d(np.asarray(points, dtype=float))
        with np.errstate(all="ignore"):
            out = fn(*points.T)
        return np.broadcast_to(np.asarray(out, dtype=float), (points.shape[0],)).copy()


def _compile(symbols, expr) -> Callable:
    # lambdify prints sympy's tree (built from a checked AST, never from user text) to numpy code
    return sp.lambdify(symbols, expr, modules="numpy")


@lru_cache(maxsize=64)
def analyse(expr: str, ranges: str, individuals: int) -> QueryAnalysis:
    """Parse and differentiate; raises FormulaError with a user-facing sentence."""
    if int(individuals) != individuals or individuals < 1:
        raise FormulaError(f"individuals must be a whole number >= 1, got {individuals}")
    box = parse_ranges(ranges)
    f, symbols = parse_formula(expr, tuple(box))
    xs = [symbols[a] for a in box]
    gradient = tuple(sp.diff(f, x) for x in xs)
    norm = sp.sqrt(sum(d**2 for d in gradient)) / individuals
    partials = tuple(sp.diff(norm, x) for x in xs)
    return QueryAnalysis(
        attributes=tuple(box),
        ranges=tuple(box.values()),
        individuals=int(individuals),
        f=f,
        gradient=gradient,
        norm=norm,
        partials=partials,
        f_fn=_compile(xs, f),
        norm_fn=_compile(xs, norm),
        partial_fns=tuple(_compile(xs, p) for p in partials),
        gradient_fns=tuple(_compile(xs, d) for d in gradient),
    )


def grid(analysis: QueryAnalysis, points_per_axis: int) -> np.ndarray:
    """A regular grid over the box, shape (points_per_axis^d, d)."""
    axes = [np.linspace(lo, hi, points_per_axis) for lo, hi in analysis.ranges]
    return np.stack([m.ravel() for m in np.meshgrid(*axes, indexing="ij")], axis=1)


def global_sensitivity(analysis: QueryAnalysis, grid_budget: int = 40_000) -> dict:
    """max g over the box: scipy.optimize.shgo, checked against a dense grid.

    The grid has about ``grid_budget`` points. If the grid finds a larger value than shgo
    (a missed basin), the grid's best point is polished with L-BFGS-B and the larger of
    the two results is reported. Returns value, argmax, shgo_value, grid_value, grid_argmax.
    """
    d = len(analysis.attributes)
    bounds = list(analysis.ranges)

    def neg(x):
        v = analysis.evaluate(analysis.norm_fn, np.asarray(x)[None, :])[0]
        return -v if np.isfinite(v) else 1e300

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
    best_x, best_v = shgo_x, shgo_v
    if grid_v > shgo_v:
        polish = optimize.minimize(neg, grid_x, bounds=bounds, method="L-BFGS-B")
        best_x, best_v = (polish.x, -polish.fun) if -polish.fun >= grid_v else (grid_x, grid_v)
    if best_v > 100 * max(grid_v, np.finfo(float).tiny) and best_v > grid_v + 1e-6:
        where = ", ".join(f"{a} = {x:.3g}" for a, x in zip(analysis.attributes, best_x))
        raise FormulaError(
            f"The gradient norm looks unbounded on this box: near {where} it reaches {best_v:.3g}, "
            f"while a {len(pts):,}-point grid finds at most {grid_v:.3g}. Narrow the ranges to exclude the singularity."
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
        rows.append({
            "attribute": a,
            "low": analysis.ranges[j][0],
            "high": analysis.ranges[j][1],
            "argmax": gs["argmax"][a],
            "global_sensitivity": gs["value"],
            "grid_max": gs["grid_value"],
            "partial_sensitivity_at_argmax": float(analysis.evaluate(analysis.partial_fns[j], x)[0]),
        })
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
            raise FormulaError(f"Individual {i + 1} ({row.strip()[:30]!r}) needs {d} values: {', '.join(analysis.attributes)}.")
        for j, v in enumerate(vals):
            try:
                x = float(v)
            except ValueError:
                raise FormulaError(f"Individual {i + 1}: {v.strip()[:20]!r} is not a number.") from None
            lo, hi = analysis.ranges[j]
            if not lo <= x <= hi:
                raise FormulaError(f"Individual {i + 1}: {analysis.attributes[j]} = {x:g} is outside its range [{lo:g}, {hi:g}].")
            out[i, j] = x
    return out


def rdp_loss(g, sigma: float, alpha: float):
    """Individual Renyi-DP of the Gaussian mechanism: alpha * g^2 / (2 sigma^2)."""
    if not sigma > 0 or not alpha > 1:
        raise ValueError(f"need sigma > 0 and alpha > 1, got sigma={sigma}, alpha={alpha}")
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
