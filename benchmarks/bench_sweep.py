"""Benchmark: the same metric-DP sweep with 1 and with 2 local Dask workers (same run).

    python benchmarks/bench_sweep.py            # 60 words x 1000 draws x 14 epsilons on GloVe 6B 50d

Each worker is one process limited to one BLAS thread, so 2 workers use the 2 cores. Prints
words per second for each and the speed-up, and checks the two outputs are identical.
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

import pandas as pd

from dpviz.papers.metric.sweep import load, sweep  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--words", type=int, default=60)
    ap.add_argument("--samples", type=int, default=1000)
    ap.add_argument("--partition-size", type=int, default=5)
    args = ap.parse_args()
    eps = [1, 2, 3, 4, 5, 6, 8, 10, 12, 15, 20, 25, 30, 40]
    results = {}
    with tempfile.TemporaryDirectory() as tmp:
        for workers in (1, 2):
            out = Path(tmp) / f"w{workers}"
            t = time.perf_counter()
            sweep(
                "glove-6b-50d",
                args.words,
                eps,
                args.samples,
                out,
                partition_size=args.partition_size,
                n_workers=workers,
                quiet=True,
            )
            dt = time.perf_counter() - t
            results[workers] = (dt, load(out))
            print(f"{workers} worker(s): {dt:7.1f} s, {args.words / dt:6.2f} words/s (cluster start-up included)")
        pd.testing.assert_frame_equal(results[1][1], results[2][1])
    print(f"speed-up 2 vs 1 workers: {results[1][0] / results[2][0]:.2f} x; outputs identical")


if __name__ == "__main__":
    main()
