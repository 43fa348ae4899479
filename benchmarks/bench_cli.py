"""Benchmark: how fast the command line starts and answers, against baselines in the same run.

1. ``python -m dpviz figure --list`` against ``python -c "import numpy, pandas"`` (the least any
   dpviz command imports); target: at most 2x.
2. The whole command-line run of ADePT's Figure 1 (``python -m dpviz figure adept-violations --out
   fig1.csv``: n = 1..255, 10,000 pairs per point, four distributions; a fresh process and an empty
   disk cache each time) against the straightforward per-dimension simulation the paper's reference
   script does (fresh pairs per n, clip, sum |difference|:
   ``dpviz.papers.adept.sensitivity.violation_rates_loop``, in its own process, imports included);
   target: at most 1/20.

Each command runs ``--repeats`` times, interleaved; medians are compared.

    python benchmarks/bench_cli.py [--repeats 5]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
LOOP = (
    "from dpviz.papers.adept import sensitivity as s; "
    "s.violation_rates_loop(range(1, 256), 10_000, 10.0, seed=0).to_csv('{out}', index=False)"
)


def timed(cmd: list[str], env: dict) -> float:
    start = time.perf_counter()
    subprocess.run(cmd, cwd=ROOT, env=env, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.perf_counter() - start


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--loop-repeats", type=int, default=2, help="runs of the slow straightforward simulation")
    args = ap.parse_args()
    py = sys.executable
    times: dict[str, list[float]] = {"numpy+pandas": [], "--list": [], "figure 1 CLI": [], "loop": []}
    with tempfile.TemporaryDirectory() as tmp:
        for k in range(args.repeats):
            env = dict(os.environ, DPVIZ_CACHE_DIR=str(Path(tmp) / f"cache{k}"))  # an empty disk cache every time
            times["numpy+pandas"].append(timed([py, "-c", "import numpy, pandas"], env))
            times["--list"].append(timed([py, "-m", "dpviz", "figure", "--list"], env))
            times["figure 1 CLI"].append(
                timed(
                    [py, "-m", "dpviz", "figure", "adept-violations", "--quiet", "--out", str(Path(tmp) / "fig1.csv")],
                    env,
                )
            )
            if k < args.loop_repeats:
                times["loop"].append(timed([py, "-c", LOOP.format(out=Path(tmp) / "loop.csv")], env))
    med = {k: statistics.median(v) for k, v in times.items()}
    for k, v in times.items():
        print(f"{k:<14} median {med[k]:6.2f} s  (runs: {', '.join(f'{x:.2f}' for x in v)})")
    print(f"--list / (import numpy, pandas): {med['--list'] / med['numpy+pandas']:.2f}x   (target <= 2)")
    print(f"figure 1 CLI / straightforward simulation: 1/{med['loop'] / med['figure 1 CLI']:.1f}   (target <= 1/20)")


if __name__ == "__main__":
    main()
