"""ADePT's sensitivity error, measured (Habernal 2021, "When differential privacy meets
NLP: the devil is in the detail", EMNLP).

ADePT clips an encoder output z in R^n to L2 norm C, clip(z) = z * min(1, C/||z||_2),
and adds i.i.d. Laplace noise of scale b = Delta/epsilon with Delta = 2C (the claim,
Krishna et al. 2021, Thm 3.2). The L2 sensitivity of clip is 2C, but the Laplace
mechanism needs the L1 sensitivity, which is 2C*sqrt(n) (Habernal 2021, Thm 5.1),
attained at x = (C/sqrt(n)) (1, ..., 1) and x' = -x. So ADePT is epsilon*sqrt(n)-DP.
"""

from __future__ import annotations

import functools
import math
from typing import Any, Callable, Mapping, Sequence

import numpy as np
import pandas as pd

from dpviz import caches
from dpviz.errors import InputError
from dpviz.progress import Progress
from dpviz.stats import stream, wilson_interval

TIE_RTOL = 1e-9
"""Relative tolerance for "distance > 2C": float ties at exactly 2C are not violations."""


def _check_positive(name: str, value: float) -> None:
    if not np.isfinite(value) or value <= 0:
        raise InputError(f"{name} must be a finite number > 0, got {value}")


def _check_dim(n: int) -> None:
    if int(n) != n or n < 1:
        raise InputError(f"dimension n must be a whole number >= 1, got {n}")


# --- closed forms ---------------------------------------------------------------------


def sensitivity_claimed(clip: float) -> float:
    """ADePT's claimed sensitivity, 2C (Krishna et al. 2021, Thm 3.2)."""
    _check_positive("clip", clip)
    return 2.0 * clip


def sensitivity_l2(clip: float) -> float:
    """L2 sensitivity of L2 clipping: 2C, two antipodal points on the sphere."""
    _check_positive("clip", clip)
    return 2.0 * clip


def sensitivity_l1(dim, clip: float):
    """True L1 sensitivity of L2 clipping in R^n: 2C*sqrt(n) (Habernal 2021, Thm 5.1).

    Takes n (a number or an array) and C > 0; returns 2C*sqrt(n) in the same shape; raises
    InputError for n < 1 or C <= 0. At n = 1 it equals the claimed 2C; at n = 4 it is twice that:

    >>> float(sensitivity_l1(1, 10.0)), float(sensitivity_l1(4, 10.0))
    (20.0, 40.0)
    """
    _check_positive("clip", clip)
    n = np.asarray(dim, dtype=float)
    if np.any(n < 1):
        raise InputError(f"dimension n must be >= 1, got {dim}")
    return 2.0 * clip * np.sqrt(n)


def epsilon_actual(epsilon: float, dim):
    """The epsilon ADePT really gives: Laplace calibrated to 2C against an L1 sensitivity
    of 2C*sqrt(n) is (epsilon*sqrt(n))-DP (Habernal 2021, Sec. 5).

    >>> float(epsilon_actual(1.0, 64))   # ADePT's claimed ε = 1 at n = 64 is ε = 8
    8.0
    """
    _check_positive("epsilon", epsilon)
    return epsilon * np.sqrt(np.asarray(dim, dtype=float))


def worst_case_pair(dim: int, clip: float) -> tuple[np.ndarray, np.ndarray]:
    """x = (C/sqrt(n)) (1,...,1) and x' = -x: on the L2 sphere, L1 distance 2C*sqrt(n)."""
    _check_dim(dim)
    _check_positive("clip", clip)
    x = np.full(int(dim), clip / np.sqrt(dim))
    return x, -x


def clip_l2(x: np.ndarray, clip: float) -> np.ndarray:
    """clip(z) = z * min(1, C / ||z||_2) along the last axis (ADePT, Eq. 13 in Habernal 2021)."""
    return x * _clip_scale(np.linalg.norm(x, axis=-1, keepdims=True), clip)


def clip_l1(x: np.ndarray, clip: float) -> np.ndarray:
    """z * min(1, C / ||z||_1): the L1-clipping remedy (Habernal 2021, Sec. 7)."""
    return x * _clip_scale(np.abs(x).sum(axis=-1, keepdims=True), clip)


