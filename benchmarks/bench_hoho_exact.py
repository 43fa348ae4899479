"""Benchmark: the HoHo page's exact attack (dpviz.papers.hoho.exact) at one (ε, λ), in the same run
on the same counts, with the routes' numbers compared:

- *before*, the route before 2026-11-29 (every distinct pair's pmf transformed back, one complex
  exponential per pair and frequency, the ROC's false positives gathered pair by pair);
- *NumPy*, the route of 2026-11-29 (each class's powers tabled once per count, the distinct
  pairs' transforms as products of gathered table rows, the AUC of every distinct pair against
  every target as one (U, T) product, the false positives from one weighted mean pmf);
- *compiled, 2026-11-29* (commit 0f0a469): each class's powers tabled by NumPy's exponentials
  (the levels found once per corpus), each distinct pair's transform a compiled product of its four
  table rows, summed per target, the AUC from each target's sum alone;
- *now* (2026-11-30): the powers by repeated products, each pair as two halves, a target's pairs
  in runs of one first half (:mod:`dpviz.papers.hoho.kernels`), the AUC's weights transformed in
  closed form from the target's own transform (no FFT for the AUC alone).

    python benchmarks/bench_hoho_exact.py      # the page's defaults: movie reviews, 10% targets, OME
"""

from __future__ import annotations

import statistics
import time

import numba
import numpy as np

from dpviz.papers.hoho import exact
from dpviz.papers.hoho.pipeline import attack_counts
from dpviz.processes import one_numpy_blas_thread


def _pmfs_before(counts: np.ndarray, agree: np.ndarray, positions: int) -> np.ndarray:
    k = positions + 1
    half = k // 2 + 1
    z = np.exp(-2j * np.pi * np.arange(half) / k)
    factor = (1 - agree)[:, None] + agree[:, None] * z[None, :]
    logf = np.log(np.where(np.abs(factor) < 1e-300, 1e-300, factor))
    c = np.asarray(counts, dtype=np.float64)
    modulus = np.exp(c @ logf.real)
    angle = c @ logf.imag
    values = modulus * np.cos(angle) + 1j * (modulus * np.sin(angle))
    return np.clip(np.fft.irfft(values, n=k, axis=-1), 0.0, None)


def _setting(counts: exact.AttackCounts, lam: float, epsilon: float) -> tuple[np.ndarray, np.ndarray]:
    """The four classes' agreement probabilities and the targets' own class counts (both routes)."""
    p, q = exact.flip_probabilities(counts.mechanism, lam, epsilon, counts.r)
    zeros = np.zeros_like(counts.target_ones)
    pos = np.stack([counts.target_ones, zeros, zeros, counts.positions - counts.target_ones], axis=-1)
    return np.array([p, q, 1 - p, 1 - q]), pos


def attack_before(counts: exact.AttackCounts, lam: float, epsilon: float) -> dict:
    """exact_attack as it was (commit e5d9099): the baseline."""
    with one_numpy_blas_thread():
        agree, pos = _setting(counts, lam, epsilon)
        uniq, which = exact._unique_rows(counts.pair_counts)
        px = _pmfs_before(pos, agree, counts.positions)
        py = _pmfs_before(uniq, agree, counts.positions)[which]
    sx_gt = np.cumsum(px[:, ::-1], axis=1)[:, ::-1] - px
    auc = ((py * sx_gt[:, None, :]).sum(-1) + 0.5 * (py * px[:, None, :]).sum(-1)).mean(axis=1)
    tpr = np.cumsum(px[:, ::-1], axis=1)[:, ::-1]
    fpr = np.cumsum(py[:, :, ::-1], axis=2)[:, :, ::-1].mean(axis=1)
    return {"auc": np.clip(auc, 0, 1), "tpr": np.clip(tpr.mean(0), 0, 1), "fpr": np.clip(fpr.mean(0), 0, 1)}


