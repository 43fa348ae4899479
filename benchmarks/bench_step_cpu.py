"""Benchmark: the CPU a page's frames cost right after a step of another slider, in one process with
everything loaded, the present code against a baseline commit in the same run (issue: live from the
first second).

For each page and pair of sliders (A stepped, B followed): the page's charts' frames along B (every
chart with B among its settings, as the page and ``dpviz build`` compute them) at the
defaults are computed first in an empty cache (the warm-up: imports, compiled loops, prepared
states, the frontiers' curves, as a frame worker holds them after ``dpviz build``), then A is set to
its next position and each chart's frames along B are computed again, timed in CPU seconds per
chart: what the frame workers do before a reader can drag B after pressing A. The baseline is
the same script on a checkout of ``--baseline`` (a git worktree in a temporary folder), run in a
process of its own on the same interpreter.

    python benchmarks/bench_step_cpu.py --baseline 3c528a9
    python benchmarks/bench_step_cpu.py --baseline 3c528a9 --pairs hoho:epsilon:lambda_ --repeat 3

``--repeat N`` runs each side N times, alternating baseline and present, and reports each chart's
least CPU time (this machine's CPU time for the same work varies by up to 30% from run to run).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PAIRS = ("hoho:epsilon:lambda_", "hoho:lambda_:epsilon", "adept:dim:epsilon", "partial:sigma:alpha")
"""page:the slider stepped:the slider whose frames are timed."""

MEASURE = r"""
import json, sys, time
from dpviz import registry
from dpviz.params import log_grid, int_grid
from webui import frames_store, widgets  # noqa: F401 - (loaded before the clock, as in a worker)
page, moved, slider = sys.argv[1:4]
vals = {p.name: p.default for p in registry.page_params(page)}
specs = [s for s in registry.paper_figures(page) if slider in {q.name for q in s.params} and not s.on_demand]
for spec in specs:
    frames_store.compute_bytes(spec, {p.name: vals[p.name] for p in spec.params}, slider)
p = next(q for q in registry.page_params(page) if q.name == moved)
grid = frames_store.grid(next(s for s in registry.paper_figures(page) if moved in {q.name for q in s.params}), moved)
vals[moved] = next(g for g in grid if g > vals[moved])
out = {}
for spec in specs:
    t = time.process_time()
    frames_store.compute_bytes(spec, {p.name: vals[p.name] for p in spec.params}, slider)
    out[spec.id] = time.process_time() - t
print(json.dumps({"to": vals[moved], "charts": out}))
"""


def _run(tree: Path, pair: str) -> dict:
    page, moved, slider = pair.split(":")
    with tempfile.TemporaryDirectory(prefix="dpviz-step-cpu-") as cache:
        env = dict(os.environ, DPVIZ_CACHE_DIR=cache, PYTHONPATH=str(tree))
        out = subprocess.run(
            [sys.executable, "-c", MEASURE, page, moved, slider],
            cwd=tree, env=env, capture_output=True, text=True, check=True,
        )  # fmt: skip
    return json.loads(out.stdout.strip().splitlines()[-1])


def _least(runs: list[dict]) -> dict:
    """One side's runs as one: each chart's least CPU time."""
    charts = {c: min(r["charts"][c] for r in runs) for c in runs[0]["charts"]}
    return {"to": runs[0]["to"], "charts": charts}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--baseline", required=True, help="the commit to compare against")
    ap.add_argument("--pairs", default=",".join(PAIRS), help="page:stepped:followed, comma-separated")
    ap.add_argument("--repeat", type=int, default=1, help="runs of each side; each chart's least time is reported")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="dpviz-baseline-") as tmp:
        base = Path(tmp) / "tree"
        subprocess.run(["git", "worktree", "add", "-q", "--detach", str(base), args.baseline], cwd=ROOT, check=True)
        try:
            for pair in args.pairs.split(","):
                runs = [(_run(base, pair), _run(ROOT, pair)) for _ in range(max(1, args.repeat))]
                old, new = (_least([r[side] for r in runs]) for side in (0, 1))
                page, moved, slider = pair.split(":")
                print(f"{page}: {moved} stepped to {new['to']:g}, frames along {slider} (CPU-s, baseline / now):")
                for chart, now in new["charts"].items():
                    before = old["charts"].get(chart, float("nan"))
                    print(f"  {chart:28s} {before:6.2f} / {now:5.2f}  ({before / max(now, 1e-9):.2f}x)")
                a, b = sum(old["charts"].values()), sum(new["charts"].values())
                print(f"  {'every chart':28s} {a:6.2f} / {b:5.2f}  ({a / max(b, 1e-9):.2f}x)", flush=True)
        finally:
            subprocess.run(["git", "worktree", "remove", "--force", str(base)], cwd=ROOT, check=False)


if __name__ == "__main__":
    main()