def _clip_scale(norm, clip: float):
    """min(1, C / norm), with 1 for a zero vector."""
    with np.errstate(divide="ignore", over="ignore"):
        return np.minimum(1.0, clip / np.maximum(norm, np.finfo(float).tiny))


# --- Figure 1: share of neighbouring pairs that break the 2C bound ---------------------

DISTRIBUTIONS = ("uniform", "normal", "normal_tight", "l1_control")
DISTRIBUTION_LABELS = {
    "uniform": "uniform U[-C, C]",
    "normal": "normal N(0, (0.1 C)^2)",
    "normal_tight": "normal N(0, (0.01 C)^2)",
    "l1_control": "control: normal, clipped by L1 norm",
}


def _draw(distribution: str, rng: np.random.Generator, shape, clip: float) -> np.ndarray:
    if distribution == "uniform":
        return rng.uniform(-clip, clip, size=shape)
    if distribution in ("normal", "l1_control"):
        return rng.normal(0.0, 0.1 * clip, size=shape)
    if distribution == "normal_tight":
        return rng.normal(0.0, 0.01 * clip, size=shape)
    raise InputError(f"distribution must be one of {DISTRIBUTIONS}, got {distribution!r}")


def _check_violation_args(dims: Sequence[int], pairs: int, clip: float, distributions) -> None:
    if len(dims) == 0:
        raise InputError("dims must hold at least one dimension")
    for n in dims:
        _check_dim(n)
    if int(pairs) != pairs or pairs < 1:
        raise InputError(f"pairs must be a whole number >= 1, got {pairs}")
    _check_positive("clip", clip)
    for d in distributions:
        if d not in DISTRIBUTIONS:
            raise InputError(f"distribution must be one of {DISTRIBUTIONS}, got {d!r}")


def _rate_table(rows: list[tuple[int, str, int]], pairs: int) -> pd.DataFrame:
    df = pd.DataFrame(rows, columns=["dim", "distribution", "violations"])
    low, high = wilson_interval(df["violations"].to_numpy(), pairs)
    df["violation_rate"] = df["violations"] / pairs
    df["ci_low"], df["ci_high"] = low, high
    df["pairs"] = pairs
    return df[["dim", "distribution", "violation_rate", "ci_low", "ci_high", "violations", "pairs"]]


def violation_rates(
    dims: Sequence[int],
    pairs: int = 10_000,
    clip: float = 10.0,
    distributions: Sequence[str] = DISTRIBUTIONS,
    seed: int = 0,
    progress: Progress | None = None,
    block: int = 4096,
) -> pd.DataFrame:
    """Share of neighbouring pairs with ||clip(x) - clip(x')||_1 > 2C (Habernal 2021, Fig. 1).

    For each distribution, ``pairs`` independent pairs of vectors with i.i.d. coordinates
    are drawn once in the largest dimension; the vector in dimension n is the prefix of
    its first n coordinates, which has exactly the distribution of a fresh n-dim draw.
    So every point is still an estimate from ``pairs`` independent pairs (the points of
    one curve share draws, which makes the curve smooth but not more certain: each
    Wilson interval holds for its own point).

    Per dimension, prefix sums give in O(1) per pair: the clipping scales a, b, the exact
    L2 distance, and bounds on the L1 distance d = ||a x - b y||_1:
        upper: d <= a ||x||_1 + b ||y||_1  and  d <= sqrt(n) ||a x - b y||_2,
        lower: d >= ||a x - b y||_2^2 / ||a x - b y||_inf >= L2^2 / (a max|x| + b max|y|),
    and the exact d = a ||x - y||_1 when a = b. Only pairs the bounds leave undecided
    get the O(n) exact sum. The counts equal a direct computation on the same draws.

    The ``l1_control`` clips normal pairs by L1 norm, so d <= 2C always: rate 0.
    Returns a tidy table: dim, distribution, violation_rate, ci_low, ci_high (95% Wilson),
    violations, pairs.
    """
    dims = sorted({int(n) for n in dims})
    _check_violation_args(dims, pairs, clip, distributions)
    top = dims[-1]
    threshold = 2.0 * clip * (1.0 + TIE_RTOL)
    counts = {(d, n): 0 for d in distributions for n in dims}
    blocks = [(s, min(pairs, s + block)) for s in range(0, pairs, block)]
    steps, done = len(distributions) * len(blocks), 0
    for d in distributions:
        rng = stream(seed, DISTRIBUTIONS.index(d))
        for start, stop in blocks:
            m = stop - start
            # Layout (dimension, pair): prefix sums and per-dimension rows are contiguous.
            x = _draw(d, rng, (top, m), clip)
            y = _draw(d, rng, (top, m), clip)
            _count_block(x, y, dims, clip, threshold, d == "l1_control", counts, d)
            done += 1
            if progress:
                progress(done / steps, f"{DISTRIBUTION_LABELS[d]}: {stop:,} of {pairs:,} pairs")
    rows = [(n, d, counts[(d, n)]) for d in distributions for n in dims]
    return _rate_table(rows, pairs)


