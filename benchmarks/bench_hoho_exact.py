"""Benchmark: the HoHo page's exact attack (dpviz.papers.hoho.exact) at one (ε, λ), the route before
2026-11-29 (every distinct pair's pmf transformed back, one complex exponential per pair and
frequency, the ROC's false positives gathered pair by pair) against the present one (each class's
powers tabled once per count, the AUC's dot products between transforms, the false positives from
one weighted mean pmf), same run, same counts; the two routes' numbers are compared.

    python benchmarks/bench_hoho_exact.py      # the page's defaults: movie reviews, 10% targets, OME
"""

from __future__ import annotations

import statistics
import time

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


def attack_before(counts: exact.AttackCounts, lam: float, epsilon: float) -> dict:
    """exact_attack as it was (commit e5d9099): the baseline."""
    with one_numpy_blas_thread():
        p, q = exact.flip_probabilities(counts.mechanism, lam, epsilon, counts.r)
        agree = np.array([p, q, 1 - p, 1 - q])
        zeros = np.zeros_like(counts.target_ones)
        pos = np.stack([counts.target_ones, zeros, zeros, counts.positions - counts.target_ones], axis=-1)
        uniq, which = exact._unique_rows(counts.pair_counts)
        px = _pmfs_before(pos, agree, counts.positions)
        py = _pmfs_before(uniq, agree, counts.positions)[which]
    sx_gt = np.cumsum(px[:, ::-1], axis=1)[:, ::-1] - px
    auc = ((py * sx_gt[:, None, :]).sum(-1) + 0.5 * (py * px[:, None, :]).sum(-1)).mean(axis=1)
    tpr = np.cumsum(px[:, ::-1], axis=1)[:, ::-1]
    fpr = np.cumsum(py[:, :, ::-1], axis=2)[:, :, ::-1].mean(axis=1)
    return {"auc": np.clip(auc, 0, 1), "tpr": np.clip(tpr.mean(0), 0, 1), "fpr": np.clip(fpr.mean(0), 0, 1)}


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
    worst = 0.0
    for lam, eps in ((10.0, 1.0), (1.5, 0.3), (100.0, 0.01)):
        old, new = attack_before(counts, lam, eps), exact.exact_attack(counts, lam, eps)
        worst = max(worst, *(float(np.abs(old[k] - new[k]).max()) for k in ("auc", "tpr", "fpr")))
    before = _best(lambda: attack_before(counts, 10.0, 1.0))
    now = _best(lambda: exact.exact_attack(counts, 10.0, 1.0))
    auc_now = _best(lambda: exact.exact_auc(counts, 10.0, 1.0))
    print(f"exact attack, before : {before * 1e3:7.2f} ms (median of 30)")
    print(f"exact attack, now    : {now * 1e3:7.2f} ms  ({before / now:.1f}x)")
    print(f"AUC alone, now       : {auc_now * 1e3:7.2f} ms")
    print(f"largest difference of AUC, TPR, FPR between the routes at 3 settings: {worst:.1e}")


if __name__ == "__main__":
    main()