def attack_numpy(counts: exact.AttackCounts, lam: float, epsilon: float) -> dict:
    """exact_attack as of 2026-11-29 (commit 1426c83): the NumPy route, the second baseline."""
    with one_numpy_blas_thread():
        agree, pos = _setting(counts, lam, epsilon)
        uniq, which = counts.distinct_pairs()
        px = exact.score_pmfs(pos, agree, counts.positions)
        tables, levels = exact.class_tables(uniq, agree, counts.positions)
        vu = tables[0][levels[:, 0]]
        for c in range(1, 4):
            vu *= tables[c][levels[:, c]]
        k = px.shape[1]
        weight = np.cumsum(px[:, ::-1], axis=1)[:, ::-1] - 0.5 * px
        wt = np.fft.rfft(weight, axis=1) * exact._dot_weights(k)
        per = vu.real @ wt.real.T + vu.imag @ wt.imag.T  # (U, T)
        auc = np.clip(per[which, np.arange(which.shape[0])[:, None]].mean(axis=1), 0.0, 1.0)
        share = np.bincount(which.ravel(), minlength=len(vu)) / which.size
        mean_y = np.fft.irfft(share @ vu, n=k)
    tpr = np.cumsum(px[:, ::-1], axis=1)[:, ::-1]
    fpr = np.cumsum(mean_y[::-1])[::-1]
    return {"auc": auc, "tpr": np.clip(tpr.mean(0), 0.0, 1.0), "fpr": np.clip(fpr, 0.0, 1.0)}


@numba.njit(nogil=True)
def _target_sums_before(t0, t1, t2, t3, levels, which):
    """The compiled pass of 2026-11-29: each distinct pair's transform as the product of its four
    table rows, then their sums per target."""
    n_pairs, half = levels.shape[0], t0.shape[1]
    v = np.empty((n_pairs, half), dtype=np.complex128)
    for u in range(n_pairs):
        a, b, c, d = levels[u, 0], levels[u, 1], levels[u, 2], levels[u, 3]
        for k in range(half):
            v[u, k] = t0[a, k] * t1[b, k] * t2[c, k] * t3[d, k]
    n_targets, per = which.shape
    s = np.zeros((n_targets, half), dtype=np.complex128)
    for t in range(n_targets):
        for j in range(per):
            u = which[t, j]
            for k in range(half):
                s[t, k] += v[u, k]
    return s