def _count_block(x, y, dims, clip, threshold, l1_clip, counts, name) -> None:
    """Add this block's violation counts per dimension to ``counts[(name, n)]``.

    ``x`` and ``y`` have shape (dimension, pairs): column i is pair i."""
    m = x.shape[1]
    s1x, s1y, s2x, s2y, sxy, s1d, mx, my = np.zeros((8, m))
    tiny = np.finfo(float).tiny
    wanted = set(dims)
    for j in range(dims[-1]):
        # Running prefix sums over the first n = j + 1 coordinates (one row at a time).
        xj, yj = x[j], y[j]
        axj, ayj = np.abs(xj), np.abs(yj)
        s1x += axj
        s1y += ayj
        s2x += xj * xj
        s2y += yj * yj
        sxy += xj * yj
        s1d += np.abs(xj - yj)
        np.maximum(mx, axj, out=mx)
        np.maximum(my, ayj, out=my)
        n = j + 1
        if n not in wanted:
            continue
        if l1_clip:
            a = np.minimum(1.0, clip / np.maximum(s1x, tiny))
            b = np.minimum(1.0, clip / np.maximum(s1y, tiny))
        else:
            a = np.minimum(1.0, clip / np.maximum(np.sqrt(s2x), tiny))
            b = np.minimum(1.0, clip / np.maximum(np.sqrt(s2y), tiny))
        l2sq = np.maximum(a * a * s2x + b * b * s2y - 2 * a * b * sxy, 0.0)
        upper = np.minimum(a * s1x + b * s1y, np.sqrt(n * l2sq))
        lower = l2sq / np.maximum(a * mx + b * my, tiny)
        same = a == b
        violated = (lower > threshold) | (same & (a * s1d > threshold))
        undecided = np.flatnonzero(~violated & ~same & (upper > threshold))
        if undecided.size:
            xs, ys = x[:n, undecided], y[:n, undecided]
            d = np.abs(a[undecided] * xs - b[undecided] * ys).sum(axis=0)
            violated[undecided] = d > threshold
        counts[(name, n)] += int(violated.sum())


def violation_rates_loop(
    dims: Sequence[int],
    pairs: int = 10_000,
    clip: float = 10.0,
    distributions: Sequence[str] = DISTRIBUTIONS,
    seed: int = 0,
) -> pd.DataFrame:
    """The straightforward route, as the paper's reference script does it: for each
    dimension, fresh pairs, clip each vector, sum |clip(x) - clip(x')| over coordinates.
    Same output table as :func:`violation_rates`; the baseline for tests and benchmarks."""
    dims = sorted({int(n) for n in dims})
    _check_violation_args(dims, pairs, clip, distributions)
    rows = []
    for d in distributions:
        rng = stream(seed, DISTRIBUTIONS.index(d), 1)
        clipper = clip_l1 if d == "l1_control" else clip_l2
        for n in dims:
            x = clipper(_draw(d, rng, (pairs, n), clip), clip)
            y = clipper(_draw(d, rng, (pairs, n), clip), clip)
            dist = np.abs(x - y).sum(axis=1)
            rows.append((n, d, int((dist > 2 * clip * (1 + TIE_RTOL)).sum())))
    return _rate_table(rows, pairs)


