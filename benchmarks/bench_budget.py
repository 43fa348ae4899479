"""Benchmark: the privacy-budget page's computations on one core, each against a baseline in the
same run (CPU-seconds, ratio):

- the optimal composition's ε of k pure releases: the exact segment formula, found by a compiled
  pass from the top of the binomial's window down to the crossing
  (:func:`dpviz.budget.releases.pure_composition_epsilon`, numba, loaded before the timing) against
  Brent's method on δ(ε) over the binomial sum (the first version);
- the Gaussian's PLD ε: its closed form (μ-GDP) against the discretized PLD;
- Laplace's and DP-SGD's PLD: built, composed and read by :mod:`dpviz.budget.pld` against
  ``dp-accounting``'s own route (its objects, its FFT, its readings one loss at a time);
- each of the page's charts at its defaults, and targets solved (``dpviz.calibrate``: the largest
  k, and the smallest σ at k = 1000 for the Gaussian and DP-SGD), from empty in-process caches.

    python benchmarks/bench_budget.py
"""

from __future__ import annotations

import math
import os
import tempfile
import time

os.environ["DPVIZ_CACHE_DIR"] = tempfile.mkdtemp(prefix="bench-budget-")  # no chart read from a disk cache
os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

from scipy import optimize  # noqa: E402

from dpviz import caches, calibrate, registry  # noqa: E402
from dpviz.budget import accountants as acc  # noqa: E402
from dpviz.budget.releases import (  # noqa: E402
    Release,
    gaussian_mu,
    gdp_epsilon,
    pure_composition_delta,
    pure_composition_epsilon,
)


def _cpu(f, repeat: int = 1) -> tuple[float, object]:
    start = time.process_time()
    for _ in range(repeat):
        out = f()
    return (time.process_time() - start) / repeat, out


def _by_brent(eps0: float, k: int, delta: float) -> float:
    """The first version: Brent's method on the binomial sum δ(ε) over [0, kε₀]."""
    if pure_composition_delta(eps0, k, 0.0) <= delta:
        return 0.0
    return optimize.brentq(lambda e: pure_composition_delta(eps0, k, e) - delta, 0.0, k * eps0, xtol=1e-12)


DELTAS = (1e-12, 1e-9, 1e-5, 1e-3, 0.1, 0.5)


def _library_readings(release: Release, k: int, interval: float) -> list[float]:
    """dp-accounting's own route: its PLD of one release, composed, read at each of DELTAS."""
    from dp_accounting.pld import privacy_loss_distribution as lib

    if release.kind == "laplace":
        one = lib.from_laplace_mechanism(1 / release.epsilon0, value_discretization_interval=interval)
    else:
        one = lib.from_gaussian_mechanism(
            release.sigma, sampling_prob=release.q, value_discretization_interval=interval
        )
    composed = one.self_compose(k)
    return [composed.get_epsilon_for_delta(d) for d in DELTAS]


def main() -> None:
    """Print the three tables."""
    from dpviz.budget.kernels import compile_now

    compile_now()  # (numba's cache read, or the loop compiled: once per process, not per answer)
    print("optimal composition, ε₀ = 0.1, δ = 1e-5: CPU-ms per answer")
    print(f"{'k':>8} {'Brent (before)':>15} {'pass (now)':>15} {'ratio':>8} {'|Δε|':>10}")
    for k in (100, 1000, 10_000, 100_000):
        before, a = _cpu(lambda k=k: _by_brent(0.1, k, 1e-5), 3)
        now, b = _cpu(lambda k=k: pure_composition_epsilon(0.1, k, 1e-5), 300)
        print(f"{k:>8} {before * 1e3:>15.3f} {now * 1e3:>15.4f} {before / now:>7.0f}x {abs(a - b):>10.2g}")
    print("\nGaussian σ = 4, δ = 1e-5: the PLD accountant's ε, CPU-s per answer")
    print(f"{'k':>8} {'discretized PLD':>15} {'closed form':>15} {'ratio':>8} {'ε (PLD - exact)':>16}")
    for k in (100, 1000, 10_000, 100_000):
        release = Release("gaussian", sigma=4.0)
        caches.empty_all()
        before, a = _cpu(lambda k=k, r=release: float(acc.composed_pld(r, k).get_epsilon_for_delta(1e-5)))
        now, b = _cpu(lambda k=k: gdp_epsilon(gaussian_mu(4.0, k), 1e-5), 3)
        print(f"{k:>8} {before:>15.4f} {now:>15.4f} {before / now:>7.0f}x {a - b:>16.3g}")
    print("\nLaplace and DP-SGD: a PLD built, composed k times and read at six δ, CPU-s")
    print(f"{'release':>26} {'k':>7} {'dp-accounting':>14} {'dpviz':>8} {'ratio':>7} {'max |Δε|/ε, δ ≥ 1e-9':>21}")
    for release, k in (
        (Release("laplace", epsilon0=0.5), 1000),
        (Release("laplace", epsilon0=0.5), 100_000),
        (Release("subsampled", sigma=1.0, q=0.01), 1000),
        (Release("subsampled", sigma=0.5, q=0.01), 100_000),
    ):
        interval = acc.pld_interval(release, k)
        caches.empty_all()
        before, theirs = _cpu(lambda r=release, k=k, h=interval: _library_readings(r, k, h))
        now, mine = _cpu(lambda r=release, k=k: [acc.composed_pld(r, k).get_epsilon_for_delta(d) for d in DELTAS])
        worst = max(abs(a - b) / max(b, 1e-300) if b else abs(a) for a, b, d in zip(mine, theirs, DELTAS) if d >= 1e-9)
        said = f"{release.kind} " + (
            f"ε₀ = {release.epsilon0:g}" if release.kind == "laplace" else f"σ = {release.sigma:g}, q = {release.q:g}"
        )
        print(f"{said:>26} {k:>7} {before:>14.3f} {now:>8.3f} {before / now:>6.1f}x {worst:>21.1e}")
    print("\nthe page at its defaults, from empty caches: CPU-s")
    for fid in [s.id for s in registry.paper_figures("budget")]:
        caches.empty_all()
        spec = registry.get(fid)
        took, _ = _cpu(lambda spec=spec: spec.table(spec.defaults()))
        print(f"  {fid:<22} {took:7.2f}")
    caches.empty_all()
    took, table = _cpu(lambda: calibrate("budget", epsilon=3, settings={"sigma": 8}))
    ks = ", ".join(f"{m} {int(k)}" for m, k in zip(table["mechanism"], table["k"]))
    print(f"  target epsilon=3 (σ = 8)  {took:7.2f}   largest k: {ks}")
    for settings in ({"k": 1000}, {"mechanism": "subsampled", "q": 0.01, "k": 1000}):
        caches.empty_all()
        took, table = _cpu(lambda s=settings: calibrate("budget", epsilon=3, solve="sigma", settings=s))
        sigmas = ", ".join(
            f"{m} {x:.4g}" for m, x, ok in zip(table["mechanism"], table["sigma"], table["reachable"]) if ok
        )
        said = ", ".join(f"{k} = {v:g}" if not isinstance(v, str) else v for k, v in settings.items())
        print(f"  smallest σ, epsilon=3 ({said})  {took:7.2f}   σ: {sigmas}")
    assert math.isfinite(took)


if __name__ == "__main__":
    main()
