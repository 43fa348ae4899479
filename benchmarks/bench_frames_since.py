"""Benchmark: a page's frames now against the per-position loop as it stood when the issue "live
from the first second" was filed (commit 3426bb4, 2026-11-28: ``spec.table``, then
``figure_dict`` by Plotly's figure objects, then JSON, at every position of the slider's grid).

The issue's ratio is "the present per-position loop" against "the new computation, in the same
run". ``bench_frames.py`` answers the stricter question: today's tables drawn per position by
Plotly against today's route, where both share every speed-up the tables got since (the
simulations' shared draws, HoHo's compiled exact attack, ...). This benchmark runs the code of
the issue's day itself beside today's, in one invocation on one machine, alternating rounds:

- *then*: a git worktree of ``--since`` (made under the system's temporary folder if it is not
  there: ``git worktree add --detach``), its own ``dpviz.frames.compute_frames`` (the
  per-position loop) in a process of its own;
- *now*: this checkout's ``compute_frames``, in a process of its own, set up, loaded and frozen
  as a ready frame worker is (``webui.frames_worker.start``, its pool's initializer, then
  ``webui.frames_worker.ready``), each chart's fast drawing checked
  against Plotly's before the timing, as a worker warming to the page checks it
  (``webui.frames_worker.warm``, ``dpviz.frames.check_drawing``);
- *cold*: the same without those checks: each chart's first set draws its first frame by Plotly
  too (20-40 ms a chart), as a worker not warmed to the page does.

Each process: one core (one BLAS thread), an empty disk cache of its own and no table read from it,
every in-process memo emptied before each chart and slider and the page's prepared state computed
outside the timing (as ``bench_frames.py`` does); CPU-seconds of the process. Charts and sliders
are matched by id and slider name; a chart only one side has is listed, not counted in the page's
ratio. The frames' numbers are not compared across the versions: some simulations draw other
releases now (the same seed, another stream).

    python benchmarks/bench_frames_since.py
    python benchmarks/bench_frames_since.py --pages adept,hoho --rounds 3
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SINCE = "3426bb4"
"""The commit before the issue's first change (9be537c, 2026-11-28 01:58)."""
PAGES = ("adept", "metric", "hoho", "partial")

CHILD = r"""
import json, os, sys, tempfile, time
os.environ["DPVIZ_CACHE_DIR"] = tempfile.mkdtemp(prefix="dpviz-since-cache-")
for k in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[k] = "1"
import plotly.io as pio
from dpviz import caches, registry
from dpviz import params as dpviz_params
from dpviz import tables as dpviz_tables
from dpviz.frames import compute_frames

dpviz_tables.cached_table = lambda figure_id, canonical, compute: compute()
if hasattr(dpviz_tables, "read_shared"):
    dpviz_tables.read_shared = lambda kind, canonical: None
applies = getattr(dpviz_params, "applies", lambda p, values: True)
to_json = lambda d: pio.to_json(d, validate=False)
if os.environ.get("FREEZE"):  # set up, loaded and frozen as a frame worker once ready
    from webui import frames_worker

    getattr(frames_worker, "start", lambda: None)()  # (the pool's initializer: its process settings)
    frames_worker.ready()
for key in sys.argv[1].split(","):
    values = {p.name: p.default for p in registry.page_params(key)}
    sliders = [p for p in registry.page_params(key) if p.slider and applies(p, values)]
    if os.environ.get("WARM"):  # the page's charts checked ahead, as a worker warming to the page does
        from dpviz import frames as dpviz_frames
        for spec in registry.paper_figures(key):
            if spec.live and not spec.on_demand:
                dpviz_frames.check_drawing(spec, values, to_json)
    for spec in registry.paper_figures(key):
        for p in sliders:
            if spec.on_demand or p.name not in {q.name for q in spec.params}:
                continue
            caches.empty_all()
            spec.table(values)
            start = time.process_time()
            made = compute_frames(spec, values, p.name, to_json)
            took = time.process_time() - start
            print(json.dumps({"page": key, "chart": spec.id, "slider": p.name, "frames": len(made.figures),
                              "seconds": took}), flush=True)
"""