# --- the fixes: privacy and utility ----------------------------------------------------


def gaussian_delta(sigma: float, sensitivity: float, epsilon: float) -> float:
    """delta(epsilon) of the Gaussian mechanism N(0, sigma^2 I) with L2 sensitivity Delta:
    Phi(Delta/(2 sigma) - epsilon sigma/Delta) - e^epsilon Phi(-Delta/(2 sigma) - epsilon sigma/Delta)
    (Balle & Wang 2018, "Improving the Gaussian mechanism", Thm 8; exact, any epsilon > 0).
    """
    from scipy.special import log_ndtr, ndtr

    _check_positive("sigma", sigma)
    a, e = sensitivity / (2 * sigma), epsilon * sigma / sensitivity
    # e^eps * Phi(.) in log space: e^eps alone overflows for eps > ~709.
    return float(ndtr(a - e) - np.exp(epsilon + log_ndtr(-a - e)))


@functools.lru_cache(maxsize=4096)
def gaussian_sigma(sensitivity: float, epsilon: float, delta: float) -> float:
    """The smallest sigma for which the Gaussian mechanism is (epsilon, delta)-DP
    (analytic Gaussian mechanism, Balle & Wang 2018, Alg. 1; solved by root finding). Kept per
    (sensitivity, epsilon, delta): the fixes' chart asks for the same sigma at every n of a frame."""
    _check_positive("sensitivity", sensitivity)
    _check_positive("epsilon", epsilon)
    if not 0 < delta < 1:
        raise InputError(f"delta must be in (0, 1), got {delta}")
    f = lambda s: gaussian_delta(s, sensitivity, epsilon) - delta  # noqa: E731
    lo, hi = sensitivity * 1e-6, sensitivity
    while f(hi) > 0:
        hi *= 2
    from scipy.optimize import brentq

    return float(brentq(f, lo, hi, xtol=1e-14 * sensitivity, rtol=1e-12))


FIXES = ("adept", "l1_clip", "laplace_corrected", "gaussian")
FIX_LABELS = {
    "adept": "ADePT as published (L2 clip, Laplace 2C/ε)",
    "l1_clip": "Fix 1: L1 clip, Laplace 2C/ε",
    "laplace_corrected": "Fix 2: L2 clip, Laplace 2C√n/ε",
    "gaussian": "Fix 3: L2 clip, Gaussian on Δ₂ = 2C",
}


def fix_noise(mechanism: str, dim: int, clip: float, epsilon: float, delta: float) -> tuple[str, float, float, float]:
    """(noise kind, scale, epsilon really guaranteed, delta) for one mechanism.

    adept: Laplace b = 2C/eps, really (eps*sqrt(n))-DP; l1_clip: Laplace b = 2C/eps on
    L1-clipped vectors, eps-DP; laplace_corrected: Laplace b = 2C sqrt(n)/eps, eps-DP;
    gaussian: sigma from the analytic Gaussian mechanism with Delta_2 = 2C, (eps, delta)-DP.
    """
    if mechanism == "adept":
        return "laplace", 2 * clip / epsilon, float(epsilon_actual(epsilon, dim)), 0.0
    if mechanism == "l1_clip":
        return "laplace", 2 * clip / epsilon, epsilon, 0.0
    if mechanism == "laplace_corrected":
        return "laplace", 2 * clip * np.sqrt(dim) / epsilon, epsilon, 0.0
    if mechanism == "gaussian":
        return "gaussian", gaussian_sigma(2 * clip, epsilon, delta), epsilon, delta
    raise InputError(f"mechanism must be one of {FIXES}, got {mechanism!r}")


def noise_rms(kind: str, scale: float, dim: int) -> float:
    """sqrt(E||noise||_2^2): Laplace(b)^n gives b sqrt(2n); N(0, sigma^2)^n gives sigma sqrt(n)."""
    return float(scale * np.sqrt(2 * dim) if kind == "laplace" else scale * np.sqrt(dim))


FIXES_BLOCK = 16
"""Coordinates per block of the fixes' draws (:func:`fixes_draws`)."""