def _tables_before(found: list, agree: np.ndarray, positions: int) -> list:
    """The class tables of 2026-11-29 (exp(n log f_c) by NumPy) at levels found once per corpus."""
    k = positions + 1
    z = np.exp(-2j * np.pi * np.arange(k // 2 + 1) / k)
    logf = np.log((1 - agree)[:, None] + agree[:, None] * z[None, :])
    return [np.exp(np.asarray(f, dtype=float)[:, None] * logf[c]) for c, f in enumerate(found)]


def auc_compiled_before(counts: exact.AttackCounts, state: tuple, lam: float, epsilon: float) -> np.ndarray:
    """exact_auc as of 2026-11-29 (commit 0f0a469), on levels found once (``state``)."""
    found, levels, which, pos = state
    with one_numpy_blas_thread():
        agree, _ = _setting(counts, lam, epsilon)
        tables = _tables_before(found, agree, counts.positions)
        sums = _target_sums_before(*tables, levels, which)
        px = exact.score_pmfs(pos, agree, counts.positions)
        k = px.shape[1]  # the AUC from the own pmf's weights, transformed (the route of 2026-11-29)
        weight = np.cumsum(px[:, ::-1], axis=1)[:, ::-1] - 0.5 * px
        wt = np.fft.rfft(weight, axis=1) * exact._dot_weights(k)
        per = (sums.real * wt.real + sums.imag * wt.imag).sum(axis=1)
        return np.clip(per / counts.pair_counts.shape[1], 0.0, 1.0)


def _state_before(counts: exact.AttackCounts) -> tuple:
    uniq, which = counts.distinct_pairs()
    found, levels = [], np.empty(uniq.shape, dtype=np.int64)
    for c in range(4):
        values, levels[:, c] = np.unique(uniq[:, c], return_inverse=True)
        found.append(values)
    _, pos = _setting(counts, 1.0, 1.0)
    return found, levels, np.ascontiguousarray(which, dtype=np.int64), pos


def _best(f, repeats: int = 30) -> float:
    times = []
    for _ in range(repeats):
        t = time.perf_counter()
        f()
        times.append(time.perf_counter() - t)
    return statistics.median(times)


def main() -> None:
    counts = attack_counts("movie-reviews", "ome", 0.1, 0)
    uniq, _ = counts.distinct_pairs()
    print(
        f"movie reviews, OME, {len(counts.targets)} targets x {counts.pair_counts.shape[1]} other sentences, "
        f"{len(uniq)} distinct count vectors, {counts.positions + 1} scores"
    )
    worst = {"before": 0.0, "NumPy": 0.0}
    for lam, eps in ((10.0, 1.0), (1.5, 0.3), (100.0, 0.01)):
        new = exact.exact_attack(counts, lam, eps)
        for name, route in (("before", attack_before), ("NumPy", attack_numpy)):
            old = route(counts, lam, eps)
            worst[name] = max(worst[name], *(float(np.abs(old[k] - new[k]).max()) for k in ("auc", "tpr", "fpr")))
    state = _state_before(counts)
    worst["compiled, 2026-11-29"] = max(
        float(np.abs(auc_compiled_before(counts, state, lam, eps) - exact.exact_auc(counts, lam, eps)).max())
        for lam, eps in ((10.0, 1.0), (1.5, 0.3), (100.0, 0.01))
    )  # (and the passes compiled, or loaded from numba's cache, before any is timed)
    exact.exact_attack(counts, 10.0, 1.0)
    before = _best(lambda: attack_before(counts, 10.0, 1.0))
    numpy_route = _best(lambda: attack_numpy(counts, 10.0, 1.0))
    now = _best(lambda: exact.exact_attack(counts, 10.0, 1.0))
    auc_before = _best(lambda: auc_compiled_before(counts, state, 10.0, 1.0), 200)
    auc_now = _best(lambda: exact.exact_auc(counts, 10.0, 1.0), 200)
    print(f"exact attack, before : {before * 1e3:7.2f} ms (median of 30)")
    print(f"exact attack, NumPy  : {numpy_route * 1e3:7.2f} ms  ({before / numpy_route:.1f}x)")
    print(
        f"exact attack, now    : {now * 1e3:7.2f} ms  ({before / now:.1f}x; {numpy_route / now:.2f}x the NumPy route)"
    )
    print(f"AUC alone, compiled 2026-11-29: {auc_before * 1e3:7.2f} ms (median of 200)")
    print(f"AUC alone, now                : {auc_now * 1e3:7.2f} ms ({auc_before / auc_now:.2f}x)")
    for name, w in worst.items():
        print(f"largest difference of the AUC (and TPR, FPR) from the {name} route at 3 settings: {w:.1e}")
    _bounds()
    _curve(counts)


def _curve(counts) -> None:
    """A frontier curve's 26 ε at one λ (its frames along λ compute one at each λ): one ε at a time
    by the transforms' compiled pass and then the AUC's (``exact_attack``'s route; before 2026-12-03
    the frontier's), against every ε in one pass that also takes the AUC's dot products
    (``exact_auc_many``)."""
    from dpviz.frontier import CURVE_POINTS

    eps = np.geomspace(0.01, 10.0, CURVE_POINTS + 1)

    def one_by_one():
        return np.array([exact._auc_per_target(counts, *exact._score_distributions(counts, 3.0, e)) for e in eps])

    diff = float(np.max(np.abs(one_by_one() - exact.exact_auc_many(counts, 3.0, eps))))
    before = _best(one_by_one)
    now = _best(lambda: exact.exact_auc_many(counts, 3.0, eps))
    print(
        f"frontier curve, {len(eps)} ε at λ = 3: one by one {before * 1e3:.2f} ms, at once {now * 1e3:.2f} ms"
        f" ({before / now:.2f}x); largest difference of an AUC {diff:.1e}"
    )


def _bounds() -> None:
    """The bounds chart's exact worst-case loss at its 32 λ of one frame (the default range, r = 50):
    one setting at a time, as before, against every λ in one product (ome.exact_worst_cases)."""
    from dpviz.papers.hoho import ome
    from dpviz.papers.hoho.figures import LAMBDA_GRID

    patterns = ome.loss_patterns(np.arange(-320, 321) / 32)
    lams = np.r_[LAMBDA_GRID, 12.0]

    def one_by_one():
        return np.array([ome.exact_worst_case(lam, 1.0, None, 50, patterns=patterns) for lam in lams])

    diff = float(np.max(np.abs(one_by_one() - ome.exact_worst_cases(lams, 1.0, patterns, 50))))
    before = _best(one_by_one)
    now = _best(lambda: ome.exact_worst_cases(lams, 1.0, patterns, 50))
    print(
        f"bounds chart, {len(lams)} λ of a frame ({len(patterns)} loss patterns): one by one {before * 1e3:.2f} ms, "
        f"at once {now * 1e3:.2f} ms ({before / now:.1f}x); largest difference {diff:.1e}"
    )


if __name__ == "__main__":
    main()