def worktree(commit: str) -> Path:
    """A worktree of ``commit`` under the system's temporary folder, named by its short hash (made
    once, kept for later runs; ``bench_frames_vs.py`` uses it too)."""
    sha = subprocess.run(["git", "rev-parse", "--short", commit], cwd=ROOT, capture_output=True, text=True, check=True)
    where = Path(tempfile.gettempdir()) / f"dpviz-since-{sha.stdout.strip()}"
    if not (where / "dpviz").is_dir():
        subprocess.run(["git", "worktree", "add", "--detach", str(where), commit], cwd=ROOT, check=True)
    return where


def child_rows(tree: Path, child: str, argv: list[str], env: dict[str, str]) -> list[dict]:
    """Run the code ``child`` in a process of its own on ``tree`` (its ``PYTHONPATH``), with ``argv``
    and ``env`` added to this one's (``FREEZE`` and ``WARM`` only as given): the JSON lines it prints."""
    env = {k: v for k, v in os.environ.items() if k not in ("FREEZE", "WARM")} | env | {"PYTHONPATH": str(tree)}
    out = subprocess.run(
        [sys.executable, "-c", child, *argv], cwd=tree, env=env, capture_output=True, text=True, check=False
    )
    if out.returncode:
        raise SystemExit(f"the run in {tree} failed:\n{out.stderr[-3000:]}")
    return [json.loads(line) for line in out.stdout.splitlines() if line.startswith("{")]


def _run(tree: Path, pages: str, freeze: bool, warm: bool = False) -> dict[tuple[str, str, str], tuple[int, float]]:
    env = {"FREEZE": "1"} if freeze else {}
    if warm:
        env["WARM"] = "1"
    rows = child_rows(tree, CHILD, [pages], env)
    return {(r["page"], r["chart"], r["slider"]): (r["frames"], r["seconds"]) for r in rows}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--since", default=SINCE)
    ap.add_argument("--pages", default=",".join(PAGES))
    ap.add_argument("--rounds", type=int, default=2, help="then/now pairs, alternating (the best of each is kept)")
    args = ap.parse_args()
    tree = worktree(args.since)
    then: dict = {}
    now: dict = {}
    cold: dict = {}
    sides = (("then", then, tree, False), ("now", now, ROOT, True), ("cold", cold, ROOT, False))
    for r in range(args.rounds):
        for side, runs, where, warm in sides:
            got = _run(where, args.pages, freeze=side != "then", warm=warm)
            for k, (n, s) in got.items():
                best = runs.get(k)
                runs[k] = (n, s if best is None else min(best[1], s))
            print(f"round {r + 1}: {side} ({args.since if side == 'then' else 'this checkout'}) done", flush=True)
    print(
        "\nnow: a worker warmed to the page (its charts' drawings checked against Plotly ahead, as"
        " webui.frames_worker.warm does);\ncold: the same worker not warmed (each chart's first set"
        " draws its first frame by Plotly too)\n"
    )
    head = f"{'chart':24s} {'slider':8s} {'frames then/now':>16s} {'then':>8s} {'now':>8s} {'ratio':>7s}"
    print(head + f" {'cold':>8s} {'ratio':>7s}")
    pages: dict[str, list[float]] = {}
    for key in sorted(set(then) | set(now), key=lambda k: (args.pages.split(",").index(k[0]), k[1], k[2])):
        a, b, c = then.get(key), now.get(key), cold.get(key)
        if a is None or b is None or c is None:
            side = "now" if a is None else "then"
            print(f"{key[1]:24s} {key[2]:8s}  only {side}: {(a or b)[1]:.2f} s ({(a or b)[0]} frames)")
            continue
        total = pages.setdefault(key[0], [0.0, 0.0, 0.0])
        total[0] += a[1]
        total[1] += b[1]
        total[2] += c[1]
        print(
            f"{key[1]:24s} {key[2]:8s} {a[0]:>7d}/{b[0]:<8d} {a[1]:7.2f}s {b[1]:7.2f}s {a[1] / b[1]:6.1f}x"
            f" {c[1]:7.2f}s {a[1] / c[1]:6.1f}x"
        )
    print()
    for key, (a, b, c) in pages.items():
        print(
            f"page {key:8s} CPU-s then {a:6.1f}, now {b:5.1f}: {a / b:5.1f}x; cold {c:5.1f}: {a / c:5.1f}x"
            " (the charts and sliders both have)"
        )


if __name__ == "__main__":
    main()