def _fixes_block(seed: int, draws: int, block: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Coordinates ``block·16 … block·16 + 15`` of every draw: standard normal (the signal's
    direction), standard Laplace and standard normal (the noises), (draws, 16) each, from the
    block's own stream; kept per process (``adept.blocks``), read-only."""

    def make():
        rng = stream(seed, 7, 0, block)
        parts = (
            rng.standard_normal((draws, FIXES_BLOCK)),
            rng.laplace(0.0, 1.0, size=(draws, FIXES_BLOCK)),
            rng.standard_normal((draws, FIXES_BLOCK)),
        )
        for a in parts:
            a.setflags(write=False)
        return parts

    return caches.memo("adept.blocks").get((int(seed), int(draws), int(block)), make)


SUMS = ("u.u", "|u|", "lap.u", "gau.u", "lap.lap", "gau.gau")
"""The per-draw sums over the first n coordinates that :func:`fixes_draws` needs, with u the
signal's direction (standard normal), lap and gau the standard noises."""


def _block_terms(seed: int, draws: int, block: int, upto: int = FIXES_BLOCK) -> np.ndarray:
    """The terms of :data:`SUMS` for the first ``upto`` coordinates of one block, (6, draws, upto)."""
    u, lap, gau = (x[:, :upto] for x in _fixes_block(seed, draws, block))
    return np.stack([u * u, np.abs(u), lap * u, gau * u, lap * lap, gau * gau])


def _added_in_order(terms: np.ndarray) -> np.ndarray:
    """The sum of ``terms`` along their last axis, added left to right (the last of their
    ``np.cumsum``, to the last bit), a column at a time: the cumulative sums wrote every partial
    sum out, a tenth of the fixes' frames along n. (NumPy's own ``sum`` adds in pairs, and its
    last bits differ.)"""
    total = terms[..., 0].copy()
    for i in range(1, terms.shape[-1]):
        total += terms[..., i]
    return total


def _sums_before(seed: int, draws: int, block: int) -> np.ndarray:
    """:data:`SUMS` over the coordinates before ``block`` (its first 16·block), (6, draws), added
    block after block in order (each block's total left to right), so that the same n always
    gives the same bits, whatever was computed before; kept per process (``adept.blocks``)."""
    if block == 0:
        return np.zeros((len(SUMS), int(draws)))

    def make():
        before = _sums_before(seed, draws, block - 1) + _added_in_order(_block_terms(seed, draws, block - 1))
        before.setflags(write=False)
        return before

    return caches.memo("adept.blocks").get(("sums", int(seed), int(draws), int(block)), make)


def _sums(dim: int, draws: int, seed: int) -> np.ndarray:
    """:data:`SUMS` over each draw's first n coordinates, (6, draws): the whole blocks' running
    total (:func:`_sums_before`) plus the next block's first n mod 16 terms, added left to right."""
    _check_dim(dim)
    whole, rest = divmod(int(dim), FIXES_BLOCK)
    before = _sums_before(seed, draws, whole)
    if rest:
        before = before + _added_in_order(_block_terms(seed, draws, whole, rest))
    return before


def _l1_clip(u_u: np.ndarray, u_1: np.ndarray, clip: float) -> tuple[np.ndarray, np.ndarray, float]:
    """‖u‖₂, the L1 clip's factor t = min(1, C/‖v‖₁) (‖v‖₁ = C‖u‖₁/‖u‖₂) and the clip's mean
    squared bias C²·E(1 − t)², from the sums u·u and Σ|uᵢ|."""
    norm = np.sqrt(u_u)
    t = _clip_scale(clip * u_1 / norm, clip)
    return norm, t, float(np.mean((1.0 - t) ** 2)) * float(clip) ** 2


def fixes_draws(dim: int, clip: float, draws: int, seed: int) -> dict[str, np.ndarray | float]:
    """The epsilon-free part of :func:`fixes_utility` for one dimension: a signal v on the sphere
    of radius C in uniformly random directions, its L1-clipped version v1, standard Laplace and
    Gaussian noise (common random numbers: every epsilon and mechanism reuses them), reduced to
    the per-draw dot products the cosine needs. With s the signal and e the standard noise,
    M(v) = s + k e for a noise scale k, so
        cos(v, M(v)) = (s.v + k e.v) / (C sqrt(|s|^2 + 2k s.e + k^2 |e|^2)),
    exact for every scale k from these five numbers per draw.

    **From sums over coordinates.** v = C·u/‖u‖₂ for a standard normal u, and the L1 clip scales
    it by t = min(1, C/‖v‖₁) = min(1, ‖u‖₂/‖u‖₁): v1 = t·v. So every dot product is one of six
    per-draw sums over the first n coordinates (:data:`SUMS`): v.v = C², v1.v = t·C², v1.v1 = t²C²,
    e.v = C·(e.u)/‖u‖₂, e.v1 = t·e.v, e.e itself, and the clip's mean squared bias
    E‖v1 − v‖² = C²·E(1 − t)².

    The draws' coordinates come in blocks of :data:`FIXES_BLOCK`, each from its own stream, and n
    takes the first n coordinates: the sums at n are the running sums of the blocks before it
    plus part of the next (:func:`_sums`), so the frames along n (and the frontier's, and the
    sweep over n) draw each block once and add it once, instead of writing out every draw's n
    coordinates and their products at every n (a third of the fixes' frames along n)."""
    u_u, u_1, lap_u, gau_u, lap_lap, gau_gau = _sums(dim, draws, seed)
    norm, t, bias_sq = _l1_clip(u_u, u_1, clip)
    c_sq = float(clip) ** 2
    out: dict[str, np.ndarray | float] = {"bias_sq": bias_sq}
    out["v.v"] = np.full(t.shape, c_sq)
    out["v1.v"] = t * c_sq
    out["v1.v1"] = t * t * c_sq
    for ename, e_u, e_e in (("lap", lap_u, lap_lap), ("gau", gau_u, gau_gau)):
        e_v = clip * e_u / norm
        out[f"v.{ename}"] = out[f"{ename}.v"] = e_v
        out[f"v1.{ename}"] = t * e_v
        out[f"{ename}.{ename}"] = e_e
    return out


def fixes_bias_sq(dim: int, clip: float, draws: int, seed: int) -> float:
    """``fixes_draws(...)["bias_sq"]`` alone (the same number), without the noises' dot products:
    all that the RMS error needs (:func:`fix_rms`): C²·E(1 − t)², t = min(1, ‖u‖₂/‖u‖₁). (The
    noises' sums come along: :func:`_sums` adds all six in one pass over a block.)"""
    u_u, u_1 = _sums(dim, draws, seed)[:2]
    return _l1_clip(u_u, u_1, clip)[2]


FIXES_COLUMNS = [
    "mechanism",
    "dim",
    "epsilon",
    "epsilon_actual",
    "delta",
    "noise_scale",
    "rms_error",
    "rms_error_relative",
    "cosine",
    "cosine_se",
]


def fixes_evaluate(
    draws_by_dim: Mapping[int, Mapping[str, Any]],
    dims: Sequence[int],
    epsilons: Sequence[float],
    clip: float,
    delta: float,
    mechanisms: Sequence[str] = FIXES,
    rows: Callable[[Mapping[str, Any], int, Sequence[tuple[float, str]], float, float], list[tuple]] | None = None,
) -> pd.DataFrame:
    """Privacy and utility at every (n, epsilon) from :func:`fixes_draws` of each n (no sampling).
    ``rows``: what makes an n's rows for its (ε, mechanism) cases (:func:`fix_rows`, or a caller's
    memo of it)."""
    rows = rows or fix_rows
    out: list[tuple] = []
    for n in dims:
        cases = [(float(eps), mech) for eps in epsilons for mech in mechanisms]
        out += rows(draws_by_dim[int(n)], int(n), cases, clip, delta)
    return pd.DataFrame(out, columns=FIXES_COLUMNS)


def fix_rms(d: Mapping[str, Any], n: int, eps: float, clip: float, delta: float, mech: str) -> tuple:
    """(noise kind, scale, ε really guaranteed, δ, RMS error) of one mechanism: :func:`fix_row`'s
    closed-form part (the L1 clip's bias from :func:`fixes_draws` of n), without the cosine's draws."""
    kind, scale, eps_true, dlt = fix_noise(mech, n, clip, eps, delta)
    rms = np.sqrt((d["bias_sq"] if mech == "l1_clip" else 0.0) + noise_rms(kind, scale, n) ** 2)
    return kind, scale, eps_true, dlt, rms


def fix_cosine(d: Mapping[str, Any], kind: str, scale: float, clip: float, mech: str) -> tuple[float, float]:
    """The mean cosine of :func:`fix_row` over the draws of :func:`fixes_draws`, and its standard error."""
    means, ses = fix_cosines(d, kind, [scale], clip, mech)
    return float(means[0]), float(ses[0])


def fix_cosines(
    d: Mapping[str, Any], kind: str, scales: Sequence[float], clip: float, mech: str
) -> tuple[np.ndarray, np.ndarray]:
    """:func:`fix_cosine` at each noise scale k of ``scales`` (one mechanism, one kind of noise),
    a row of draws per scale: with s the signal (v, or v1 for the L1 clip) and e the standard noise,
    cos = (s·v + k e·v) / (C √max(s·s + 2k s·e + k² e·e, 0)), then each row's mean and standard
    error (its sample standard deviation over √draws). Each row is made by the same operations in
    the same order whatever the other rows are, and reduced on its own (a row of a C-ordered
    array, as NumPy reduces a lone one), so a scale's numbers do not depend on its companions
    (tested): the frames of the fixes along n make an n's 56 cosines in three passes instead of 56."""
    s = "v1" if mech == "l1_clip" else "v"
    e = "lap" if kind == "laplace" else "gau"
    k = np.array([float(x) for x in scales])[:, None]
    square = np.array([x**2 for x in scales], dtype=float)[:, None]  # (each scale's own power, as a row alone)
    num = d[f"{s}.v"] + k * d[f"{e}.v"]
    norm_sq = np.maximum(d[f"{s}.{s}"] + (2 * k) * d[f"{s}.{e}"] + square * d[f"{e}.{e}"], 0.0)
    cos = num / (np.sqrt(norm_sq) * clip)
    count = cos.shape[1]
    ses = cos.std(axis=1, ddof=1) / np.sqrt(count) if count > 1 else np.full(len(k), np.nan)
    return cos.mean(axis=1), ses


def fix_row(d: Mapping[str, Any], n: int, eps: float, clip: float, delta: float, mech: str) -> tuple:
    """One row of :func:`fixes_evaluate` (its :data:`FIXES_COLUMNS`), from :func:`fixes_draws` of n."""
    return fix_rows(d, n, [(eps, mech)], clip, delta)[0]


def fix_rows(
    d: Mapping[str, Any], n: int, cases: Sequence[tuple[float, str]], clip: float, delta: float
) -> list[tuple]:
    """The rows of :func:`fixes_evaluate` at one n for each (ε, mechanism) of ``cases``: the closed
    forms per case (:func:`fix_rms`), the cosines of every case with the same signal and noise
    together (:func:`fix_cosines`)."""
    parts = [fix_rms(d, n, eps, clip, delta, mech) for eps, mech in cases]
    together: dict[tuple[str, bool], list[int]] = {}
    for i, ((_, mech), part) in enumerate(zip(cases, parts)):
        together.setdefault((part[0], mech == "l1_clip"), []).append(i)
    cosines: list[tuple[float, float]] = [(math.nan, math.nan)] * len(cases)
    for where in together.values():
        means, ses = fix_cosines(d, parts[where[0]][0], [parts[i][1] for i in where], clip, cases[where[0]][1])
        for i, mean, se in zip(where, means.tolist(), ses.tolist()):
            cosines[i] = (mean, se)
    return [  # (Python's numbers: what a memo of rows measures fastest)
        (mech, n, eps, float(eps_true), float(dlt), float(scale), float(rms), float(rms / clip), cosine, se)
        for (eps, mech), (_, scale, eps_true, dlt, rms), (cosine, se) in zip(cases, parts, cosines)
    ]


def fixes_utility(
    dims: Sequence[int],
    epsilons: Sequence[float],
    clip: float,
    delta: float,
    draws: int,
    seed: int,
    mechanisms: Sequence[str] = FIXES,
    progress: Progress | None = None,
) -> pd.DataFrame:
    """Privacy and utility of ADePT and its fixes for every (n, epsilon).

    Signal model: the input after L2 clipping, v, lies on the sphere of radius C in a
    uniformly random direction (a normalised standard normal vector): the regime where
    clipping binds. Utility against v:
    - rms_error: sqrt(E||M(v) - v||^2) = sqrt(E||clip_l1(v) - v||^2 + noise_rms^2)
      (closed-form noise part; the L1-clipping bias, 0 for the others, by simulation);
    - cosine: E cos(v, M(v)), by simulation with ``draws`` draws (seeded; one set of draws per
      n shared by every epsilon and mechanism, see :func:`fixes_draws`).
    Columns: FIXES_COLUMNS.
    """
    _check_positive("clip", clip)
    prepared = {}
    for k, n in enumerate(dims):
        prepared[int(n)] = fixes_draws(int(n), clip, draws, seed)
        if progress:
            progress((k + 1) / len(dims), f"n = {n}")
    return fixes_evaluate(prepared, dims, epsilons, clip, delta, mechanisms)


# --- geometry for intuition ---------------------------------------------------------------


def geometry(dim: int, clip: float, points: int = 120) -> pd.DataFrame:
    """Shapes for the 2-D/3-D picture: the L2 ball's boundary, the L1 ball's boundary and
    the cube [-C/sqrt(n), C/sqrt(n)]^n (whose corners touch the L2 sphere), and the
    worst-case pair. Columns: shape, part, x, y, z (z is NaN in 2-D)."""
    if dim not in (2, 3):
        raise InputError(f"geometry is drawn for dim 2 or 3, got {dim}")
    _check_positive("clip", clip)
    c, h = clip, clip / np.sqrt(dim)
    rows: list[tuple] = []
    if dim == 2:
        t = np.linspace(0, 2 * np.pi, points)
        rows += [("l2_ball", 0, c * np.cos(a), c * np.sin(a), np.nan) for a in t]
        for px, py in [(c, 0), (0, c), (-c, 0), (0, -c), (c, 0)]:
            rows.append(("l1_ball", 0, px, py, np.nan))
        for px, py in [(h, h), (-h, h), (-h, -h), (h, -h), (h, h)]:
            rows.append(("cube", 0, px, py, np.nan))
        rows += [("pair", 0, h, h, np.nan), ("pair", 0, -h, -h, np.nan)]
    else:
        # Sphere as latitude rings (part = ring index), octahedron and cube as edge paths.
        for k, lat in enumerate(np.linspace(-np.pi / 2, np.pi / 2, 13)[1:-1]):
            t = np.linspace(0, 2 * np.pi, points // 2)
            rows += [
                ("l2_ball", k, c * np.cos(lat) * np.cos(a), c * np.cos(lat) * np.sin(a), c * np.sin(lat)) for a in t
            ]
        for k, lon in enumerate(np.linspace(0, np.pi, 7)[:-1]):
            t = np.linspace(0, 2 * np.pi, points // 2)
            rows += [
                ("l2_ball", 100 + k, c * np.cos(a) * np.cos(lon), c * np.cos(a) * np.sin(lon), c * np.sin(a)) for a in t
            ]
        ax = [(c, 0, 0), (-c, 0, 0), (0, c, 0), (0, -c, 0), (0, 0, c), (0, 0, -c)]
        k = 0
        for i in range(6):
            for j in range(i + 1, 6):
                if np.dot(ax[i], ax[j]) == 0:
                    rows += [("l1_ball", k, *ax[i]), ("l1_ball", k, *ax[j])]
                    k += 1
        corners = [(sx * h, sy * h, sz * h) for sx in (-1, 1) for sy in (-1, 1) for sz in (-1, 1)]
        k = 0
        for i in range(8):
            for j in range(i + 1, 8):
                if np.isclose(np.sum(np.abs(np.subtract(corners[i], corners[j]))), 2 * h):
                    rows += [("cube", k, *corners[i]), ("cube", k, *corners[j])]
                    k += 1
        rows += [("pair", 0, h, h, h), ("pair", 0, -h, -h, -h)]
    return pd.DataFrame(rows, columns=["shape", "part", "x", "y", "z"])
