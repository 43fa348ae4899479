"""Benchmark: ADePT's privacy-loss chart along its ε slider, on one core, each route against its
baseline in the same run:

- the simulated histograms at every position of the ε slider (97), the other settings at the
  page's defaults (100,000 releases) and at n = 65 (a step of n) and 1024: each position alone
  (:func:`dpviz.papers.adept.privacy_loss.privacy_loss_histogram`, what a server run does)
  against all of them from one set of draws (``privacy_loss_histograms``, what the frames use),
  checked equal table by table;
- the bounds on P[L > ε] in the chart's title at every position: the FFT of the lattice (the
  route before, ``bounds_by_fft``)
  against the closed form (:mod:`dpviz.papers.adept.loss_bounds`), the largest difference shown;
- along the n slider (53 positions) at ε = 0.1, 1 and 10: the histograms at each n alone against
  all of them from one set of coins and exponentials (``privacy_loss_histograms_along_dim``),
  checked equal table by table, and the bounds at every n.

    python benchmarks/bench_adept_loss.py
"""

from __future__ import annotations

import os
import time

os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

from dpviz import registry  # noqa: E402
from dpviz.frames import slider_grid  # noqa: E402
from dpviz.papers.adept import privacy_loss as pl  # noqa: E402
from dpviz.papers.adept.loss_bounds import _frequencies, bounds_by_fft, exceed_probability_bounds  # noqa: E402


def _cpu(f):
    start = time.process_time()
    out = f()
    return time.process_time() - start, out


def main() -> None:
    import dpviz.papers.adept.figures  # noqa: F401 - registers the chart

    spec = registry.get("adept-privacy-loss")
    v = spec.defaults()
    grid = slider_grid(spec.param("epsilon"))
    print(f"adept-privacy-loss along ε ({len(grid)} positions), {v['samples']:,} releases: CPU-s of one core")
    print(
        f"{'n':>5} {'histograms alone':>17} {'together':>9} {'ratio':>6} {'same':>5}"
        f" {'bounds FFT':>11} {'closed':>7} {'ratio':>6} {'max |Δ|':>8}"
    )
    for n in (64, 65, 1024):
        alone_s, alone = _cpu(
            lambda n=n: [pl.privacy_loss_histogram(n, v["clip"], e, v["samples"], v["seed"]) for e in grid]
        )
        along_s, along = _cpu(lambda n=n: pl.privacy_loss_histograms(n, v["clip"], grid, v["samples"], v["seed"]))
        same = all(a.equals(b) for a, b in zip(alone, along))
        fft_s, fft = _cpu(lambda n=n: [bounds_by_fft(n, e) for e in grid])
        _frequencies.cache_clear()
        closed_s, closed = _cpu(lambda n=n: [exceed_probability_bounds(n, e) for e in grid])
        worst = max(abs(x - y) for p, q in zip(fft, closed) for x, y in zip(p, q))
        print(
            f"{n:5d} {alone_s:16.2f}s {along_s:8.2f}s {alone_s / along_s:5.1f}x {str(same):>5}"
            f" {fft_s:10.2f}s {closed_s:6.2f}s {fft_s / closed_s:5.1f}x {worst:8.1e}",
            flush=True,
        )
    dims = slider_grid(spec.param("dim"))
    print(f"\nalong n ({len(dims)} positions), {v['samples']:,} releases: the histograms, each n alone against")
    print("all n from one set of coins and exponentials; the title's bounds at every n (their frequencies made per n)")
    print(f"{'ε':>6} {'histograms alone':>17} {'together':>9} {'ratio':>6} {'same':>5} {'bounds':>8}")
    for eps in (0.1, 1.0, 10.0):
        alone_s, alone = _cpu(
            lambda eps=eps: [pl.privacy_loss_histogram(n, v["clip"], eps, v["samples"], v["seed"]) for n in dims]
        )
        along_s, along = _cpu(
            lambda eps=eps: pl.privacy_loss_histograms_along_dim(dims, v["clip"], eps, v["samples"], v["seed"])
        )
        same = all(a.equals(b) for a, b in zip(alone, along))
        _frequencies.cache_clear()
        bounds_s, _ = _cpu(lambda eps=eps: [exceed_probability_bounds(n, eps) for n in dims])
        print(
            f"{eps:6g} {alone_s:16.2f}s {along_s:8.2f}s {alone_s / along_s:5.1f}x {str(same):>5} {bounds_s:7.2f}s",
            flush=True,
        )


if __name__ == "__main__":
    main()
