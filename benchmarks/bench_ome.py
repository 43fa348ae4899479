"""Benchmark: OME perturbation, vectorised numpy (dpviz.papers.hoho.ome.perturb_ome) against a per-bit loop
like the reference code's (dpviz.papers.hoho.ome.perturb_ome_loop), same run, same bits.

    python benchmarks/bench_ome.py        # 200 sentence encodings x 550 bits
"""

from __future__ import annotations

import time

import numpy as np

from dpviz.papers.hoho import ome


def main() -> None:
    bits = ome.encode(np.random.default_rng(0).uniform(-1, 1, (200, 50)))
    t = time.perf_counter()
    loop = ome.perturb_ome_loop(bits, 10.0, 1.0, np.random.default_rng(1))
    t_loop = time.perf_counter() - t
    best = float("inf")
    for _ in range(5):
        t = time.perf_counter()
        vec = ome.perturb_ome(bits, 10.0, 1.0, np.random.default_rng(2))
        best = min(best, time.perf_counter() - t)
    print(f"{bits.shape[0]} encodings x {bits.shape[1]} bits")
    print(f"per-bit loop : {t_loop * 1e3:9.1f} ms")
    print(f"vectorised   : {best * 1e3:9.2f} ms (best of 5)")
    print(f"speed-up     : {t_loop / best:9.0f} x; share of ones {loop.mean():.4f} vs {vec.mean():.4f}")


if __name__ == "__main__":
    main()
