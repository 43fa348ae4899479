"""Benchmark: ADePT Figure 1 at full fidelity, dpviz's engine vs. a straightforward loop.

Both in the same run, same parameters (n = 1..255, 10,000 independent pairs per point,
C = 10, four distributions). The baseline is the reference script's approach: for every
dimension, fresh pairs, clip, sum |difference| (`dpviz.papers.adept.sensitivity.violation_rates_loop`).
Prints both times, the speed-up ratio, and the largest per-point disagreement in
standard errors (the two use independent draws, so they agree statistically, not bitwise).

    python benchmarks/bench_violations.py            # full fidelity
    python benchmarks/bench_violations.py --quick    # n = 1..120, 3,000 pairs
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from dpviz.papers.adept import sensitivity as adept


def best_of(k: int, fn):
    times, out = [], None
    for _ in range(k):
        t = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t)
    return min(times), out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--repeats", type=int, default=3, help="repeats of the fast engine (best taken)")
    args = ap.parse_args()
    dims = range(1, 121 if args.quick else 256)
    pairs = 3000 if args.quick else 10_000
    t_fast, fast = best_of(args.repeats, lambda: adept.violation_rates(dims, pairs, 10.0, seed=1))
    t_loop, loop = best_of(1, lambda: adept.violation_rates_loop(dims, pairs, 10.0, seed=2))
    a = fast.set_index(["dim", "distribution"])["violation_rate"]
    b = loop.set_index(["dim", "distribution"])["violation_rate"]
    pooled = (a + b) / 2
    z = ((a - b).abs() / np.sqrt(np.maximum(pooled * (1 - pooled), 1 / pairs) * 2 / pairs)).max()
    print(f"points: {len(a)} ({len(dims)} dims x 4 distributions), {pairs:,} pairs each")
    print(f"straightforward loop : {t_loop:8.2f} s")
    print(f"dpviz engine         : {t_fast:8.2f} s  (best of {args.repeats})")
    print(f"speed-up             : {t_loop / t_fast:8.1f} x")
    print(f"largest disagreement : {z:8.2f} standard errors (independent draws)")


if __name__ == "__main__":
    main()
