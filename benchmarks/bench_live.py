"""Benchmark: a live slider moved to a value never computed before, on every page.

For every slider (a parameter with ``slider=True``) the server work until the new tables and
figures exist: every figure of the page that takes the slider, its table (evaluated from the
prepared state) and its Plotly figure, at random slider positions that no run computed before.
Baseline, same run: the same figures computed from scratch at a few of those positions, with
every prepared state and per-process memo emptied and an empty disk cache (what a new slider
value cost before the live split: the whole computation again).

    python benchmarks/bench_live.py                  # 20 positions per slider, 3 baseline positions
    python benchmarks/bench_live.py --positions 40 --pages adept,hoho
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
import time

import numpy as np

from dpviz import caches, registry  # noqa: E402
from dpviz.params import log_grid  # noqa: E402

PAGES = ("adept", "metric", "hoho", "partial")


def fresh() -> None:
    """Nothing prepared: every memo emptied and an empty disk cache."""
    os.environ["DPVIZ_CACHE_DIR"] = tempfile.mkdtemp(prefix="dpviz-bench-")
    caches.empty_all()  # every declared process cache: states, loaded data, formula analyses, views


def positions(p, n: int, rng: np.random.Generator) -> list:
    if p.kind == "int":
        grid = [x for x in range(int(p.min), int(p.max) + 1) if x != p.default]
    else:
        grid = [x for x in log_grid(float(p.min), float(p.max)) if x != p.default]
    return [grid[i] for i in rng.choice(len(grid), size=min(n, len(grid)), replace=False)]


def move(specs, values) -> float:
    t = time.perf_counter()
    for spec in specs:
        own = {q.name: values[q.name] for q in spec.params}
        spec.draw(spec.table(own), own)
    return time.perf_counter() - t


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--positions", type=int, default=20)
    ap.add_argument("--baseline", type=int, default=3, help="positions computed from scratch for the baseline")
    ap.add_argument("--pages", default=",".join(PAGES))
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    rng = np.random.default_rng(args.seed)
    print(
        f"{'page':8} {'slider':10} {'figures':>7} {'median ms':>10} {'p95 ms':>8} {'max ms':>8} {'scratch ms':>11} "
        f"{'ratio':>7}"
    )
    for page in args.pages.split(","):
        params = registry.page_params(page)
        defaults = {p.name: p.default for p in params}
        for p in (q for q in params if q.slider):
            specs = [s for s in registry.all_figures() if s.page == page and p.name in {q.name for q in s.params}]
            specs = [s for s in specs if not s.on_demand]  # a button runs those, not the slider
            move(specs, defaults)  # prepared once, as a visitor's first view does
            times = [move(specs, dict(defaults, **{p.name: x})) for x in positions(p, args.positions, rng)]
            scratch = []
            for x in positions(p, args.baseline, rng):
                fresh()
                scratch.append(move(specs, dict(defaults, **{p.name: x})))
            fresh()
            move(specs, defaults)  # back to a warm state for the next slider
            med, p95 = statistics.median(times), float(np.percentile(times, 95))
            base = statistics.median(scratch)
            print(
                f"{page:8} {p.name:10} {len(specs):7d} {1e3 * med:10.1f} {1e3 * p95:8.1f} {1e3 * max(times):8.1f} "
                f"{1e3 * base:11.0f} {base / med:6.0f}x"
            )


if __name__ == "__main__":
    main()
