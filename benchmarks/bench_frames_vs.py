"""Benchmark: a page's frames computed by this checkout against another commit's, A/B, in
alternating processes: the ratio of one change (or of a session's changes) to the frames' cost,
where ``bench_frames_since.py`` compares against the issue's day.

Each process: one core (one BLAS thread), an empty disk cache of its own and no table read from
it, set up and loaded as a ready frame worker is (``webui.frames_worker.start``, its pool's
initializer, then ``webui.frames_worker.ready``); for every chart and slider
of the page, ``compute_frames`` timed ``--repeats`` times from emptied memos (the page's prepared
state computed outside the timing), the first timing dropped (it includes the chart's one check of
its drawing against Plotly's, made ahead by a warmed worker) and the best of the rest kept. The
other commit runs from a git worktree (made under the system's temporary folder if it is not
there). The frames themselves are compared by the tests, not here.

    python benchmarks/bench_frames_vs.py --vs d41c8af --pages metric
    python benchmarks/bench_frames_vs.py --vs HEAD~3 --pages adept,metric --rounds 3
"""

from __future__ import annotations

import argparse
from pathlib import Path

from bench_frames_since import ROOT, child_rows, worktree

CHILD = r"""
import json, os, sys, tempfile, time
os.environ["DPVIZ_CACHE_DIR"] = tempfile.mkdtemp(prefix="dpviz-vs-cache-")
for k in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[k] = "1"
import plotly.io as pio
from dpviz import caches, registry
from dpviz import tables as dpviz_tables
from dpviz.frames import compute_frames
from webui import frames_worker

dpviz_tables.cached_table = lambda figure_id, canonical, compute: compute()
dpviz_tables.read_shared = lambda kind, canonical: None
to_json = lambda d: pio.to_json(d, validate=False)
getattr(frames_worker, "start", lambda: None)()  # (the pool's initializer: its process settings)
frames_worker.ready()
repeats = int(sys.argv[2])
for key in sys.argv[1].split(","):
    values = {p.name: p.default for p in registry.page_params(key)}
    sliders = [p for p in registry.page_params(key) if p.slider]
    for spec in registry.paper_figures(key):
        for p in sliders:
            if spec.on_demand or p.name not in {q.name for q in spec.params}:
                continue
            times = []
            for _ in range(repeats):
                caches.empty_all()
                spec.table(values)
                start = time.process_time()
                compute_frames(spec, values, p.name, to_json)
                times.append(time.process_time() - start)
            print(json.dumps({"page": key, "chart": spec.id, "slider": p.name, "seconds": min(times[1:])}), flush=True)
"""


def _run(tree: Path, pages: str, repeats: int) -> dict[tuple[str, str, str], float]:
    rows = child_rows(tree, CHILD, [pages, str(repeats)], {})
    return {(r["page"], r["chart"], r["slider"]): r["seconds"] for r in rows}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--vs", required=True, help="the commit to compare with")
    ap.add_argument("--pages", default="adept,metric,hoho,partial")
    ap.add_argument("--rounds", type=int, default=2, help="vs/now pairs, alternating (the best of each is kept)")
    ap.add_argument("--repeats", type=int, default=4, help="timings per chart and slider in a process (>= 2)")
    args = ap.parse_args()
    if args.repeats < 2:
        raise SystemExit("--repeats must be at least 2 (the first timing is dropped)")
    tree = worktree(args.vs)
    best: dict[str, dict] = {"vs": {}, "now": {}}
    for r in range(args.rounds):
        for side, where in (("vs", tree), ("now", ROOT)):
            for k, s in _run(where, args.pages, args.repeats).items():
                best[side][k] = min(s, best[side].get(k, s))
            print(f"round {r + 1}: {side} done", flush=True)
    print(f"\n{'chart':24s} {'slider':8s} {args.vs:>10s} {'now':>8s} {'ratio':>7s}")
    pages: dict[str, list[float]] = {}
    for key in sorted(set(best["vs"]) & set(best["now"]), key=lambda k: (args.pages.split(",").index(k[0]), k[1:])):
        a, b = best["vs"][key], best["now"][key]
        total = pages.setdefault(key[0], [0.0, 0.0])
        total[0] += a
        total[1] += b
        print(f"{key[1]:24s} {key[2]:8s} {a:9.3f}s {b:7.3f}s {a / b:6.2f}x")
    for key in sorted(set(best["vs"]) ^ set(best["now"])):
        print(f"{key[1]:24s} {key[2]:8s} on one side only")
    print()
    for key, (a, b) in pages.items():
        print(f"page {key:8s} CPU-s {args.vs} {a:6.3f}, now {b:6.3f}: {a / b:5.2f}x")


if __name__ == "__main__":
    main()
